// tools/agentrt/command_line.h
//
// The conventions every `agentrt` subcommand shares: exit codes, and argument parsing into the
// command's own options struct. Each subcommand names the flags it accepts, each bound to a field
// (FlagSet), so `agentrt json canon --db x` is a usage error instead of a silently ignored flag,
// and no flag is global state: a command is an options struct, one library call and one
// renderer, callable in-process.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/flags/marshalling.h"
#include "absl/status/statusor.h"
#include "runtime/base/string_view.h"
#include "tools/agentrt/io.h"

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

// The flags one command accepts, each bound to a field of the command's options: parsing a
// value writes the field, in absl's syntax for its type (absl/flags/marshalling.h: "true",
// "1", "no"... for a bool; decimal or 0x for an integer, range-checked; "30s" for a duration).
// The fields, and the names (string literals in practice), must outlive the parse.
class FlagSet {
 public:
  template <typename T>
  FlagSet& Add(std::string_view name, T* field) {
    flags_.push_back(
        {name, std::is_same_v<T, bool>, [field](std::string_view text, std::string* error) {
           T value{};
           if (!absl::ParseFlag(ToAbsl(text), &value, error)) return false;
           *field = std::move(value);
           return true;
         }});
    return *this;
  }

  struct Flag {
    std::string_view name;
    bool boolean;  // `--name` alone means true
    std::function<bool(std::string_view text, std::string* error)> parse;
  };
  const Flag* Find(std::string_view name) const;

 private:
  std::vector<Flag> flags_;
};

// ParseArgs reads `args` (the words after the subcommand): `--name=value` and `--name value`
// for each flag of `flags` (`--name` alone for a boolean flag), `--help`/`-h`, and `--` after
// which every word is positional. Errors: InvalidArgument with a one-sentence usage error.
absl::StatusOr<ParsedArgs> ParseArgs(std::span<const std::string> args, const FlagSet& flags = {});

// ParseFlags is ParseArgs for a subcommand that takes flags and no other word, with what every
// such subcommand does first: on --help it prints `help` to `io.out` and sets `*exit` to
// kExitOk; on a usage error, a positional word included, it prints it (UsageError) and sets
// `*exit` to kExitUsage; both return nullopt. Otherwise it returns the parsed arguments.
std::optional<ParsedArgs> ParseFlags(Io& io, std::string_view command,
                                     std::span<const std::string> args, const FlagSet& flags,
                                     std::string_view help, int* exit);

// ParseCommand is ParseArgs with --help and usage errors handled as ParseFlags does, positional
// words allowed: nullopt (with `*exit` set) when the command is done.
std::optional<ParsedArgs> ParseCommand(Io& io, std::string_view command,
                                       std::span<const std::string> args, const FlagSet& flags,
                                       std::string_view help, int* exit);

// UsageError prints "agentrt <command>: <message>" and the hint to run --help to `io.err`;
// returns kExitUsage. Failure prints "agentrt <command>: <message>" to `io.err`; returns
// kExitFailure. Both escape the message (json::Sanitize) as a whole, on one line: it echoes what
// a user typed (a flag, a value, a path), read from the environment or a file, or a database or
// a server chose, and escaping it where it is printed covers every such echo at once. (Text
// escaped before comes through unchanged: Sanitize's output is its own fixed point.)
int UsageError(Io& io, std::string_view command, std::string_view message);
int Failure(Io& io, std::string_view command, std::string_view message);

}  // namespace agentrt::cli
