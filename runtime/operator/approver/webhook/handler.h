// runtime/operator/approver/webhook/handler.h
//
// The approval webhook (docs/operators.md, "Approving over HTTP"): an HTTP face for an Approver, so
// a human can see a paused run's approvals and decide them from another system. It is an
// HttpService (runtime/world/http_service.h): world::HttpServer serves it on a socket, tests may
// call it directly.
//
// Routes (anything else: 404 not_found):
//   GET  /runs/{run}/approvals                  {"run_id", "pending": [Pending...]}
//   GET  /runs/{run}/approvals/{id}             Pending JSON; text with Accept: text/plain or
//                                               ?format=text; an expired approval: 410
//   POST /runs/{run}/approvals/{id}/approve     {"run_id","approval_id","hash","by","note"} -> 202
//   POST /runs/{run}/approvals/{id}/reject      same body -> 200 (the run is cancelled)
//   POST /runs/{run}/cancel                     {"run_id","by","note"} -> 200
// Every request goes through, in order, the first two before its body is read: its address's
// failure budget (429 rate_limited), the signature's headers and timestamp (401 unauthorized),
// the body bound (413 body_too_large), the signature itself (signature.h; 401 unauthorized),
// the rate limit shared by every client (429 rate_limited), then the route. Only a request whose
// signature verified spends the shared rate limit, so unsigned or forged traffic cannot silence
// signed requests; what fails before that (401, 413, and the transport's 400 and 408) is
// charged to its address (address_limiter.h), and an address out of failures is refused before
// its body is read or a MAC computed. A decision must name the path's run and approval and
// carry the hash that was shown and who decides (400 otherwise, before the Approver is asked).
// Errors are JSON {"error", "code"}; the Approver's typed errors map to: decision 400
// bad_request, not found 404 not_found, expired 410 expired, changed 409 approval_changed, not
// pending 409 not_pending, run state 409 run_not_waiting (run_finished for cancel), hash 409
// approval_hash, anything else 500 internal (its details are never sent). Every response carries
// Cache-Control: no-store. The transport's own refusals (Refused) are worded the same way: a
// connection over its caps 503 busy with Retry-After: 1, a request that did not arrive in time 408
// request_timeout, one it could not read 400 bad_request.
//
// The observer (optional) receives a webhook.decision event for each decision handled and a
// webhook.refused event for each request refused before its route: seq 0, never persisted.
//
// Thread-safe: the transport calls it from several threads.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/operator/approver/approver.h"
#include "runtime/operator/approver/webhook/address_limiter.h"
#include "runtime/operator/approver/webhook/rate_limiter.h"
#include "runtime/operator/approver/webhook/verifier.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/http_service.h"

namespace agentrt::approver::webhook {

inline constexpr std::size_t kMinSecretBytes = 32;

struct Config {
  Approver* approver = nullptr;  // required; not owned
  std::string secret;            // shared with clients; at least kMinSecretBytes
  absl::Duration skew = absl::Minutes(5);
  double rate = 10;  // verified requests per second, sustained, shared by every client
  int burst = 20;
  // Requests one address may have refused before their signature verified: failure_burst, then
  // failure_rate a second. Addresses are kept up to max_addresses (address_limiter.h).
  double failure_rate = 1;
  int failure_burst = 20;
  std::size_t max_addresses = 4096;
  std::size_t max_body = 16 * 1024;
  int limit = 20;  // pending approvals listed at most
  // Optional; called from the serving threads, possibly at once.
  store::EventObserver observer;
  const world::Clock* clock = nullptr;  // required: the skew check and the rate limits
};

class Handler final : public world::HttpService {
 public:
  // Create checks the configuration. Errors: InvalidArgument naming the field.
  static absl::StatusOr<std::unique_ptr<Handler>> Create(Config config);

  std::size_t max_body() const override { return config_.max_body; }
  std::optional<world::ServerResponse> Admit(const world::ServerRequest& head) override;
  world::ServerResponse Serve(const world::ServerRequest& request) override;
  world::ServerResponse Refused(const world::ServerRequest& head, int status) override;

  // Handle is Admit then Serve, for a caller that holds the whole request.
  world::ServerResponse Handle(const world::ServerRequest& request);

  // The bound on remembered signatures: burst + rate × 2 × skew seconds + 1.
  std::size_t signature_capacity() const;

 private:
  explicit Handler(Config config);

  world::ServerResponse Route(const world::ServerRequest& request);
  world::ServerResponse List(const world::ServerRequest& request, const std::string& run);
  world::ServerResponse Show(const world::ServerRequest& request, const std::string& run,
                             const std::string& approval);
  world::ServerResponse Decide(const world::ServerRequest& request, const std::string& run,
                               const std::string& approval, bool approve);
  world::ServerResponse CancelRun(const world::ServerRequest& request, const std::string& run);
  world::ServerResponse Refuse(const world::ServerRequest& request, int status,
                               std::string_view code, std::string_view reason);
  world::ServerResponse Limited(const world::ServerRequest& request, std::string_view reason);
  // A refusal before the signature verified: charged to the request's address.
  world::ServerResponse Failed(const world::ServerRequest& request, int status,
                               std::string_view code, std::string_view reason);
  void ObserveDecision(const world::ServerRequest& request, std::string_view run,
                       std::string_view action, std::string_view approval, std::string_view by,
                       int status, std::string_view error);

  Config config_;
  RateLimiter limiter_;
  AddressLimiter failures_;
  SignatureVerifier verifier_;
};

}  // namespace agentrt::approver::webhook
