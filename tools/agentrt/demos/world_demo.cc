// `agentrt demo world`: the injected world, real, recorded and replayed. The agent's tools are
// count_words, which runs `wc -w` as a child process through the world's Launcher, and fetch,
// which asks an HTTP server through the world's Network (the command serves it on loopback
// itself). Recorded, every exchange goes to one cassette in the order it happened — the clock
// readings and ids of the run, the lease heartbeat's schedule, the child's start, the bytes
// written to it and read from it, its exit, the HTTP request and the body as it arrived — and
// `agentrt replay` re-runs the same program from the cassette with no process, no server and no
// real clock, ending at the recorded chain head.
#include "tools/agentrt/demos/world_demo.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/driver.h"
#include "runtime/observe/trace/format.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/world/clock.h"
#include "runtime/world/curl_network.h"
#include "runtime/world/entropy.h"
#include "runtime/world/http_server.h"
#include "runtime/world/real_filesystem.h"
#include "runtime/world/real_launcher.h"
#include "runtime/world/real_scheduler.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/demos/demo_tools.h"
#include "tools/agentrt/demos/world_demo_tools.h"
#include "tools/agentrt/replay_command.h"

namespace agentrt::cli {
namespace {

constexpr char kHelp[] =
    R"(Usage: agentrt demo world --db PATH [--record CASSETTE | --replay CASSETTE]

Runs a scripted agent whose tools touch the world through agentrt's injected interfaces:
  1. count_words runs `wc -w` as a child process (its own process group, exactly the
     environment it is given), writes the text to its stdin and reads the count back;
  2. fetch asks an HTTP server on loopback, which this command serves itself for the run;
  3. finish ends the run.
The persisted trace is printed.

--record CASSETTE: every exchange with the world goes to CASSETTE (created; it must not
  exist), in the order it happened: clock readings, ids, the lease heartbeat's schedule, the
  child's start, every byte written to it and read from it, its exit, the HTTP request and its
  body as it arrived; then the audit log's chain head.
--replay CASSETTE: nothing real is reached: no process starts, no server is served, no clock
  is read; the cassette answers every call in exact order and the chain head must match (as
  'agentrt replay' does).

Record and replay into a new database (created, mode 0600).

Exit status: 0 the run completed (and, replaying, it matched the recording), 1 otherwise,
2 usage error.
)";

constexpr std::string_view kText = "the quick brown fox jumps over the lazy dog";

// The team's status server, for the run's fetch.
class StatusService final : public world::HttpService {
 public:
  std::size_t max_body() const override { return 0; }
  std::optional<world::ServerResponse> Admit(const world::ServerRequest& head) override {
    return std::nullopt;
  }
  world::ServerResponse Serve(const world::ServerRequest& request) override {
    if (request.method != "GET" || request.path != "/motd") {
      return {404, {{"Content-Type", "application/json"}}, R"({"error":"not found"})"};
    }
    return {200,
            {{"Content-Type", "application/json"}},
            R"({"motd":"Backups run at 02:00 UTC; the deploy freeze starts Friday."})"};
  }
  world::ServerResponse Refused(const world::ServerRequest& head, int status) override {
    return {status, {{"Content-Type", "application/json"}}, R"({"error":"refused"})"};
  }
};

}  // namespace

