// runtime/json/utf8.h
//
// The one UTF-8 decoder of agentrt: RFC 3629 well-formedness (no overlong forms, no encoded
// surrogates, nothing past U+10FFFF). Intake refuses what it refuses, Sanitize replaces it, and
// recorded decisions keep bytes that fail it in base64.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace agentrt::json {

inline bool IsContinuationByte(unsigned char byte) { return (byte & 0xC0) == 0x80; }

// DecodeUtf8 decodes the sequence starting at text[pos]: returns its length and sets *cp, or
// returns 0 when the bytes there are not a well-formed sequence.
int DecodeUtf8(std::string_view text, std::size_t pos, char32_t* cp);

// AppendUtf8 appends the UTF-8 encoding of `cp`; a surrogate or a value past U+10FFFF, which
// UTF-8 cannot carry, is appended as U+FFFD.
void AppendUtf8(char32_t cp, std::string& out);

// IsValidUtf8: every byte of `text` belongs to a well-formed sequence.
bool IsValidUtf8(std::string_view text);

// ToValidUtf8 returns `text` with each maximal run of bytes that are not valid UTF-8 replaced
// by one U+FFFD, as Sanitize does (text that is valid comes back unchanged): for JSON strings,
// which cannot hold such bytes.
std::string ToValidUtf8(std::string_view text);

}  // namespace agentrt::json
