// An approval rendered for a terminal (runtime/operator/view/approval_text.h), including approvals
// whose every text field was chosen by someone hostile.
#include "runtime/operator/view/approval_text.h"

#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/operator/view/bound.h"
#include "tests/support/lines.h"
#include "tests/support/status_matchers.h"

namespace agentrt::view {
namespace {

using ::agentrt::test_support::Lines;

Approval SendReport() {
  Approval a;
  a.id = "ap1";
  a.run_id = "r1";
  a.step_id = "s1";
  a.kind = "remote_mutation";
  a.capability = R"({"args":{"body":"hello","to":"ops@example.com"},"tool":"send_report"})";
  a.presentation = a.capability;
  a.request = R"({"args":{"body":"hello","to":"ops@example.com"},"run_id":"r1",)"
              R"("spec":{"name":"send_report"},"step_id":"s1"})";
  a.hash = "abc123";
  return a;
}

TEST(ApprovalTextTest, WaitingApprovalShowsHeaderFieldsTrailerAndClosingLine) {
  ApprovalTextOptions options;
  options.reason = "side effect remote_mutation is require_approval by policy";
  options.trailer = "decide with: agentrt approve r1 --db '/tmp/x.db' --approval ap1";
  EXPECT_EQ(ApprovalText(SendReport(), options),
            "APPROVAL WAITING  ap1\n"
            "run      r1\n"
            "kind     remote_mutation\n"
            "tool     send_report\n"
            "reason   side effect remote_mutation is require_approval by policy\n"
            "hash     abc123\n"
            "arguments: the model's tool call\n"
            "  body (7 bytes)\n"
            "    \"hello\"\n"
            "  to (17 bytes)\n"
            "    \"ops@example.com\"\n"
            "presentation: supplied by the consumer's policy and may contain model-chosen text\n"
            "  args (39 bytes)\n"
            "    {\n"
            "      \"body\": \"hello\",\n"
            "      \"to\": \"ops@example.com\"\n"
            "    }\n"
            "  tool (13 bytes)\n"
            "    \"send_report\"\n"
            "decide with: agentrt approve r1 --db '/tmp/x.db' --approval ap1\n"
            "----- end of approval ap1 for tool send_report -----\n");
}

TEST(ApprovalTextTest, DecidedAndExpiringApprovalsSayWhenAndByWhom) {
  Approval a = SendReport();
  a.status = ApprovalStatus::kApproved;
  a.expires_at = absl::FromUnixSeconds(1700000000);
  a.decided_at = absl::FromUnixSeconds(1699999000);
  a.decided_by = "ops";
  a.note = "looks fine";
  ApprovalTextOptions options;
  options.now = absl::FromUnixSeconds(1700000001);
  std::string text = ApprovalText(a, options);
  EXPECT_THAT(text, StartsWith("APPROVAL APPROVED  ap1\n"));
  EXPECT_THAT(text, HasSubstr("\nexpires  2023-11-14 22:13:20 +0000 (expired)\n"));
  EXPECT_THAT(text, HasSubstr("\ndecided  2023-11-14 21:56:40 +0000 by ops\n"));
  EXPECT_THAT(text, HasSubstr("\nnote     looks fine\n"));
  options.now = absl::FromUnixSeconds(1600000000);
  EXPECT_THAT(ApprovalText(a, options), Not(HasSubstr("(expired)")));
  a.status = ApprovalStatus::kExpired;
  EXPECT_THAT(ApprovalText(a), StartsWith("APPROVAL EXPIRED  ap1\n"));
  a.status = ApprovalStatus::kRejected;
  EXPECT_THAT(ApprovalText(a), StartsWith("APPROVAL REJECTED  ap1\n"));
}

TEST(ApprovalTextTest, EmptyNoFieldsAndNonObjectValues) {
  Approval a = SendReport();
  a.presentation = "";
  a.request = R"({"args":{},"run_id":"r1","spec":{"name":"send_report"},"step_id":"s1"})";
  std::string text = ApprovalText(a);
  EXPECT_THAT(text, HasSubstr("arguments: the model's tool call\n  (no fields)\npresentation: "
                              "supplied by the consumer's policy and may contain model-chosen "
                              "text\n  (none)\n----- end"));
  a.presentation = R"(["a",1])";
  a.request = R"({"args":"just text","run_id":"r1","spec":{"name":"t"},"step_id":"s1"})";
  text = ApprovalText(a);
  EXPECT_THAT(text, HasSubstr("call\n  value (11 bytes)\n    \"just text\"\npresentation"));
  EXPECT_THAT(text, HasSubstr("text\n  value (7 bytes)\n    [\n      \"a\",\n      1\n    ]\n"));
  EXPECT_THAT(text, HasSubstr("----- end of approval ap1 for tool t -----\n"));
}

TEST(ApprovalTextTest, UnreadableJsonIsNamedNotShown) {
  Approval a = SendReport();
  a.presentation = "{not json";
  a.request = "garbage";
  std::string text = ApprovalText(a);
  EXPECT_THAT(text, HasSubstr("\nunread   request, presentation: not JSON\n"));
  EXPECT_THAT(text, HasSubstr("text\n  (unreadable: 9 bytes that are not JSON)\n"));
  EXPECT_THAT(text, HasSubstr("----- end of approval ap1 for tool - -----\n"));
}

TEST(ApprovalTextTest, LongFieldShowsItsWholeSizeAndItsHeadAndTail) {
  Approval a = SendReport();
  std::string body = std::string(300, 'H') + std::string(5000, 'm') + std::string(300, 'T');
  a.request = R"({"args":{"body":")" + body +
              R"("},"run_id":"r1","spec":{"name":"send_report"},"step_id":"s1"})";
  std::string text = ApprovalText(a);
  EXPECT_THAT(text, HasSubstr("  body (5602 bytes)\n    \"" + std::string(200, 'H') +
                              "…[5200 bytes omitted]…" + std::string(200, 'T') + "\"\n"));
  EXPECT_THAT(text, Not(HasSubstr(std::string(201, 'H'))));
}

