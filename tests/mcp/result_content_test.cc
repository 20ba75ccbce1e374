// Mapping a tools/call result to what the run records (docs/mcp.md, "What a call does"). Sizes
// count what OUR canonical encoder writes: only `"`, `\` and control characters are escaped, and a
// run of bytes that is not UTF-8 is one U+FFFD written raw.
#include "mcp/result_content.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/utf8.h"
#include "tests/support/status_matchers.h"

namespace agentrt::mcp {
namespace {

MappedResult Map(std::string_view result, std::string_view tool = "read_file",
                 std::size_t cap = kDefaultMaxContentBytes) {
  absl::StatusOr<MappedResult> mapped = MapCallResult(result, "fs", tool, cap);
  EXPECT_OK(mapped);
  return mapped.value_or(MappedResult{});
}

std::string TextResult(std::string_view text) {
  return absl::StrCat(R"({"content":[{"type":"text","text":)", json::JsonString(text), "}]}");
}

// The text a recorded JSON string holds.
std::string Decoded(std::string_view json_string) {
  absl::StatusOr<json::Document> document = json::Parse(json_string);
  EXPECT_OK(document) << json_string;
  if (!document.ok() || !document->root().is_string()) return "<not a JSON string>";
  return std::string(document->root().string_value());
}

TEST(MapCallResultTest, StructuredAndTextResults) {
  MappedResult structured =
      Map(R"({"content":[{"type":"text","text":"{\"lines\":2,\"ok\":true}"}],)"
          R"("structuredContent":{"ok":true,"lines":2}})",
          "structured");
  EXPECT_EQ(structured.content, R"({"lines":2,"ok":true})");
  EXPECT_EQ(structured.summary, "fs/structured: 21 bytes");
  EXPECT_FALSE(structured.is_error);
  EXPECT_FALSE(structured.input_required);

  MappedResult mixed = Map(
      R"({"content":[{"type":"text","text":"first"},)"
      R"({"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"text","text":"last"}]})");
  EXPECT_EQ(Decoded(mixed.content), "first\n[image omitted]\nlast");
  EXPECT_EQ(mixed.summary, absl::StrCat("fs/read_file: ", mixed.content.size(), " bytes"));
}

TEST(MapCallResultTest, EveryOtherBlockKindIsAPlaceholder) {
  MappedResult mapped = Map(R"({"content":[{"type":"audio","data":"","mimeType":"audio/wav"},)"
                            R"({"type":"resource_link","uri":"file:///x","name":"x"},)"
                            R"({"type":"resource","resource":{"uri":"file:///y","text":"secret"}},)"
                            R"({"type":"video"},{"text":"no type"},{"type":"image"}]})");
  EXPECT_EQ(Decoded(mapped.content),
            "[audio omitted]\n[resource link omitted]\n[embedded resource omitted]\n"
            "[content omitted]\n[content omitted]\n[image omitted]");
}

TEST(MapCallResultTest, IsErrorBecomesAnErrorWithTheText) {
  MappedResult mapped =
      Map(R"({"content":[{"type":"text","text":"no such file"}],"isError":true})");
  EXPECT_TRUE(mapped.is_error);
  EXPECT_EQ(mapped.summary, "fs/read_file: 14 bytes");
  EXPECT_EQ(mapped.error_text, "fs/read_file: 14 bytes, error: no such file");

  MappedResult structured = Map(R"({"content":[],"structuredContent":{"code":7},"isError":true})");
  EXPECT_EQ(structured.error_text, R"(fs/read_file: 10 bytes, error: {"code":7})");

  MappedResult not_error = Map(R"({"content":[],"isError":false})");
  EXPECT_FALSE(not_error.is_error);
  EXPECT_EQ(not_error.error_text, "");
}

TEST(MapCallResultTest, OversizedContentIsTruncated) {
  MappedResult mapped = Map(TextResult(std::string(500, 'x')), "read_file", 64);
  EXPECT_EQ(mapped.content.size(), 64u);
  EXPECT_EQ(Decoded(mapped.content), std::string(49, 'x') + "\n[truncated]");
  EXPECT_EQ(mapped.summary, "fs/read_file: 64 bytes, truncated");
}

