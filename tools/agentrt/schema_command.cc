#include "tools/agentrt/schema_command.h"

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/intake.h"
#include "runtime/json/sanitize.h"
#include "runtime/schema/schema.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/io.h"

namespace agentrt::cli {
namespace {

constexpr char kSchemaHelp[] =
    R"(Usage: agentrt schema SUBCOMMAND ...

The JSON Schema validator agentrt applies to every tool call (drafts 4, 6, 7, 2019-09 and
2020-12; 2020-12 when the schema has no $schema).

Subcommands:
  validate SCHEMA INSTANCE   validate INSTANCE against SCHEMA
  check SCHEMA               compile SCHEMA only

Run 'agentrt schema SUBCOMMAND --help' for details.
)";

constexpr char kValidateHelp[] =
    R"(Usage: agentrt schema validate [--max_errors=N] SCHEMA INSTANCE

Compiles SCHEMA and validates INSTANCE against it. Either may be '-' for standard input (not
both). Errors are printed one per line: the instance location (JSON Pointer), the reason, the
keyword and where in the schema it failed.

A schema is refused when it is not JSON, is invalid against its draft's metaschema, refers
outside itself ($ref, $dynamicRef, $recursiveRef other than "#..."; an $id or $schema that is
not a well-known draft URI), uses a pattern the linear-time matcher cannot run exactly
(backreferences, lookaround), or exceeds the compile limits. 'format' is not asserted.

Exit status: 0 valid, 1 invalid (errors printed), 2 the schema was refused, an input could
not be read, or usage error.
)";

constexpr char kCheckHelp[] =
    R"(Usage: agentrt schema check SCHEMA

Compiles SCHEMA ('-' for standard input) as 'agentrt schema validate' would and prints the
draft it was compiled as, or the reason it was refused.

Exit status: 0 compiled, 2 refused or unreadable, or usage error.
)";

std::string Where(const std::string& path) { return path == "-" ? "standard input" : path; }

// A refused schema or an unreadable input: said as a failure is, but exit 2 (the help's).
int Refused(Io& io, std::string_view command, std::string_view message) {
  Failure(io, absl::StrCat("schema ", ToAbsl(command)), message);
  return kExitUsage;
}

absl::StatusOr<schema::Schema> CompileFile(Io& io, const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadInput(io, path);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<schema::Schema> compiled = schema::Schema::Compile(*bytes);
  if (!compiled.ok()) {
    return absl::InvalidArgumentError(Where(path) + ": " +
                                      std::string(ToStd(compiled.status().message())));
  }
  return compiled;
}

struct ValidateOptions {
  int max_errors = 10;  // report at most this many errors
};

int RunValidate(std::span<const std::string> args, Io& io) {
  ValidateOptions options;
  absl::StatusOr<ParsedArgs> parsed =
      ParseArgs(args, FlagSet().Add("max_errors", &options.max_errors));
  if (!parsed.ok()) return UsageError(io, "schema validate", ToStd(parsed.status().message()));
  if (parsed->help) {
    io.out << kValidateHelp;
    return kExitOk;
  }
  if (parsed->positional.size() != 2) {
    return UsageError(io, "schema validate", "expected SCHEMA and INSTANCE");
  }
  const std::string& schema_path = parsed->positional[0];
  const std::string& instance_path = parsed->positional[1];
  if (schema_path == "-" && instance_path == "-") {
    return UsageError(io, "schema validate", "SCHEMA and INSTANCE cannot both be standard input");
  }
  int max_errors = options.max_errors;
  if (max_errors < 1) return UsageError(io, "schema validate", "--max_errors must be at least 1");
  absl::StatusOr<schema::Schema> compiled = CompileFile(io, schema_path);
  if (!compiled.ok()) return Refused(io, "validate", ToStd(compiled.status().message()));
  absl::StatusOr<std::string> bytes = ReadInput(io, instance_path);
  if (!bytes.ok()) return Refused(io, "validate", ToStd(bytes.status().message()));
  absl::StatusOr<json::Document> instance = json::Parse(*bytes);
  if (!instance.ok()) {
    return Refused(io, "validate",
                   Where(instance_path) + ": " + std::string(ToStd(instance.status().message())));
  }
  schema::ValidationResult result =
      compiled->Validate(instance->root(), static_cast<std::size_t>(max_errors));
  if (result.valid) {
    io.out << "valid\n";
    return kExitOk;
  }
  io.out << "invalid\n" << result.Summary();
  return kExitFailure;
}

int RunCheck(std::span<const std::string> args, Io& io) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args);
  if (!parsed.ok()) return UsageError(io, "schema check", ToStd(parsed.status().message()));
  if (parsed->help) {
    io.out << kCheckHelp;
    return kExitOk;
  }
  if (parsed->positional.size() != 1) return UsageError(io, "schema check", "expected SCHEMA");
  absl::StatusOr<schema::Schema> compiled = CompileFile(io, parsed->positional[0]);
  if (!compiled.ok()) return Refused(io, "check", ToStd(compiled.status().message()));
  io.out << "ok: compiled as " << schema::DraftName(compiled->draft()) << "\n";
  return kExitOk;
}

}  // namespace

int RunSchemaCommand(std::span<const std::string> args, Io& io) {
  if (args.empty()) return UsageError(io, "schema", "missing subcommand (validate or check)");
  const std::string& sub = args[0];
  if (sub == "--help" || sub == "-h" || sub == "help") {
    io.out << kSchemaHelp;
    return kExitOk;
  }
  if (sub == "validate") return RunValidate(args.subspan(1), io);
  if (sub == "check") return RunCheck(args.subspan(1), io);
  return UsageError(io, "schema", "unknown subcommand \"" + json::Sanitize(sub) + "\"");
}

}  // namespace agentrt::cli
