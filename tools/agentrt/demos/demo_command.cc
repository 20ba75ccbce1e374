#include "tools/agentrt/demos/demo_command.h"

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/driver.h"
#include "runtime/json/sanitize.h"
#include "runtime/observe/trace/format.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "runtime/world/real_scheduler.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/db_flag.h"
#include "tools/agentrt/demos/demo_tools.h"
#include "tools/agentrt/demos/demo_world.h"
#include "tools/agentrt/demos/live_demo.h"
#include "tools/agentrt/demos/mcp_demo.h"
#include "tools/agentrt/demos/model_demo.h"
#include "tools/agentrt/demos/proxy_demo.h"
#include "tools/agentrt/demos/world_demo.h"
#include "tools/agentrt/operator_io.h"

namespace agentrt::cli {
namespace {

constexpr char kDemoHelp[] =
    R"(Usage: agentrt demo scripted --db PATH [--approval | --resume RUN]
       agentrt demo model --db PATH (--record CASSETTE | --replay CASSETTE)
                         (a model-backed agent, recorded and replayed: 'demo model --help')
       agentrt demo mcp --db PATH [--resume RUN]
                         (the real filesystem MCP server in a sandbox: a read allowed, a write
                         approved by an operator: 'demo mcp --help')
       agentrt demo world --db PATH [--record CASSETTE | --replay CASSETTE]
                         (tools that start a process and ask an HTTP server, recorded and
                         replayed: 'demo world --help')
       agentrt demo proxy --db PATH
                         (the governing proxy between a host and the real filesystem MCP
                         server: what the model sees at each step: 'demo proxy --help')
       agentrt demo live (--model PROVIDER:MODEL | --stand-in) [--db PATH] [--record CASSETTE]
                         (a real model through its provider's adapter, a remote mutation
                         approved by an operator: 'demo live --help')

Runs a scripted agent against three in-memory tools and prints the persisted event trace:
  1. read_file (read_only) on /etc/hosts: allowed and executed;
  2. read_file with a number for its path: refused by the tool's JSON Schema, recorded, and
     shown to the agent as an observation;
  3. delete_file (destructive): denied by the default policy, an observation too;
  4. finish (a terminal tool): completes the run with its result.
The database is created if missing (mode 0600). Follow with 'agentrt verify --db PATH'.

With --approval the script reaches send_report, a remote mutation: the default policy pauses
the run for a human, and the commands to approve and resume it are printed. --resume RUN
resumes it: exactly the approved call runs, then the agent finishes.

Exit status: 0 the run completed, 1 it did not or the database failed, 2 usage error.
)";

struct DemoOptions {
  std::string db;
  std::string resume;  // resume this run after its approval
};

// The demo's script is a plan the operator wrote, so its decisions say so.
Decision ToolCallDecision(std::string tool, std::string args, std::string reason) {
  Decision d = scripted::Call(std::move(tool), std::move(args), std::move(reason));
  d.origin = "plan";
  return d;
}

// The demo's events as trace lines (runtime/trace), payloads cut to keep the story readable.
void PrintEvents(Io& io, const std::vector<store::Event>& events) {
  trace::TextOptions options;
  options.max_payload_bytes = 400;
  for (const store::Event& e : events) io.out << trace::TextLine(e, options);
}

}  // namespace

