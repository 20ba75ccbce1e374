#include "tools/agentrt/command_line.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"

namespace agentrt::cli {

const FlagSet::Flag* FlagSet::Find(std::string_view name) const {
  for (const Flag& flag : flags_) {
    if (flag.name == name) return &flag;
  }
  return nullptr;
}

absl::StatusOr<ParsedArgs> ParseArgs(std::span<const std::string> args, const FlagSet& flags) {
  ParsedArgs parsed;
  bool flags_done = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (flags_done || word == "-" || word.size() < 2 || word[0] != '-') {
      parsed.positional.push_back(word);
      continue;
    }
    if (word == "--") {
      flags_done = true;
      continue;
    }
    if (word == "--help" || word == "-h" || word == "-help") {
      parsed.help = true;
      continue;
    }
    std::string_view body = word;
    body.remove_prefix(body.starts_with("--") ? 2 : 1);
    std::string_view name = body.substr(0, body.find('='));
    bool has_value = name.size() < body.size();
    const FlagSet::Flag* flag = flags.Find(name);
    if (flag == nullptr) return absl::InvalidArgumentError(absl::StrCat("unknown flag ", word));
    std::string value;
    if (has_value) {
      value = std::string(body.substr(name.size() + 1));
    } else if (flag->boolean) {
      value = "true";
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return absl::InvalidArgumentError(absl::StrCat("flag --", ToAbsl(name), " needs a value"));
    }
    // The words of absl's own flag parser, which the commands used before they had options.
    std::string error;
    if (!flag->parse(value, &error)) {
      return absl::InvalidArgumentError(absl::StrCat("flag --", ToAbsl(name), ": Illegal value '",
                                                     value, "' specified for flag '", ToAbsl(name),
                                                     "'", error.empty() ? "" : "; ", error));
    }
    parsed.given.emplace_back(name);
  }
  return parsed;
}

std::optional<ParsedArgs> ParseCommand(Io& io, std::string_view command,
                                       std::span<const std::string> args, const FlagSet& flags,
                                       std::string_view help, int* exit) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, flags);
  if (!parsed.ok()) {
    *exit = UsageError(io, command, ToStd(parsed.status().message()));
    return std::nullopt;
  }
  if (parsed->help) {
    io.out << help;
    *exit = kExitOk;
    return std::nullopt;
  }
  return *std::move(parsed);
}

std::optional<ParsedArgs> ParseFlags(Io& io, std::string_view command,
                                     std::span<const std::string> args, const FlagSet& flags,
                                     std::string_view help, int* exit) {
  std::optional<ParsedArgs> parsed = ParseCommand(io, command, args, flags, help, exit);
  if (parsed && !parsed->positional.empty()) {
    *exit = UsageError(io, command,
                       absl::StrCat("unexpected argument \"", ToAbsl(parsed->positional[0]), "\""));
    return std::nullopt;
  }
  return parsed;
}

int UsageError(Io& io, std::string_view command, std::string_view message) {
  io.err << "agentrt " << command << ": " << json::Sanitize(message) << "\n"
         << "Run 'agentrt " << command << " --help' for usage.\n";
  return kExitUsage;
}

int Failure(Io& io, std::string_view command, std::string_view message) {
  io.err << "agentrt " << command << ": " << json::Sanitize(message) << "\n";
  return kExitFailure;
}

}  // namespace agentrt::cli
