// The tool listing read from raw tools/list results (docs/mcp.md, "Pin"): exact keys, literal
// numbers, strict intake, and the bounds on pages, tools and cursors. Server-chosen text in errors
// is always quoted.
#include "mcp/listing.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sha256.h"
#include "tests/support/status_matchers.h"

namespace agentrt::mcp {
namespace {

// A tools/list result with one tool per name (schema {"type":"object"}) and the cursor.
std::string Page(const std::vector<std::string>& names, const std::string& cursor = "") {
  std::string tools;
  for (const std::string& name : names) {
    if (!tools.empty()) tools += ",";
    tools +=
        absl::StrCat(R"({"name":)", json::JsonString(name), R"(,"inputSchema":{"type":"object"}})");
  }
  std::string out = absl::StrCat(R"({"tools":[)", tools, "]");
  if (!cursor.empty()) absl::StrAppend(&out, R"(,"nextCursor":)", json::JsonString(cursor));
  return out + "}";
}

std::vector<std::string> Names(const std::string& prefix, int from, int count) {
  std::vector<std::string> names;
  for (int i = from; i < from + count; ++i) names.push_back(absl::StrCat(prefix, i));
  return names;
}

ListingPage ParseOk(std::string_view result) {
  absl::StatusOr<ListingPage> page = ParseListingPage(result);
  EXPECT_OK(page);
  return page.value_or(ListingPage{});
}

std::vector<std::string> NamesOf(const std::vector<ListedTool>& tools) {
  std::vector<std::string> names;
  for (const ListedTool& t : tools) names.push_back(t.name);
  return names;
}

TEST(ParseListingPageTest, ReadsEachToolFromTheRawResult) {
  ListingPage page = ParseOk(R"({
    "tools": [
      {"name": "read_file", "description": "Read a file.",
       "inputSchema": {"type": "object", "required": ["path"],
                       "properties": {"path": {"type": "string"}}},
       "annotations": {"readOnlyHint": true}},
      {"name": "write_file", "inputSchema": {"type":"object","properties":{"n":{"maximum":1.0}}}},
      {"name": "bare"}
    ],
    "nextCursor": "page-2"
  })");
  ASSERT_EQ(page.tools.size(), 3u);
  EXPECT_EQ(page.tools[0].name, "read_file");
  EXPECT_EQ(page.tools[0].description, "Read a file.");
  EXPECT_EQ(page.tools[0].input_schema,
            R"({"properties":{"path":{"type":"string"}},"required":["path"],"type":"object"})");
  ASSERT_TRUE(page.tools[0].annotations.has_value());
  EXPECT_EQ(page.tools[0].annotations->read_only_hint, true);
  EXPECT_EQ(page.tools[0].annotations->json, R"({"readOnlyHint":true})");
  EXPECT_EQ(page.tools[1].description, "");
  EXPECT_EQ(page.tools[1].input_schema, R"({"properties":{"n":{"maximum":1}},"type":"object"})");
  EXPECT_EQ(page.tools[1].annotations, std::nullopt);
  EXPECT_EQ(page.tools[2].input_schema, "null");
  EXPECT_EQ(page.next_cursor, "page-2");
}

TEST(ParseListingPageTest, MatchesKeysExactlyAtEveryLevel) {
  ListingPage page = ParseOk(R"({
    "Tools": [{"name": "decoy", "description": "the SDK never sees this"}],
    "tools": [{"name": "a", "description": "SDK sees this entry",
               "inputSchema": {"type": "object", "properties": {"a": {}}},
               "Description": "not this", "InputSchema": {"type": "string"},
               "Annotations": {"readOnlyHint": true}},
              {"Name": "b"}],
    "NextCursor": "ignored"
  })");
  ASSERT_EQ(page.tools.size(), 1u);
  EXPECT_EQ(page.tools[0].name, "a");
  EXPECT_EQ(page.tools[0].description, "SDK sees this entry");
  EXPECT_EQ(page.tools[0].input_schema, R"({"properties":{"a":{}},"type":"object"})");
  EXPECT_EQ(page.tools[0].annotations, std::nullopt);
  EXPECT_EQ(page.next_cursor, "");
}

TEST(ParseListingPageTest, SkipsAnEntryWithoutAStringName) {
  ListingPage page =
      ParseOk(R"({"tools":[{"name":1},{"description":"no name"},"text",[],null,{"name":null},)"
              R"({"name":"kept"}]})");
  EXPECT_THAT(NamesOf(page.tools), ElementsAre("kept"));
}

