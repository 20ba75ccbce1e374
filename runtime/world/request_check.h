// runtime/world/request_check.h
//
// What every Network refuses before a byte is sent (network.h: "InvalidArgument for a URL that
// is not absolute http(s) or a header that cannot be sent"), in one place, so the real network
// and the fakes refuse the same requests. A header value with a line break would let whoever
// chose it add headers or a second request of their own: it is refused, never cleaned.
#pragma once

#include "absl/status/status.h"
#include "runtime/world/network.h"

namespace agentrt::world {

// CheckRequest checks that `request` can be sent as it is:
//  - the method is an HTTP token ("GET", "POST", "M-SEARCH");
//  - the URL is absolute http:// or https:// with a host, in printable ASCII (no space);
//  - each header name is a token, and each value holds no control character but a tab (no CR,
//    LF or NUL);
//  - Content-Length and Transfer-Encoding are absent: the network sets them from the body.
// Errors: InvalidArgument naming the method, the URL (without its user information) and the
// header's name, never a header's value or the body.
absl::Status CheckRequest(const HttpRequest& request);

}  // namespace agentrt::world
