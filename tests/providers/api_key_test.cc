// An API key is a secret (providers/api_key.h): every way our code prints one shows
// "[redacted]", and ReadKey takes it only from an environment variable or a file its owner
// alone can read, with errors that name where it looked and never the key.
#include "providers/api_key.h"

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/world/environment.h"
#include "tests/support/memory_filesystem.h"
#include "tests/support/status_matchers.h"

namespace agentrt::providers {
namespace {

using ::agentrt::test_support::MemoryFilesystem;
using ::testing::AnyOf;
using ::testing::Eq;

constexpr char kKey[] = "sk-ant-api03-7c1d9e4b2a";
constexpr char kKeyFile[] = "/home/op/.config/agentrt/anthropic.key";

using Variables = std::map<std::string, std::string, std::less<>>;

// A config as an adapter holds one. This Abseil (20220623) has neither AbslStringify nor %v, so
// a config prints through absl::StrFormat's %s (AbslFormatConvert) and streams, as the
// adapters' configs do, the key always as the key shows itself.
struct ProviderConfig {
  std::string model;
  ApiKey api_key;

  friend absl::FormatConvertResult<absl::FormatConversionCharSet::kString> AbslFormatConvert(
      const ProviderConfig& config, const absl::FormatConversionSpec&, absl::FormatSink* sink) {
    sink->Append(absl::StrFormat("{model: %s, api_key: %s}", config.model,
                                 std::string(config.api_key.Shown())));
    return {true};
  }
  friend std::ostream& operator<<(std::ostream& out, const ProviderConfig& config) {
    return out << "{model: " << config.model << ", api_key: " << config.api_key << "}";
  }
};

template <typename T>
concept StrCatPrintable = requires(const T& value) {
  absl::StrCat(value);
};

// absl::StrCat of `value`, or nullopt when StrCat cannot take it at all (this Abseil reads no
// AbslStringify, so it takes no ApiKey: nothing can print the key that way either).
template <typename T>
std::optional<std::string> StrCatOf(const T& value) {
  if constexpr (StrCatPrintable<T>) {
    return absl::StrCat(value);
  } else {
    return std::nullopt;
  }
}

std::string Streamed(const auto& value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

TEST(ApiKeyTest, PrintingAKeyShowsRedactedNeverTheKey) {
  const ApiKey key(kKey);

  EXPECT_EQ(Streamed(key), "[redacted]");
  EXPECT_EQ(::testing::PrintToString(key), "[redacted]");
  EXPECT_EQ(key.Shown(), "[redacted]");
  // A conversion to text (which would hand StrCat the key itself) must not exist.
  EXPECT_THAT(StrCatOf(key), AnyOf(Eq(std::nullopt), Optional(std::string("[redacted]"))));
}

TEST(ApiKeyTest, PrintingNoKeyShowsEmptyQuotes) {
  const ApiKey none;

  EXPECT_EQ(Streamed(none), "\"\"");
  EXPECT_EQ(::testing::PrintToString(none), "\"\"");
  EXPECT_EQ(none.Shown(), "\"\"");
  EXPECT_THAT(StrCatOf(none), AnyOf(Eq(std::nullopt), Optional(std::string("\"\""))));
}

TEST(ApiKeyTest, PrintingAConfigHoldingAKeyNeverShowsTheKey) {
  const ProviderConfig config{.model = "claude-sonnet-4-5", .api_key = ApiKey(kKey)};
  const std::string expected = "{model: claude-sonnet-4-5, api_key: [redacted]}";

  EXPECT_EQ(absl::StrFormat("%s", config), expected);
  EXPECT_EQ(Streamed(config), expected);
  EXPECT_EQ(::testing::PrintToString(config), expected);
  EXPECT_EQ(absl::StrFormat("%s", ProviderConfig{.model = "m"}), "{model: m, api_key: \"\"}");
}

TEST(ApiKeyTest, GtestPrintsKeysInsideContainersRedacted) {
  EXPECT_EQ(::testing::PrintToString(std::vector<ApiKey>{ApiKey(kKey), ApiKey()}),
            "{ [redacted], \"\" }");
  EXPECT_THAT(::testing::PrintToString(std::optional<ApiKey>(ApiKey(kKey))),
              AllOf(HasSubstr("[redacted]"), Not(HasSubstr(kKey))));
}

TEST(ApiKeyTest, RevealGivesTheKeyForItsHeader) {
  ApiKey key(kKey);
  EXPECT_EQ(key.Reveal(), kKey);
  EXPECT_FALSE(key.empty());
  EXPECT_TRUE(ApiKey().empty());
}

// ---- ReadKey ----

TEST(ApiKeyTest, ReadKeyFromAnEnvironmentVariableTrimmed) {
  world::FixedEnvironment environment(
      Variables{{"ANTHROPIC_API_KEY", absl::StrCat("  ", kKey, "\n")}});
  MemoryFilesystem files;

  absl::StatusOr<ApiKey> key = ReadKey({.env = "ANTHROPIC_API_KEY"}, environment, files);

  ASSERT_OK(key);
  EXPECT_EQ(key->Reveal(), kKey);
}

TEST(ApiKeyTest, ReadKeyUnsetVariableIsNotFoundNamingTheVariable) {
  world::FixedEnvironment environment(Variables{{"OPENAI_API_KEY", kKey}});
  MemoryFilesystem files;

  EXPECT_THAT(
      ReadKey({.env = "ANTHROPIC_API_KEY"}, environment, files),
      StatusIs(absl::StatusCode::kNotFound,
               AllOf(HasSubstr("ANTHROPIC_API_KEY"), HasSubstr("not set"), Not(HasSubstr(kKey)))));
}

TEST(ApiKeyTest, ReadKeyEmptyVariableHoldsNoKey) {
  world::FixedEnvironment environment(Variables{{"ANTHROPIC_API_KEY", "  "}});
  MemoryFilesystem files;

  EXPECT_THAT(ReadKey({.env = "ANTHROPIC_API_KEY"}, environment, files),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("ANTHROPIC_API_KEY"), HasSubstr("holds no key"))));
}

TEST(ApiKeyTest, ReadKeyFromAnOwnersFileTakesItsFirstLineTrimmed) {
  world::FixedEnvironment environment;
  MemoryFilesystem files(/*user=*/1000);
  files.AddFile(kKeyFile, absl::StrCat("  ", kKey, " \r\nsecond line\n"), 0600, 1000);

  absl::StatusOr<ApiKey> key = ReadKey({.file = kKeyFile}, environment, files);

  ASSERT_OK(key);
  EXPECT_EQ(key->Reveal(), kKey);
}

TEST(ApiKeyTest, ReadKeyRefusesAFileItsGroupOrOthersMayRead) {
  world::FixedEnvironment environment;
  for (std::uint32_t mode : {0640u, 0604u, 0644u}) {
    SCOPED_TRACE(absl::StrFormat("%04o", mode));
    MemoryFilesystem files(/*user=*/1000);
    files.AddFile(kKeyFile, kKey, mode, 1000);

    EXPECT_THAT(ReadKey({.file = kKeyFile}, environment, files),
                StatusIs(absl::StatusCode::kFailedPrecondition,
                         AllOf(HasSubstr(kKeyFile), HasSubstr("chmod 600"), Not(HasSubstr(kKey)))));
  }
}

TEST(ApiKeyTest, ReadKeyRefusalShowsTheFileModeInOctal) {
  world::FixedEnvironment environment;
  MemoryFilesystem files(/*user=*/1000);
  files.AddFile(kKeyFile, kKey, 0640, 1000);

  EXPECT_THAT(ReadKey({.file = kKeyFile}, environment, files),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("(mode 0640)")));
}