TEST(ParseListingPageTest, AnEmptyOrMissingListIsAnEmptyPage) {
  for (const char* result : {R"({})", R"({"tools":[]})", R"({"tools":null,"nextCursor":null})"}) {
    SCOPED_TRACE(result);
    ListingPage page = ParseOk(result);
    EXPECT_THAT(page.tools, IsEmpty());
    EXPECT_EQ(page.next_cursor, "");
  }
}

TEST(ParseListingPageTest, RefusesAMalformedPageSayingWhy) {
  struct Row {
    const char* result;
    const char* error;
  };
  for (const Row& row : {
           Row{R"({"tools":[{"name":"a"},{"name":"b"},{"name":"a"}]})",
               R"(the server lists tool "a" twice)"},
           // Names are checked over the whole page before anything else.
           Row{R"({"tools":[{"name":"x","description":5},{"name":"a"},{"name":"a"}]})",
               R"(the server lists tool "a" twice)"},
           Row{R"({"tools":[{"name":"x","description":5}]})",
               R"(tool "x": the description is not a string)"},
           Row{R"({"tools":[{"name":"x","annotations":{"readOnlyHint":"yes"}}]})",
               R"(tool "x": annotation "readOnlyHint" is not a boolean)"},
           Row{R"({"tools":[{"name":"x","annotations":[]}]})",
               R"(tool "x": annotations are not a JSON object)"},
           Row{R"([])", "the raw tools/list result is not a JSON object"},
           Row{R"({"tools":{}})", R"(the raw tools/list result's "tools" is not an array)"},
           Row{R"({"tools":[],"nextCursor":2})",
               R"(the raw tools/list result's "nextCursor" is not a string)"},
           Row{"not json", "the raw tools/list result: json: "},
           Row{R"({"tools":[]} {})", "the raw tools/list result: json: data after"},
           Row{R"({"tools":[],"tools":[]})",
               R"(the raw tools/list result: json: duplicate object key "tools")"},
           Row{R"({"tools":[{"name":"a","inputSchema":{"d":1,"d":2}}]})",
               R"(the raw tools/list result: json: duplicate object key "d")"},
           Row{"{\"tools\":[{\"name\":\"a\xff\"}]}",
               "the raw tools/list result: json: invalid UTF-8"},
           Row{R"({"tools":[{"name":"\ud800"}]})",
               "the raw tools/list result: json: high surrogate escape not followed"},
       }) {
    SCOPED_TRACE(row.result);
    absl::StatusOr<ListingPage> page = ParseListingPage(row.result);
    EXPECT_EQ(page.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(page.status().message(), HasSubstr(row.error));
  }
}

TEST(ParseListingPageTest, EscapesHostileNamesInErrors) {
  for (const std::string& name :
       {std::string("\x1b[2K\rpinned 3 tools OK"), std::string("a\nfs: registered evil"),
        std::string("c1\xc2\x9b"
                    "31m"),
        std::string("rtl\xe2\x80\xae"
                    "exe.txt"),
        std::string("zero\xe2\x80\x8bwidth"), std::string("nul\0x", 5)}) {
    SCOPED_TRACE(name);
    absl::StatusOr<ListingPage> page = ParseListingPage(Page({name, name}));
    ASSERT_THAT(page, Not(IsOk()));
    std::string message(page.status().message());
    EXPECT_THAT(message, HasSubstr("the server lists tool \""));
    for (char c : message) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f);
    EXPECT_THAT(message, ::testing::Not(HasSubstr("\xc2\x9b")));
    EXPECT_THAT(message, ::testing::Not(HasSubstr("\xe2\x80\xae")));
    EXPECT_THAT(message, ::testing::Not(HasSubstr("\xe2\x80\x8b")));
  }
}

TEST(ParseListingPageTest, KeepsNumbersAFloat64WouldLose) {
  ListingPage high =
      ParseOk(R"({"tools":[{"name":"n","inputSchema":{"type":"object","properties":{"n":{)"
              R"("maximum":9007199254740993,"default":12345678901234567890}}}}]})");
  ListingPage low =
      ParseOk(R"({"tools":[{"name":"n","inputSchema":{"type":"object","properties":{"n":{)"
              R"("maximum":9007199254740992,"default":12345678901234567890}}}}]})");
  EXPECT_EQ(high.tools[0].input_schema,
            R"({"properties":{"n":{"default":12345678901234567890,"maximum":9007199254740993}},)"
            R"("type":"object"})");
  EXPECT_NE(json::Sha256Hex(high.tools[0].input_schema),
            json::Sha256Hex(low.tools[0].input_schema));
}

