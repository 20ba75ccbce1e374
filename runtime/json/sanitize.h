// Sanitize and Truncate make untrusted text (chosen by a server or a model) safe to show on a
// terminal or to write into a log line.
//
// Contract of Sanitize:
//  - The result is valid UTF-8 and a single line: it never contains a line break, any other
//    C0/C1 control byte or DEL, so the input cannot move the cursor, recolour or clear the
//    terminal, or forge extra log lines.
//  - Characters that render invisibly or reorder text (bidi controls, zero-width characters,
//    tag characters, ...) are shown as visible escapes, so what is displayed is what was sent.
//  - Stacks of combining marks are capped, so one character cannot smear over its neighbours.
//  - Text that needs none of this comes back byte for byte, and quickly.
//  - Backslashes in the input are not escaped: the escapes are meant for a human reader, and the
//    result is not meant to be decoded back into the original.
//
// Contract of Truncate: the result is at most n bytes, never ends inside a UTF-8 sequence, and
// shows that something was cut whenever there is room for the mark.

#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>

namespace agentrt::json {

// Returns `text` made safe to print:
//  - each maximal run of bytes that are not valid UTF-8 (RFC 3629) becomes one U+FFFD;
//  - "\n" and "\r" become a space;
//  - other C0 controls, DEL and C1 controls become "\x" plus two hex digits ("\x1b");
//  - invisible and format characters become "\u{...}" ("\u{202e}", "\u{e0041}");
//  - of a run of combining marks only the first 4 are kept, followed by
//    "[+<n> combining marks dropped]" when n more were dropped.
std::string Sanitize(std::string_view text);

// Returns `text` cut to at most `n` bytes, including the 3-byte mark "…" (U+2026) that shows the
// cut. The cut backs off to the start of a UTF-8 sequence rather than split one. Text of at most
// `n` bytes is returned unchanged; below 3 bytes there is no room for the mark, so the cut is
// unmarked; a negative `n` counts as 0.
std::string Truncate(std::string_view text, int n);

// Returns `bytes` (text or not) as one double-quoted line that keeps every byte apparent, for
// showing what exactly was sent or received (a cassette dump, a replay's mismatch): `"` and `\`
// are escaped with a backslash; "\n", "\r", "\t" are written so; other control bytes, DEL and
// bytes that are not valid UTF-8 become "\x" plus two hex digits; C1 controls, invisible and
// format characters, and combining marks after the fourth in a run become "\u{...}"; other
// valid UTF-8 is kept. At most `max_bytes` of `bytes` are shown: when there are more, the line
// ends with "…(+<n> bytes)" after the closing quote, and a character is never split.
std::string QuoteBytes(std::string_view bytes, std::size_t max_bytes);

// Returns `text` sanitized (Sanitize), cut to at most `max_bytes` (Truncate), between double
// quotes: how a message shows a name or a value someone else chose, so that where it starts and
// ends is plain. Quotes inside are not escaped: the result is for a reader, not for a parser
// (QuoteBytes is, for bytes that must stay apparent).
std::string Quoted(std::string_view text, int max_bytes = std::numeric_limits<int>::max());

}  // namespace agentrt::json
