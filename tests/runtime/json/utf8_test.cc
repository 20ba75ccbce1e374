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

}  // namespace
}  // namespace agentrt::json
