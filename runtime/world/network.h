// runtime/world/network.h
//
// HTTP, injected: the MCP client's streamable HTTP transport and the provider adapters send
// requests through a Network, never through a socket or an HTTP library of their own. So a real
// run (curl_network.h, over libcurl), a recording of it (runtime/replay), a replay of that
// recording and the simulator's in-process fake servers all look the same to them.
//
// Send returns once the response's status line and headers have arrived; the body is then read
// as a stream (Read returns bytes as they arrive), which is how a server-sent-events answer is
// consumed while it is still being written (sse_parser.h parses it). Deadlines are on the Clock
// the network was given.
//
// What every Network promises (the real one enforces it; fakes must not be laxer):
//  - a redirect is never followed: a 3xx comes back as it is (redirect_policy.h lets a caller
//    that wants them follow them under a policy it chooses);
//  - a body is never silently cut: one longer than the request's max_body_bytes is refused by
//    name, before reading when its declared length is over, else by the Read that would pass it.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/world/http_fields.h"

namespace agentrt::world {

// The largest response body a request accepts unless it says otherwise.
inline constexpr std::size_t kMaxResponseBodyBytes = std::size_t{16} << 20;

struct HttpRequest {
  std::string method = "GET";  // "GET", "POST", "DELETE", ...
  std::string url;             // absolute: http:// or https://
  HttpFields headers;
  std::string body;  // sent as is (with Content-Length) when not empty or when method is POST
  // The body is refused past this many bytes (ResourceExhausted, naming the limit).
  std::size_t max_body_bytes = kMaxResponseBodyBytes;
  // The request's form body and its answer's JSON body carry OAuth secrets (a token request, a
  // client registration): a recording keeps their secret values redacted
  // (runtime/replay/internal/secret_redactor.h). Nothing else treats the request differently.
  bool carries_secrets = false;
};

// A response whose status and headers have arrived; its body is read as it arrives.
class HttpResponse {
 public:
  virtual ~HttpResponse() = default;  // implementations abandon a body not read to its end

  virtual int status() const = 0;                 // 200, 307, 404, ...
  virtual const HttpFields& headers() const = 0;  // as received, in order

  // Read returns the next bytes of the body as they arrive (at least one), or "" at its end.
  // Errors: DeadlineExceeded when nothing came by `deadline` (nothing is lost: a later Read gets
  // it), ResourceExhausted "response body exceeds <n> bytes" at the byte that would pass
  // max_body_bytes, Unavailable when the connection broke before the end (a server that closed
  // mid-body), Cancelled after Close.
  virtual absl::StatusOr<std::string> Read(absl::Time deadline) = 0;

  // Close abandons the rest of the body (the connection is dropped: for a streamed answer that
  // is how a client says it lost interest). Idempotent; safe from another thread while a Read is
  // in flight, which then returns Cancelled.
  virtual void Close() = 0;
};

// ReadBody reads what is left of `response`'s body to its end, bounded by `deadline`.
absl::StatusOr<std::string> ReadBody(HttpResponse& response, absl::Time deadline);

class Network {
 public:
  virtual ~Network() = default;
  // Send sends `request` and returns the response once its status and headers arrived.
  // Errors: InvalidArgument for a URL that is not absolute http(s) or a header that cannot be
  // sent (a newline in it); DeadlineExceeded when the headers had not arrived by `deadline`;
  // PermissionDenied when the network may not reach the address (a loopback-only network asked
  // for another host); FailedPrecondition when asking again cannot help: the host name does not
  // resolve, or the server's certificate is not trusted; ResourceExhausted for a declared
  // Content-Length over max_body_bytes; Unavailable when the server could not be reached (a
  // refused connection) or the connection broke before the response's head (naming the URL and
  // the reason).
  virtual absl::StatusOr<std::unique_ptr<HttpResponse>> Send(const HttpRequest& request,
                                                             absl::Time deadline) = 0;
};

// HttpResponseWrapper forwards every call to a target response it owns, and NetworkWrapper every
// request to a target network it does not own: a network or response that changes one call
// (records it, counts it) derives from them and overrides only that call. A NetworkWrapper's target
// must outlive it.
class HttpResponseWrapper : public HttpResponse {
 public:
  explicit HttpResponseWrapper(std::unique_ptr<HttpResponse> target) : target_(std::move(target)) {}
  HttpResponse& target() const { return *target_; }

  int status() const override { return target_->status(); }
  const HttpFields& headers() const override { return target_->headers(); }
  absl::StatusOr<std::string> Read(absl::Time deadline) override { return target_->Read(deadline); }
  void Close() override { target_->Close(); }

 private:
  std::unique_ptr<HttpResponse> target_;
};

class NetworkWrapper : public Network {
 public:
  explicit NetworkWrapper(Network& target) : target_(target) {}
  Network& target() const { return target_; }
  absl::StatusOr<std::unique_ptr<HttpResponse>> Send(const HttpRequest& request,
                                                     absl::Time deadline) override {
    return target_.Send(request, deadline);
  }

 private:
  Network& target_;
};

}  // namespace agentrt::world
