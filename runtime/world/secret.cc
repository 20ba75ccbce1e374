#include "runtime/world/secret.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"

namespace agentrt::world {
namespace {

// A secret is one line of printable text: a line break or another control character would let
// it add a header of its own where it is sent.
absl::StatusOr<Secret> Checked(const std::string& where, std::string_view value,
                               std::string_view noun, SecretForm form) {
  absl::string_view key = absl::StripAsciiWhitespace(ToAbsl(value));
  if (key.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(where, " holds no ", ToAbsl(noun)));
  }
  for (char c : key) {
    auto byte = static_cast<unsigned char>(c);
    bool line_break = form == SecretForm::kPem && (c == '\n' || c == '\r');
    if ((byte < 0x20 && !line_break) || byte == 0x7f) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, " holds a control character; a ", ToAbsl(noun),
          form == SecretForm::kPem ? " holds none but its line breaks" : " is one line of text"));
    }
  }
  return Secret(std::string(key));
}

}  // namespace

absl::StatusOr<std::string> ReadOwnerOnly(Filesystem& files, const std::string& path,
                                          std::size_t max_bytes, std::string_view noun) {
  // Not readable by anyone else either: a secret others can read is a secret others have. The
  // mode is checked on the file as opened; a refused one is looked at again only to say why in
  // the secret's own words.
  absl::StatusOr<std::string> text = files.ReadPrivate(path, max_bytes);
  if (!absl::IsFailedPrecondition(text.status())) return text;
  absl::StatusOr<FileInfo> info = files.Stat(path);
  if (info.ok() && (info->mode & 077) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        ToAbsl(noun), " file ", json::Quoted(path), " may be read by its group or others (mode ",
        absl::StrFormat("%04o", info->mode), "); a ", ToAbsl(noun),
        " file must be the owner's alone: chmod 600"));
  }
  return text;
}

absl::StatusOr<Secret> ReadSecret(const SecretSource& source, Environment& environment,
                                  Filesystem& files, std::string_view noun, SecretForm form) {
  if (!source.env.empty() && !source.file.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a ", ToAbsl(noun), " is read from an environment variable or from a file, not both"));
  }
  if (!source.env.empty()) {
    std::string where = absl::StrCat("environment variable ", json::Quoted(source.env));
    std::optional<std::string> value = environment.Get(source.env);
    if (!value) return absl::NotFoundError(absl::StrCat(where, " is not set"));
    return Checked(where, *value, noun, form);
  }
  if (!source.file.empty()) {
    std::string where = absl::StrCat(ToAbsl(noun), " file ", json::Quoted(source.file));
    absl::StatusOr<std::string> text = ReadOwnerOnly(files, source.file, kMaxSecretFileBytes, noun);
    if (!text.ok()) return text.status();
    std::string_view first = *text;
    if (form == SecretForm::kLine) first = first.substr(0, first.find('\n'));
    return Checked(where, first, noun, form);
  }
  return Secret();
}

}  // namespace agentrt::world
