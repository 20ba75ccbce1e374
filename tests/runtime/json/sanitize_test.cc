#include "runtime/json/sanitize.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/json/internal/combining_marks.h"
#include "runtime/json/utf8.h"
#include "tests/support/status_matchers.h"

namespace agentrt::json {
namespace {

// Encodes a scalar value as UTF-8, so rows can name code points instead of spelling bytes.
std::string U8(char32_t cp) {
  std::string out;
  AppendUtf8(cp, out);
  return out;
}

std::string Repeat(std::string_view s, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += s;
  return out;
}

const std::string kReplacement = U8(0xFFFD);
const std::string kAcute = U8(0x0301);  // Combining acute accent (Mn).

struct Row {
  std::string name;
  std::string input;
  std::string want;
};

void ExpectSanitizeRows(const std::vector<Row>& rows) {
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    EXPECT_EQ(Sanitize(row.input), row.want);
  }
}

TEST(SanitizeTest, TextNeedingNoChangeIsReturnedByteForByte) {
  const std::vector<std::string> rows = {
      "",
      "hello, world",
      " !\"#$%&'()*+,-./0123456789:;<=>?@ABCXYZ[\\]^_`abcxyz{|}~",
      Repeat("long printable ascii line that spans several 32-byte blocks. ", 20),
      "caf\xC3\xA9 na\xC3\xAFve",                           // Precomposed Latin-1.
      "\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82",   // Cyrillic.
      "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E",               // CJK.
      "\xF0\x9F\x98\x80 \xF0\x9F\x91\x8D",                  // Emoji (4-byte).
      U8(0xFFFD) + U8(0xD7FF) + U8(0xE000) + U8(0x10FFFF),  // Edges of the valid ranges.
      U8(0x00A0) + U8(0x2026),                              // Just past C1; "…".
      "back\\slash \\x1b stays as typed",
  };
  for (const std::string& input : rows) {
    SCOPED_TRACE(input);
    EXPECT_EQ(Sanitize(input), input);
  }
}

TEST(SanitizeTest, NewlineAndCarriageReturnBecomeSpaceSoTextStaysOneLine) {
  ExpectSanitizeRows({
      {"newline", "line one\nline two", "line one line two"},
      {"carriage return", "overwrite\rme", "overwrite me"},
      {"crlf gives two spaces", "a\r\nb", "a  b"},
      {"only newlines", "\n\n", "  "},
      {"newline after multi-byte", "caf\xC3\xA9\n", "caf\xC3\xA9 "},
  });
}

TEST(SanitizeTest, ControlCharactersBecomeHexEscapes) {
  ExpectSanitizeRows({
      {"ansi colour", "\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"},
      {"tab", "a\tb", "a\\x09b"},
      {"nul", std::string("a\0b", 3), "a\\x00b"},
      {"bell and backspace", "\a\b", "\\x07\\x08"},
      {"unit separator", "\x1f", "\\x1f"},
      {"del", "a\x7f", "a\\x7f"},
      {"c1 next line U+0085", "a" + U8(0x0085) + "b", "a\\x85b"},
      {"c1 csi U+009B", U8(0x009B) + "2J", "\\x9b2J"},
      {"c1 first U+0080", U8(0x0080), "\\x80"},
      {"c1 last U+009F", U8(0x009F), "\\x9f"},
  });
}

TEST(SanitizeTest, InvisibleAndFormatCharactersBecomeCodePointEscapes) {
  ExpectSanitizeRows({
      {"bidi override U+202E", "abc" + U8(0x202E) + "fed", "abc\\u{202e}fed"},
      {"bidi embedding U+202A", U8(0x202A), "\\u{202a}"},
      {"bidi isolate U+2066", U8(0x2066), "\\u{2066}"},
      {"bidi pop isolate U+2069", U8(0x2069), "\\u{2069}"},
      {"arabic letter mark U+061C", U8(0x061C), "\\u{061c}"},
      {"left-to-right mark U+200E", U8(0x200E), "\\u{200e}"},
      {"right-to-left mark U+200F", U8(0x200F), "\\u{200f}"},
      {"zero-width space U+200B", "pass" + U8(0x200B) + "word", "pass\\u{200b}word"},
      {"zero-width non-joiner U+200C", U8(0x200C), "\\u{200c}"},
      {"zero-width joiner U+200D", U8(0x200D), "\\u{200d}"},
      {"word joiner U+2060", U8(0x2060), "\\u{2060}"},
      {"invisible plus U+2064", U8(0x2064), "\\u{2064}"},
      {"byte order mark U+FEFF", U8(0xFEFF) + "x", "\\u{feff}x"},
      {"soft hyphen U+00AD", "soft" + U8(0x00AD) + "hyphen", "soft\\u{00ad}hyphen"},
      {"mongolian vowel separator U+180E", U8(0x180E), "\\u{180e}"},
      {"line separator U+2028", U8(0x2028), "\\u{2028}"},
      {"paragraph separator U+2029", U8(0x2029), "\\u{2029}"},
      {"tag U+E0000", U8(0xE0000), "\\u{e0000}"},
      {"tag latin capital A U+E0041", "x" + U8(0xE0041) + U8(0xE0042), "x\\u{e0041}\\u{e0042}"},
      {"cancel tag U+E007F", U8(0xE007F), "\\u{e007f}"},
  });
}

TEST(SanitizeTest, NeighboursOfEscapedRangesAreLeftAlone) {
  for (char32_t cp : {0x2027u, 0x202Fu, 0x2065u, 0x206Au, 0x200Au, 0x2010u, 0x205Fu, 0x2070u,
                      0xFEFEu, 0xFF00u, 0x00ACu, 0x00AEu, 0x061Bu, 0x061Du, 0xE0080u}) {
    SCOPED_TRACE(static_cast<std::uint32_t>(cp));
    EXPECT_EQ(Sanitize(U8(cp)), U8(cp));
  }
}

TEST(SanitizeTest, EachMaximalRunOfInvalidBytesBecomesOneReplacementCharacter) {
  ExpectSanitizeRows({
      {"single bad byte",
       "a\xFF"
       "b",
       "a" + kReplacement + "b"},
      {"run of several bad bytes",
       "a\xFF\xFE\xFD\x80\x80"
       "b",
       "a" + kReplacement + "b"},
      {"two runs separated by ascii",
       "\xFF"
       "a\xFE",
       kReplacement + "a" + kReplacement},
      {"lone continuation byte", "\x80", kReplacement},
      {"truncated 3-byte sequence",
       "a\xE2\x82"
       "b",
       "a" + kReplacement + "b"},
      {"truncated sequence at end", "a\xF0\x9F\x98", "a" + kReplacement},
      {"truncated sequence before valid one", "\xE2\x82\xC3\xA9", kReplacement + "\xC3\xA9"},
      {"overlong slash C0 AF", "/\xC0\xAF/", "/" + kReplacement + "/"},
      {"overlong 3-byte E0 80 AF", "\xE0\x80\xAF", kReplacement},
      {"overlong 4-byte F0 80 80 AF", "\xF0\x80\x80\xAF", kReplacement},
      {"encoded surrogate ED A0 80", "x\xED\xA0\x80y", "x" + kReplacement + "y"},
      {"encoded low surrogate ED BF BF", "\xED\xBF\xBF", kReplacement},
      {"above U+10FFFF F4 90 80 80", "\xF4\x90\x80\x80", kReplacement},
      {"lead byte F5", "\xF5\x80\x80\x80", kReplacement},
      {"bad byte then control", "\xFF\x1b", kReplacement + "\\x1b"},
  });
}

TEST(SanitizeTest, CombiningMarkRunsAreCappedAtFourWithADropNote) {
  ExpectSanitizeRows({
      {"decomposed e-acute kept", "e" + kAcute, "e" + kAcute},
      {"run of 3 kept", "a" + Repeat(kAcute, 3) + "b", "a" + Repeat(kAcute, 3) + "b"},
      {"run of 4 kept", "a" + Repeat(kAcute, 4) + "b", "a" + Repeat(kAcute, 4) + "b"},
      {"run of 5 drops 1", "a" + Repeat(kAcute, 5) + "b",
       "a" + Repeat(kAcute, 4) + "[+1 combining marks dropped]b"},
      {"run of 7 drops 3", "a" + Repeat(kAcute, 7) + "b",
       "a" + Repeat(kAcute, 4) + "[+3 combining marks dropped]b"},
      {"run at end of string", "z" + Repeat(kAcute, 7),
       "z" + Repeat(kAcute, 4) + "[+3 combining marks dropped]"},
      {"run at start of string", Repeat(kAcute, 6) + "q",
       Repeat(kAcute, 4) + "[+2 combining marks dropped]q"},
      {"first four kept in order",
       "o" + U8(0x0300) + U8(0x0301) + U8(0x0302) + U8(0x0303) + U8(0x0304) + U8(0x0305),
       "o" + U8(0x0300) + U8(0x0301) + U8(0x0302) + U8(0x0303) + "[+2 combining marks dropped]"},
      {"spacing (Mc) and enclosing (Me) marks count",
       "k" + Repeat(U8(0x0903), 3) + Repeat(U8(0x20DD), 3),
       "k" + Repeat(U8(0x0903), 3) + U8(0x20DD) + "[+2 combining marks dropped]"},
      {"newline splits a run", "a" + Repeat(kAcute, 3) + "\n" + Repeat(kAcute, 3),
       "a" + Repeat(kAcute, 3) + " " + Repeat(kAcute, 3)},
      {"invalid byte ends a run", Repeat(kAcute, 5) + "\xFF" + Repeat(kAcute, 2),
       Repeat(kAcute, 4) + "[+1 combining marks dropped]" + kReplacement + Repeat(kAcute, 2)},
      {"two long runs", "a" + Repeat(kAcute, 9) + "b" + Repeat(kAcute, 5),
       "a" + Repeat(kAcute, 4) + "[+5 combining marks dropped]b" + Repeat(kAcute, 4) +
           "[+1 combining marks dropped]"},
  });
}

TEST(SanitizeTest, ZalgoTextIsBoundedInSize) {
  const std::string zalgo = "h" + Repeat(kAcute, 10000);
  EXPECT_EQ(Sanitize(zalgo), "h" + Repeat(kAcute, 4) + "[+9996 combining marks dropped]");
}

// Checks what every output must satisfy, whatever the input.
void ExpectSafe(std::string_view input) {
  const std::string out = Sanitize(input);
  for (unsigned char c : out) {
    ASSERT_GE(c, 0x20) << "control byte in output";
    ASSERT_NE(c, 0x7F) << "DEL in output";
  }
  // Output that is already safe comes back unchanged, which also shows that it is valid UTF-8
  // (invalid bytes would have been replaced) and has no invisible characters left.
  ASSERT_EQ(Sanitize(out), out);
}

std::string EveryByteValue() {
  std::string out;
  for (int b = 0; b < 256; ++b) out += static_cast<char>(b);
  return out;
}

TEST(SanitizeTest, OutputHasNoLineBreaksOrControlBytesForHostileInput) {
  struct HostileRow {
    std::string name;
    std::string input;
  };
  const std::vector<HostileRow> rows = {
      {"log forging", "ok\n2024-01-01 INFO admin logged in\r\n"},
      {"clear screen and retitle", "\x1b[2J\x1b[H\x1b]0;pwned\x07"},
      {"c1 csi", U8(0x009B) + "31m" + U8(0x0085)},
      {"bidi trojan source", "/*" + U8(0x202E) + U8(0x2066) + "} " + U8(0x2069) + "*/"},
      {"smuggled tags", Repeat(U8(0xE0041), 5)},
      {"invalid bytes around controls", "\xFF\n\xC0\x8A\xE0\x80\x8A\r\xED\xA0\x80"},
      {"overlong newline C0 8A", "\xC0\x8A"},
      {"every byte value", EveryByteValue()},
      {"zalgo around newline", Repeat(kAcute, 9) + "\n" + Repeat(U8(0x20DD), 9)},
      {"separators and vertical whitespace", U8(0x2028) + U8(0x2029) + "\x0b\x0c"},
  };
  for (const HostileRow& row : rows) {
    SCOPED_TRACE(row.name);
    ExpectSafe(row.input);
    EXPECT_THAT(Sanitize(row.input), Not(HasSubstr("\n")));
    EXPECT_THAT(Sanitize(row.input), Not(HasSubstr("\r")));
  }
}

TEST(SanitizeTest, EveryCodePointSanitizesToSafeOutput) {
  for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    const std::string out = Sanitize(U8(cp));
    bool safe = true;
    for (unsigned char c : out) safe = safe && c >= 0x20 && c != 0x7F;
    ASSERT_TRUE(safe) << "U+" << std::hex << static_cast<std::uint32_t>(cp);
  }
}