TEST(MapCallResultTest, CapCountsEncodedBytes) {
  MappedResult controls = Map(TextResult(std::string(100, '\x01')), "read_file", 100);
  EXPECT_LE(controls.content.size(), 100u);
  EXPECT_EQ(Decoded(controls.content), std::string(14, '\x01') + "\n[truncated]");
  EXPECT_EQ(controls.summary,
            absl::StrCat("fs/read_file: ", controls.content.size(), " bytes, truncated"));

  std::string wide;
  for (int i = 0; i < 100; ++i) wide += "\xe4\xb8\x96";  // 世
  MappedResult cjk = Map(TextResult(wide), "read_file", 100);
  EXPECT_LE(cjk.content.size(), 100u);
  std::string text = Decoded(cjk.content);
  EXPECT_TRUE(json::IsValidUtf8(text));
  EXPECT_EQ(text, wide.substr(0, 28 * 3) + "\n[truncated]");
  EXPECT_EQ(cjk.summary, absl::StrCat("fs/read_file: ", cjk.content.size(), " bytes, truncated"));

  MappedResult whole = Map(TextResult(std::string(16, '\x01')), "read_file", 100);
  EXPECT_EQ(whole.content.size(), 98u);
  EXPECT_EQ(Decoded(whole.content), std::string(16, '\x01'));
  EXPECT_EQ(whole.summary, "fs/read_file: 98 bytes");
}

TEST(MapCallResultTest, OversizedStructuredContentFallsBackToText) {
  // {"data":"x...x"} with 197 x's: 208 bytes.
  std::string structured = absl::StrCat(R"({"data":")", std::string(197, 'x'), R"("})");
  ASSERT_EQ(structured.size(), 208u);
  MappedResult with_text =
      Map(absl::StrCat(R"({"content":[{"type":"text","text":"summary text"}],"structuredContent":)",
                       structured, "}"),
          "with_text", 100);
  EXPECT_EQ(Decoded(with_text.content), "summary text");
  EXPECT_EQ(with_text.summary,
            "fs/with_text: 14 bytes, truncated, structured content of 208 bytes dropped for the "
            "text");

  MappedResult only =
      Map(absl::StrCat(R"({"content":[],"structuredContent":)", structured, "}"), "only", 100);
  EXPECT_EQ(Decoded(only.content), kStructuredDropped);
  EXPECT_EQ(only.summary,
            "fs/only: 41 bytes, truncated, structured content of 208 bytes dropped for the text");

  MappedResult small = Map(R"({"content":[],"structuredContent":{"k":1}})", "small", 100);
  EXPECT_EQ(small.content, R"({"k":1})");
  EXPECT_EQ(small.summary, "fs/small: 7 bytes");
}

TEST(MapCallResultTest, StructuredContentKeepsItsNumbers) {
  MappedResult mapped =
      Map(R"({"content":[],"structuredContent":{"id":123456789012345678901234567890,)"
          R"("n":9007199254740993,"f":0.1,"s":"<b>"}})");
  EXPECT_EQ(mapped.content,
            R"({"f":0.1,"id":1.2345678901234567890123456789e+29,"n":9007199254740993,"s":"<b>"})");
  EXPECT_EQ(Map(R"({"structuredContent":{"n":9007199254740993}})").content,
            R"({"n":9007199254740993})");
}

TEST(MapCallResultTest, NullStructuredContentIsNone) {
  MappedResult mapped = Map(R"({"content":[{"type":"text","text":"t"}],"structuredContent":null})");
  EXPECT_EQ(mapped.content, R"("t")");
  EXPECT_EQ(mapped.summary, "fs/read_file: 3 bytes");
  EXPECT_EQ(Map("{}").content, R"("")");
}

TEST(MapCallResultTest, AZeroCapMeansTheDefault) {
  MappedResult mapped = Map(TextResult(std::string(70000, 'x')), "t", 0);
  EXPECT_EQ(mapped.content.size(), kDefaultMaxContentBytes);
}

TEST(MapCallResultTest, InputRequiredIsReported) {
  for (
      const char* result : {
          R"({"resultType":"input_required","inputRequests":{"q":{"method":"elicitation/create"}}})",
          R"({"resultType":"input_required","requestState":"opaque"})",
          R"({"inputRequests":{"q":{"method":"roots/list"}},"content":[]})",
      }) {
    SCOPED_TRACE(result);
    MappedResult mapped = Map(result);
    EXPECT_TRUE(mapped.input_required);
    EXPECT_EQ(mapped.content, "");
  }
  for (const char* result :
       {R"({"resultType":"complete","content":[]})", R"({"inputRequests":null,"content":[]})"}) {
    SCOPED_TRACE(result);
    EXPECT_FALSE(Map(result).input_required);
  }
}