int RunWorldDemo(std::span<const std::string> args, Io& io) {
  const std::string command = "demo world";
  int exit = kExitOk;
  std::optional<RecordReplayFlags> o =
      ParseRecordReplay(io, command, args, kHelp, /*one_required=*/false, &exit);
  if (!o) return exit;
  if (!o->replay.empty()) return ReplayCommand(o->replay, o->db, command, io);
  const std::string& record = o->record;

  // The composition root: the real world.
  world::RealClock clock;
  world::RealScheduler scheduler;
  world::OsEntropy entropy;
  world::RealLauncher launcher(clock);
  absl::StatusOr<std::unique_ptr<world::CurlNetwork>> network =
      world::CurlNetwork::Create(clock, {.loopback_only = true});
  if (!network.ok()) return Failure(io, command, ToStd(network.status().message()));
  StatusService service;
  absl::StatusOr<std::unique_ptr<world::HttpServer>> server =
      world::HttpServer::Listen("127.0.0.1", 0, service);
  if (!server.ok()) return Failure(io, command, ToStd(server.status().message()));
  std::string base_url = absl::StrCat("http://127.0.0.1:", (*server)->port());
  world::RealFilesystem files;
  world::World real{&clock, &scheduler, &entropy, &launcher, network->get(), nullptr, &files};
  std::unique_ptr<DemoWorld> world;
  if (record.empty()) {
    world = DemoWorld::AsBuilt(real);
  } else {
    absl::StatusOr<std::unique_ptr<DemoWorld>> recording =
        DemoWorld::Recording(real, record, {"demo", "world", "--base-url", base_url});
    if (!recording.ok()) return Failure(io, command, ToStd(recording.status().message()));
    world = *std::move(recording);
  }
  return PlayWorldDemo(o->db, base_url, *world, io);
}

int PlayWorldDemo(const std::string& db, const std::string& base_url, DemoWorld& world, Io& io) {
  const std::string command = "demo world";
  // The store's own clock only stamps its migrations, which are not part of the run.
  world::RealClock store_clock;
  absl::StatusOr<std::unique_ptr<store::Store>> store = records::OpenStore(db, store_clock);
  if (!store.ok()) return Failure(io, command, ToStd(store.status().message()));
  if (absl::Status fresh = world.Begin(**store); !fresh.ok()) {
    return Failure(io, command, ToStd(fresh.message()));
  }
  CountWordsTool count(*world.world().launcher);
  FetchTool fetch(*world.world().network, base_url);
  DemoTool finish("finish", "Report the answer and end the run.", SideEffect::kReadOnly, true,
                  R"({"answer":"9 words; backups at 02:00 UTC"})", "answered");
  Decision count_call = scripted::Call(
      "count_words", json::JsonObject().String("text", kText).Build(), "how long is the note?");
  Decision fetch_call = scripted::Call("fetch", R"({"path":"/motd"})", "what is the news?");
  Decision finish_call = scripted::Call("finish", R"({"summary":"9 words; backups at 02:00"})");
  for (Decision* d : {&count_call, &fetch_call, &finish_call}) d->origin = "plan";
  ScriptedAgent agent({count_call, fetch_call, finish_call});
  std::unique_ptr<Policy> policy = DefaultPolicy();
  DriverOptions options;
  options.agent = &agent;
  options.policy = policy.get();
  options.tools = {&count, &fetch, &finish};
  options.scheduler = world.world().scheduler;
  absl::StatusOr<std::unique_ptr<Driver>> driver =
      Driver::Create(**store, *world.world().clock, *world.world().entropy, options);
  if (!driver.ok()) return Failure(io, command, ToStd(driver.status().message()));
  absl::StatusOr<Run> run = (*driver)->Start("Measure the note and read the news");
  if (!run.ok()) return Failure(io, command, ToStd(run.status().message()));
  absl::StatusOr<std::vector<store::Event>> events = (*store)->ListEvents(run->id);
  if (!events.ok()) return Failure(io, command, ToStd(events.status().message()));
  trace::TextOptions trace_options;
  trace_options.max_payload_bytes = 300;
  for (const store::Event& e : *events) io.out << trace::TextLine(e, trace_options);
  io.out << "run " << run->id << ": " << ToString(run->status) << " (" << run->reason << ") after "
         << run->step_count << " steps\n";
  absl::StatusOr<std::string> finished = world.Finish(**store);
  if (!finished.ok()) return Failure(io, command, ToStd(finished.status().message()));
  io.out << *finished << "\n";
  if (world.recording()) {
    io.out << "replay it into a new database, with no process and no server:\n"
              "  agentrt replay CASSETTE --db NEW.db\n";
  }
  return run->status == RunStatus::kCompleted ? kExitOk : kExitFailure;
}

}  // namespace agentrt::cli
