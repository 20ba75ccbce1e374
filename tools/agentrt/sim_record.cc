// `agentrt sim record` and `agentrt sim replay`. Both commands read their inputs first (record:
// the files; replay: the cassette's header), refusing a bad one before anything starts, and
// then run the one function Play over the world they were given: record over the real world
// wrapped in the replay's Recording* parts, replay over a ReplayingWorld. So a replay asks the
// world for exactly what the recording asked, in the same order, and writes the same audit log.
#include "tools/agentrt/sim_record.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "mcp/class_policy.h"
#include "mcp/config.h"
#include "mcp/load_all.h"
#include "mcp/manifest.h"
#include "runtime/base/file_util.h"
#include "runtime/base/owned_file.h"
#include "runtime/base/string_view.h"
#include "runtime/driver.h"
#include "runtime/json/sanitize.h"
#include "runtime/observe/trace/format.h"
#include "runtime/records/schema.h"
#include "runtime/replay/cassette_file.h"
#include "runtime/replay/cassette_recorder.h"
#include "runtime/replay/recording_world.h"
#include "runtime/replay/replaying_world.h"
#include "runtime/scripted_agent.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/real_filesystem.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/db_flag.h"
#include "tools/agentrt/mcp_shared.h"
#include "tools/agentrt/real_world.h"
#include "tools/agentrt/sim_script.h"

namespace agentrt::cli {
namespace {

constexpr char kRecordHelp[] =
    R"(Usage: agentrt sim record --config FILE --script SCRIPT --out CASSETTE [--db PATH]

Runs an MCP configuration and a scripted agent for real and records the run into CASSETTE
(created, mode 0600; it must not exist). Each configured server is started (or reached) for
real and loaded against its pinned manifest and the configuration's rules, as for 'agentrt mcp
call' (pin first: agentrt mcp pin --config FILE); then a driver plays SCRIPT, the agent's
decisions in order (docs/formats/sim-script.md), under the configuration's policy by class.
Every exchange with the world goes to the cassette in the order it happened (clock readings,
ids, the lease heartbeat, processes and every byte they read and wrote, HTTP requests and
bodies), then the audit log's chain head.

The cassette also keeps the configuration, the script and every server's manifest, so
'agentrt sim replay CASSETTE' needs nothing but the cassette, on any machine.

The run goes into a new database: PATH (created; it must hold no events) or, without --db, one
in memory. The configuration's `database` is not used. Prints the load reports, the run's
trace, its status and the chain head.

Exit status: 0 recorded, whatever the run's status (a run that fails, or waits for an operator,
is recorded as it ended), 1 nothing could be recorded (a file refused, naming it and the field;
a server that cannot be reached; the cassette cannot be written), 2 usage error.
)";

constexpr char kReplayHelp[] =
    R"(Usage: agentrt sim replay CASSETTE [--db PATH]

Replays, offline, a run 'agentrt sim record' recorded: the configuration, the manifests and the
script are the ones the cassette kept, and the same MCP client, driver and policy run over the
cassette. No process starts, no connection opens, and no file but CASSETTE is read: every
exchange is served from the cassette in exact order.

The replay stops at the first request that differs from the recording, naming the exchange and
showing both sides; a run that ends with recorded exchanges left over fails too. At the end the
audit log's chain head must be the recorded one. The run goes into a new database: PATH
(created; it must hold no events) or, without --db, one in memory.

Exit status: 0 the replay matched the recording, 1 it did not (the first difference is named) or
CASSETTE is not one 'agentrt sim record' wrote, 2 usage error.
)";

// The roles of the files a recording keeps (replay::CassetteInput::role).
constexpr char kConfigRole[] = "config";
constexpr char kScriptRole[] = "script";
constexpr char kManifestRole[] = "manifest";

// Everything a run depends on besides the world, read before it starts.
struct SimInputs {
  mcp::Config config;
  std::vector<mcp::Manifest> manifests;  // one per server, in the configuration's order
  SimScript script;
  std::vector<replay::CassetteInput> files;  // the bytes they were read from
};

absl::Status Context(std::string_view context, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(ToAbsl(context), status.message()));
}

// `path` as a configuration at `config_path` names it: relative to the configuration's folder
// when inside it, so a cassette does not keep where the recording machine kept its files.
std::string AsConfigured(const std::string& path, const std::string& config_path) {
  std::error_code error;
  std::filesystem::path folder = std::filesystem::absolute(config_path, error).parent_path();
  std::filesystem::path relative = std::filesystem::path(path).lexically_relative(folder);
  if (error || relative.empty() || *relative.begin() == "..") return path;
  return relative.string();
}

