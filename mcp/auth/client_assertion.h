// mcp/auth/client_assertion.h
//
// A private_key_jwt client assertion (RFC 7523 §2.2, OpenID Connect Core §9): a JWT the client
// signs with its own private key to authenticate at a token endpoint, instead of a shared secret.
// Claims: `iss` and `sub` the client id, `aud` the authorization server's issuer, `iat` now,
// `exp` five minutes on, `jti` 128 random bits. ES256 (ECDSA P-256 over SHA-256, the signature
// as JOSE's raw 64-byte R‖S) or RS256 (RSASSA-PKCS1-v1_5 over SHA-256). The key is a PEM private
// key (PKCS#8 or the traditional forms) held as a Secret; it never appears in an error.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/world/entropy.h"
#include "runtime/world/secret.h"

namespace agentrt::mcp::auth {

struct AssertionClaims {
  std::string client_id;
  std::string audience;
  absl::Time now;
};

// SignClientAssertion returns the compact JWT. Errors: InvalidArgument `private key: not a PEM
// private key`, `private key: an <alg> key is needed for <alg>`, `signing algorithm "<a>" is
// not ES256 or RS256`; Internal when the signature could not be made.
absl::StatusOr<std::string> SignClientAssertion(const world::Secret& private_key_pem,
                                                std::string_view algorithm,
                                                const AssertionClaims& claims,
                                                world::Entropy& entropy);

}  // namespace agentrt::mcp::auth
