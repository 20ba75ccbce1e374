// runtime/json/pointer.h
//
// JSON Pointer (RFC 6901) tokens, for naming where in a document something is: the schema
// validator's error locations, the strict tool-schema checks' "oneOf at #/properties/a".
#pragma once

#include <string>
#include <string_view>

namespace agentrt::json {

// AppendPointerToken appends one token: '~' as "~0", '/' as "~1", everything else as it is.
void AppendPointerToken(std::string_view token, std::string& out);

}  // namespace agentrt::json
