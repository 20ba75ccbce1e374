// tools/agentrt/command_line.h
//
// The conventions every `agentrt` subcommand shares: exit codes, and argument parsing in which
// flags are absl flags (declared with ABSL_FLAG next to the command that uses them) but each
// subcommand accepts only the flags it names, so `agentrt json canon --db x` is a usage error
// instead of a silently ignored flag.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace agentrt::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the command ran and failed, or found a problem
inline constexpr int kExitUsage = 2;    // the command line was wrong

struct ParsedArgs {
  std::vector<std::string> positional;
  bool help = false;  // --help or -h appeared
  // The flags that appeared, by name: a flag's default can differ between commands, and a
  // value given equal to the default is still given.
  std::vector<std::string> given;
  bool Given(std::string_view name) const {
    for (const std::string& g : given) {
      if (g == name) return true;
    }
    return false;
  }
};

// ParseArgs reads `args` (the words after the subcommand): `--name=value` and `--name value`
// for each absl flag in `allowed` (`--name` alone for a boolean flag), `--help`/`-h`, and `--`
// after which every word is positional. Errors: InvalidArgument with a one-sentence usage error.
absl::StatusOr<ParsedArgs> ParseArgs(std::span<const std::string> args,
                                     std::span<const std::string_view> allowed = {});

// ParseFlags is ParseArgs for a subcommand that takes flags and no other word, with what every
// such subcommand does first: on --help it prints `help` to stdout and sets `*exit` to
// kExitOk; on a usage error, a positional word included, it prints it (UsageError) and sets
// `*exit` to kExitUsage; both return nullopt. Otherwise it returns the parsed arguments.
std::optional<ParsedArgs> ParseFlags(std::string_view command, std::span<const std::string> args,
                                     std::span<const std::string_view> allowed,
                                     std::string_view help, int* exit);

// UsageError prints "agentrt <command>: <message>" and the hint to run --help to stderr;
// returns kExitUsage. Failure prints "agentrt <command>: <message>" to stderr; returns
// kExitFailure. Both escape the message (json::Sanitize) as a whole, on one line: it echoes what
// a user typed (a flag, a value, a path), read from the environment or a file, or a database or
// a server chose, and escaping it where it is printed covers every such echo at once. (Text
// escaped before comes through unchanged: Sanitize's output is its own fixed point.)
int UsageError(std::string_view command, std::string_view message);
int Failure(std::string_view command, std::string_view message);

}  // namespace agentrt::cli
