#include "runtime/json/utf8.h"

#include <string>

#include "gtest/gtest.h"

namespace agentrt::json {
namespace {

TEST(Utf8Test, OnlyWellFormedSequencesAreValid) {
  struct Row {
    std::string text;
    bool valid;
  } rows[] = {
      {"", true},
      {"plain", true},
      {"\xC3\xA9\xF0\x9F\x98\x82", true},
      {"\xFF", false},
      {"\xC0\xAF", false},          // overlong
      {"\xED\xA0\x80", false},      // encoded surrogate
      {"\xF4\x90\x80\x80", false},  // past U+10FFFF
      {"\xE2\x82", false},          // truncated
      {"\x80", false},              // stray continuation byte
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.text);
    EXPECT_EQ(IsValidUtf8(row.text), row.valid);
  }
  char32_t cp = 0;
  EXPECT_EQ(DecodeUtf8("\xF0\x9F\x98\x82", 0, &cp), 4);
  EXPECT_EQ(cp, U'\U0001F602');
}

TEST(Utf8Test, AppendUtf8EncodesWhatDecodeUtf8Reads) {
  for (char32_t cp :
       {U'\0', U'\x7F', U'\x80', U'\x7FF', U'\x800', U'\xFFFF', U'\x10000', U'\x10FFFF'}) {
    std::string out;
    AppendUtf8(cp, out);
    char32_t back = 0;
    EXPECT_EQ(DecodeUtf8(out, 0, &back), static_cast<int>(out.size()))
        << std::hex << static_cast<std::uint32_t>(cp);
    EXPECT_EQ(static_cast<std::uint32_t>(back), static_cast<std::uint32_t>(cp));
  }
  // What UTF-8 cannot carry comes out as U+FFFD, so the result is always valid.
  for (char32_t cp : {char32_t{0xD800}, char32_t{0xDFFF}, char32_t{0x110000}}) {
    std::string out;
    AppendUtf8(cp, out);
    EXPECT_EQ(out, "\xEF\xBF\xBD") << std::hex << static_cast<std::uint32_t>(cp);
  }
}

TEST(Utf8Test, ToValidUtf8ReplacesEachBadRunOnce) {
  EXPECT_EQ(ToValidUtf8("plain \xC3\xA9"), "plain \xC3\xA9");  // valid: unchanged
  EXPECT_EQ(ToValidUtf8("a\xFF\xFE b\xC3"), "a\xEF\xBF\xBD b\xEF\xBF\xBD");
  EXPECT_EQ(ToValidUtf8("\xED\xA0\x80x"), "\xEF\xBF\xBDx");  // an encoded surrogate
  EXPECT_TRUE(IsValidUtf8(ToValidUtf8("\x80\xC0\xAF\xF8")));
}

}  // namespace
}  // namespace agentrt::json
