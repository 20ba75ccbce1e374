#include "tools/agentrt/run_commands.h"

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"
#include "runtime/operator/recheck.h"
#include "runtime/policy.h"
#include "runtime/records/schema.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/db_flag.h"

namespace agentrt::cli {
namespace {

constexpr char kRecheckHelp[] =
    R"(Usage: agentrt recheck [--db PATH] [--json] RUN

Asks every policy evaluation RUN recorded again of the default policy (read_only and
local_mutation allowed, remote_mutation requires approval, destructive denied), with the
request and run view rebuilt from what was stored, and lists the evaluations that would now be
decided differently — differences first (--json: one JSON object). The database is opened
read-only; nothing is written.

Exit status: 0 every re-checked evaluation is the same, 1 some differ or the run cannot be
read, 2 usage error.
)";

constexpr char kMigrateHelp[] =
    R"(Usage: agentrt migrate [--db PATH]

Brings a database of runs written by an older agentrt up to this build's schema, applying the
migrations it lacks in one transaction: all of them or none, so an interruption (a crash, a
power cut) leaves the database as it was or wholly migrated. Forward only: a database a newer
agentrt wrote is refused. The commands that only read (runs, show, events, verify, ...) refuse
an older database by its version until it is migrated; a driver opening it migrates it too.
The database must exist; nothing is created.

Exit status: 0 migrated, or already at this build's version; 1 refused or failed (the reason
is printed); 2 usage error.
)";

absl::StatusOr<std::unique_ptr<store::Store>> OpenForReading(const std::string& db) {
  absl::StatusOr<std::string> path = DatabasePath(db);
  if (!path.ok()) return path.status();
  return records::OpenExistingStore(*path, /*read_only=*/true);
}

}  // namespace

int RunRecheckCommand(std::span<const std::string> args, Io& io) {
  struct {
    std::string db;
    bool json = false;
  } recheck;
  absl::StatusOr<ParsedArgs> parsed =
      ParseArgs(args, FlagSet().Add("db", &recheck.db).Add("json", &recheck.json));
  if (!parsed.ok()) return UsageError(io, "recheck", ToStd(parsed.status().message()));
  if (parsed->help) {
    io.out << kRecheckHelp;
    return kExitOk;
  }
  if (parsed->positional.size() != 1) return UsageError(io, "recheck", "expected one RUN id");
  if (absl::StatusOr<std::string> path = DatabasePath(recheck.db); !path.ok()) {
    return UsageError(io, "recheck", ToStd(path.status().message()));
  }
  absl::StatusOr<std::unique_ptr<store::Store>> store = OpenForReading(recheck.db);
  if (!store.ok()) return Failure(io, "recheck", ToStd(store.status().message()));
  std::unique_ptr<Policy> policy = DefaultPolicy();
  absl::StatusOr<RecheckReport> report = Recheck(**store, parsed->positional[0], *policy);
  if (!report.ok()) return Failure(io, "recheck", ToStd(report.status().message()));
  io.out << (recheck.json ? RecheckJson(*report) + "\n" : FormatRecheck(*report));
  return report->Same() ? kExitOk : kExitFailure;
}

int RunMigrateCommand(std::span<const std::string> args, Io& io) {
  std::string db;
  int exit = kExitOk;
  if (!ParseFlags(io, "migrate", args, FlagSet().Add("db", &db), kMigrateHelp, &exit)) return exit;
  absl::StatusOr<std::string> path = DatabasePath(db);
  if (!path.ok()) return UsageError(io, "migrate", ToStd(path.status().message()));
  const int known = static_cast<int>(records::Migrations().size());
  // Already current: nothing to do, and nothing is written.
  if (records::OpenExistingStore(*path, /*read_only=*/true).ok()) {
    io.out << "database " << json::Sanitize(store::RedactedUrl(*path)) << " is at schema version "
           << known << " already\n";
    return kExitOk;
  }
  world::RealClock clock;
  absl::StatusOr<std::unique_ptr<store::Store>> store =
      records::OpenStore(*path, clock, {.must_exist = true});
  if (!store.ok()) return Failure(io, "migrate", ToStd(store.status().message()));
  io.out << "database " << json::Sanitize(store::RedactedUrl(*path))
         << " migrated to schema version " << (*store)->schema_version() << "\n";
  return kExitOk;
}

}  // namespace agentrt::cli