TEST(ListingTest, GathersPagesUntilOneHasNoCursorAndSortsByName) {
  Listing listing;
  EXPECT_FALSE(listing.done());
  EXPECT_EQ(listing.next_cursor(), "");
  ASSERT_OK(listing.BeforeRequest());
  ASSERT_OK(listing.Add(ParseOk(Page({"zeta", "alpha"}, "c1"))));
  EXPECT_FALSE(listing.done());
  EXPECT_EQ(listing.next_cursor(), "c1");
  ASSERT_OK(listing.BeforeRequest());
  ASSERT_OK(listing.Add(ParseOk(Page({"mid"}))));
  EXPECT_TRUE(listing.done());
  EXPECT_EQ(listing.pages(), 2);
  EXPECT_THAT(NamesOf(listing.Take()), ElementsAre("alpha", "mid", "zeta"));
  EXPECT_EQ(listing.BeforeRequest().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(ListingTest, RefusesAToolListedOnTwoPages) {
  Listing listing;
  ASSERT_OK(listing.Add(ParseOk(Page({"a", "b"}, "next"))));
  absl::Status second = listing.Add(ParseOk(Page({"c", "a"})));
  EXPECT_EQ(second.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(second.message(), R"(the server lists tool "a" twice)");
}

TEST(ListingTest, AcceptsExactlyAThousandTools) {
  Listing listing;
  for (int page = 0; page < 10; ++page) {
    ASSERT_OK(listing.BeforeRequest());
    ASSERT_OK(listing.Add(
        ParseOk(Page(Names("t", page * 100, 100), page < 9 ? absl::StrCat(page) : ""))));
  }
  EXPECT_TRUE(listing.done());
  EXPECT_EQ(listing.Take().size(), 1000u);
}

TEST(ListingTest, RefusesTheThousandAndFirstTool) {
  {
    Listing listing;
    absl::Status s = listing.Add(ParseOk(Page(Names("t", 0, 1001))));
    EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
    EXPECT_EQ(s.message(), "more than 1000 tools");
  }
  {
    Listing listing;
    ASSERT_OK(listing.Add(ParseOk(Page(Names("t", 0, 1000), "more"))));
    absl::Status s = listing.Add(ParseOk(Page({"one_more"})));
    EXPECT_EQ(s.message(), "more than 1000 tools");
  }
}

TEST(ListingTest, AllowsAHundredPagesAndRefusesTheHundredAndFirstRequest) {
  Listing listing;
  for (int page = 0; page < 100; ++page) {
    ASSERT_OK(listing.BeforeRequest()) << page;
    ASSERT_OK(listing.Add(ParseOk(Page({absl::StrCat("t", page)}, absl::StrCat("c", page)))));
  }
  EXPECT_EQ(listing.pages(), 100);
  EXPECT_FALSE(listing.done());
  absl::Status s = listing.BeforeRequest();
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(s.message(), "more than 100 pages");
  EXPECT_EQ(listing.Add(ParseOk(Page({}))).message(), "more than 100 pages");

  Listing exactly;
  for (int page = 0; page < 100; ++page) {
    ASSERT_OK(exactly.BeforeRequest());
    ASSERT_OK(exactly.Add(ParseOk(Page({}, page < 99 ? absl::StrCat("c", page) : ""))));
  }
  EXPECT_TRUE(exactly.done());
}

TEST(ListingTest, RefusesACursorThatRepeatsQuotingIt) {
  Listing listing;
  ASSERT_OK(listing.Add(ParseOk(Page({"a"}, "same"))));
  absl::Status s = listing.Add(ParseOk(Page({"b"}, "same")));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), R"(the cursor "same" repeats)");

  Listing hostile;
  ASSERT_OK(hostile.Add(ParseOk(Page({}, "\x1b]8;;x\x07"))));
  s = hostile.Add(ParseOk(Page({}, "\x1b]8;;x\x07")));
  EXPECT_EQ(s.message(), R"(the cursor "\x1b]8;;x\x07" repeats)");
}

}  // namespace
}  // namespace agentrt::mcp
