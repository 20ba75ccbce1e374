// `agentrt demo mcp`: the MCP demonstration (docs/mcp.md, "The
// demonstration"): a scripted agent against the real filesystem MCP server, in a private sandbox
// folder. The server is pinned once (its manifest beside the database), loaded under the operator's
// rules (fixtures/mcp/filesystem.rules.json: the reads read_only, write_file a local mutation), and
// the run reads a file, then asks to write one: the policy pauses the write for an operator,
// showing the path, the line count and a preview. After `agentrt approve`, `--resume RUN`
// executes exactly that write; `agentrt events` shows the trail.
#include "tools/agentrt/demos/mcp_demo.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "mcp/load.h"
#include "mcp/manifest.h"
#include "mcp/pin.h"
#include "mcp/rules.h"
#include "runtime/base/string_view.h"
#include "runtime/driver.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/members.h"
#include "runtime/json/sanitize.h"
#include "runtime/observe/trace/format.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/store/store.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/db_flag.h"
#include "tools/agentrt/demos/demo_tools.h"
#include "tools/agentrt/demos/demo_world.h"
#include "tools/agentrt/mcp_shared.h"
#include "tools/agentrt/real_world.h"

namespace agentrt::cli {
namespace {

constexpr char kHelp[] =
    R"(Usage: agentrt demo mcp --db PATH [--resume RUN] [--servers DIR]

Runs a scripted agent against the real filesystem MCP server (Node, from the pinned install),
in a private sandbox folder beside the database (mcp-sandbox, mode 0700; the one folder it
creates: the database's folder must exist):
  1. the server is pinned once (mcp-manifest.json beside the database) and loaded under the
     operator's rules (fixtures/mcp/filesystem.rules.json): its read tools as read_only,
     write_file as a local mutation; the report says what the model will not see;
  2. the agent reads the sandbox's README.md (allowed);
  3. it asks to write notes.md: the policy pauses the run for an operator, showing the path,
     the number of lines and a preview; the commands to approve and resume are printed.
--resume RUN executes exactly the approved write, then finishes. The trace is printed.

Exit status: 0 the run completed or waits for an operator, 1 it failed (or the server is not
installed: the message says how to install it), 2 usage error.
)";

struct McpDemoOptions {
  std::string db;
  std::string resume;   // resume this run after its approval
  std::string servers;  // the folder of the pinned servers ("": the source tree's)
};
constexpr std::string_view kNotes =
    "# Notes from the sandbox\n\nThe README says reads are allowed and writes wait for an "
    "operator.\nThis file was written only after one approved exactly this text.\n";

// The operator's policy for the demonstration: reads need no authorization, a write inside the
// sandbox waits for an operator who sees what will be written, anything else is refused.
class SandboxPolicy final : public Policy {
 public:
  absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest& request,
                                          const RunView& view) override {
    PolicyDecision d;
    switch (request.spec.side_effect) {
      case SideEffect::kReadOnly:
        d.outcome = PolicyOutcome::kAllow;
        d.reason = "a read-only tool needs no authorization";
        return d;
      case SideEffect::kLocalMutation: {
        absl::StatusOr<json::Document> args = json::Parse(request.args);
        std::string path = args.ok() ? json::MemberText(args->root(), "path") : "";
        std::string content = args.ok() ? json::MemberText(args->root(), "content") : "";
        std::vector<absl::string_view> lines = absl::StrSplit(content, '\n', absl::SkipEmpty());
        d.outcome = PolicyOutcome::kRequireApproval;
        d.kind = "file_write";
        d.reason = "a write inside the sandbox waits for an operator";
        d.capability =
            json::JsonObject().String("tool", request.spec.name).Raw("args", request.args).Build();
        d.presentation = json::JsonObject()
                             .String("question", "Write this file inside the sandbox?")
                             .String("call", request.spec.name)
                             .String("path", path)
                             .Int("lines", static_cast<std::int64_t>(lines.size()))
                             .Int("bytes", static_cast<std::int64_t>(content.size()))
                             .String("preview", OneLine(content, 240))
                             .Build();
        return d;
      }
      case SideEffect::kRemoteMutation:
      case SideEffect::kDestructive:
        break;
    }
    d.outcome = PolicyOutcome::kDeny;
    d.reason = absl::StrCat("side effect ", ToAbsl(ToString(request.spec.side_effect)),
                            " is not allowed in this demonstration");
    return d;
  }
  std::string Id() const override { return "agentrt-demo-mcp-sandbox/1"; }
};

// The sandbox: created 0700 with a README (0600) the first time, left as it is after. It is the
// one folder the demonstration makes: the database's own folder must exist already.
absl::StatusOr<std::string> Sandbox(const std::filesystem::path& folder) {
  std::filesystem::path sandbox = folder / "mcp-sandbox";
  std::error_code error;
  if (!std::filesystem::exists(sandbox)) {
    if (::mkdir(sandbox.c_str(), 0700) != 0 || ::chmod(sandbox.c_str(), 0700) != 0) {
      return absl::UnavailableError(absl::StrCat("cannot create the sandbox ",
                                                 json::Sanitize(sandbox.string()), ": ",
                                                 std::strerror(errno)));
    }
    std::filesystem::path readme = sandbox / "README.md";
    std::ofstream(readme) << "# The agent's sandbox\n\nThe filesystem server sees only this "
                             "folder. Reads are allowed; a write pauses for an operator, who "
                             "approves exactly the bytes shown. Everything is in the audit log.\n";
    ::chmod(readme.c_str(), 0600);
  }
  return std::filesystem::canonical(sandbox, error).string();
}

}  // namespace

