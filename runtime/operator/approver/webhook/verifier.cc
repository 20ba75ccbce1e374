#include "runtime/operator/approver/webhook/verifier.h"

#include <openssl/crypto.h>

#include <cstdint>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "runtime/operator/approver/webhook/signature.h"

namespace agentrt::approver::webhook {
namespace {

absl::Status Refuse(std::string_view reason) {
  return absl::UnauthenticatedError(absl::string_view(reason.data(), reason.size()));
}

// The 32 MAC bytes of a "v1=<64 hex>" header value; nullopt for any other form.
std::optional<std::string> MacBytes(const std::string& header) {
  if (!absl::StartsWith(header, "v1=") || header.size() != 3 + 64) return std::nullopt;
  std::string hex = header.substr(3);
  for (char c : hex) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
  }
  return absl::HexStringToBytes(absl::AsciiStrToLower(hex));
}

}  // namespace

SignatureVerifier::SignatureVerifier(std::string secret, absl::Duration skew, std::size_t capacity)
    : secret_(std::move(secret)), skew_(skew), capacity_(capacity) {}

std::size_t SignatureVerifier::remembered() const {
  absl::MutexLock lock(&mu_);
  return seen_.size();
}

void SignatureVerifier::Forget(absl::Time now) {
  while (!forget_at_.empty() && forget_at_.begin()->first < now) {
    seen_.erase(forget_at_.begin()->second);
    forget_at_.erase(forget_at_.begin());
  }
}

absl::StatusOr<SignatureVerifier::SignedHead> SignatureVerifier::ReadHead(
    const world::ServerRequest& head, absl::Time now) const {
  std::optional<std::string> ts_text = head.Header(kTimestampHeader);
  std::optional<std::string> nonce = head.Header(kNonceHeader);
  std::optional<std::string> signature = head.Header(kSignatureHeader);
  if (!ts_text.has_value() || !nonce.has_value() || !signature.has_value()) {
    return Refuse(
        "the request is not signed (X-Approval-Timestamp, X-Approval-Nonce and "
        "X-Approval-Signature are required)");
  }
  std::int64_t ts = 0;
  bool digits = !ts_text->empty() && ts_text->size() <= 18;
  for (char c : *ts_text) digits = digits && absl::ascii_isdigit(static_cast<unsigned char>(c));
  if (!digits || !absl::SimpleAtoi(*ts_text, &ts)) {
    return Refuse("X-Approval-Timestamp is not Unix seconds");
  }
  if (nonce->empty() || nonce->size() > kMaxNonceBytes) {
    return Refuse("X-Approval-Nonce must be 1 to 64 characters");
  }
  std::optional<std::string> given = MacBytes(*signature);
  if (!given.has_value()) {
    return Refuse("X-Approval-Signature is not \"v1=\" and 64 hex digits");
  }
  if (absl::AbsDuration(now - absl::FromUnixSeconds(ts)) > skew_) {
    return Refuse("the request's timestamp is outside the allowed clock skew");
  }
  return SignedHead{ts, *std::move(nonce), *std::move(given)};
}

absl::Status SignatureVerifier::CheckHead(const world::ServerRequest& head, absl::Time now) const {
  return ReadHead(head, now).status();
}

absl::Status SignatureVerifier::Verify(const world::ServerRequest& request, absl::Time now,
                                       RateLimiter* budget) {
  absl::StatusOr<SignedHead> head = ReadHead(request, now);
  if (!head.ok()) return head.status();
  std::optional<std::string> expected = MacBytes(
      Sign(secret_, head->timestamp, head->nonce, request.method, request.path, request.body));
  if (CRYPTO_memcmp(expected->data(), head->mac.data(), expected->size()) != 0) {
    return Refuse("the signature does not match the request");
  }
  absl::MutexLock lock(&mu_);
  Forget(now);
  if (seen_.count(head->mac) != 0) return Refuse("signature already used");
  if (seen_.size() >= capacity_) return Refuse("too many signatures in the window");
  // Charged last: only a request that verified spends the budget every client shares.
  if (budget != nullptr && !budget->Allow()) {
    return absl::ResourceExhaustedError("too many requests; slow down");
  }
  seen_.insert(head->mac);
  forget_at_.emplace(absl::FromUnixSeconds(head->timestamp) + skew_, std::move(head->mac));
  return absl::OkStatus();
}

}  // namespace agentrt::approver::webhook