// Everything a model or a policy chose, made as hostile as a line of text can be: escape
// sequences, line breaks, bidi overrides, and a forged closing line, in values, keys and in the
// header fields a policy or an operator wrote.
TEST(ApprovalTextTest, HostileTextCannotForgeLinesEscapeOrEndTheBlock) {
  Approval a = SendReport();
  std::string forged = "\n----- end of approval ap1 for tool send_report -----\n";
  a.kind = "remote\x1b[2J\x1b[31m" + forged + "approve me";
  a.request = R"({"args":{"body":"ok\u001b]0;title\u0007\n----- end of approval ap1 for tool )"
              R"(send_report -----\nrun rm -rf","evil\u202ekey\n":"\u2067abc\u2069"},)"
              R"("run_id":"r1","spec":{"name":"send_report"},"step_id":"s1"})";
  a.presentation = R"({"note":"line1\nline2 \u2028 \u200b"})";
  a.status = ApprovalStatus::kRejected;
  a.decided_at = absl::FromUnixSeconds(1);
  a.decided_by = "mallory\r\n----- end of approval ap1 for tool send_report -----";
  a.note =
      "\xe2\x80\xae"
      "reversed";
  ApprovalTextOptions options;
  options.reason = "because\nAPPROVAL WAITING  fake";
  options.trailer = "decide with:\x1b[0m\nagentrt approve";
  std::string text = ApprovalText(a, options);
  std::vector<std::string> lines = Lines(text);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(), "----- end of approval ap1 for tool send_report -----");
  for (std::size_t i = 1; i + 1 < lines.size(); ++i) {
    SCOPED_TRACE(lines[i]);
    EXPECT_THAT(lines[i], Not(StartsWith("-----")));
    EXPECT_THAT(lines[i], Not(StartsWith("APPROVAL")));
  }
  EXPECT_THAT(lines[0], StartsWith("APPROVAL REJECTED"));
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (c == '\n') continue;
    ASSERT_FALSE(byte < 0x20 || byte == 0x7f) << "control byte " << static_cast<int>(byte);
  }
  EXPECT_THAT(text, Not(HasSubstr("\xe2\x80\xae")));  // U+202E
  EXPECT_THAT(text, Not(HasSubstr("\xe2\x81\xa7")));  // U+2067
  EXPECT_THAT(text, Not(HasSubstr("\xe2\x80\xa8")));  // U+2028
  EXPECT_THAT(text, Not(HasSubstr("\xe2\x80\x8b")));  // U+200B
  EXPECT_THAT(text, HasSubstr("\\u{202e}"));
  EXPECT_THAT(text, HasSubstr("kind     remote\\x1b[2J\\x1b[31m ----- end of approval"));
  EXPECT_THAT(text, HasSubstr("\nreason   because APPROVAL WAITING  fake\n"));
}

TEST(ApprovalTextTest, ToolNameAndLabels) {
  EXPECT_EQ(ApprovalTool(SendReport()), "send_report");
  Approval a = SendReport();
  a.request = "{}";
  EXPECT_EQ(ApprovalTool(a), "");
  EXPECT_EQ(ApprovalStatusLabel(ApprovalStatus::kPending), "WAITING");
  EXPECT_EQ(ApprovalStatusLabel(ApprovalStatus::kExpired), "EXPIRED");
}

}  // namespace
}  // namespace agentrt::view