int RunMcpDemo(std::span<const std::string> args, Io& io) {
  const std::string command = "demo mcp";
  int exit = kExitOk;
  McpDemoOptions o;
  std::optional<ParsedArgs> parsed = ParseFlags(
      io, command, args,
      FlagSet().Add("db", &o.db).Add("resume", &o.resume).Add("servers", &o.servers), kHelp, &exit);
  if (!parsed) return exit;
  absl::StatusOr<std::string> db = DatabasePath(o.db);
  if (!db.ok()) return UsageError(io, command, ToStd(db.status().message()));
  std::filesystem::path folder =
      std::filesystem::absolute(std::filesystem::path(*db)).parent_path();
  if (std::error_code error; !std::filesystem::is_directory(folder, error)) {
    return Failure(io, command,
                   absl::StrCat("the database's folder ", json::Sanitize(folder.string()),
                                " does not exist; create it, or name a database in a "
                                "folder that does"));
  }
  const std::string& resume = o.resume;
  std::filesystem::path source = AGENTRT_SOURCE_DIR;
  std::filesystem::path servers =
      o.servers.empty() ? source / "fixtures/servers/node_modules/@modelcontextprotocol"
                        : std::filesystem::path(o.servers);
  std::filesystem::path entry = servers / "server-filesystem/dist/index.js";
  if (!std::filesystem::exists(entry)) {
    return Failure(
        io, command,
        absl::StrCat("the filesystem server is not installed at ", json::Sanitize(entry.string()),
                     " (install it: cd fixtures/servers && npm ci "
                     "--ignore-scripts)"));
  }
  absl::StatusOr<std::string> sandbox = Sandbox(folder);
  if (!sandbox.ok()) return Failure(io, command, ToStd(sandbox.status().message()));
  std::string manifest_path = (folder / "mcp-manifest.json").string();
  absl::StatusOr<std::unique_ptr<RealWorld>> real = RealWorld::Create();
  if (!real.ok()) return Failure(io, command, ToStd(real.status().message()));
  const world::World& w = (*real)->world();
  absl::StatusOr<mcp::Rules> rules =
      mcp::ReadRules(*w.filesystem, (source / "fixtures/mcp/filesystem.rules.json").string());
  if (!rules.ok()) return Failure(io, command, ToStd(rules.status().message()));

  mcp::Server server;
  server.name = "fs";
  server.command = {"node", entry.string(), *sandbox};
  server.connect_timeout = absl::Seconds(30);
  server.default_timeout = absl::Seconds(5);

  absl::StatusOr<mcp::Manifest> manifest = mcp::ReadManifest(*w.filesystem, manifest_path);
  if (absl::IsNotFound(manifest.status())) {
    manifest = mcp::Pin(server, w);
    if (!manifest.ok()) return Failure(io, command, ToStd(manifest.status().message()));
    if (absl::Status s = mcp::WriteManifest(*w.filesystem, manifest_path, *manifest); !s.ok()) {
      return Failure(io, command, ToStd(s.message()));
    }
    io.out << "pinned " << manifest->tools.size() << " tools of the filesystem server to "
           << json::Sanitize(manifest_path) << "\n";
  }
  if (!manifest.ok()) return Failure(io, command, ToStd(manifest.status().message()));
  mcp::LoadResult loaded = mcp::Load(server, &*manifest, *rules, w);
  if (loaded.report) io.out << loaded.report->Text();
  if (!loaded.status.ok()) return Failure(io, command, ToStd(loaded.status.message()));

  DemoTool finish("finish", "Report what was done and end the run.", SideEffect::kReadOnly, true,
                  R"({"done":true})", "finished");
  std::vector<Tool*> tools = {&finish};
  for (const auto& tool : loaded.tools) tools.push_back(tool.get());
  std::string notes_args =
      json::JsonObject().String("path", *sandbox + "/notes.md").String("content", kNotes).Build();
  Decision finish_call = scripted::Call("finish", R"({"summary":"notes.md written"})");
  std::vector<Decision> script =
      resume.empty()
          ? std::vector<Decision>{scripted::Call("fs_read_text_file",
                                                 json::JsonObject()
                                                     .String("path", *sandbox + "/README.md")
                                                     .Build(),
                                                 "read the sandbox's rules"),
                                  scripted::Call("fs_write_file", notes_args, "write the notes"),
                                  finish_call}
          : std::vector<Decision>{finish_call};
  ScriptedAgent agent(script);
  SandboxPolicy policy;
  absl::StatusOr<std::unique_ptr<store::Store>> store = records::OpenStore(*db, *w.clock);
  if (!store.ok()) return Failure(io, command, ToStd(store.status().message()));
  DriverOptions options;
  options.agent = &agent;
  options.policy = &policy;
  options.tools = tools;
  options.scheduler = w.scheduler;
  absl::StatusOr<std::unique_ptr<Driver>> driver =
      Driver::Create(**store, *w.clock, *w.entropy, options);
  if (!driver.ok()) return Failure(io, command, ToStd(driver.status().message()));
  const std::size_t already = EventCount(**store, resume);
  Limits limits;
  limits.max_steps = 12;
  absl::StatusOr<Run> run =
      resume.empty() ? (*driver)->Start("Read the sandbox's README, then leave notes", limits)
                     : (*driver)->Resume(resume);
  if (!run.ok()) return Failure(io, command, ToStd(run.status().message()));
  absl::StatusOr<std::vector<store::Event>> events = (*store)->ListEvents(run->id);
  if (!events.ok()) return Failure(io, command, ToStd(events.status().message()));
  trace::TextOptions trace_options;
  trace_options.max_payload_bytes = 300;
  for (std::size_t i = std::min(already, events->size()); i < events->size(); ++i) {
    io.out << trace::TextLine((*events)[i], trace_options);
  }
  io.out << "run " << run->id << ": " << ToString(run->status);
  if (!run->reason.empty()) io.out << " (" << json::Sanitize(run->reason) << ")";
  io.out << " after " << run->step_count << " steps\n";
  if (run->status == RunStatus::kWaitingForApproval) {
    io.out << "\nThe write waits for a human. See exactly what it would write, approve it, "
              "then resume:\n  agentrt show "
           << run->id << " --db " << json::Sanitize(*db) << "\n  agentrt approve " << run->id
           << " --db " << json::Sanitize(*db) << " --by \"$USER\"\n  agentrt demo mcp --db "
           << json::Sanitize(*db) << " --resume " << run->id << "\n";
    return kExitOk;
  }
  return run->status == RunStatus::kCompleted ? kExitOk : kExitFailure;
}

}  // namespace agentrt::cli
