#include "tests/mcp/auth/test_keys.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>

#include "absl/strings/escaping.h"
#include "absl/strings/str_split.h"

namespace agentrt::mcp::auth::fakes {
namespace {

struct Free {
  void operator()(BIO* bio) const { BIO_free(bio); }
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
  void operator()(ECDSA_SIG* sig) const { ECDSA_SIG_free(sig); }
};
template <typename T>
using Owned = std::unique_ptr<T, Free>;

std::string BioText(BIO* bio) {
  char* data = nullptr;
  long size = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(size));
}

// The public half of `private_key_pem`, through its PEM form (what a relying party would hold).
Owned<EVP_PKEY> PublicKey(std::string_view private_key_pem) {
  Owned<BIO> in(BIO_new_mem_buf(private_key_pem.data(), static_cast<int>(private_key_pem.size())));
  Owned<EVP_PKEY> key(PEM_read_bio_PrivateKey(in.get(), nullptr, nullptr, nullptr));
  if (key == nullptr) return nullptr;
  Owned<BIO> out(BIO_new(BIO_s_mem()));
  if (PEM_write_bio_PUBKEY(out.get(), key.get()) != 1) return nullptr;
  std::string pem = BioText(out.get());
  Owned<BIO> back(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  return Owned<EVP_PKEY>(PEM_read_bio_PUBKEY(back.get(), nullptr, nullptr, nullptr));
}

// JOSE's raw R||S as the DER ECDSA-Sig-Value OpenSSL verifies.
std::optional<std::string> EcdsaDer(const std::string& raw) {
  if (raw.size() != 64) return std::nullopt;
  const auto* bytes = reinterpret_cast<const unsigned char*>(raw.data());
  Owned<ECDSA_SIG> sig(ECDSA_SIG_new());
  BIGNUM* r = BN_bin2bn(bytes, 32, nullptr);
  BIGNUM* s = BN_bin2bn(bytes + 32, 32, nullptr);
  if (sig == nullptr || r == nullptr || s == nullptr || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
    BN_free(r);
    BN_free(s);
    return std::nullopt;
  }
  unsigned char* der = nullptr;
  int length = i2d_ECDSA_SIG(sig.get(), &der);
  if (length <= 0) return std::nullopt;
  std::string out(reinterpret_cast<const char*>(der), static_cast<std::size_t>(length));
  OPENSSL_free(der);
  return out;
}

}  // namespace

std::string NewPrivateKeyPem(std::string_view kind) {
  std::string curve = kind == "EC"              ? "P-256"
                      : kind.starts_with("EC:") ? std::string(kind.substr(3))
                                                : "";
  Owned<EVP_PKEY> key(!curve.empty()
                          ? EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", curve.c_str())
                          : EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", std::size_t{2048}));
  if (key == nullptr) return "";
  Owned<BIO> out(BIO_new(BIO_s_mem()));
  if (PEM_write_bio_PrivateKey(out.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return "";
  }
  return BioText(out.get());
}

std::vector<std::string> SplitJwt(std::string_view jwt) {
  std::vector<std::string> parts = absl::StrSplit(absl::string_view(jwt.data(), jwt.size()), '.');
  if (parts.size() != 3) return {};
  return parts;
}

std::optional<std::string> Base64UrlDecode(std::string_view text) {
  if (text.find_first_of("=+/") != std::string_view::npos) return std::nullopt;
  std::string out;
  if (!absl::WebSafeBase64Unescape(absl::string_view(text.data(), text.size()), &out)) {
    return std::nullopt;
  }
  return out;
}

bool VerifyJwt(std::string_view jwt, std::string_view private_key_pem, std::string_view alg) {
  std::vector<std::string> parts = SplitJwt(jwt);
  if (parts.empty()) return false;
  std::optional<std::string> signature = Base64UrlDecode(parts[2]);
  if (!signature.has_value()) return false;
  if (alg == "ES256") {
    signature = EcdsaDer(*signature);
    if (!signature.has_value()) return false;
  }
  Owned<EVP_PKEY> key = PublicKey(private_key_pem);
  Owned<EVP_MD_CTX> ctx(EVP_MD_CTX_new());
  if (key == nullptr || ctx == nullptr ||
      EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1) {
    return false;
  }
  std::string signed_part = parts[0] + "." + parts[1];
  return EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature->data()),
                          signature->size(),
                          reinterpret_cast<const unsigned char*>(signed_part.data()),
                          signed_part.size()) == 1;
}

}  // namespace agentrt::mcp::auth::fakes
