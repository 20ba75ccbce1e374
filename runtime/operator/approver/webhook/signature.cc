#include "runtime/operator/approver/webhook/signature.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sha256.h"

namespace agentrt::approver::webhook {

std::string SignedText(std::int64_t unix_seconds, std::string_view nonce, std::string_view method,
                       std::string_view path, std::string_view body) {
  return absl::StrCat(unix_seconds, "\n", ToAbsl(nonce), "\n", ToAbsl(method), "\n", ToAbsl(path),
                      "\n", ToAbsl(body));
}

std::string Sign(std::string_view secret, std::int64_t unix_seconds, std::string_view nonce,
                 std::string_view method, std::string_view path, std::string_view body) {
  std::string text = SignedText(unix_seconds, nonce, method, path, body);
  json::Sha256Digest mac{};
  unsigned int length = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(text.data()), text.size(), mac.data(), &length);
  return "v1=" + json::ToHex(mac);
}

world::ServerRequest NewRequest(std::string_view secret, absl::Time now, world::Entropy& entropy,
                                std::string_view method, std::string_view path,
                                std::string_view body) {
  std::int64_t ts = absl::ToUnixSeconds(now);
  std::string nonce = entropy.NewId();
  world::ServerRequest request;
  request.method = std::string(method);
  request.path = std::string(path);
  request.body = std::string(body);
  request.headers = {
      {std::string(kTimestampHeader), absl::StrCat(ts)},
      {std::string(kNonceHeader), nonce},
      {std::string(kSignatureHeader), Sign(secret, ts, nonce, method, path, body)},
  };
  if (!body.empty()) request.headers.emplace_back("Content-Type", "application/json");
  return request;
}

}  // namespace agentrt::approver::webhook
