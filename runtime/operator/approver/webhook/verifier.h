// runtime/operator/approver/webhook/verifier.h
//
// SignatureVerifier checks a webhook request's signature (signature.h) and refuses a replay:
//   - the timestamp must be within `skew` of now (either side);
//   - the signature must be the HMAC of the request under the secret, compared in constant
//     time;
//   - a signature already accepted is refused until its timestamp + skew, after which the
//     timestamp check refuses it anyway; the set of remembered signatures is bounded at
//     `capacity`, and a request that would overflow it is refused rather than forgetting one
//     early.
// The checks that need no body (the headers and the timestamp) are CheckHead, so a server can
// refuse a request that cannot verify before reading its body. Each refusal is one sentence for
// the client and the observer. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "runtime/operator/approver/webhook/rate_limiter.h"
#include "runtime/world/http_service.h"

namespace agentrt::approver::webhook {

class SignatureVerifier {
 public:
  SignatureVerifier(std::string secret, absl::Duration skew, std::size_t capacity);

  // CheckHead: OK when the three headers are there and well-formed and the timestamp is within
  // the skew of `now`; otherwise Unauthenticated saying why. Reads no body, computes no MAC.
  absl::Status CheckHead(const world::ServerRequest& head, absl::Time now) const;

  // Verify: OK, or Unauthenticated saying why. An accepted signature is remembered. `budget`,
  // when given, is charged only for a request whose signature is valid and not used before, so
  // requests that do not verify never spend it; a request it has no token for is refused with
  // ResourceExhausted and not remembered (it may be sent again).
  absl::Status Verify(const world::ServerRequest& request, absl::Time now,
                      RateLimiter* budget = nullptr);

  std::size_t remembered() const;

 private:
  struct SignedHead {
    std::int64_t timestamp;
    std::string nonce;
    std::string mac;  // the 32 bytes the client sent
  };
  absl::StatusOr<SignedHead> ReadHead(const world::ServerRequest& head, absl::Time now) const;
  void Forget(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string secret_;
  const absl::Duration skew_;
  const std::size_t capacity_;
  mutable absl::Mutex mu_;
  std::set<std::string> seen_ ABSL_GUARDED_BY(mu_);                        // MAC bytes
  std::multimap<absl::Time, std::string> forget_at_ ABSL_GUARDED_BY(mu_);  // ts + skew -> MAC
};

}  // namespace agentrt::approver::webhook