// The files of a recording: the configuration and the manifests as `agentrt mcp call` reads
// them (owner-only), the script as any input.
absl::StatusOr<SimInputs> ReadInputs(const std::string& config_path,
                                     const std::string& script_path) {
  SimInputs in;
  absl::StatusOr<std::string> config_bytes = ReadOwned(config_path);
  if (!config_bytes.ok()) return Context("config: ", config_bytes.status());
  absl::StatusOr<mcp::Config> config = mcp::ParseConfig(*config_bytes, config_path);
  if (!config.ok()) return config.status();
  in.config = *std::move(config);
  in.files.push_back({kConfigRole, "", config_path, *std::move(config_bytes)});

  absl::StatusOr<std::string> script_bytes = ReadFile(script_path);
  if (!script_bytes.ok()) return Context("script: ", script_bytes.status());
  absl::StatusOr<SimScript> script = ParseSimScript(*script_bytes, script_path);
  if (!script.ok()) return script.status();
  in.script = *std::move(script);
  in.files.push_back({kScriptRole, "", script_path, *std::move(script_bytes)});

  for (const mcp::ServerConfig& server : in.config.servers) {
    absl::StatusOr<std::string> bytes = ReadOwned(server.manifest);
    if (absl::IsNotFound(bytes.status())) {
      return absl::FailedPreconditionError(
          absl::StrCat("server \"", json::Sanitize(server.name), "\": no manifest at ",
                       json::Sanitize(server.manifest), " (pin it first: agentrt mcp pin --config ",
                       json::Sanitize(config_path), ")"));
    }
    if (!bytes.ok()) return Context("manifest: ", bytes.status());
    absl::StatusOr<mcp::Manifest> manifest = mcp::ParseManifest(*bytes);
    if (!manifest.ok()) return Context("manifest " + server.manifest + ": ", manifest.status());
    in.manifests.push_back(*std::move(manifest));
    in.files.push_back({kManifestRole, server.name, AsConfigured(server.manifest, config_path),
                        *std::move(bytes)});
  }
  return in;
}

// The one file of `role` (and `key`) a recording kept, or null.
const replay::CassetteInput* Kept(const replay::CassetteHeader& header, std::string_view role,
                                  std::string_view key = "") {
  const replay::CassetteInput* found = nullptr;
  for (const replay::CassetteInput& input : header.inputs) {
    if (input.role != role || input.key != key) continue;
    if (found != nullptr) return nullptr;  // kept twice: which one ran is unknown
    found = &input;
  }
  return found;
}

// The inputs a recording kept in its header, parsed as the recording parsed them.
absl::StatusOr<SimInputs> InputsOf(const replay::CassetteHeader& header) {
  SimInputs in;
  const replay::CassetteInput* config = Kept(header, kConfigRole);
  const replay::CassetteInput* script = Kept(header, kScriptRole);
  if (config == nullptr || script == nullptr) {
    return absl::FailedPreconditionError(
        "it does not keep exactly one configuration and one script (docs/formats/cassette.md, "
        "\"inputs\")");
  }
  absl::StatusOr<mcp::Config> parsed = mcp::ParseConfig(config->data, config->path);
  if (!parsed.ok()) return Context("the configuration it keeps: ", parsed.status());
  in.config = *std::move(parsed);
  absl::StatusOr<SimScript> steps = ParseSimScript(script->data, script->path);
  if (!steps.ok()) return Context("the script it keeps: ", steps.status());
  in.script = *std::move(steps);
  for (const mcp::ServerConfig& server : in.config.servers) {
    const replay::CassetteInput* kept = Kept(header, kManifestRole, server.name);
    if (kept == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(
          "it does not keep one manifest of server \"", json::Sanitize(server.name), "\""));
    }
    absl::StatusOr<mcp::Manifest> manifest = mcp::ParseManifest(kept->data);
    if (!manifest.ok()) {
      return Context(
          absl::StrCat("the manifest of server \"", json::Sanitize(server.name), "\" it keeps: "),
          manifest.status());
    }
    in.manifests.push_back(*std::move(manifest));
  }
  return in;
}

