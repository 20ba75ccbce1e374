// mcp/indented_json.h
//
// The readable layout of canonical JSON for files people read and diff (the manifest): each
// member and element on a line of its own, indented two spaces a level, `"key": value`, empty
// objects and arrays as `{}` and `[]`. Only whitespace is added, so parsing the result gives
// back the same value, and the same canonical input always gives the same bytes.
#pragma once

#include <string>
#include <string_view>

namespace agentrt::mcp {

// IndentCanonical lays out `canonical_json`, which must be canonical JSON (json::Canonicalize):
// the layout is decided by scanning the text, which has no whitespace outside strings.
std::string IndentCanonical(std::string_view canonical_json);

}  // namespace agentrt::mcp
