#include "tools/agentrt/demos/live_demo.h"

#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "providers/api_key.h"
#include "runtime/base/string_view.h"
#include "runtime/driver.h"
#include "runtime/observe/trace/format.h"
#include "runtime/operator/view/display.h"
#include "runtime/records/schema.h"
#include "runtime/render/model_agent.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/curl_network.h"
#include "runtime/world/entropy.h"
#include "runtime/world/environment.h"
#include "runtime/world/http_server.h"
#include "runtime/world/real_filesystem.h"
#include "runtime/world/real_scheduler.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/db_flag.h"
#include "tools/agentrt/demos/demo_tools.h"
#include "tools/agentrt/demos/demo_world.h"
#include "tools/agentrt/demos/stand_in_provider.h"
#include "tools/agentrt/operator_io.h"

namespace agentrt::cli {
namespace {

constexpr char kHelp[] =
    R"(Usage: agentrt demo live --model PROVIDER:MODEL [--base-url URL]
                         [--key-env VAR | --key-file PATH] [--db PATH]
                         [--record CASSETTE | --resume RUN]
       agentrt demo live --stand-in [--db PATH] [--record CASSETTE | --resume RUN]

Runs an agent that asks a real model for every step, through the provider's adapter, under
model accounting, against three in-memory tools: read_file (read only), send_report (a remote
mutation: the default policy sends it to an operator, so the run pauses and the commands to
approve and resume it are printed) and finish (ends the run). The event trace goes to standard
error; the summary to standard output.

--model PROVIDER:MODEL  anthropic:<model>, openai:<model> (any OpenAI-compatible server) or
                        ollama:<model>, e.g. ollama:qwen3:30b-a3b.
--base-url URL          the provider's endpoint (default: the provider's own; Ollama: its host,
                        else $OLLAMA_HOST, else 127.0.0.1:11434).
--key-env VAR, --key-file PATH
                        where the API key is kept: a variable, or a file only you can read
                        (mode 0600). Default: $ANTHROPIC_API_KEY for Anthropic, $OPENAI_API_KEY
                        for OpenAI's own endpoint, none otherwise. The key is never printed,
                        stored or recorded.
--stand-in              start a stand-in OpenAI-compatible server on loopback that answers from a
                        script (read the file, send the report, finish), for a machine without a
                        model; it is not a model.
--record CASSETTE       record every exchange of the run (the provider's HTTP bytes included, its
                        key redacted) into a new cassette; 'agentrt replay CASSETTE --db NEW.db'
                        plays it offline to the same chain head.
--resume RUN            resume RUN after its approval (agentrt approve).

Exit status: 0 the run completed or waits for an approval, 1 otherwise, 2 usage error.
)";

constexpr std::string_view kStandInModel = "openai:stand-in";
constexpr std::string_view kGoal = "Find the address of localhost and tell the team";

struct LiveOptions {
  std::string model;
  std::string base_url;
  std::string key_env;
  std::string key_file;
  std::string db;
  std::string record;
  std::string resume;
  bool stand_in = false;
};

}  // namespace

std::vector<std::string> LiveProgram(const std::string& model, const std::string& base_url,
                                     bool with_key) {
  return {"demo",       "live",   "--model", model,
          "--base-url", base_url, "--key",   with_key ? "redacted" : "none"};
}

std::optional<providers::ModelChoice> ParseLiveProgram(const std::vector<std::string>& program) {
  if (program.size() != 8 || program[0] != "demo" || program[1] != "live" ||
      program[2] != "--model" || program[4] != "--base-url" || program[6] != "--key") {
    return std::nullopt;
  }
  absl::StatusOr<providers::ModelChoice> choice = providers::ParseModelChoice(program[3]);
  if (!choice.ok()) return std::nullopt;
  choice->base_url = program[5];
  // The recorded key header was redacted on both sides: any key stands in for it, as long as
  // there is one exactly when the recording had one.
  if (program[7] == "redacted") choice->api_key = providers::ApiKey("replayed");
  return *std::move(choice);
}

