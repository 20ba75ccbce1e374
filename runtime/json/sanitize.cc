#include "runtime/json/sanitize.h"

#include <cstddef>
#include <string>
#include <string_view>

#include "runtime/json/internal/combining_marks.h"
#include "runtime/json/utf8.h"

namespace agentrt::json {
namespace {

// Real scripts rarely stack more than a few marks on one base; four keeps them legible while
// stopping "Zalgo" text from drawing over the neighbouring lines.
constexpr int kMaxCombiningMarksKept = 4;

constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";  // U+FFFD
constexpr std::string_view kTruncationMark = "\xE2\x80\xA6";        // U+2026 "…"

constexpr char kHexDigits[] = "0123456789abcdef";

// Terminal control: C0 (including line breaks), DEL and C1. C1 matters as much as ESC, since
// many terminals treat U+009B as CSI.
bool IsControl(char32_t cp) { return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F); }

// Characters that draw nothing but change what the reader sees: bidi controls can make text
// display in a different order than it is stored ("Trojan Source"), the rest can hide text or
// make two different strings look identical.
bool IsInvisible(char32_t cp) {
  return (cp >= 0x202A && cp <= 0x202E) ||  // LRE, RLE, PDF, LRO, RLO.
         (cp >= 0x2066 && cp <= 0x2069) ||  // LRI, RLI, FSI, PDI.
         cp == 0x061C ||                    // Arabic letter mark.
         cp == 0x200E || cp == 0x200F ||    // LRM, RLM.
         (cp >= 0x200B && cp <= 0x200D) ||  // Zero-width space, non-joiner, joiner.
         (cp >= 0x2060 && cp <= 0x2064) ||  // Word joiner, invisible operators.
         cp == 0xFEFF ||                    // Zero-width no-break space (BOM).
         cp == 0x00AD ||                    // Soft hyphen.
         cp == 0x180E ||                    // Mongolian vowel separator.
         cp == 0x2028 || cp == 0x2029 ||    // Line and paragraph separator: break lines too.
         (cp >= 0xE0000 && cp <= 0xE007F);  // Tags: can smuggle invisible ASCII.
}

bool NeedsEscape(char32_t cp) { return IsControl(cp) || IsInvisible(cp); }

// Length of the prefix of printable ASCII (0x20..0x7E). Works a block at a time without a branch
// per byte so the compiler can vectorize the common all-ASCII case.
std::size_t PrintableAsciiPrefix(std::string_view text) {
  constexpr std::size_t kBlock = 32;
  std::size_t pos = 0;
  for (; pos + kBlock <= text.size(); pos += kBlock) {
    bool unprintable = false;
    for (std::size_t i = 0; i < kBlock; ++i) {
      const auto c = static_cast<unsigned char>(text[pos + i]);
      unprintable |= (c < 0x20) | (c >= 0x7F);
    }
    if (unprintable) break;
  }
  for (; pos < text.size(); ++pos) {
    const auto c = static_cast<unsigned char>(text[pos]);
    if (c < 0x20 || c >= 0x7F) break;
  }
  return pos;
}

// Whether text[pos..] contains anything Sanitize would change. Combining marks count even when
// a run is short enough to keep, since telling that needs the run counted anyway.
bool NeedsRewrite(std::string_view text, std::size_t pos) {
  while (pos < text.size()) {
    char32_t cp;
    const int length = DecodeUtf8(text, pos, &cp);
    if (length == 0 || NeedsEscape(cp) || internal::IsCombiningMark(cp)) return true;
    pos += length;
  }
  return false;
}

void AppendHex(char32_t value, int min_digits, std::string* out) {
  char digits[8];
  int count = 0;
  do {
    digits[count++] = kHexDigits[value & 0xF];
    value >>= 4;
  } while (value != 0);
  for (; count < min_digits; ++count) digits[count] = '0';
  while (count > 0) out->push_back(digits[--count]);
}

void AppendEscape(char32_t cp, std::string* out) {
  if (cp == '\n' || cp == '\r') {
    out->push_back(' ');
  } else if (IsControl(cp)) {
    out->append("\\x");
    AppendHex(cp, 2, out);
  } else {
    out->append("\\u{");
    AppendHex(cp, 4, out);
    out->push_back('}');
  }
}

}  // namespace