TEST(MapCallResultTest, RefusesAMalformedResult) {
  struct Row {
    const char* result;
    const char* error;
  };
  for (const Row& row : {
           Row{"", "the tools/call result: json: "},
           Row{R"({"content":[],"content":[]})",
               R"(the tools/call result: json: duplicate object key "content")"},
           Row{R"([])", "the tools/call result is not a JSON object"},
           Row{R"({"content":{}})", R"(the tools/call result's "content" is not an array)"},
           Row{R"({"content":[],"isError":"yes"})",
               R"(the tools/call result's "isError" is not a boolean)"},
           Row{R"({"content":["text"]})",
               "the tools/call result's content[0] is not a JSON object"},
           Row{R"({"content":[{"type":"text","text":"a"},{"type":"text"}]})",
               "the tools/call result's content[1] is a text block without text"},
       }) {
    SCOPED_TRACE(row.result);
    absl::StatusOr<MappedResult> mapped = MapCallResult(row.result, "fs", "t", 100);
    EXPECT_EQ(mapped.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(mapped.status().message()), HasSubstr(row.error));
  }
}

std::string Repeat(std::string_view piece, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += piece;
  return out;
}

TEST(CapTextTest, NeverExceedsTheCap) {
  struct Input {
    const char* label;
    std::string text;
  };
  const std::vector<Input> inputs = {
      {"300 a", std::string(300, 'a')},
      {"300 U+0001", std::string(300, '\x01')},
      {"300 e-acute", Repeat("\xc3\xa9", 300)},
      {"300 quote backslash newline", Repeat("\"\\\n", 300)},
      {"300 U+2028", Repeat("\xe2\x80\xa8", 300)},
      {"300 emoji a NUL", Repeat(std::string("\xf0\x9f\x98\x80"
                                             "a\0",
                                             6),
                                 300)},
  };
  for (const Input& input : inputs) {
    for (std::size_t cap = 0; cap < 200; ++cap) {
      SCOPED_TRACE(absl::StrCat(input.label, ", cap ", cap));
      CappedText capped = CapText(input.text, cap);
      const std::size_t max = std::max<std::size_t>(cap, 15);
      ASSERT_LE(capped.json.size(), max);
      ASSERT_TRUE(capped.truncated);
      std::string text = Decoded(capped.json);
      ASSERT_EQ(text, capped.text);
      ASSERT_THAT(text, EndsWith(kTruncationMarker));
      std::string prefix = text.substr(0, text.size() - kTruncationMarker.size());
      ASSERT_THAT(input.text, StartsWith(prefix));
      ASSERT_TRUE(json::IsValidUtf8(prefix));
      // One more character would not have fitted.
      char32_t cp;
      int next = json::DecodeUtf8(input.text, prefix.size(), &cp);
      ASSERT_GT(next, 0);
      std::string longer =
          input.text.substr(0, prefix.size() + next) + std::string(kTruncationMarker);
      ASSERT_GT(json::JsonString(longer).size(), max);
    }
  }
}

TEST(CapTextTest, BytesThatAreNotUtf8EncodeAsOneReplacementARun) {
  // 300 0xFF bytes are one U+FFFD to our encoder: 5 bytes, so any cap from 5 keeps it whole.
  const std::string bad(300, '\xff');
  for (std::size_t cap = 0; cap < 200; ++cap) {
    SCOPED_TRACE(cap);
    CappedText capped = CapText(bad, cap);
    EXPECT_LE(capped.json.size(), std::max<std::size_t>(cap, 15));
    if (cap >= 5) {
      EXPECT_FALSE(capped.truncated);
      EXPECT_EQ(capped.json, "\"\xef\xbf\xbd\"");
    } else {
      EXPECT_TRUE(capped.truncated);
      EXPECT_EQ(Decoded(capped.json), kTruncationMarker);  // U+FFFD and the marker take 18
    }
  }
  // Mixed with text, a cut between bad bytes is allowed and the marker still fits.
  std::string mixed = Repeat("ab\xff\xfe", 100);
  for (std::size_t cap = 15; cap < 120; ++cap) {
    SCOPED_TRACE(cap);
    CappedText capped = CapText(mixed, cap);
    EXPECT_LE(capped.json.size(), cap);
    EXPECT_TRUE(capped.truncated);
    EXPECT_THAT(capped.text, EndsWith(kTruncationMarker));
    EXPECT_OK(json::Parse(capped.json));
  }
}

TEST(CapTextTest, TextThatFitsIsKeptWhole) {
  CappedText capped = CapText("hello", 7);
  EXPECT_EQ(capped.json, R"("hello")");
  EXPECT_EQ(capped.text, "hello");
  EXPECT_FALSE(capped.truncated);
  EXPECT_TRUE(CapText("hello", 6).truncated);
  EXPECT_FALSE(CapText("", 2).truncated);
  // Below the two quotes even nothing does not fit: the cap rises to the marker's 15.
  EXPECT_EQ(CapText("", 1).json, R"("\n[truncated]")");
}

}  // namespace
}  // namespace agentrt::mcp
