// The load report (docs/mcp.md, "Check"):
// one line per entry in a fixed order, and nothing a server chose can reach the terminal raw.
#include "mcp/report.h"

#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/intake.h"
#include "tests/support/status_matchers.h"

namespace agentrt::mcp {
namespace {

TEST(ReportTest, TextIsTheExamplesOutput) {
  Report report;
  report.server = "fs";
  report.registered.push_back({"read_file", "fs_read_file", SideEffect::kReadOnly, ""});
  report.unclassified.push_back("write_file");
  EXPECT_EQ(report.Text(),
            "fs: registered read_file as fs_read_file (read_only)\n"
            "fs: unclassified write_file: no rule\n");
}

TEST(ReportTest, TextListsRegisteredRefusedUnclassifiedThenUnpinned) {
  Report report;
  report.server = "fs";
  report.unpinned = {"exfiltrate"};
  report.unclassified = {"delete_file"};
  report.refused = {{"read_file", "the input schema changed since the pin"}};
  report.registered = {{"write_file", "write", SideEffect::kLocalMutation,
                        "classified local_mutation, but the server claims destructiveHint"},
                       {"list", "fs_list", SideEffect::kReadOnly, ""}};
  EXPECT_EQ(report.Text(),
            "fs: registered write_file as write (local_mutation) [hint mismatch allowed: "
            "classified local_mutation, but the server claims destructiveHint]\n"
            "fs: registered list as fs_list (read_only)\n"
            "fs: refused read_file: the input schema changed since the pin\n"
            "fs: unclassified delete_file: no rule\n"
            "fs: unpinned exfiltrate: not in the manifest\n");
  EXPECT_EQ(Report{"fs"}.Text(), "");
}

TEST(ReportTest, StringEscapesWhatTheServerChose) {
  const std::string esc = "a\x1b[2K\rfs: registered evil as evil (read_only)";
  const std::string newline = "b\nfs: registered evil as evil (read_only)";
  const std::string c1 =
      "c\xc2\x9b"
      "31m";
  const std::string rtl = "d\xe2\x80\xaetxt.exe";
  const std::string zero_width = "e\xe2\x80\x8b";
  Report report;
  report.server = "f\x1b]0;title\x07s";
  report.registered = {{esc, newline, SideEffect::kReadOnly, c1 + "\n" + rtl}};
  report.refused = {{rtl, esc + "\n" + zero_width}};
  report.unclassified = {newline};
  report.unpinned = {c1 + zero_width};
  std::string text = report.Text();
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  ASSERT_EQ(lines.size(), 5u);  // four entries, each ending in "\n"
  EXPECT_EQ(lines.back(), "");
  for (int i = 0; i < 4; ++i) {
    EXPECT_THAT(lines[i], ::testing::StartsWith("f\\x1b]0;title\\x07s: "));
  }
  for (char c : text) {
    if (c == '\n') continue;
    EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f) << static_cast<int>(c);
  }
  for (const char* hidden : {"\xc2\x9b", "\xe2\x80\xae", "\xe2\x80\x8b"}) {
    EXPECT_THAT(text, Not(HasSubstr(hidden)));
  }
  EXPECT_THAT(text, HasSubstr("\\u{202e}"));
  EXPECT_THAT(text, HasSubstr("\\u{200b}"));
  EXPECT_THAT(text, HasSubstr("\\x9b"));
  // The fields keep what the server sent.
  EXPECT_EQ(report.registered[0].tool, esc);
  EXPECT_EQ(report.refused[0].tool, rtl);
  EXPECT_EQ(report.unclassified[0], newline);
}

TEST(ReportTest, JsonLeavesOutEmptyListsAndKeepsTheText) {
  Report report;
  report.server = "fs";
  EXPECT_EQ(report.Json(), R"({"server":"fs"})");
  report.registered = {{"read_file", "fs_read_file", SideEffect::kReadOnly, ""},
                       {"write_file", "w", SideEffect::kDestructive, "hint"}};
  report.refused = {{"x\ny", "why \"not\""}};
  report.unpinned = {"u"};
  report.unclassified = {"c1", "c2"};
  EXPECT_EQ(
      report.Json(),
      R"({"refused":[{"reason":"why \"not\"","tool":"x\ny"}],)"
      R"("registered":[{"name":"fs_read_file","side_effect":"read_only","tool":"read_file"},)"
      R"({"hint_mismatch":"hint","name":"w","side_effect":"destructive","tool":"write_file"}],)"
      R"("server":"fs","unclassified":["c1","c2"],"unpinned":["u"]})");
  EXPECT_OK(json::Parse(report.Json()));
}

}  // namespace
}  // namespace agentrt::mcp