TEST(SanitizeTest, RandomBytesSanitizeToSafeOutput) {
  // Bytes picked to hit lead bytes, continuation bytes and controls far more often than uniform
  // random bytes would; fixed seed so a failure reproduces.
  const std::string alphabet =
      "a \n\r\x1b\x7f\x80\x85\x9b\xa0\xbf\xc0\xc2\xcc\x81\xe0\xe2\x80\xae\xed\xef\xbb\xf0\xf3"
      "\xf4\x8f\xf5\xff";
  std::mt19937 rng(20240601);
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  std::uniform_int_distribution<int> length(0, 24);
  for (int i = 0; i < 20000; ++i) {
    std::string input;
    for (int n = length(rng); n > 0; --n) input += alphabet[pick(rng)];
    SCOPED_TRACE(testing::PrintToString(input));
    ExpectSafe(input);
    if (testing::Test::HasFatalFailure()) return;
  }
}

TEST(CombiningMarksTest, KnowsMarksFromEachCategoryAndRejectsOthers) {
  struct MarkRow {
    char32_t cp;
    bool want;
  };
  const std::vector<MarkRow> rows = {
      {0x0000, false},   {U'a', false},   {0x02FF, false}, {0x0300, true},   {0x036F, true},
      {0x0370, false},   {0x0489, true},  {0x0903, true},  {0x20DD, true},   {0x3099, true},
      {0xFE20, true},    {0xE0100, true}, {0xE01EF, true}, {0xE01F0, false}, {0x10FFFF, false},
      {0x110000, false}, {0xD800, false},
  };
  for (const MarkRow& row : rows) {
    SCOPED_TRACE(static_cast<std::uint32_t>(row.cp));
    EXPECT_EQ(internal::IsCombiningMark(row.cp), row.want);
  }
}

