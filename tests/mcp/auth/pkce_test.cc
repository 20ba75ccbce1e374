#include "mcp/auth/pkce.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/world/entropy.h"
#include "tests/support/status_matchers.h"

namespace agentrt::mcp::auth {
namespace {

constexpr char kBase64Url43[] = "[A-Za-z0-9_-]{43}";

TEST(S256ChallengeTest, MatchesRfc7636AppendixB) {
  EXPECT_EQ(S256Challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
}

TEST(S256ChallengeTest, IsBase64UrlWithoutPadding) {
  // SHA-256 of the empty string is 47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU= in plain base64.
  EXPECT_EQ(S256Challenge(""), "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
}

TEST(NewPkceTest, AVerifierOf43Base64UrlCharactersWithItsChallenge) {
  world::SeededEntropy entropy(7);

  Pkce pkce = NewPkce(entropy);

  EXPECT_THAT(pkce.verifier, MatchesRegex(kBase64Url43));
  EXPECT_THAT(pkce.challenge, MatchesRegex(kBase64Url43));
  EXPECT_EQ(pkce.challenge, S256Challenge(pkce.verifier));
  EXPECT_NE(pkce.challenge, pkce.verifier);
}

TEST(NewPkceTest, EveryDrawIsFresh) {
  world::SeededEntropy entropy(7);

  Pkce first = NewPkce(entropy);
  Pkce second = NewPkce(entropy);

  EXPECT_NE(first.verifier, second.verifier);
  EXPECT_NE(first.challenge, second.challenge);
}

TEST(NewPkceTest, TheSameSeedDrawsTheSameVerifier) {
  // What a recorded login's replay relies on.
  world::SeededEntropy a(42);
  world::SeededEntropy b(42);
  world::SeededEntropy c(43);

  std::string verifier = NewPkce(a).verifier;

  EXPECT_EQ(verifier, NewPkce(b).verifier);
  EXPECT_NE(verifier, NewPkce(c).verifier);
}

TEST(NewStateTest, SixteenRandomBytesInBase64Url) {
  world::SeededEntropy entropy(9);

  std::string first = NewState(entropy);
  std::string second = NewState(entropy);

  EXPECT_THAT(first, MatchesRegex("[A-Za-z0-9_-]{22}"));
  EXPECT_THAT(second, MatchesRegex("[A-Za-z0-9_-]{22}"));
  EXPECT_NE(first, second);
}

}  // namespace
}  // namespace agentrt::mcp::auth
