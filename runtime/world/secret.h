// runtime/world/secret.h
//
// An operator's secret (a provider's API key, an MCP server's OAuth client secret or token) is
// read from where the operator keeps it (an environment variable or a file only its owner can
// read), held in a Secret, and leaves it only where it is spent (the one header or form field
// that carries it). Every way our code prints a value (absl::StrFormat's %s, operator<< for
// streams and gtest; this Abseil has no AbslStringify, so absl::StrCat takes no Secret at all)
// shows a Secret as "[redacted]", or "\"\"" when there is none; so does every config that holds
// one. It is never written to the database, and a cassette records what carries it redacted
// (runtime/replay).
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "runtime/world/environment.h"
#include "runtime/world/filesystem.h"

namespace agentrt::world {

class Secret {
 public:
  Secret() = default;
  explicit Secret(std::string value) : value_(std::move(value)) {}

  bool empty() const { return value_.empty(); }
  // The secret itself, for what carries it; nothing else should call this.
  const std::string& Reveal() const { return value_; }
  // What printing shows: "[redacted]", or "\"\"" for none.
  std::string_view Shown() const { return value_.empty() ? "\"\"" : "[redacted]"; }

  friend absl::FormatConvertResult<absl::FormatConversionCharSet::kString> AbslFormatConvert(
      const Secret& key, const absl::FormatConversionSpec&, absl::FormatSink* sink) {
    sink->Append(absl::string_view(key.Shown().data(), key.Shown().size()));
    return {true};
  }
  friend std::ostream& operator<<(std::ostream& out, const Secret& key) {
    return out << key.Shown();
  }

 private:
  std::string value_;
};

// Where a secret is kept: at most one of the two is set.
struct SecretSource {
  std::string env;   // an environment variable's name
  std::string file;  // a file's path; its first line is the secret
};

// The longest secret file read.
inline constexpr std::size_t kMaxSecretFileBytes = 64 * 1024;

// ReadSecret reads the secret `source` names: the variable through `environment`, or the file
// through `files` under the operator-file rules (owned by this user, not readable or writable by
// group or others; Filesystem::ReadOwned). An empty source is no secret (an empty Secret).
// `noun` names the secret in messages ("key": `key file "<path>" holds no key`). Errors name the
// variable or file and the reason, never the secret: InvalidArgument when both are set or the
// secret is empty or holds a control character; NotFound for an unset variable; FailedPrecondition
// for a file others may read; the file's own errors.
// ReadOwnerOnly reads the file at `path` only when its owner alone may read or write it: the
// operator-file rules, and not readable by group or others either (Filesystem::ReadPrivate,
// checked on the opened file; only a refusal looks again, to name `noun` in its message).
// `noun` says what the file holds ("key", "credentials"). Errors: the file's own;
// FailedPrecondition `key file "<path>" may be read by its group or others (mode 0644); a key
// file must be the owner's alone: chmod 600`.
absl::StatusOr<std::string> ReadOwnerOnly(Filesystem& files, const std::string& path,
                                          std::size_t max_bytes, std::string_view noun);

// A key or token is one line (the file's first); a PEM private key is the whole text, its line
// breaks kept, and nothing else may be a control character.
enum class SecretForm { kLine, kPem };
absl::StatusOr<Secret> ReadSecret(const SecretSource& source, Environment& environment,
                                  Filesystem& files, std::string_view noun = "secret",
                                  SecretForm form = SecretForm::kLine);

}  // namespace agentrt::world
