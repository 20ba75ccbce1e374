// runtime/schema/internal/uri.h
//
// The little of RFC 3986 that JSON Schema identifiers need: resolving a reference against a
// base URI (section 5.2, with dot-segment removal), splitting off the fragment, and decoding
// a fragment's percent escapes. Works on any scheme, including `urn:` and `tag:`. Strings
// only: nothing here touches the network.
#pragma once

#include <string>
#include <string_view>

namespace agentrt::schema {

// ResolveUri returns `reference` resolved against `base` (both may be empty or relative).
std::string ResolveUri(std::string_view base, std::string_view reference);

struct UriParts {
  std::string without_fragment;
  std::string fragment;  // without '#', still percent-encoded
  bool has_fragment = false;
};
UriParts SplitFragment(std::string_view uri);

// PercentDecode decodes %XX escapes; malformed escapes are kept as they are.
std::string PercentDecode(std::string_view text);

}  // namespace agentrt::schema
