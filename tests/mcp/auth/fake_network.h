// tests/mcp/auth/fake_network.h
//
// A world::Network for the authorization tests: answers planted by URL (a fixed Reply, or a
// handler that sees the request), a 404 for everything else, and a record of every request in
// order. It keeps the promises of runtime/world/network.h that the code under test leans on: a
// URL that is not absolute http(s), or a header that cannot be sent, is refused; a redirect comes
// back as it is; a body over the request's max_body_bytes is refused with ResourceExhausted
// (at Send when its length is declared, else by the Read that would pass it), and a generated
// body is made as it is read, so a 50 MB answer is never held by anyone. Deterministic; no
// thread, no clock. Test-only.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/world/http_fields.h"
#include "runtime/world/network.h"

namespace agentrt::mcp::auth::fakes {

struct Reply {
  int status = 200;
  world::HttpFields headers;
  std::string body;
  // When not 0: a body of this many bytes, made as it is read (`body` is then unused).
  std::size_t generated_bytes = 0;
  // The length is declared up front (Content-Length), so an over-long body is refused at Send.
  bool declared_length = true;
};

// A JSON answer.
Reply Json(std::string body, int status = 200);
// A redirect to `location`.
Reply Redirect(std::string location, int status = 302);

class FakeNetwork final : public world::Network {
 public:
  using Handler = std::function<Reply(const world::HttpRequest&)>;

  // Every request to `url` (its query and fragment aside) gets `reply`, or what `handler` says.
  void Answer(std::string url, Reply reply);
  void Route(std::string url, Handler handler);
  // Every request to `url` fails with `status` before any answer (a timeout, a refused
  // connection).
  void Fail(std::string url, absl::Status status);
  // Forgets what was planted for `url`: it answers 404 again.
  void Forget(const std::string& url);

  absl::StatusOr<std::unique_ptr<world::HttpResponse>> Send(const world::HttpRequest& request,
                                                            absl::Time deadline) override;

  // Every request sent, in order (including those refused for their body's size).
  const std::vector<world::HttpRequest>& requests() const { return requests_; }
  // "METHOD url" of each request, in order.
  std::vector<std::string> Sent() const;
  // How many requests went to a URL starting with `prefix`.
  int CountTo(std::string_view prefix) const;

 private:
  std::map<std::string, Handler, std::less<>> routes_;
  std::map<std::string, absl::Status, std::less<>> failures_;
  std::vector<world::HttpRequest> requests_;
};

}  // namespace agentrt::mcp::auth::fakes
