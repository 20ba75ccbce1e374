#include "tools/agentrt/json_command.h"

#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/sanitize.h"
#include "runtime/json/sha256.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/io.h"

namespace agentrt::cli {
namespace {

constexpr char kJsonHelp[] =
    R"(Usage: agentrt json SUBCOMMAND [FILE|-]

Work with JSON the way agentrt hashes and records it.

Subcommands:
  canon [FILE|-]   print the canonical form of one JSON document
  hash [FILE|-]    print the lowercase hex SHA-256 of its canonical form

Run 'agentrt json SUBCOMMAND --help' for details.
)";

constexpr char kCanonHelp[] =
    R"(Usage: agentrt json canon [FILE|-]

Reads one JSON document from FILE (or standard input when FILE is '-' or absent) under strict
intake and prints its canonical form followed by a newline: object keys sorted by UTF-16 code
units, no whitespace, RFC 8785 string escaping, and numbers in ECMAScript form when a double
holds them exactly, otherwise with their own digits kept.

Intake refuses duplicate keys, invalid UTF-8, lone surrogate escapes, nesting past 256 levels,
number literals longer than 10,000 characters or with an exponent beyond +/-10,000, a byte
order mark and data after the value; the refusal names the rule and the byte offset.

Exit status: 0 printed, 1 the input was refused or unreadable, 2 usage error.
)";

constexpr char kHashHelp[] =
    R"(Usage: agentrt json hash [FILE|-]

Reads one JSON document like 'agentrt json canon' and prints the lowercase hex SHA-256 of its
canonical form: the hash agentrt stores for schemas, arguments and events. Documents that
differ only in key order, whitespace, escapes or number spelling (1.0 and 1) hash alike.

Exit status: 0 printed, 1 the input was refused or unreadable, 2 usage error.
)";

int RunCanonOrHash(std::string_view name, std::span<const std::string> args, bool hash, Io& io) {
  std::string command = std::string("json ") + std::string(name);
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args);
  if (!parsed.ok()) return UsageError(io, command, ToStd(parsed.status().message()));
  if (parsed->help) {
    io.out << (hash ? kHashHelp : kCanonHelp);
    return kExitOk;
  }
  if (parsed->positional.size() > 1) return UsageError(io, command, "expected at most one FILE");
  std::string path = parsed->positional.empty() ? "-" : parsed->positional[0];
  absl::StatusOr<std::string> bytes = ReadInput(io, path);
  if (!bytes.ok()) return Failure(io, command, ToStd(bytes.status().message()));
  absl::StatusOr<std::string> canonical = json::Canonicalize(*bytes);
  if (!canonical.ok()) {
    std::string where = path == "-" ? "standard input" : path;
    return Failure(io, command, where + ": " + std::string(ToStd(canonical.status().message())));
  }
  io.out << (hash ? json::Sha256Hex(*canonical) : *canonical) << "\n";
  return kExitOk;  // the dispatch checks that the output arrived (CheckedStdout)
}

}  // namespace

int RunJsonCommand(std::span<const std::string> args, Io& io) {
  if (args.empty()) return UsageError(io, "json", "missing subcommand (canon or hash)");
  const std::string& sub = args[0];
  if (sub == "--help" || sub == "-h" || sub == "help") {
    io.out << kJsonHelp;
    return kExitOk;
  }
  if (sub == "canon") return RunCanonOrHash(sub, args.subspan(1), /*hash=*/false, io);
  if (sub == "hash") return RunCanonOrHash(sub, args.subspan(1), /*hash=*/true, io);
  return UsageError(io, "json", "unknown subcommand \"" + json::Sanitize(sub) + "\"");
}

}  // namespace agentrt::cli
