// `agentrt demo model`: a model-backed agent, recorded to a cassette and replayed from it.
//
// Recording wraps the whole world — the run's clock, the lease scheduler and its clock, the
// ids, and a scripted model standing in for a provider — and appends every exchange to one
// cassette. Replaying serves the cassette back in exact order and reaches none of them. Both
// end by comparing the audit log's chain head with the one the cassette holds: the same head
// means the same events, byte for byte.
#include "tools/agentrt/demos/model_demo.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/driver.h"
#include "runtime/observe/trace/format.h"
#include "runtime/operator/view/display.h"
#include "runtime/records/schema.h"
#include "runtime/render/model_agent.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "runtime/world/real_filesystem.h"
#include "runtime/world/real_scheduler.h"
#include "sim/scripted_model.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/demos/demo_tools.h"
#include "tools/agentrt/replay_command.h"

namespace agentrt::cli {
namespace {

constexpr char kHelp[] =
    R"(Usage: agentrt demo model --db PATH (--record CASSETTE | --replay CASSETTE)

Runs an agent that asks a model for every step, under model accounting (each call reserved,
limited, recorded and charged), against in-memory tools, and prints the persisted trace.

--record CASSETTE: the model is a scripted stand-in for a provider (it asks to read
  /etc/hosts, then finishes). Every exchange of the run with its world goes to CASSETTE
  (created; it must not exist), in the order it happened: the model's calls with the
  provider's raw bytes, every clock reading, every id drawn, the lease heartbeat's schedule;
  then the audit log's chain head.
--replay CASSETTE: nothing is reached: the cassette answers every call, in exact order, and the
  run's chain head is compared with the recorded one (as 'agentrt replay' does).

The clock and ids are deterministic, so the trace reads the same every time. Record and replay
into a new database (created, mode 0600): the chain head covers the whole audit log.

Exit status: 0 the run completed (and, replaying, every exchange was served and the chain head
matched), 1 otherwise, 2 usage error.
)";

constexpr std::string_view kModelName = "scripted-demo";
constexpr std::string_view kGoal = "Find the address of localhost";

// What the stand-in provider answers: a tool call, then the terminal call. The raw bytes are
// a provider's own form (with characters a re-encoder would escape), kept exactly.
std::vector<ModelResponse> ScriptedAnswers() {
  ModelResponse read;
  read.text = "I will read the hosts file first.";
  read.tool_uses = {ToolUse{"toolu_01", "read_file", R"({"path":"/etc/hosts"})"}};
  read.stop_reason = std::string(stop_reason::kToolUse);
  read.usage = Usage{812, 46, 0};
  read.raw = R"({"id":"msg_01","content":[{"type":"text","text":"I will read the hosts file )"
             R"(first."},{"type":"tool_use","id":"toolu_01","name":"read_file","input":)"
             R"({"path":"/etc/hosts"}}],"stop_reason":"tool_use","note":"<raw & exact>"})";
  ModelResponse finish;
  finish.text = "localhost is 127.0.0.1.";
  finish.tool_uses = {ToolUse{"toolu_02", "finish", R"({"summary":"localhost is 127.0.0.1"})"}};
  finish.stop_reason = std::string(stop_reason::kToolUse);
  finish.usage = Usage{1010, 38, 800};
  finish.raw = R"({"id":"msg_02","stop_reason":"tool_use"})";
  return {read, finish};
}

}  // namespace