TEST(TruncateTest, CutsToAtMostNBytesWithMarkAndNeverSplitsASequence) {
  const std::string e_acute = "\xC3\xA9";        // 2 bytes.
  const std::string euro = "\xE2\x82\xAC";       // 3 bytes.
  const std::string emoji = "\xF0\x9F\x98\x80";  // 4 bytes.
  const std::string mark = "\xE2\x80\xA6";       // "…"
  struct TruncateRow {
    std::string name;
    std::string input;
    int n;
    std::string want;
  };
  const std::vector<TruncateRow> rows = {
      {"shorter than n is unchanged", "hello", 10, "hello"},
      {"exactly n is unchanged", "hello", 5, "hello"},
      {"empty is unchanged", "", 0, ""},
      {"ascii cut includes the mark", "hello world", 8, "hello" + mark},
      {"n of exactly 3 leaves only the mark", "hello", 3, mark},
      {"n below 3 is an unmarked cut", "hello", 2, "he"},
      {"n of 1", "hello", 1, "h"},
      {"n of 0", "hello", 0, ""},
      {"negative n counts as 0", "hello", -5, ""},
      {"unchanged empty with negative n", "", -1, ""},
      {"backs off from a 2-byte sequence", "a" + e_acute + "bcd", 5, "a" + mark},
      {"keeps a 2-byte sequence that fits", "a" + e_acute + "bcde", 6, "a" + e_acute + mark},
      {"backs off from a 3-byte sequence", euro + euro + euro, 7, euro + mark},
      {"backs off from a 4-byte sequence", emoji + emoji, 6, mark},
      {"4-byte sequence fits exactly before the mark", emoji + emoji, 7, emoji + mark},
      {"backs off to the last whole 4-byte sequence", emoji + emoji + "x", 8, emoji + mark},
      {"unmarked cut backs off too", e_acute + "x", 1, ""},
      {"unmarked cut of emoji", emoji, 2, ""},
  };
  for (const TruncateRow& row : rows) {
    SCOPED_TRACE(row.name);
    const std::string got = Truncate(row.input, row.n);
    EXPECT_EQ(got, row.want);
    EXPECT_LE(got.size(), static_cast<std::size_t>(row.n < 0 ? 0 : row.n));
  }
}