int RunLiveDemo(std::span<const std::string> args, Io& io) {
  const std::string command = "demo live";
  int exit = kExitOk;
  LiveOptions o;
  std::optional<ParsedArgs> parsed = ParseFlags(io, command, args,
                                                FlagSet()
                                                    .Add("model", &o.model)
                                                    .Add("base-url", &o.base_url)
                                                    .Add("key-env", &o.key_env)
                                                    .Add("key-file", &o.key_file)
                                                    .Add("db", &o.db)
                                                    .Add("record", &o.record)
                                                    .Add("resume", &o.resume)
                                                    .Add("stand-in", &o.stand_in),
                                                kHelp, &exit);
  if (!parsed) return exit;
  if (o.stand_in) {
    if (!o.model.empty() || !o.base_url.empty()) {
      return UsageError(io, command, "--stand-in starts its own server: no --model or --base-url");
    }
    o.model = std::string(kStandInModel);
  }
  if (o.model.empty()) return UsageError(io, command, "--model PROVIDER:MODEL is required");
  if (!o.key_env.empty() && !o.key_file.empty()) {
    return UsageError(io, command, "--key-env and --key-file name two keys; give one");
  }
  if (!o.record.empty() && !o.resume.empty()) {
    return UsageError(io, command,
                      "--record records a run from its start; resume without --record");
  }
  absl::StatusOr<providers::ModelChoice> choice = providers::ParseModelChoice(o.model);
  if (!choice.ok()) return UsageError(io, command, ToStd(choice.status().message()));
  absl::StatusOr<std::string> db = DatabasePath(o.db);
  if (!db.ok()) return UsageError(io, command, ToStd(db.status().message()));

  // The composition root: the real world.
  world::RealClock clock;
  world::RealScheduler scheduler;
  world::OsEntropy entropy;
  world::RealFilesystem files;
  world::ProcessEnvironment environment;
  // The stand-in answers on loopback; the network may reach nothing else then.
  absl::StatusOr<std::unique_ptr<world::CurlNetwork>> network =
      world::CurlNetwork::Create(clock, {.loopback_only = o.stand_in});
  if (!network.ok()) return Failure(io, command, ToStd(network.status().message()));
  StandInProvider stand_in;
  std::unique_ptr<world::HttpServer> server;
  choice->base_url = o.base_url;
  if (o.stand_in) {
    absl::StatusOr<std::unique_ptr<world::HttpServer>> listening =
        world::HttpServer::Listen("127.0.0.1", 0, stand_in);
    if (!listening.ok()) return Failure(io, command, ToStd(listening.status().message()));
    server = *std::move(listening);
    choice->base_url = absl::StrCat("http://127.0.0.1:", server->port(), "/v1");
    io.err << "stand-in: an OpenAI-compatible server on " << choice->base_url
           << " answers from a script (read the file, send the report, finish); it is not a "
              "model. Point --model and --base-url at a real provider to see one.\n";
  }
  // The key is read from this process's own environment, never a recorded one (ADR 23).
  providers::KeySource source = !o.key_env.empty() || !o.key_file.empty()
                                    ? providers::KeySource{.env = o.key_env, .file = o.key_file}
                                    : providers::DefaultKeySource(*choice);
  absl::StatusOr<providers::ApiKey> key = providers::ReadKey(source, environment, files);
  if (!key.ok()) return Failure(io, command, ToStd(key.status().message()));
  choice->api_key = *std::move(key);

  world::World real{.clock = &clock,
                    .scheduler = &scheduler,
                    .entropy = &entropy,
                    .network = network->get(),
                    .environment = &environment,
                    .filesystem = &files};
  std::unique_ptr<DemoWorld> world;
  if (o.record.empty()) {
    world = DemoWorld::AsBuilt(real);
  } else {
    absl::StatusOr<std::unique_ptr<DemoWorld>> recording = DemoWorld::Recording(
        real, o.record, LiveProgram(o.model, choice->base_url, !choice->api_key.empty()));
    if (!recording.ok()) return Failure(io, command, ToStd(recording.status().message()));
    world = *std::move(recording);
  }
  // How a paused run goes on, as this one was started.
  std::string again =
      absl::StrCat("agentrt demo live ",
                   o.stand_in ? std::string("--stand-in")
                              : absl::StrCat("--model ", o.model,
                                             o.base_url.empty() ? "" : " --base-url " + o.base_url,
                                             o.key_env.empty() ? "" : " --key-env " + o.key_env,
                                             o.key_file.empty() ? "" : " --key-file " + o.key_file),
                   " --db ", *db, " --resume");
  return PlayLiveDemo(*db, *choice, o.resume, again, *world, io);
}

