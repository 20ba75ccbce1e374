#include "mcp/auth/client_assertion.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/intake.h"
#include "runtime/world/entropy.h"
#include "tests/mcp/auth/test_keys.h"
#include "tests/support/status_matchers.h"

namespace agentrt::mcp::auth {
namespace {

using fakes::Base64UrlDecode;
using fakes::NewPrivateKeyPem;
using fakes::SplitJwt;
using fakes::VerifyJwt;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

// Keys are slow to make (RSA especially): one of each for the whole file.
const std::string& EcKey() {
  static const std::string* key = new std::string(NewPrivateKeyPem("EC"));
  return *key;
}
const std::string& RsaKey() {
  static const std::string* key = new std::string(NewPrivateKeyPem("RSA"));
  return *key;
}

AssertionClaims Claims() {
  return {.client_id = "machine-client", .audience = "https://auth.example.com", .now = kNow};
}

// The decoded JSON of one of a JWT's first two parts.
absl::StatusOr<json::Document> Part(const std::string& jwt, int index) {
  std::vector<std::string> parts = SplitJwt(jwt);
  if (parts.size() != 3) return absl::InvalidArgumentError("not three parts");
  std::optional<std::string> decoded = Base64UrlDecode(parts[index]);
  if (!decoded.has_value()) return absl::InvalidArgumentError("not base64url");
  return json::Parse(*decoded);
}

// A member of a decoded part: a string's value or a number as written; "<absent>" otherwise.
std::string Claim(const absl::StatusOr<json::Document>& part, std::string_view key) {
  if (!part.ok() || !part->root().is_object()) return "<absent>";
  std::optional<json::Value> value = part->root().Find(key);
  if (!value.has_value()) return "<absent>";
  if (value->is_string()) return std::string(value->string_value());
  if (value->is_number()) return std::string(value->number_literal());
  return "<absent>";
}

class SignClientAssertionTest : public ::testing::TestWithParam<std::string> {
 protected:
  const std::string& Key() const { return GetParam() == "ES256" ? EcKey() : RsaKey(); }
};

TEST_P(SignClientAssertionTest, SignsTheClaimsARelyingPartyChecks) {
  ASSERT_THAT(Key(), StartsWith("-----BEGIN PRIVATE KEY-----"));
  world::SeededEntropy entropy(3);

  absl::StatusOr<std::string> jwt =
      SignClientAssertion(world::Secret(Key()), GetParam(), Claims(), entropy);

  ASSERT_OK(jwt);
  absl::StatusOr<json::Document> header = Part(*jwt, 0);
  absl::StatusOr<json::Document> payload = Part(*jwt, 1);
  ASSERT_OK(header);
  ASSERT_OK(payload);
  EXPECT_EQ(Claim(header, "alg"), GetParam());
  EXPECT_EQ(Claim(header, "typ"), "JWT");
  EXPECT_EQ(Claim(payload, "iss"), "machine-client");
  EXPECT_EQ(Claim(payload, "sub"), "machine-client");
  EXPECT_EQ(Claim(payload, "aud"), "https://auth.example.com");
  EXPECT_EQ(Claim(payload, "iat"), "1800000000");
  EXPECT_EQ(Claim(payload, "exp"), "1800000300");  // five minutes on
  EXPECT_THAT(Claim(payload, "jti"), MatchesRegex("[0-9a-f]{32}"));
  EXPECT_TRUE(VerifyJwt(*jwt, Key(), GetParam()));
}

TEST_P(SignClientAssertionTest, ASignatureOverOtherClaimsDoesNotVerify) {
  world::SeededEntropy entropy(3);
  absl::StatusOr<std::string> jwt =
      SignClientAssertion(world::Secret(Key()), GetParam(), Claims(), entropy);
  ASSERT_OK(jwt);
  std::vector<std::string> parts = SplitJwt(*jwt);
  ASSERT_THAT(parts, SizeIs(3));
  AssertionClaims other = Claims();
  other.audience = "https://evil.example.com";
  absl::StatusOr<std::string> forged_from =
      SignClientAssertion(world::Secret(Key()), GetParam(), other, entropy);
  ASSERT_OK(forged_from);

  std::string spliced =
      SplitJwt(*forged_from)[0] + "." + SplitJwt(*forged_from)[1] + "." + parts[2];

  EXPECT_FALSE(VerifyJwt(spliced, Key(), GetParam()));
}

TEST_P(SignClientAssertionTest, EveryAssertionHasItsOwnId) {
  world::SeededEntropy entropy(3);

  absl::StatusOr<std::string> first =
      SignClientAssertion(world::Secret(Key()), GetParam(), Claims(), entropy);
  absl::StatusOr<std::string> second =
      SignClientAssertion(world::Secret(Key()), GetParam(), Claims(), entropy);

  ASSERT_OK(first);
  ASSERT_OK(second);
  EXPECT_NE(Claim(Part(*first, 1), "jti"), Claim(Part(*second, 1), "jti"));
}

INSTANTIATE_TEST_SUITE_P(Algorithms, SignClientAssertionTest, ::testing::Values("ES256", "RS256"));

TEST(SignClientAssertionRefusalTest, RefusesWhatIsNotAPemPrivateKey) {
  world::SeededEntropy entropy(3);

  for (std::string key :
       {"", "not a key", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"}) {
    SCOPED_TRACE(key);
    absl::StatusOr<std::string> jwt =
        SignClientAssertion(world::Secret(key), "ES256", Claims(), entropy);
    EXPECT_THAT(jwt,
                StatusIs(absl::StatusCode::kInvalidArgument, "private key: not a PEM private key"));
  }
}

TEST(SignClientAssertionRefusalTest, RefusesAKeyOfTheOtherKind) {
  world::SeededEntropy entropy(3);

  EXPECT_THAT(SignClientAssertion(world::Secret(RsaKey()), "ES256", Claims(), entropy),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "private key: an EC P-256 key is needed for ES256"));
  EXPECT_THAT(
      SignClientAssertion(world::Secret(EcKey()), "RS256", Claims(), entropy),
      StatusIs(absl::StatusCode::kInvalidArgument, "private key: an RSA key is needed for RS256"));
}

TEST(SignClientAssertionRefusalTest, RefusesAnEcKeyOnAnotherCurveForES256) {
  // ES256 is P-256 only: a signature on another curve is no ES256 signature at all.
  world::SeededEntropy entropy(3);

  for (std::string curve : {"P-384", "secp256k1"}) {
    SCOPED_TRACE(curve);
    std::string key = NewPrivateKeyPem("EC:" + curve);
    ASSERT_THAT(key, StartsWith("-----BEGIN PRIVATE KEY-----"));
    EXPECT_THAT(SignClientAssertion(world::Secret(key), "ES256", Claims(), entropy),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         "private key: an EC P-256 key is needed for ES256"));
  }
}

TEST(SignClientAssertionRefusalTest, RefusesAnUnknownAlgorithmWithoutShowingTheKey) {
  world::SeededEntropy entropy(3);

  for (std::string alg : {"HS256", "none", "es256", "PS256"}) {
    SCOPED_TRACE(alg);
    absl::StatusOr<std::string> jwt =
        SignClientAssertion(world::Secret(EcKey()), alg, Claims(), entropy);
    EXPECT_THAT(jwt, StatusIs(absl::StatusCode::kInvalidArgument,
                              "signing algorithm \"" + alg + "\" is not ES256 or RS256"));
    EXPECT_THAT(jwt.status().message(), Not(HasSubstr("PRIVATE")));
  }
}

}  // namespace
}  // namespace agentrt::mcp::auth