int RunDemoCommand(std::span<const std::string> args, Io& io) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    io.out << kDemoHelp;
    return args.empty() ? kExitUsage : kExitOk;
  }
  if (args[0] == "model") return RunModelDemo(args.subspan(1), io);
  if (args[0] == "world") return RunWorldDemo(args.subspan(1), io);
  if (args[0] == "live") return RunLiveDemo(args.subspan(1), io);
  if (args[0] == "mcp") return RunMcpDemo(args.subspan(1), io);
  if (args[0] == "proxy") return RunProxyDemo(args.subspan(1), io);
  if (args[0] != "scripted") {
    return UsageError(io, "demo", "unknown demonstration \"" + json::Sanitize(args[0]) + "\"");
  }
  // --approval is this command's own switch (the approve command's --approval names an id).
  std::vector<std::string> rest;
  bool approval = false;
  for (const std::string& a : args.subspan(1)) {
    if (a == "--approval") {
      approval = true;
    } else {
      rest.push_back(a);
    }
  }
  int exit = kExitOk;
  DemoOptions demo;
  std::optional<ParsedArgs> parsed =
      ParseFlags(io, "demo scripted", rest,
                 FlagSet().Add("db", &demo.db).Add("resume", &demo.resume), kDemoHelp, &exit);
  if (!parsed) return exit;
  const std::string& resume = demo.resume;
  if (approval && !resume.empty()) {
    return UsageError(io, "demo scripted", "--approval and --resume are two separate runs");
  }
  absl::StatusOr<std::string> path = DatabasePath(demo.db);
  if (!path.ok()) return UsageError(io, "demo scripted", ToStd(path.status().message()));

  // The composition root: the real world (system clock, OS randomness, one scheduler thread for
  // the lease heartbeat).
  world::RealClock clock;
  world::RealScheduler scheduler;
  world::OsEntropy entropy;
  absl::StatusOr<std::unique_ptr<store::Store>> store = records::OpenStore(*path, clock);
  if (!store.ok()) return Failure(io, "demo scripted", ToStd(store.status().message()));
  DemoTool read("read_file", "Read a text file.", SideEffect::kReadOnly, false,
                R"({"text":"127.0.0.1 localhost\n"})", "read 20 bytes");
  DemoTool remove("delete_file", "Delete a file.", SideEffect::kDestructive, false, "{}", "");
  DemoTool send("send_report", "Send a report to the team's channel.", SideEffect::kRemoteMutation,
                false, R"({"sent":true})", "report sent");
  DemoTool finish("finish", "Report the answer and end the run.", SideEffect::kReadOnly, true,
                  R"({"answer":"localhost is 127.0.0.1"})", "answered");
  Decision finish_call =
      ToolCallDecision("finish", R"({"summary":"localhost is 127.0.0.1"})", "done");
  std::vector<Decision> script;
  if (!resume.empty()) {
    script = {finish_call};
  } else if (approval) {
    script = {ToolCallDecision("read_file", R"({"path":"/etc/hosts"})", "look up localhost"),
              ToolCallDecision("send_report", R"({"summary":"localhost is 127.0.0.1"})",
                               "tell the team")};
  } else {
    script = {ToolCallDecision("read_file", R"({"path":"/etc/hosts"})", "look up localhost"),
              ToolCallDecision("read_file", R"({"path":42})", "a malformed request"),
              ToolCallDecision("delete_file", R"({"path":"/etc/hosts"})", "a destructive request"),
              finish_call};
  }
  ScriptedAgent agent(script);
  std::unique_ptr<Policy> policy = DefaultPolicy();
  DriverOptions options;
  options.agent = &agent;
  options.policy = policy.get();
  options.tools = {&read, &remove, &send, &finish};
  options.scheduler = &scheduler;
  absl::StatusOr<std::unique_ptr<Driver>> driver = Driver::Create(**store, clock, entropy, options);
  if (!driver.ok()) return Failure(io, "demo scripted", ToStd(driver.status().message()));
  const std::size_t already = EventCount(**store, resume);
  absl::StatusOr<Run> run = resume.empty() ? (*driver)->Start("Find the address of localhost")
                                           : (*driver)->Resume(resume);
  if (!run.ok()) return Failure(io, "demo scripted", ToStd(run.status().message()));
  absl::StatusOr<std::vector<store::Event>> events = (*store)->ListEvents(run->id);
  if (!events.ok()) return Failure(io, "demo scripted", ToStd(events.status().message()));
  io.out << "run " << run->id << " in " << store::RedactedUrl(*path) << "\n";
  std::size_t first = std::min(already, events->size());
  PrintEvents(io, std::vector<store::Event>(events->begin() + static_cast<std::ptrdiff_t>(first),
                                            events->end()));
  io.out << "run " << run->id << ": " << ToString(run->status) << " (" << run->reason << ") after "
         << run->step_count << " steps\n";
  if (run->status == RunStatus::kWaitingForApproval) {
    io.out << "\nThe run waits for a human. To approve the exact request shown above, then "
              "resume:\n  agentrt approve --db "
           << ShellWord(store::RedactedUrl(*path)) << " " << run->id
           << " --by \"$USER\"\n  agentrt demo scripted --db "
           << ShellWord(store::RedactedUrl(*path)) << " --resume " << run->id << "\n";
    return kExitOk;
  }
  return run->status == RunStatus::kCompleted ? kExitOk : kExitFailure;
}

}  // namespace agentrt::cli
