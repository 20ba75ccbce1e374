// mcp/auth/form.h
//
// application/x-www-form-urlencoded (the WHATWG URL standard's form, which RFC 6749 Appendix B
// asks of OAuth): the body of every token and authorization request, the query of an
// authorization URL and of the redirect back. Encoding escapes every byte but ALPHA / DIGIT /
// "-" / "." / "_" / "*" and writes a space as '+'; decoding takes '+' as a space and %XX as its
// byte, and refuses a malformed escape rather than guess.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/world/http_fields.h"

namespace agentrt::mcp::auth {

// FormEncode is `fields` as name=value pairs joined by '&', in order.
std::string FormEncode(const world::HttpFields& fields);

// FormEscape is one name or value escaped.
std::string FormEscape(std::string_view text);

// FormDecode parses a form body or a URL's query. Errors: InvalidArgument `a malformed escape at
// byte <n>`.
absl::StatusOr<world::HttpFields> FormDecode(std::string_view text);

// WithQuery is `url` with `fields` appended to its query ('?' or '&' as it needs), before any
// fragment.
std::string WithQuery(std::string_view url, const world::HttpFields& fields);

}  // namespace agentrt::mcp::auth
