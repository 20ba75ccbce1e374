#include "runtime/world/child_env.h"

#include <cstdio>
#include <cstdlib>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"

namespace agentrt::world {
namespace {

constexpr const char* kUnixBase[] = {"PATH", "HOME", "TMPDIR"};
constexpr const char* kWindowsBase[] = {"PATH",    "PATHEXT",      "SystemRoot", "SystemDrive",
                                        "ComSpec", "TEMP",         "TMP",        "USERPROFILE",
                                        "APPDATA", "LOCALAPPDATA", "HOME"};

// The ordered list and its index by name (upper-cased on Windows).
class EnvList {
 public:
  explicit EnvList(EnvFlavour flavour) : flavour_(flavour) {}

  void Set(std::string_view name, std::string_view value) {
    Put(name, absl::StrCat(ToAbsl(name), "=", ToAbsl(value)));
  }

  // Puts `entry` in the slot of `name`.
  void Put(std::string_view name, std::string entry) {
    std::string key(name);
    if (flavour_ == EnvFlavour::kWindows) absl::AsciiStrToUpper(&key);
    auto [at, added] = index_.emplace(key, entries_.size());
    if (added) {
      entries_.push_back(std::move(entry));
    } else {
      entries_[at->second] = std::move(entry);
    }
  }

  std::vector<std::string> Take() && { return std::move(entries_); }

 private:
  const EnvFlavour flavour_;
  std::vector<std::string> entries_;
  std::map<std::string, std::size_t> index_;
};

// Quotes `text` the way these messages show an operator's entry: escaped, on one line.
std::string Quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (u < 0x20 || u == 0x7f) {
          char hex[5];
          std::snprintf(hex, sizeof hex, "\\x%02x", u);
          out += hex;
        } else {
          out += c;
        }
    }
  }
  out += "\"";
  return out;
}

}  // namespace

std::vector<std::string> MinimalChildEnv(EnvFlavour flavour, const EnvLookup& host,
                                         const std::vector<std::string>& inherit,
                                         const std::vector<std::string>& env) {
  EnvList list(flavour);
  auto add_from_host = [&](std::string_view name) {
    if (std::optional<std::string> value = host(name)) list.Set(name, *value);
  };
  if (flavour == EnvFlavour::kWindows) {
    for (const char* name : kWindowsBase) add_from_host(name);
  } else {
    for (const char* name : kUnixBase) add_from_host(name);
  }
  for (const std::string& name : inherit) add_from_host(name);
  for (const std::string& entry : env) {
    std::size_t eq = entry.find('=');
    if (eq == std::string::npos) {
      list.Put(entry, entry);  // passed on as written: the launcher refuses it
      continue;
    }
    list.Set(std::string_view(entry).substr(0, eq), std::string_view(entry).substr(eq + 1));
  }
  return std::move(list).Take();
}

EnvFlavour HostEnvFlavour() {
#ifdef _WIN32
  return EnvFlavour::kWindows;
#else
  return EnvFlavour::kUnix;
#endif
}

absl::Status CheckInheritName(std::string_view name) {
  if (name.empty() || name.find('=') != std::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("InheritEnv entry ", Quote(name), " is not a variable name"));
  }
  return absl::OkStatus();
}

absl::Status CheckEnvEntry(std::string_view entry) {
  std::size_t eq = entry.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Env entry ", Quote(entry), " is not NAME=value"));
  }
  return absl::OkStatus();
}

}  // namespace agentrt::world
