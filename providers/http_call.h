// providers/http_call.h
//
// What every provider adapter shares about speaking HTTP to a model provider: one JSON request
// through the injected world::Network, its reply read to the end within the 16 MiB bound, and
// every way it can fail sorted into the kinds the model caller acts on (runtime/model.h):
//
//   transport (what the Network returned)                      kind
//   -------------------------------------------------------    ----------------------------
//   nothing came by the deadline (headers or body)             ambiguous (DeadlineExceeded)
//   the connection broke after the headers (a body cut short)  ambiguous (AmbiguousError)
//   the caller cancelled (Cancelled)                           permanent, returned as it is
//   the connection was refused or broke before an answer       transient
//   the host name does not resolve (NotFound)                  permanent
//   the server's certificate is not trusted (FailedPrecondition) permanent
//   the URL cannot be sent (InvalidArgument)                   permanent
//   a loopback-only network asked for another host             permanent
//   a body over 16 MiB (ResourceExhausted)                     permanent (the same request gets
//                                                              the same reply)
//
//   status of the reply                                        kind
//   -------------------------------------------------------    ----------------------------
//   2xx                                                        the adapter reads the body
//   3xx: never followed                                        permanent, naming only the
//                                                              Location's host
//   408, 409, 425, 429 and every 5xx (529 overloaded too)      transient, Retry-After kept
//   any other                                                  permanent
//
// An error's text is "<provider>: <status>: <excerpt of the body>", the excerpt trimmed, cut to
// 2048 bytes on a UTF-8 boundary and escaped (json::Sanitize), so a hostile body cannot write
// control characters to a terminal or a log. An error never holds the request or a header the
// adapter sent (the API key travels in one).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/world/http_fields.h"
#include "runtime/world/network.h"
#include "runtime/world/world.h"

namespace agentrt::providers {

// The largest reply body an adapter reads (world::kMaxResponseBodyBytes).
inline constexpr std::size_t kMaxBodyBytes = std::size_t{16} << 20;
// The longest excerpt of a reply's body an error carries, before the "…".
inline constexpr std::size_t kMaxExcerptBytes = 2048;
// The longest wait a Retry-After may ask for; a longer one is not believed.
inline constexpr absl::Duration kMaxRetryAfter = absl::Hours(1);

// A reply whose status and body arrived.
struct HttpReply {
  int status = 0;
  world::HttpFields headers;
  std::string body;
};

// PostJson POSTs `json` to `url` with Content-Type: application/json and `headers`, and reads the
// reply's body to its end, all by `deadline`. The status is not judged: a 2xx and a 503 both come
// back as replies (ReplyError judges them). Errors are the transport's, sorted as the table above
// says and prefixed "<provider>: ".
absl::StatusOr<HttpReply> PostJson(world::Network& network, std::string_view provider,
                                   std::string url, world::HttpFields headers, std::string json,
                                   absl::Time deadline);

// ReplyError is OK for a 2xx reply, else the error its status gives (the table above), with the
// Retry-After of a transient one read at `now`.
absl::Status ReplyError(std::string_view provider, const HttpReply& reply, absl::Time now);

// CallProvider is one call as every adapter makes it: PostJson by the earlier of `deadline` and
// `timeout` after the world's clock now (the timeout is a backstop, the caller's deadline the
// real one), then ReplyError on the reply, read at the clock's time then. Returns the reply only
// when its status is 2xx. `world` needs a network and a clock.
absl::StatusOr<HttpReply> CallProvider(const world::World& world, std::string_view provider,
                                       std::string url, world::HttpFields headers, std::string json,
                                       absl::Time deadline, absl::Duration timeout);

// IsTransientStatus: 408, 409, 425, 429, and every status from 500.
bool IsTransientStatus(int status);

// RetryAfter reads a Retry-After header's value at `now`: whole seconds ("7"; a negative number
// is 0) or an HTTP date (the time until it). 0 when absent, unreadable, in the past, or over
// kMaxRetryAfter; exactly kMaxRetryAfter is believed.
absl::Duration RetryAfter(std::optional<std::string_view> value, absl::Time now);

// Truncate cuts `text` to at most `max_bytes` bytes, back to a UTF-8 boundary, and appends "…"
// when it cut anything: Truncate("héllo", 2) is "h…".
std::string Truncate(std::string_view text, std::size_t max_bytes);

// Excerpt is what an error shows of a body: trimmed of surrounding whitespace, Truncate'd to
// kMaxExcerptBytes, then escaped so no control character or invalid UTF-8 passes.
std::string Excerpt(std::string_view body);

}  // namespace agentrt::providers
