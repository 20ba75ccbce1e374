// providers/api_key.h
//
// An API key is a secret: it is read from where the operator keeps it (an environment variable
// or a file only its owner can read), held in an ApiKey, and leaves it only as the value of the
// one header the provider reads it from. Every way our code prints a value (absl::StrFormat's %s,
// operator<< for streams and gtest; this Abseil has no AbslStringify, so absl::StrCat takes no
// ApiKey at all) shows an ApiKey as "[redacted]", or "\"\"" when there is none; so does every
// config that holds one. It is never written to the database, and a cassette records the header it
// travels in redacted (runtime/replay).
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "runtime/world/environment.h"
#include "runtime/world/filesystem.h"

namespace agentrt::providers {

class ApiKey {
 public:
  ApiKey() = default;
  explicit ApiKey(std::string value) : value_(std::move(value)) {}

  bool empty() const { return value_.empty(); }
  // The key itself, for the header that carries it; nothing else should call this.
  const std::string& Reveal() const { return value_; }
  // What printing shows: "[redacted]", or "\"\"" for no key.
  std::string_view Shown() const { return value_.empty() ? "\"\"" : "[redacted]"; }

  friend absl::FormatConvertResult<absl::FormatConversionCharSet::kString> AbslFormatConvert(
      const ApiKey& key, const absl::FormatConversionSpec&, absl::FormatSink* sink) {
    sink->Append(absl::string_view(key.Shown().data(), key.Shown().size()));
    return {true};
  }
  friend std::ostream& operator<<(std::ostream& out, const ApiKey& key) {
    return out << key.Shown();
  }

 private:
  std::string value_;
};

// Where a key is kept: at most one of the two is set.
struct KeySource {
  std::string env;   // an environment variable's name
  std::string file;  // a file's path; its first line is the key
};

// The longest key file read.
inline constexpr std::size_t kMaxKeyFileBytes = 64 * 1024;

// ReadKey reads the key `source` names: the variable through `environment`, or the file through
// `files` under the operator-file rules (owned by this user, not readable or writable by group
// or others; Filesystem::ReadOwned). An empty source is no key (an empty ApiKey). Errors name the
// variable or file and the reason, never the key: InvalidArgument when both are set or the key
// is empty or holds a control character; NotFound for an unset variable; the file's own errors.
absl::StatusOr<ApiKey> ReadKey(const KeySource& source, world::Environment& environment,
                               world::Filesystem& files);

}  // namespace agentrt::providers