TEST(ApiKeyTest, ReadKeyRefusesAFileAnotherUserOwns) {
  world::FixedEnvironment environment;
  MemoryFilesystem files(/*user=*/1000);
  files.AddFile(kKeyFile, kKey, 0600, /*owner=*/0);

  EXPECT_THAT(ReadKey({.file = kKeyFile}, environment, files),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr(kKeyFile), Not(HasSubstr(kKey)))));
}

TEST(ApiKeyTest, ReadKeyMissingFileIsNotFoundNamingIt) {
  world::FixedEnvironment environment;
  MemoryFilesystem files;

  EXPECT_THAT(ReadKey({.file = kKeyFile}, environment, files),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr(kKeyFile)));
}

TEST(ApiKeyTest, ReadKeyRefusesBothSources) {
  world::FixedEnvironment environment(Variables{{"ANTHROPIC_API_KEY", kKey}});
  MemoryFilesystem files(/*user=*/1000);
  files.AddFile(kKeyFile, kKey, 0600, 1000);

  EXPECT_THAT(ReadKey({.env = "ANTHROPIC_API_KEY", .file = kKeyFile}, environment, files),
              StatusIs(absl::StatusCode::kInvalidArgument, Not(HasSubstr(kKey))));
}

TEST(ApiKeyTest, ReadKeyRefusesAKeyWithAControlCharacterWithoutShowingIt) {
  // A line break would let the key add a header of its own where it is sent.
  for (const std::string& value :
       {absl::StrCat("sk-ant-abc", "\x1b", "def"), std::string("sk-ant-abc\r\nX-Evil: 1"),
        std::string("sk-ant-abc\tdef"),
        std::string("sk-ant-abc\x7f"
                    "def")}) {
    SCOPED_TRACE(::testing::PrintToString(value));
    world::FixedEnvironment environment(Variables{{"ANTHROPIC_API_KEY", value}});
    MemoryFilesystem files;

    EXPECT_THAT(ReadKey({.env = "ANTHROPIC_API_KEY"}, environment, files),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         AllOf(HasSubstr("ANTHROPIC_API_KEY"), HasSubstr("control character"),
                               Not(HasSubstr("sk-ant-abc")), Not(HasSubstr("def")))));
  }
}

TEST(ApiKeyTest, ReadKeyRefusesAControlCharacterInAKeyFile) {
  world::FixedEnvironment environment;
  MemoryFilesystem files(/*user=*/1000);
  files.AddFile(kKeyFile,
                "sk-ant-abc\x01"
                "def\n",
                0600, 1000);

  EXPECT_THAT(ReadKey({.file = kKeyFile}, environment, files),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr(kKeyFile), HasSubstr("control character"),
                             Not(HasSubstr("sk-ant-abc")))));
}

TEST(ApiKeyTest, ReadKeyFromAnEmptySourceIsNoKey) {
  world::FixedEnvironment environment(Variables{{"ANTHROPIC_API_KEY", kKey}});
  MemoryFilesystem files;

  absl::StatusOr<ApiKey> key = ReadKey(KeySource{}, environment, files);

  ASSERT_OK(key);
  EXPECT_TRUE(key->empty());
  EXPECT_EQ(Streamed(*key), "\"\"");
}

}  // namespace
}  // namespace agentrt::providers
