#include "providers/api_key.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"
#include "runtime/world/filesystem.h"

namespace agentrt::providers {
namespace {

// A key is one line of printable text: a line break or another control character would let it
// add a header of its own where it is sent.
absl::StatusOr<ApiKey> Checked(const std::string& where, std::string_view value) {
  absl::string_view key = absl::StripAsciiWhitespace(ToAbsl(value));
  if (key.empty()) return absl::InvalidArgumentError(absl::StrCat(where, " holds no key"));
  for (char c : key) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " holds a control character; a key is one line of text"));
    }
  }
  return ApiKey(std::string(key));
}

}  // namespace

absl::StatusOr<ApiKey> ReadKey(const KeySource& source, world::Environment& environment,
                               world::Filesystem& files) {
  if (!source.env.empty() && !source.file.empty()) {
    return absl::InvalidArgumentError(
        "a key is read from an environment variable or from a file, not both");
  }
  if (!source.env.empty()) {
    std::string where = absl::StrCat("environment variable ", json::Quoted(source.env));
    std::optional<std::string> value = environment.Get(source.env);
    if (!value) return absl::NotFoundError(absl::StrCat(where, " is not set"));
    return Checked(where, *value);
  }
  if (!source.file.empty()) {
    std::string where = absl::StrCat("key file ", json::Quoted(source.file));
    // Not readable by anyone else either: a key others can read is a key others have.
    absl::StatusOr<world::FileInfo> info = files.Stat(source.file);
    if (!info.ok()) return info.status();
    if ((info->mode & 077) != 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          where, " may be read by its group or others (mode ", absl::StrFormat("%04o", info->mode),
          "); a key file must be the owner's alone: chmod 600"));
    }
    absl::StatusOr<std::string> text = files.ReadOwned(source.file, kMaxKeyFileBytes);
    if (!text.ok()) return text.status();
    std::string_view first = *text;
    first = first.substr(0, first.find('\n'));
    return Checked(where, first);
  }
  return ApiKey();
}

}  // namespace agentrt::providers