std::string Sanitize(std::string_view text) {
  const std::size_t ascii_end = PrintableAsciiPrefix(text);
  if (ascii_end == text.size() || !NeedsRewrite(text, ascii_end)) return std::string(text);

  std::string out;
  out.reserve(text.size() + text.size() / 8 + 16);
  out.append(text.substr(0, ascii_end));
  int marks_in_run = 0;
  bool in_invalid_run = false;
  // Called before anything that is not a combining mark, and at the end: a mark run ends there.
  const auto end_mark_run = [&] {
    if (marks_in_run > kMaxCombiningMarksKept) {
      out.append("[+");
      out.append(std::to_string(marks_in_run - kMaxCombiningMarksKept));
      out.append(" combining marks dropped]");
    }
    marks_in_run = 0;
  };

  std::size_t pos = ascii_end;
  while (pos < text.size()) {
    char32_t cp;
    const int length = DecodeUtf8(text, pos, &cp);
    if (length == 0) {
      // Resynchronize one byte at a time, so a bad byte never swallows a valid character after
      // it; one replacement per run keeps garbage from blowing up the output threefold.
      if (!in_invalid_run) {
        end_mark_run();
        out.append(kReplacementCharacter);
        in_invalid_run = true;
      }
      ++pos;
      continue;
    }
    in_invalid_run = false;
    if (internal::IsCombiningMark(cp)) {
      if (++marks_in_run <= kMaxCombiningMarksKept) out.append(text.substr(pos, length));
    } else {
      end_mark_run();
      if (NeedsEscape(cp)) {
        AppendEscape(cp, &out);
      } else {
        out.append(text.substr(pos, length));
      }
    }
    pos += length;
  }
  end_mark_run();
  return out;
}

std::string Truncate(std::string_view text, int n) {
  const std::size_t limit = n < 0 ? 0 : static_cast<std::size_t>(n);
  if (text.size() <= limit) return std::string(text);
  const bool marked = limit >= kTruncationMark.size();
  std::size_t cut = marked ? limit - kTruncationMark.size() : limit;
  // A valid sequence has at most 3 continuation bytes; stopping there keeps a long run of stray
  // continuation bytes in invalid input from eating the whole prefix.
  for (int i = 0; i < 3 && cut > 0 && IsContinuationByte(static_cast<unsigned char>(text[cut]));
       ++i) {
    --cut;
  }
  std::string out(text.substr(0, cut));
  if (marked) out.append(kTruncationMark);
  return out;
}

std::string Quoted(std::string_view text, int max_bytes) {
  std::string out = "\"";
  out.append(Truncate(Sanitize(text), max_bytes));
  out.push_back('"');
  return out;
}

std::string QuoteBytes(std::string_view bytes, std::size_t max_bytes) {
  std::string out = "\"";
  int marks_in_run = 0;
  std::size_t pos = 0;
  while (pos < bytes.size() && pos < max_bytes) {
    const auto byte = static_cast<unsigned char>(bytes[pos]);
    char32_t cp;
    const int length = DecodeUtf8(bytes, pos, &cp);
    if (length == 0 || pos + length > max_bytes) {
      if (length != 0) break;  // a whole character or none
      out.append("\\x");
      AppendHex(byte, 2, &out);
      marks_in_run = 0;
      ++pos;
      continue;
    }
    bool mark = internal::IsCombiningMark(cp);
    marks_in_run = mark ? marks_in_run + 1 : 0;
    if (cp == '"' || cp == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(cp));
    } else if (cp == '\n') {
      out.append("\\n");
    } else if (cp == '\r') {
      out.append("\\r");
    } else if (cp == '\t') {
      out.append("\\t");
    } else if (cp < 0x20 || cp == 0x7F) {
      out.append("\\x");
      AppendHex(cp, 2, &out);
    } else if (NeedsEscape(cp) || (mark && marks_in_run > kMaxCombiningMarksKept)) {
      out.append("\\u{");
      AppendHex(cp, 4, &out);
      out.push_back('}');
    } else {
      out.append(bytes.substr(pos, length));
    }
    pos += length;
  }
  out.push_back('"');
  if (pos < bytes.size()) {
    out.append(kTruncationMark);
    out.append("(+" + std::to_string(bytes.size() - pos) + " bytes)");
  }
  return out;
}

}  // namespace agentrt::json
