// IsCombiningMark answers whether a code point is a Unicode combining mark (general category Mn,
// Mc or Me). Sanitize needs it to cap stacked marks ("Zalgo" text), which can otherwise cover
// neighbouring lines of a terminal or log. The table behind it is generated from Python's
// unicodedata by tools/dev/gen_combining_marks.py; combining_marks.cc names the Unicode version.
// Internal to runtime/json: callers outside it should use Sanitize.

#pragma once

namespace agentrt::json::internal {

// Code points that are not scalar values (surrogates, > U+10FFFF) are never marks.
bool IsCombiningMark(char32_t cp);

}  // namespace agentrt::json::internal
