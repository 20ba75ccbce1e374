// Bounding what operator surfaces show (runtime/operator/view/bound.h).
#include "runtime/operator/view/bound.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/utf8.h"
#include "tests/support/status_matchers.h"

namespace agentrt::view {
namespace {

std::string Quoted(const std::string& text) { return "\"" + text + "\""; }

TEST(BoundTextTest, TextUpToTheLimitIsUnchanged) {
  std::string text(kMaxFieldBytes, 'a');
  EXPECT_EQ(BoundText(text), text);
  EXPECT_EQ(BoundText(""), "");
}

TEST(BoundTextTest, LongerTextKeepsHeadAndTailAndSaysWhatWasOmitted) {
  std::string text = std::string(200, 'h') + std::string(1601, 'm') + std::string(200, 't');
  EXPECT_EQ(BoundText(text),
            std::string(200, 'h') + "…[1601 bytes omitted]…" + std::string(200, 't'));
}

TEST(BoundTextTest, CutsNeverSplitAUtf8Sequence) {
  std::string euro;
  for (int i = 0; i < 1000; ++i) euro += "€";  // 3 bytes each: 3000 bytes
  std::string bounded = BoundText(euro);
  EXPECT_TRUE(json::IsValidUtf8(bounded));
  // The head backs off to 198 bytes (66 characters); the tail starts on the next character
  // boundary at or after 2800, i.e. 2802, leaving 198 bytes.
  std::string head, tail;
  for (int i = 0; i < 66; ++i) head += "€";
  tail = head;
  EXPECT_EQ(bounded, head + "…[2604 bytes omitted]…" + tail);
}

TEST(BoundValueTest, BoundValue_TruncatesOnlyOversizedStrings) {
  std::string long_text(5000, 'x');
  std::string raw = R"({"z":[1.50, true, null, ")" + long_text +
                    R"("], "short": "ok", "n": 12e1,)" + R"( "nested": {"deep": ")" + long_text +
                    R"("}})";
  std::string bounded_text = BoundText(long_text);
  EXPECT_EQ(BoundRaw(raw), R"({"n":120,"nested":{"deep":)" + Quoted(bounded_text) +
                               R"(},"short":"ok","z":[1.5,true,null,)" + Quoted(bounded_text) +
                               "]}");
}

TEST(BoundValueTest, KeysAreKeptWhole) {
  std::string key(3000, 'k');
  EXPECT_EQ(BoundRaw("{\"" + key + "\":1}"), "{\"" + key + "\":1}");
}

TEST(BoundRawTest, EmptyOrUndecodableComesBackUnchanged) {
  EXPECT_EQ(BoundRaw(""), "");
  std::string broken = "{\"a\": " + std::string(3000, 'x');
  EXPECT_EQ(BoundRaw(broken), broken);
  EXPECT_EQ(BoundRaw("{\"a\":1,\"a\":2}"), "{\"a\":1,\"a\":2}");  // duplicate keys: not JSON to us
}

TEST(BoundRawTest, OutputIsCanonical) {
  EXPECT_EQ(BoundRaw(" { \"b\" : \"\\u0041\", \"a\" : [ 1e0 ] } "), R"({"a":[1],"b":"A"})");
}

TEST(BoundApprovalTest, BoundApproval_BoundsTheThreeJSONFields) {
  std::string long_text(2500, 'y');
  std::string long_description(4000, 'd');
  Approval a;
  a.id = "ap1";
  a.capability = R"({"cap":")" + long_text + R"("})";
  a.presentation = R"({"args":{"body":")" + long_text + R"("},"tool":"send"})";
  a.request = R"({"args":{"body":")" + long_text + R"("},"run_id":"r1","spec":{"description":")" +
              long_description + R"(","name":"send"},"step_id":"s1"})";
  a.hash = "feedface";
  Approval b = BoundApproval(a);
  std::string bounded = Quoted(BoundText(long_text));
  EXPECT_EQ(b.capability, R"({"cap":)" + bounded + "}");
  EXPECT_EQ(b.presentation, R"({"args":{"body":)" + bounded + R"(},"tool":"send"})");
  // Only the model's args are bounded; the recorded spec is shown as stored.
  EXPECT_EQ(b.request, R"({"args":{"body":)" + bounded +
                           R"(},"run_id":"r1","spec":{"description":")" + long_description +
                           R"(","name":"send"},"step_id":"s1"})");
  EXPECT_EQ(b.hash, "feedface");
  EXPECT_EQ(b.id, "ap1");
  EXPECT_THAT(b.capability, HasSubstr("…[2100 bytes omitted]…"));
  EXPECT_THAT(b.capability, StartsWith(R"({"cap":"yyy)"));
}

}  // namespace
}  // namespace agentrt::view