int PlayLiveDemo(const std::string& db, const providers::ModelChoice& choice,
                 const std::string& resume, std::string_view resume_command, DemoWorld& world,
                 Io& io) {
  const std::string command = "demo live";
  // The store's own clock only stamps its migrations, which are not part of the run.
  world::RealClock store_clock;
  absl::StatusOr<std::unique_ptr<store::Store>> store = records::OpenStore(db, store_clock);
  if (!store.ok()) return Failure(io, command, ToStd(store.status().message()));
  if (resume.empty()) {
    if (absl::Status fresh = world.Begin(**store); !fresh.ok()) {
      return Failure(io, command, ToStd(fresh.message()));
    }
  }
  absl::StatusOr<std::unique_ptr<Model>> provider = providers::CreateModel(choice, world.world());
  if (!provider.ok()) return Failure(io, command, ToStd(provider.status().message()));
  DemoTool read("read_file", "Read a text file.", SideEffect::kReadOnly, false,
                R"({"text":"127.0.0.1 localhost\n"})", "read 20 bytes");
  DemoTool send("send_report", "Send a report to the team's channel.", SideEffect::kRemoteMutation,
                false, R"({"sent":true})", "report sent");
  DemoTool finish("finish", "Report the answer and end the run.", SideEffect::kReadOnly, true,
                  R"({"answer":"localhost is 127.0.0.1"})", "answered");
  render::ModelAgentOptions agent_options;
  agent_options.render.opening = [](const StepInput& in) {
    return absl::StrCat("Goal: ", ToAbsl(in.run.goal),
                        "\nRead /etc/hosts with read_file, report the address with send_report, "
                        "then call finish with a summary.");
  };
  agent_options.system =
      "You are a careful agent. Act only by calling a tool, one tool call at a time.";
  agent_options.max_output_tokens = 1024;
  render::ModelAgent agent(agent_options);
  std::unique_ptr<Policy> policy = DefaultPolicy();
  DriverOptions options;
  options.agent = &agent;
  options.policy = policy.get();
  options.tools = {&read, &send, &finish};
  options.scheduler = world.world().scheduler;
  // The adapter itself, over the world's network: recording, its HTTP bytes are what is recorded;
  // replaying, the same adapter reads them back (not a recording of model calls, ADR 23).
  options.model.model = provider->get();
  options.model.prices = providers::PricesFor(choice, **provider);
  absl::StatusOr<std::unique_ptr<Driver>> driver =
      Driver::Create(**store, *world.world().clock, *world.world().entropy, std::move(options));
  if (!driver.ok()) return Failure(io, command, ToStd(driver.status().message()));
  const std::size_t already = EventCount(**store, resume);
  Limits limits;
  limits.max_model_calls = 10;
  limits.max_output_tokens_per_call = 1024;
  limits.max_total_tokens = 200'000;
  absl::StatusOr<Run> run =
      resume.empty() ? (*driver)->Start(std::string(kGoal), limits) : (*driver)->Resume(resume);
  if (!run.ok()) return Failure(io, command, ToStd(run.status().message()));

  absl::StatusOr<std::vector<store::Event>> events = (*store)->ListEvents(run->id);
  if (!events.ok()) return Failure(io, command, ToStd(events.status().message()));
  trace::TextOptions trace_options;
  trace_options.max_payload_bytes = 300;
  for (std::size_t i = std::min(already, events->size()); i < events->size(); ++i) {
    io.err << trace::TextLine((*events)[i], trace_options);
  }
  io.out << "run " << run->id << " (" << (*provider)->Name() << "): " << ToString(run->status)
         << " (" << run->reason << ") after " << run->step_count << " steps; " << run->model_calls
         << " model call(s), " << run->input_tokens << " in, " << run->output_tokens
         << " out, estimated " << view::DisplayMoney(run->estimated_cost_micros) << "\n";
  absl::StatusOr<std::string> finished = world.Finish(**store);
  if (!finished.ok()) return Failure(io, command, ToStd(finished.status().message()));
  io.out << *finished << "\n";
  if (run->status == RunStatus::kWaitingForApproval) {
    io.out << "The run waits for a human. To approve the exact request in the trace, then "
              "resume:\n  agentrt approve --db "
           << ShellWord(store::RedactedUrl(db)) << " " << run->id << " --by \"$USER\"\n";
    if (!resume_command.empty()) io.out << "  " << resume_command << " " << run->id << "\n";
    return kExitOk;
  }
  return run->status == RunStatus::kCompleted ? kExitOk : kExitFailure;
}

}  // namespace agentrt::cli
