#include "runtime/json/utf8.h"

namespace agentrt::json {

// Decodes the UTF-8 sequence starting at text[pos]. Returns its length and sets *cp, or returns 0
// if the bytes there do not start a well-formed sequence. Follows the table in RFC 3629 section 4,
// whose narrowed second-byte ranges exclude overlong forms, surrogates and code points past
// U+10FFFF: those are exactly the encodings other decoders disagree on, so accepting them would
// let input show differently here than in the tool that produced it.
int DecodeUtf8(std::string_view text, std::size_t pos, char32_t* cp) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[pos + i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) {
    *cp = lead;
    return 1;
  }
  int length;
  unsigned char second_min = 0x80;
  unsigned char second_max = 0xBF;
  char32_t value;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    value = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    value = lead & 0x0F;
    if (lead == 0xE0) second_min = 0xA0;  // Overlong.
    if (lead == 0xED) second_max = 0x9F;  // Surrogates U+D800..U+DFFF.
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    value = lead & 0x07;
    if (lead == 0xF0) second_min = 0x90;  // Overlong.
    if (lead == 0xF4) second_max = 0x8F;  // Past U+10FFFF.
  } else {
    return 0;  // Continuation byte, overlong lead C0/C1, or lead F5..FF.
  }
  if (text.size() - pos < static_cast<std::size_t>(length)) return 0;
  if (byte(1) < second_min || byte(1) > second_max) return 0;
  value = (value << 6) | (byte(1) & 0x3F);
  for (int i = 2; i < length; ++i) {
    if (!IsContinuationByte(byte(i))) return 0;
    value = (value << 6) | (byte(i) & 0x3F);
  }
  *cp = value;
  return length;
}

bool IsValidUtf8(std::string_view text) {
  for (std::size_t pos = 0; pos < text.size();) {
    char32_t cp;
    int length = DecodeUtf8(text, pos, &cp);
    if (length == 0) return false;
    pos += static_cast<std::size_t>(length);
  }
  return true;
}

std::string ToValidUtf8(std::string_view text) {
  if (IsValidUtf8(text)) return std::string(text);
  std::string valid;
  valid.reserve(text.size() + 8);
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp;
    int n = DecodeUtf8(text, i, &cp);
    if (n > 0) {
      valid.append(text.substr(i, static_cast<std::size_t>(n)));
      i += static_cast<std::size_t>(n);
    } else {
      valid.append("\xEF\xBF\xBD");  // U+FFFD for each maximal run of bad bytes
      for (++i; i < text.size() && DecodeUtf8(text, i, &cp) == 0; ++i) {
      }
    }
  }
  return valid;
}

void AppendUtf8(char32_t cp, std::string& out) {
  if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) cp = 0xFFFD;
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace agentrt::json
