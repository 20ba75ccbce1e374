// runtime/operator/approver/webhook/signature.h
//
// How a webhook request is signed (docs/operators.md, "Approving over HTTP"): three headers,
//   X-Approval-Timestamp  Unix seconds when the client signed
//   X-Approval-Nonce      1 to 64 characters the client chose for this request
//   X-Approval-Signature  "v1=" + lowercase hex HMAC-SHA256(secret,
//                             "<timestamp>\n<nonce>\n<METHOD>\n<path>\n" + body)
// The path is the one the server routes on: percent-decoded, without the query. Clients (and
// tests) build requests with NewRequest; the server checks them with SignatureVerifier.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "runtime/world/entropy.h"
#include "runtime/world/http_service.h"

namespace agentrt::approver::webhook {

inline constexpr std::string_view kTimestampHeader = "X-Approval-Timestamp";
inline constexpr std::string_view kNonceHeader = "X-Approval-Nonce";
inline constexpr std::string_view kSignatureHeader = "X-Approval-Signature";
inline constexpr std::size_t kMaxNonceBytes = 64;

// SignedText is what the HMAC covers.
std::string SignedText(std::int64_t unix_seconds, std::string_view nonce, std::string_view method,
                       std::string_view path, std::string_view body);

// Sign returns the X-Approval-Signature value for a request.
std::string Sign(std::string_view secret, std::int64_t unix_seconds, std::string_view nonce,
                 std::string_view method, std::string_view path, std::string_view body);

// NewRequest builds a signed request signed at `now` with a fresh 32-character nonce drawn from
// `entropy`: the method, path, body and the three headers (plus Content-Type for a body).
world::ServerRequest NewRequest(std::string_view secret, absl::Time now, world::Entropy& entropy,
                                std::string_view method, std::string_view path,
                                std::string_view body = "");

}  // namespace agentrt::approver::webhook
