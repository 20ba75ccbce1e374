#include "tools/agentrt/command_line.h"

#include <algorithm>
#include <iostream>
#include <optional>
#include <utility>

#include "absl/flags/reflection.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"

namespace agentrt::cli {

absl::StatusOr<ParsedArgs> ParseArgs(std::span<const std::string> args,
                                     std::span<const std::string_view> allowed) {
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
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag ", word));
    }
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(ToAbsl(name));
    if (flag == nullptr)
      return absl::InternalError(absl::StrCat("flag --", ToAbsl(name), " not defined"));
    std::string value;
    if (has_value) {
      value = std::string(body.substr(name.size() + 1));
    } else if (flag->IsOfType<bool>()) {
      value = "true";
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return absl::InvalidArgumentError(absl::StrCat("flag --", ToAbsl(name), " needs a value"));
    }
    std::string error;
    if (!flag->ParseFrom(value, &error)) {
      return absl::InvalidArgumentError(absl::StrCat("flag --", ToAbsl(name), ": ", error));
    }
    parsed.given.emplace_back(name);
  }
  return parsed;
}

std::optional<ParsedArgs> ParseFlags(std::string_view command, std::span<const std::string> args,
                                     std::span<const std::string_view> allowed,
                                     std::string_view help, int* exit) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, allowed);
  if (!parsed.ok()) {
    *exit = UsageError(command, ToStd(parsed.status().message()));
    return std::nullopt;
  }
  if (parsed->help) {
    std::cout << help;
    *exit = kExitOk;
    return std::nullopt;
  }
  if (!parsed->positional.empty()) {
    *exit = UsageError(command,
                       absl::StrCat("unexpected argument \"", ToAbsl(parsed->positional[0]), "\""));
    return std::nullopt;
  }
  return *std::move(parsed);
}

int UsageError(std::string_view command, std::string_view message) {
  std::cerr << "agentrt " << command << ": " << json::Sanitize(message) << "\n"
            << "Run 'agentrt " << command << " --help' for usage.\n";
  return kExitUsage;
}

int Failure(std::string_view command, std::string_view message) {
  std::cerr << "agentrt " << command << ": " << json::Sanitize(message) << "\n";
  return kExitFailure;
}

}  // namespace agentrt::cli
