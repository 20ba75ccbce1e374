#include "mcp/auth/client_assertion.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/pem.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/json_object.h"

namespace agentrt::mcp::auth {
namespace {

constexpr absl::Duration kLifetime = absl::Minutes(5);

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct KeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct MdFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
struct SigFree {
  void operator()(ECDSA_SIG* sig) const { ECDSA_SIG_free(sig); }
};

std::string Base64Url(std::string_view bytes) { return absl::WebSafeBase64Escape(ToAbsl(bytes)); }

// An ECDSA signature in DER as JOSE writes it: R and S, each 32 bytes big-endian.
absl::StatusOr<std::string> RawEcdsa(const std::vector<unsigned char>& der) {
  const unsigned char* p = der.data();
  std::unique_ptr<ECDSA_SIG, SigFree> sig(
      d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der.size())));
  if (sig == nullptr) return absl::InternalError("the ECDSA signature does not parse");
  const BIGNUM* r = nullptr;
  const BIGNUM* s = nullptr;
  ECDSA_SIG_get0(sig.get(), &r, &s);
  std::array<unsigned char, 64> raw{};
  if (BN_bn2binpad(r, raw.data(), 32) != 32 || BN_bn2binpad(s, raw.data() + 32, 32) != 32) {
    return absl::InternalError("the ECDSA signature is not P-256's");
  }
  return std::string(reinterpret_cast<const char*>(raw.data()), raw.size());
}

// ES256 is ECDSA on P-256 only: a key on another curve (secp256k1 is 256 bits too) would sign
// something no verifier of ES256 accepts.
bool IsP256(EVP_PKEY* key) {
  std::array<char, 64> group{};
  std::size_t length = 0;
  return EVP_PKEY_get_group_name(key, group.data(), group.size(), &length) == 1 &&
         std::string_view(group.data(), length) == SN_X9_62_prime256v1;
}

}  // namespace

absl::StatusOr<std::string> SignClientAssertion(const world::Secret& private_key_pem,
                                                std::string_view algorithm,
                                                const AssertionClaims& claims,
                                                world::Entropy& entropy) {
  bool es256 = algorithm == "ES256";
  if (!es256 && algorithm != "RS256") {
    return absl::InvalidArgumentError(absl::StrCat(
        "signing algorithm \"", ToAbsl(algorithm).substr(0, 32), "\" is not ES256 or RS256"));
  }
  const std::string& pem = private_key_pem.Reveal();
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  std::unique_ptr<EVP_PKEY, KeyFree> key(
      bio == nullptr ? nullptr : PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (key == nullptr) return absl::InvalidArgumentError("private key: not a PEM private key");
  int type = EVP_PKEY_get_base_id(key.get());
  if ((es256 && (type != EVP_PKEY_EC || !IsP256(key.get()))) || (!es256 && type != EVP_PKEY_RSA)) {
    return absl::InvalidArgumentError(absl::StrCat("private key: an ", es256 ? "EC P-256" : "RSA",
                                                   " key is needed for ", ToAbsl(algorithm)));
  }
  std::string header = json::JsonObject().String("alg", algorithm).String("typ", "JWT").Build();
  std::int64_t now = absl::ToUnixSeconds(claims.now);
  std::string payload = json::JsonObject()
                            .String("iss", claims.client_id)
                            .String("sub", claims.client_id)
                            .String("aud", claims.audience)
                            .Int("iat", now)
                            .Int("exp", now + absl::ToInt64Seconds(kLifetime))
                            .String("jti", entropy.NewId())
                            .Build();
  std::string signing_input = absl::StrCat(Base64Url(header), ".", Base64Url(payload));
  std::unique_ptr<EVP_MD_CTX, MdFree> ctx(EVP_MD_CTX_new());
  std::size_t length = 0;
  if (ctx == nullptr ||
      EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &length,
                     reinterpret_cast<const unsigned char*>(signing_input.data()),
                     signing_input.size()) != 1) {
    return absl::InternalError("the client assertion could not be signed");
  }
  std::vector<unsigned char> signature(length);
  if (EVP_DigestSign(ctx.get(), signature.data(), &length,
                     reinterpret_cast<const unsigned char*>(signing_input.data()),
                     signing_input.size()) != 1) {
    return absl::InternalError("the client assertion could not be signed");
  }
  signature.resize(length);
  std::string raw;
  if (es256) {
    absl::StatusOr<std::string> converted = RawEcdsa(signature);
    if (!converted.ok()) return converted.status();
    raw = *std::move(converted);
  } else {
    raw.assign(reinterpret_cast<const char*>(signature.data()), signature.size());
  }
  return absl::StrCat(signing_input, ".", Base64Url(raw));
}

}  // namespace agentrt::mcp::auth