// A new database for the run: the file at `db`, which must hold no event (the chain head a
// cassette keeps covers the whole audit log), or one in memory when `db` is empty. Its clock
// only stamps the migrations, which are not part of the run.
absl::StatusOr<std::unique_ptr<store::Store>> NewStore(const std::string& db,
                                                       const world::Clock& clock) {
  absl::StatusOr<std::unique_ptr<store::Store>> store =
      db.empty() ? records::OpenStoreInMemory(clock) : records::OpenStore(db, clock);
  if (!store.ok()) return store.status();
  absl::StatusOr<store::ChainHead> head = (*store)->Head();
  if (!head.ok()) return head.status();
  if (head->seq != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("the database ", json::Sanitize(db), " already holds ", head->seq,
                     " events; use a new one (the chain head a cassette keeps covers the whole "
                     "audit log)"));
  }
  return store;
}

// Play is the run, the same whether `world` is recorded or replayed: every server loaded,
// then the script played by a driver under the configuration's policy, then every session
// closed (so a recording holds each server's end before its chain head). Prints the load
// reports, then the run's trace, to `io.out`. Errors: the driver's.
absl::StatusOr<Run> Play(const SimInputs& in, const world::World& world, store::Store& store,
                         Io& io) {
  SpecCache specs;  // each spec recorded once, by the load, for the driver too
  mcp::ConfiguredTools configured = mcp::LoadConfigured(in.config, in.manifests, world, &specs);
  io.out << configured.reports;
  mcp::ClassPolicy policy(in.config.policy, configured.outcomes);
  ScriptedAgent agent(in.script.steps);
  DriverOptions options;
  options.agent = &agent;
  options.policy = &policy;
  options.tools = configured.tools;
  options.scheduler = world.scheduler;
  options.lease_ttl = in.config.lease_ttl;
  options.specs = &specs;
  absl::StatusOr<Run> run = absl::UnknownError("the run did not start");
  {
    absl::StatusOr<std::unique_ptr<Driver>> driver =
        Driver::Create(store, *world.clock, *world.entropy, options);
    run = driver.ok() ? (*driver)->Start(in.script.goal, in.script.limits) : driver.status();
  }
  configured.Close();
  if (!run.ok()) return run;
  absl::StatusOr<std::vector<store::Event>> events = store.ListEvents(run->id);
  if (!events.ok()) return events.status();
  trace::TextOptions trace_options;
  trace_options.max_payload_bytes = 300;
  for (const store::Event& e : *events) io.out << trace::TextLine(e, trace_options);
  io.out << "run " << run->id << ": " << ToString(run->status);
  if (!run->reason.empty()) io.out << " (" << json::Sanitize(run->reason) << ")";
  io.out << " after " << run->step_count << " steps\n";
  return run;
}

std::string Message(const absl::Status& status) { return json::Sanitize(ToStd(status.message())); }

}  // namespace

bool IsSimRecording(const replay::CassetteHeader& header) {
  return header.program.size() >= 2 && header.program[0] == "sim" && header.program[1] == "record";
}

int RunSimRecord(std::span<const std::string> args, Io& io) {
  const std::string command = "sim record";
  struct {
    std::string config;  // the MCP configuration (docs/mcp.md)
    std::string script;  // the agent's script (sim-script.md)
    std::string out;     // the cassette to write (a new file)
    std::string db;
  } o;
  int exit = kExitOk;
  std::optional<ParsedArgs> parsed = ParseFlags(io, command, args,
                                                FlagSet()
                                                    .Add("config", &o.config)
                                                    .Add("script", &o.script)
                                                    .Add("out", &o.out)
                                                    .Add("db", &o.db),
                                                kRecordHelp, &exit);
  if (!parsed) return exit;
  const std::string config_path = o.config;
  const std::string script_path = o.script;
  const std::string out = o.out;
  if (config_path.empty() || script_path.empty() || out.empty()) {
    return UsageError(io, command,
                      "--config FILE, --script SCRIPT and --out CASSETTE are required");
  }
  std::error_code error;
  if (std::filesystem::exists(out, error)) {
    return UsageError(io, command,
                      "cassette " + json::Sanitize(out) +
                          " exists; record to a new file (recording never mixes runs)");
  }
  const std::string db = o.db;
  if (parsed->Given("db") && db.empty()) return UsageError(io, command, "--db needs a path");

  // Everything the run depends on is read, and refused if bad, before anything starts.
  absl::StatusOr<SimInputs> in = ReadInputs(config_path, script_path);
  if (!in.ok()) return Failure(io, command, Message(in.status()));

  // The composition root: the real world, recorded. Declared in this order so the recording
  // parts go before the recorder, and the recorder before the world it recorded.
  absl::StatusOr<std::unique_ptr<RealWorld>> real = RealWorld::Create();
  if (!real.ok()) return Failure(io, command, Message(real.status()));
  absl::StatusOr<std::unique_ptr<replay::CassetteRecorder>> recorder =
      replay::CassetteRecorder::Create(
          *(*real)->world().filesystem, out,
          {.created_by = "agentrt 0.1.0",
           .program = {"sim", "record", "--config", config_path, "--script", script_path},
           .inputs = in->files});
  if (!recorder.ok()) return Failure(io, command, Message(recorder.status()));
  replay::RecordingWorld recording((*real)->world(), **recorder);
  world::RealClock store_clock;
  absl::StatusOr<std::unique_ptr<store::Store>> store = NewStore(db, store_clock);
  if (!store.ok()) return Failure(io, command, Message(store.status()));

  absl::StatusOr<Run> run = Play(*in, recording.world(), **store, io);
  if (!run.ok()) {
    return Failure(io, command,
                   Message(run.status()) + " (the cassette " + json::Sanitize(out) +
                       " has no chain head: it cannot be replayed)");
  }
  absl::StatusOr<store::ChainHead> head = (*store)->Head();
  if (!head.ok()) return Failure(io, command, Message(head.status()));
  if (absl::Status s = (*recorder)->status(); !s.ok()) return Failure(io, command, Message(s));
  if (absl::Status s = (*recorder)->SetChainHead(*head); !s.ok()) {
    return Failure(io, command, Message(s));
  }
  io.out << "recorded every exchange with the world to " << json::Sanitize(out)
         << ", with chain head seq " << head->seq << " " << head->hash << "\n"
         << "replay it offline, with no server: agentrt sim replay " << json::Sanitize(out) << "\n";
  return kExitOk;
}