int RunModelDemo(std::span<const std::string> args, Io& io) {
  const std::string command = "demo model";
  int exit = kExitOk;
  std::optional<RecordReplayFlags> o =
      ParseRecordReplay(io, command, args, kHelp, /*one_required=*/true, &exit);
  if (!o) return exit;
  if (!o->replay.empty()) return ReplayCommand(o->replay, o->db, command, io);
  const std::string& record = o->record;

  // The world being recorded: deterministic, so the printed trace reads the same every time.
  // Leases are between processes, so they stay on wall time.
  world::ManualClock clock(
      absl::FromUnixSeconds(1'767'225'600),  // 2026-01-01T00:00:00Z
      {.waits = world::ManualClock::Waits::kJump, .tick = absl::Milliseconds(1)});
  world::RealScheduler scheduler;
  world::SeededEntropy entropy(2026);
  world::RealFilesystem files;
  absl::StatusOr<std::unique_ptr<DemoWorld>> world = DemoWorld::Recording(
      {.clock = &clock, .scheduler = &scheduler, .entropy = &entropy, .filesystem = &files}, record,
      {"demo", "model"});
  if (!world.ok()) return Failure(io, command, ToStd(world.status().message()));
  return PlayModelDemo(o->db, **world, io);
}

int PlayModelDemo(const std::string& db, DemoWorld& world, Io& io) {
  const std::string command = "demo model";
  // The store's own clock only stamps its migrations, which are not part of the run.
  world::RealClock store_clock;
  absl::StatusOr<std::unique_ptr<store::Store>> store = records::OpenStore(db, store_clock);
  if (!store.ok()) return Failure(io, command, ToStd(store.status().message()));
  if (absl::Status fresh = world.Begin(**store); !fresh.ok()) {
    return Failure(io, command, ToStd(fresh.message()));
  }
  // The stand-in provider; a replay never asks it.
  sim::ScriptedModel provider(ScriptedAnswers(), std::vector<absl::Status>{},
                              std::string(kModelName));
  DemoTool read("read_file", "Read a text file.", SideEffect::kReadOnly, false,
                R"({"text":"127.0.0.1 localhost\n"})", "read 20 bytes");
  DemoTool finish("finish", "Report the answer and end the run.", SideEffect::kReadOnly, true,
                  R"({"answer":"localhost is 127.0.0.1"})", "answered");
  render::ModelAgentOptions agent_options;
  agent_options.render.opening = [](const StepInput& in) {
    return absl::StrCat("Goal: ", ToAbsl(in.run.goal),
                        "\nUse the tools; call finish with the answer.");
  };
  agent_options.system = "You are a careful agent. Ask for one tool call at a time.";
  agent_options.max_output_tokens = 512;
  render::ModelAgent agent(agent_options);
  std::unique_ptr<Policy> policy = DefaultPolicy();
  DriverOptions options;
  options.agent = &agent;
  options.policy = policy.get();
  options.tools = {&read, &finish};
  options.scheduler = world.world().scheduler;
  options.model.model = &world.ModelFor(provider);
  options.model.prices[std::string(kModelName)] = Price{3'000'000, 15'000'000, 300'000};
  absl::StatusOr<std::unique_ptr<Driver>> driver =
      Driver::Create(**store, *world.world().clock, *world.world().entropy, std::move(options));
  if (!driver.ok()) return Failure(io, command, ToStd(driver.status().message()));
  Limits limits;
  limits.max_model_calls = 10;
  limits.max_output_tokens_per_call = 512;
  limits.max_total_tokens = 20'000;
  absl::StatusOr<Run> run = (*driver)->Start(kGoal, limits);
  if (!run.ok()) return Failure(io, command, ToStd(run.status().message()));

  absl::StatusOr<std::vector<store::Event>> events = (*store)->ListEvents(run->id);
  if (!events.ok()) return Failure(io, command, ToStd(events.status().message()));
  trace::TextOptions trace_options;
  trace_options.max_payload_bytes = 300;
  for (const store::Event& e : *events) io.out << trace::TextLine(e, trace_options);
  io.out << "run " << run->id << ": " << ToString(run->status) << " (" << run->reason << ") after "
         << run->step_count << " steps; " << run->model_calls << " model call(s), "
         << run->input_tokens << " in, " << run->output_tokens << " out, estimated "
         << view::DisplayMoney(run->estimated_cost_micros) << "\n";

  absl::StatusOr<std::string> finished = world.Finish(**store);
  if (!finished.ok()) return Failure(io, command, ToStd(finished.status().message()));
  io.out << *finished << "\n";
  if (world.recording()) {
    io.out << "replay it into a new database:\n  agentrt replay CASSETTE --db NEW.db\n";
  }
  return run->status == RunStatus::kCompleted ? kExitOk : kExitFailure;
}

}  // namespace agentrt::cli
