#include "tools/agentrt/replay_command.h"

#include <vector>

#include "absl/strings/str_join.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"
#include "runtime/replay/cassette_file.h"
#include "runtime/world/real_filesystem.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/db_flag.h"
#include "tools/agentrt/demos/demo_world.h"
#include "tools/agentrt/demos/live_demo.h"
#include "tools/agentrt/demos/model_demo.h"
#include "tools/agentrt/demos/world_demo.h"
#include "tools/agentrt/sim_record.h"

namespace agentrt::cli {
namespace {

constexpr char kHelp[] =
    R"(Usage: agentrt replay CASSETTE --db PATH

Re-runs, offline, the demonstration CASSETTE recorded ('agentrt demo model --record',
'agentrt demo world --record' or 'agentrt demo live --record'), or the run 'agentrt sim
record' recorded (as 'agentrt sim replay' does): the same program, with every exchange it has
with the world (clock readings, ids, the lease heartbeat, child processes and their bytes, HTTP
requests and their bodies, a provider's among them, model calls) served from the cassette in exact order. Nothing real is reached:
no process starts, no connection opens, no model is asked.

The replay stops at the first request that differs from the recording, naming the exchange and
showing both sides; a run that ends with recorded exchanges left over fails too. At the end the
audit log's chain head must be the recorded one. PATH must be a new database (created, mode
0600): the chain head covers the whole audit log.

Exit status: 0 the replay matched the recording, 1 it did not (or the cassette or database
failed), 2 usage error.
)";

}  // namespace

int ReplayCommand(const std::string& path, const std::string& db, std::string_view command,
                  Io& io) {
  world::RealFilesystem files;
  absl::StatusOr<replay::Cassette> cassette = replay::ReadCassette(files, path);
  if (!cassette.ok()) {
    return Failure(io, command, json::Sanitize(ToStd(cassette.status().message())));
  }
  if (cassette->sessions().size() != 1) {
    return Failure(io, command,
                   "cassette " + json::Sanitize(path) + " holds " +
                       std::to_string(cassette->sessions().size()) +
                       " recording sessions; replay re-runs one recorded run");
  }
  std::vector<std::string> program = cassette->header().program;
  std::string named = json::Sanitize(absl::StrJoin(program, " "));
  if (std::optional<providers::ModelChoice> live = ParseLiveProgram(program)) {
    std::unique_ptr<DemoWorld> world = DemoWorld::Replaying(*std::move(cassette));
    return PlayLiveDemo(db, *live, /*resume=*/"", /*resume_command=*/"", *world, io);
  }
  if (program.size() == 2 && program[0] == "demo" && program[1] == "model") {
    std::unique_ptr<DemoWorld> world = DemoWorld::Replaying(*std::move(cassette));
    return PlayModelDemo(db, *world, io);
  }
  if (program.size() == 4 && program[0] == "demo" && program[1] == "world" &&
      program[2] == "--base-url") {
    std::string base_url = program[3];
    std::unique_ptr<DemoWorld> world = DemoWorld::Replaying(*std::move(cassette));
    return PlayWorldDemo(db, base_url, *world, io);
  }
  if (IsSimRecording(cassette->header())) {
    return SimReplay(*std::move(cassette), path, db, command, io);
  }
  return Failure(io, command,
                 "cassette " + json::Sanitize(path) + " was recorded by \"" + named +
                     "\", which agentrt cannot re-run (it re-runs its own "
                     "demonstrations; a product replays its runs with runtime/replay)");
}

int RunReplayCommand(std::span<const std::string> args, Io& io) {
  std::string db_flag;
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, FlagSet().Add("db", &db_flag));
  if (!parsed.ok()) return UsageError(io, "replay", ToStd(parsed.status().message()));
  if (parsed->help) {
    io.out << kHelp;
    return kExitOk;
  }
  if (parsed->positional.size() != 1) return UsageError(io, "replay", "expected one CASSETTE");
  absl::StatusOr<std::string> db = DatabasePath(db_flag);
  if (!db.ok()) return UsageError(io, "replay", ToStd(db.status().message()));
  return ReplayCommand(parsed->positional[0], *db, "replay", io);
}

}  // namespace agentrt::cli