TEST(TruncateTest, NeverSplitsASequenceAtAnyLength) {
  const std::string text = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80z\xE6\x97\xA5";
  for (int n = -1; n <= static_cast<int>(text.size()) + 1; ++n) {
    SCOPED_TRACE(n);
    const std::string got = Truncate(text, n);
    EXPECT_LE(got.size(), static_cast<std::size_t>(n < 0 ? 0 : n));
    // Valid UTF-8 with nothing to escape comes back from Sanitize unchanged.
    EXPECT_EQ(Sanitize(got), got);
  }
}

TEST(QuotedTest, SanitizesCutsAndQuotes) {
  EXPECT_EQ(Quoted("read_file"), "\"read_file\"");
  EXPECT_EQ(Quoted(""), "\"\"");
  // Sanitized: one line, control bytes shown; quotes and backslashes left as they are.
  EXPECT_EQ(Quoted("a\nb\x1b[2J"), "\"a b\\x1b[2J\"");
  EXPECT_EQ(Quoted("say \"hi\" \\"), "\"say \"hi\" \\\"");
  EXPECT_EQ(Quoted("x\u202e"), "\"x\\u{202e}\"");
  // Cut after sanitizing, with the mark, inside the quotes.
  EXPECT_EQ(Quoted("abcdefghij", 6), "\"abc\u2026\"");
  EXPECT_EQ(Quoted("abcdef", 6), "\"abcdef\"");
  EXPECT_EQ(Quoted(std::string(1000, 'a')), "\"" + std::string(1000, 'a') + "\"");
}

}  // namespace
}  // namespace agentrt::json