int SimReplay(replay::Cassette cassette, const std::string& path, const std::string& db,
              std::string_view command, Io& io) {
  const std::string named = "cassette " + json::Sanitize(path);
  if (cassette.sessions().size() != 1) {
    return Failure(io, command,
                   absl::StrCat(named, " holds ", cassette.sessions().size(),
                                " recording sessions; a replay re-runs one"));
  }
  if (!IsSimRecording(cassette.header())) {
    return Failure(io, command,
                   absl::StrCat(named, " was recorded by \"",
                                json::Sanitize(absl::StrJoin(cassette.header().program, " ")),
                                "\", not by agentrt sim record"));
  }
  absl::StatusOr<SimInputs> in = InputsOf(cassette.header());
  if (!in.ok()) return Failure(io, command, named + ": " + Message(in.status()));

  replay::ReplayingWorld replaying(std::move(cassette));
  world::RealClock store_clock;
  absl::StatusOr<std::unique_ptr<store::Store>> store = NewStore(db, store_clock);
  if (!store.ok()) return Failure(io, command, Message(store.status()));
  absl::StatusOr<Run> run = Play(*in, replaying.world(), **store, io);
  // The first difference from the recording is the cause of whatever went wrong after it.
  if (absl::Status s = replaying.cursor().status(); !s.ok()) {
    return Failure(io, command, Message(s));
  }
  if (!run.ok()) return Failure(io, command, Message(run.status()));
  absl::StatusOr<store::ChainHead> head = (*store)->Head();
  if (!head.ok()) return Failure(io, command, Message(head.status()));
  if (absl::Status s = replaying.Finish(*head); !s.ok()) return Failure(io, command, Message(s));
  io.out << "replayed " << replaying.cursor().served()
         << " exchanges in recorded order; chain head seq " << head->seq << " " << head->hash
         << ": the audit log is the recorded one, byte for byte\n";
  return kExitOk;
}

int RunSimReplay(std::span<const std::string> args, Io& io) {
  const std::string command = "sim replay";
  std::string db_flag;
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, FlagSet().Add("db", &db_flag));
  if (!parsed.ok()) return UsageError(io, command, ToStd(parsed.status().message()));
  if (parsed->help) {
    io.out << kReplayHelp;
    return kExitOk;
  }
  if (parsed->positional.size() != 1) return UsageError(io, command, "expected one CASSETTE");
  const std::string db = db_flag;
  if (parsed->Given("db") && db.empty()) return UsageError(io, command, "--db needs a path");
  const std::string& path = parsed->positional[0];
  world::RealFilesystem files;
  absl::StatusOr<replay::Cassette> cassette = replay::ReadCassette(files, path);
  if (!cassette.ok()) return Failure(io, command, Message(cassette.status()));
  return SimReplay(*std::move(cassette), path, db, command, io);
}

}  // namespace agentrt::cli
