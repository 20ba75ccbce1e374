// ReadSecret's two forms and its words (runtime/world/secret.h): a key or token is one line (a
// file's first), a PEM private key is the whole text with its line breaks and no other control
// character, and every message names the secret by the noun its caller gave, never its value.
// The rules every secret shares (owner-only files, both sources, printing) are pinned through
// ReadKey in tests/providers/api_key_test.cc.
#include "runtime/world/secret.h"

#include <functional>
#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/world/environment.h"
#include "tests/support/memory_filesystem.h"
#include "tests/support/status_matchers.h"

namespace agentrt::world {
namespace {

using ::agentrt::test_support::MemoryFilesystem;

using Variables = std::map<std::string, std::string, std::less<>>;

constexpr char kKeyFile[] = "/home/op/.config/agentrt/tickets-ci.pem";
// Key material: what no message may show.
constexpr char kPem[] =
    "-----BEGIN EC PRIVATE KEY-----\n"
    "MHcCAQEEIBkeyMaterialLine1xQ0AZ7vQ2w9wHq3d5oN0aGq6k1a2b3c4oAoGCCqG\n"
    "SM49AwEHoUQDQgAEkeyMaterialLine2Yh3vX0u9cD8kLmN5pQrStUvWxYz0123\n"
    "-----END EC PRIVATE KEY-----";

TEST(ReadSecretTest, APemFileIsReadWholeWithItsLineBreaks) {
  FixedEnvironment environment;
  MemoryFilesystem files(/*user=*/1000);
  files.AddFile(kKeyFile, std::string(kPem) + "\n", 0600, 1000);

  absl::StatusOr<Secret> key =
      ReadSecret({.file = kKeyFile}, environment, files, "private key", SecretForm::kPem);

  ASSERT_OK(key);
  EXPECT_EQ(key->Reveal(), kPem);  // the surrounding whitespace trimmed, the inner kept
}

TEST(ReadSecretTest, APemWithCrlfLineBreaksKeepsThem) {
  FixedEnvironment environment;
  MemoryFilesystem files(/*user=*/1000);
  const std::string crlf =
      "-----BEGIN PRIVATE KEY-----\r\nMIGHAgEAkeyMaterial\r\n-----END PRIVATE KEY-----";
  files.AddFile(kKeyFile, "\r\n" + crlf + "\r\n\r\n", 0600, 1000);

  EXPECT_THAT(ReadSecret({.file = kKeyFile}, environment, files, "private key", SecretForm::kPem),
              IsOkAndHolds(::testing::Property(&Secret::Reveal, crlf)));
}

TEST(ReadSecretTest, AKeyOrTokenIsTheFilesFirstLineOnly) {
  FixedEnvironment environment;
  MemoryFilesystem files(/*user=*/1000);
  files.AddFile(kKeyFile, std::string(kPem) + "\n", 0600, 1000);

  EXPECT_THAT(ReadSecret({.file = kKeyFile}, environment, files, "client secret"),
              IsOkAndHolds(::testing::Property(&Secret::Reveal,
                                               std::string("-----BEGIN EC PRIVATE KEY-----"))));
  EXPECT_THAT(
      ReadSecret({.file = kKeyFile}, environment, files, "client secret", SecretForm::kLine),
      IsOkAndHolds(
          ::testing::Property(&Secret::Reveal, std::string("-----BEGIN EC PRIVATE KEY-----"))));
}

TEST(ReadSecretTest, APemFromAVariableKeepsItsLineBreaksWhereALineRefusesThem) {
  FixedEnvironment environment(Variables{{"TICKETS_KEY", std::string(kPem) + "\n"}});
  MemoryFilesystem files;

  EXPECT_THAT(
      ReadSecret({.env = "TICKETS_KEY"}, environment, files, "private key", SecretForm::kPem),
      IsOkAndHolds(::testing::Property(&Secret::Reveal, std::string(kPem))));
  // A line break in a one-line secret would let it add a header of its own where it is sent.
  EXPECT_THAT(ReadSecret({.env = "TICKETS_KEY"}, environment, files, "client secret"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr(R"(environment variable "TICKETS_KEY")"),
                             HasSubstr("a client secret is one line of text"),
                             Not(HasSubstr("keyMaterial")))));
}

TEST(ReadSecretTest, APemRefusesEveryOtherControlCharacterWithoutShowingTheKey) {
  FixedEnvironment environment;
  for (const std::string& bad : {std::string("\t"), std::string("\x1b[2J"), std::string(1, '\0'),
                                 std::string("\x7f"), std::string("\v"), std::string("\f")}) {
    SCOPED_TRACE(::testing::PrintToString(bad));
    MemoryFilesystem files(/*user=*/1000);
    std::string pem(kPem);
    pem.insert(pem.find("keyMaterialLine2"), bad);
    files.AddFile(kKeyFile, pem + "\n", 0600, 1000);

    EXPECT_THAT(ReadSecret({.file = kKeyFile}, environment, files, "private key", SecretForm::kPem),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         std::string("private key file \"") + kKeyFile +
                             "\" holds a control character; a private key holds none but its line "
                             "breaks"));
  }
}

TEST(ReadSecretTest, MessagesNameTheSecretByItsNoun) {
  MemoryFilesystem files(/*user=*/1000);
  files.AddFile("/op/empty.pem", "\n\n", 0600, 1000);
  files.AddFile("/op/shared.pem", kPem, 0640, 1000);
  files.AddFile("/op/blank-first-line", "\nsecond\n", 0600, 1000);
  FixedEnvironment environment(Variables{{"BLANK", " \t "}, {"SET", "x"}});

  EXPECT_THAT(
      ReadSecret({.file = "/op/empty.pem"}, environment, files, "private key", SecretForm::kPem),
      StatusIs(absl::StatusCode::kInvalidArgument,
               R"(private key file "/op/empty.pem" holds no private key)"));
  EXPECT_THAT(
      ReadSecret({.file = "/op/shared.pem"}, environment, files, "private key", SecretForm::kPem),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               R"(private key file "/op/shared.pem" may be read by its group or others )"
               "(mode 0640); a private key file must be the owner's alone: chmod 600"));
  EXPECT_THAT(ReadSecret({.env = "BLANK"}, environment, files, "client secret"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       R"(environment variable "BLANK" holds no client secret)"));
  EXPECT_THAT(
      ReadSecret({.env = "SET", .file = "/op/empty.pem"}, environment, files, "client secret"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "a client secret is read from an environment variable or from a file, "
               "not both"));
  EXPECT_THAT(ReadSecret({.env = "UNSET"}, environment, files, "client secret"),
              StatusIs(absl::StatusCode::kNotFound, R"(environment variable "UNSET" is not set)"));
  // Without a noun, it is a secret; a one-line secret whose first line is blank has none.
  EXPECT_THAT(ReadSecret({.file = "/op/blank-first-line"}, environment, files),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       R"(secret file "/op/blank-first-line" holds no secret)"));
}

}  // namespace
}  // namespace agentrt::world
