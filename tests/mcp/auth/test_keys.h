// tests/mcp/auth/test_keys.h
//
// Private keys made for a test (OpenSSL's EVP), as the PEM text an operator's key file holds,
// and the checks a relying party makes of what was signed with them: a client assertion's
// signature verified with the public key, and its parts decoded. Test-only.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt::mcp::auth::fakes {

// A fresh key pair of `kind` ("EC" for P-256, "EC:<curve>" for another curve such as
// "EC:P-384", "RSA" for 2048 bits), as a PKCS#8 PEM private key.
std::string NewPrivateKeyPem(std::string_view kind);

// The JWT's three parts, split at '.'; empty when it does not have exactly three.
std::vector<std::string> SplitJwt(std::string_view jwt);

// base64url without padding, decoded; nullopt when it is not that.
std::optional<std::string> Base64UrlDecode(std::string_view text);

// VerifyJwt: `jwt`'s signature is good for `private_key_pem`'s public half under `alg` (ES256
// with the JOSE raw R||S signature, converted back to DER here, or RS256).
bool VerifyJwt(std::string_view jwt, std::string_view private_key_pem, std::string_view alg);

}  // namespace agentrt::mcp::auth::fakes
