#include "tools/agentrt/mcp_commands.h"

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "mcp/auth/configured.h"
#include "mcp/class_policy.h"
#include "mcp/config.h"
#include "mcp/load.h"
#include "mcp/load_all.h"
#include "mcp/manifest.h"
#include "mcp/pin.h"
#include "runtime/base/string_view.h"
#include "runtime/driver.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sanitize.h"
#include "runtime/json/sha256.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/store/store.h"
#include "runtime/world/real_filesystem.h"
#include "runtime/world/timestamp.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/db_flag.h"
#include "tools/agentrt/login_browser.h"
#include "tools/agentrt/mcp_shared.h"
#include "tools/agentrt/real_world.h"

namespace agentrt::cli {
namespace {

constexpr char kHelp[] =
    R"(Usage: agentrt mcp SUBCOMMAND --config FILE [...]

Third-party MCP servers' tools under the operator's control (docs/mcp.md). FILE is the
configuration: owner-only, strict JSON, every field known (docs/mcp.md, "The configuration").

Subcommands:
  pin     --config F [--server NAME]        record what each server presents (its manifest)
  check   --config F [--json]               what a load would register and refuse, offline
  tools   --config F [--server NAME] [--json]  the live listing, and whether it matches its pin
  call    --config F --tool NAME --args JSON [--db PATH] [--json]
                                            one governed call, recorded as a one-step run
  call    --config F --resume RUN [--db PATH] [--json]
                                            go on with a call an operator approved
  login   --config F --server NAME [--timeout D]
                                            authorize to a remote server that requires it

Run 'agentrt mcp SUBCOMMAND --help' for details.
)";

constexpr char kPinHelp[] =
    R"(Usage: agentrt mcp pin --config FILE [--server NAME]

Connects to each configured server (or only NAME), lists its tools from the raw bytes it sends,
and writes the server's manifest (the file its `manifest` field names; owner-only, replaced
atomically): each tool's name, description and input schema, pinned by SHA-256, with the hints
it claims. Pinning classifies nothing: the operator's rules do. Prints each tool with its hints
(escaped, one line each).

Exit status: 0 every server pinned, 1 a server could not be pinned (the reason names it),
2 usage error.
)";

constexpr char kCheckHelp[] =
    R"(Usage: agentrt mcp check --config FILE [--json]

The offline check of a team's pinned servers, for CI: reads each server's manifest and runs
every check of a load against it and the configuration's rules, starting no server: prints the
report (one line per tool: registered, refused with its reason, unclassified, unpinned).
--json prints one report object per server.

Exit status: 0 nothing refused, 1 a tool is refused, a rule names a tool the manifest does not
pin, or a manifest cannot be read, 2 usage error.
)";

constexpr char kToolsHelp[] =
    R"(Usage: agentrt mcp tools --config FILE [--server NAME] [--json]

An operator's first look: connects to each server (or only NAME), lists its tools, and prints
each with the hints it claims and whether it still matches its pin (same, schema changed,
description changed, not pinned, or no manifest yet). Writes nothing.

Exit status: 0 listed, 1 a server could not be listed, 2 usage error.
)";

constexpr char kCallHelp[] =
    R"(Usage: agentrt mcp call --config FILE --tool NAME --args JSON [--db PATH] [--json]
       agentrt mcp call --config FILE --resume RUN [--db PATH] [--json]

One governed call from the shell: loads every configured server against its manifest and rules,
then runs a one-step run in the audit database (--db, or the configuration's `database`): the
request is recorded, validated against the tool's schema, judged by the configuration's
policy, executed, and its outcome recorded. Prints the mapped result, escaped for the terminal
like all server text. A call the policy sends to an operator pauses the run and says how to
approve it; --resume RUN then executes exactly the approved call. --json prints one object
instead: {"run", "database", "status", "reason", "reason_detail", "result"}, the result as the
canonical JSON the run recorded, unescaped.

Exit status: 0 the call ran (or waits for an operator), 1 it was refused, failed or could not be
made, 2 usage error.
)";

constexpr char kLoginHelp[] =
    R"(Usage: agentrt mcp login --config FILE --server NAME [--timeout DURATION]

Authorizes agentrt to the remote MCP server NAME, which the configuration gives an `auth` block
(docs/mcp.md, "Authorized servers"), and stores what the authorization server issues in the
block's credentials file (owner-only, replaced atomically). Tokens and secrets are never printed.

With the authorization code grant (the default): the server's 401 says where its authorization
server is; the command prints an address to open in a browser (and hands it to $BROWSER when
that is set), waits for the authorization server's answer on a listener at
http://127.0.0.1:<port>/callback (the block's `redirect_port`, or any free port), checks it
belongs to this login, and exchanges its code (with PKCE) for tokens. Any tokens stored before
are not used. With the client_credentials or identity_assertion grant: the tokens are obtained
at once, with the configured client's secret or private key (and, for an identity assertion,
the operator's ID token exchanged at their identity provider).

Later commands (pin, tools, call, the proxy) send the stored token, refresh it when it expires,
and, when that fails, say to log in again.

--timeout bounds the whole login (default 5m).

Exit status: 0 logged in, 1 the login failed (the reason is printed), 2 usage error.
)";

// What the mcp commands take; each names the flags it accepts (Flags).
struct McpOptions {
  std::string config;                         // the configuration file (docs/mcp.md)
  std::string server;                         // pin, tools: only this configured server
  std::string tool;                           // call: the tool, by the name the model sees
  std::string args = "{}";                    // call: the call's arguments, a JSON object
  std::string db;                             // call: the database (default: the configuration's)
  std::string resume;                         // call: resume this run after its approval
  absl::Duration timeout = absl::Minutes(5);  // login: the whole login's bound
  bool json = false;
  FlagSet Flags(std::initializer_list<std::string_view> names) {
    FlagSet flags;
    for (std::string_view name : names) {
      if (name == "config") flags.Add("config", &config);
      if (name == "server") flags.Add("server", &server);
      if (name == "tool") flags.Add("tool", &tool);
      if (name == "args") flags.Add("args", &args);
      if (name == "db") flags.Add("db", &db);
      if (name == "resume") flags.Add("resume", &resume);
      if (name == "json") flags.Add("json", &json);
      if (name == "timeout") flags.Add("timeout", &timeout);
    }
    return flags;
  }
};

// The agent of a one-step run: the call, then the run ends with its outcome.
class CallAgent final : public Agent {
 public:
  CallAgent(std::string tool, std::string args) : tool_(std::move(tool)), args_(std::move(args)) {}
  absl::StatusOr<Decision> Decide(const StepInput& input) override {
    if (input.steps.empty()) return scripted::Call(tool_, args_, "asked from the shell");
    const Step& last = input.steps.back();
    if (!last.observation.has_value() || last.observation->is_failure()) {
      return scripted::Fail(last.observation ? last.observation->summary : "no outcome");
    }
    return scripted::Complete(last.observation->content);
  }

 private:
  const std::string tool_;
  const std::string args_;
};

int Pin(std::span<const std::string> args, Io& io) {
  McpOptions o;
  int exit = kExitOk;
  std::optional<ParsedArgs> parsed =
      ParseFlags(io, "mcp pin", args, o.Flags({"config", "server"}), kPinHelp, &exit);
  if (!parsed) return exit;
  return PinConfigured(io, "mcp pin", o.config, o.server,
                       "Classify them in the configuration's rules, then check: agentrt mcp "
                       "check --config ");
}

int Check(std::span<const std::string> args, Io& io) {
  McpOptions o;
  int exit = kExitOk;
  std::optional<ParsedArgs> parsed =
      ParseFlags(io, "mcp check", args, o.Flags({"config", "json"}), kCheckHelp, &exit);
  if (!parsed) return exit;
  std::optional<mcp::Config> config = LoadConfig(io, "mcp check", o.config, &exit);
  if (!config) return exit;
  bool json = o.json;
  int status = kExitOk;
  int registered = 0, refused = 0, unclassified = 0;
  mcp::ToolNames names;  // one model-visible name, one tool, across the servers
  world::RealFilesystem files;
  for (const mcp::ServerConfig& s : config->servers) {
    absl::StatusOr<mcp::Manifest> manifest = mcp::ReadManifest(files, s.manifest);
    if (!manifest.ok()) {
      status = Failure(io, "mcp check",
                       absl::StrCat(json::Sanitize(s.name), ": ", manifest.status().message(),
                                    " (pin it first: agentrt mcp pin --config ",
                                    json::Sanitize(config->path), ")"));
      continue;
    }
    absl::StatusOr<mcp::Report> report =
        mcp::Classify(mcp::ServerOf(s), *manifest, s.rules, &names);
    if (!report.ok()) {
      status = Failure(io, "mcp check", ToStd(report.status().message()));
      continue;
    }
    io.out << (json ? report->Json() + "\n" : report->Text());
    registered += static_cast<int>(report->registered.size());
    refused += static_cast<int>(report->refused.size());
    unclassified += static_cast<int>(report->unclassified.size());
    if (!report->refused.empty()) status = kExitFailure;
  }
  if (!json) {
    io.out << registered << " registered, " << refused << " refused, " << unclassified
           << " unclassified across " << config->servers.size()
           << (config->servers.size() == 1 ? " server\n" : " servers\n");
  }
  return status;
}

int Tools(std::span<const std::string> args, Io& io) {
  McpOptions o;
  int exit = kExitOk;
  std::optional<ParsedArgs> parsed =
      ParseFlags(io, "mcp tools", args, o.Flags({"config", "server", "json"}), kToolsHelp, &exit);
  if (!parsed) return exit;
  std::optional<mcp::Config> config = LoadConfig(io, "mcp tools", o.config, &exit);
  if (!config) return exit;
  bool unknown = false;
  std::vector<const mcp::ServerConfig*> servers = SelectServers(*config, o.server, &unknown);
  if (unknown) return UsageError(io, "mcp tools", "no configured server is named that");
  absl::StatusOr<std::unique_ptr<RealWorld>> world = RealWorld::Create();
  if (!world.ok()) return Failure(io, "mcp tools", ToStd(world.status().message()));
  bool json_out = o.json;
  int status = kExitOk;
  for (const mcp::ServerConfig* s : servers) {
    mcp::Server server = mcp::ServerOf(*s);
    const world::World& w = (*world)->world();
    absl::Time deadline = w.clock->Now() + mcp::ConnectTimeout(server);
    absl::StatusOr<std::unique_ptr<mcp::Session>> session = mcp::Connect(server, w, deadline);
    if (!session.ok()) {
      status = Failure(io, "mcp tools", ToStd(session.status().message()));
      continue;
    }
    absl::StatusOr<std::vector<mcp::ListedTool>> tools = mcp::ListAll(**session, deadline);
    if (!tools.ok()) {
      status = Failure(
          io, "mcp tools",
          ToStd(mcp::Fail(server, "list tools", **session, tools.status(), *w.clock).message()));
      continue;
    }
    (*session)->Close();
    absl::StatusOr<mcp::Manifest> manifest = mcp::ReadManifest(*w.filesystem, s->manifest);
    std::vector<std::string> pins;
    for (const mcp::ListedTool& tool : *tools) {
      if (!manifest.ok()) {
        pins.push_back("no manifest");
        continue;
      }
      auto pinned = manifest->tools.find(tool.name);
      if (pinned == manifest->tools.end()) {
        pins.push_back("not pinned");
        continue;
      }
      bool schema = json::Sha256Hex(tool.input_schema) != pinned->second.schema_hash;
      bool description =
          json::Sha256Hex(json::JsonString(tool.description)) != pinned->second.description_hash;
      pins.push_back(schema && description ? "schema and description changed"
                     : schema              ? "schema changed"
                     : description         ? "description changed"
                                           : "same as pinned");
    }
    if (json_out) {
      for (std::size_t i = 0; i < tools->size(); ++i) {
        const mcp::ListedTool& tool = (*tools)[i];
        json::JsonObject o;
        o.String("server", s->name)
            .String("name", tool.name)
            .String("description", tool.description)
            .Raw("input_schema", tool.input_schema)
            .String("pin", pins[i]);
        if (tool.annotations) o.Raw("annotations", tool.annotations->json);
        io.out << o.Build() << "\n";
      }
      continue;
    }
    io.out << json::Sanitize(s->name) << ": " << tools->size() << " tools\n"
           << ListingLines(*tools, pins);
  }
  return status;
}

int Call(std::span<const std::string> args, Io& io) {
  McpOptions o;
  int exit = kExitOk;
  std::optional<ParsedArgs> parsed =
      ParseFlags(io, "mcp call", args, o.Flags({"config", "tool", "args", "db", "resume", "json"}),
                 kCallHelp, &exit);
  if (!parsed) return exit;
  const std::string& resume = o.resume;
  const std::string& tool = o.tool;
  if (resume.empty() == tool.empty()) {
    return UsageError(io, "mcp call", "give --tool NAME (with --args) or --resume RUN");
  }
  std::optional<mcp::Config> config = LoadConfig(io, "mcp call", o.config, &exit);
  if (!config) return exit;
  std::string db = parsed->Given("db") ? o.db : config->database;
  absl::StatusOr<std::unique_ptr<RealWorld>> world = RealWorld::Create();
  if (!world.ok()) return Failure(io, "mcp call", ToStd(world.status().message()));
  const world::World& w = (*world)->world();

  std::vector<mcp::Manifest> manifests;
  for (const mcp::ServerConfig& s : config->servers) {
    absl::StatusOr<mcp::Manifest> manifest = mcp::ReadManifest(*w.filesystem, s.manifest);
    if (!manifest.ok()) return Failure(io, "mcp call", ToStd(manifest.status().message()));
    manifests.push_back(*std::move(manifest));
  }
  SpecCache specs;  // each spec recorded once, by the load, for the driver too
  mcp::ConfiguredTools configured = mcp::LoadConfigured(*config, manifests, w, &specs);
  const std::vector<Tool*>& tools = configured.tools;
  if (!tool.empty() &&
      std::none_of(tools.begin(), tools.end(), [&](Tool* t) { return t->Spec().name == tool; })) {
    // What each load said.
    io.err << configured.reports;
    return Failure(io, "mcp call",
                   "no registered tool is named \"" + json::Sanitize(tool) +
                       "\" (the lines above say what each server registered)");
  }
  absl::StatusOr<std::unique_ptr<store::Store>> store = records::OpenStore(db, *w.clock);
  if (!store.ok()) return Failure(io, "mcp call", ToStd(store.status().message()));
  mcp::ClassPolicy policy(config->policy, configured.outcomes);
  CallAgent agent(tool, o.args);
  DriverOptions options;
  options.agent = &agent;
  options.policy = &policy;
  options.tools = tools;
  options.scheduler = w.scheduler;
  options.lease_ttl = config->lease_ttl;
  options.specs = &specs;
  absl::StatusOr<std::unique_ptr<Driver>> driver =
      Driver::Create(**store, *w.clock, *w.entropy, options);
  if (!driver.ok()) return Failure(io, "mcp call", ToStd(driver.status().message()));
  Limits limits;
  limits.max_steps = 2;
  absl::StatusOr<Run> run =
      resume.empty() ? (*driver)->Start(absl::StrCat("call ", tool, " from the shell"), limits)
                     : (*driver)->Resume(resume);
  if (!run.ok()) return Failure(io, "mcp call", ToStd(run.status().message()));
  bool failed =
      run->status != RunStatus::kCompleted && run->status != RunStatus::kWaitingForApproval;
  if (o.json) {
    // The machine form keeps the result as the server's bytes mapped it (canonical JSON); the
    // reader's own tooling decides how to show it.
    io.out << json::JsonObject()
                  .String("run", run->id)
                  .String("database", db)
                  .String("status", ToString(run->status))
                  .StringIfSet("reason", run->reason)
                  .StringIfSet("reason_detail", run->reason_detail)
                  .RawIfSet("result", run->result)
                  .Build()
           << "\n";
    return failed ? kExitFailure : kExitOk;
  }
  io.out << "run " << run->id << " in " << json::Sanitize(db) << ": " << ToString(run->status);
  if (!run->reason.empty()) io.out << " (" << json::Sanitize(run->reason) << ")";
  io.out << "\n";
  if (run->status == RunStatus::kWaitingForApproval) {
    io.out << "The call waits for an operator. See it, then approve exactly it:\n"
           << "  agentrt show " << run->id << " --db " << json::Sanitize(db) << "\n"
           << "  agentrt approve " << run->id << " --db " << json::Sanitize(db)
           << " --by \"$USER\"\n"
           << "and make it:\n  agentrt mcp call --config " << json::Sanitize(o.config) << " --db "
           << json::Sanitize(db) << " --resume " << run->id << "\n";
    return kExitOk;
  }
  if (failed) {
    return Failure(io, "mcp call",
                   json::Sanitize(run->reason_detail.empty() ? run->reason : run->reason_detail));
  }
  // The result is what the server sent, mapped: canonical JSON escapes only C0 controls, so
  // bidi overrides, C1 controls (U+009B is CSI to many terminals), DEL and invisible or
  // line-separating characters would reach the terminal as they are.
  io.out << json::Sanitize(run->result) << "\n";
  return kExitOk;
}

int Login(std::span<const std::string> args, Io& io) {
  McpOptions o;
  int exit = kExitOk;
  std::optional<ParsedArgs> parsed = ParseFlags(
      io, "mcp login", args, o.Flags({"config", "server", "timeout"}), kLoginHelp, &exit);
  if (!parsed) return exit;
  if (o.server.empty()) return UsageError(io, "mcp login", "--server NAME is required");
  if (o.timeout <= absl::ZeroDuration()) {
    return UsageError(io, "mcp login", "--timeout must be positive");
  }
  std::optional<mcp::Config> config = LoadConfig(io, "mcp login", o.config, &exit);
  if (!config) return exit;
  bool unknown = false;
  std::vector<const mcp::ServerConfig*> servers = SelectServers(*config, o.server, &unknown);
  if (unknown) return UsageError(io, "mcp login", "no configured server is named that");
  const mcp::ServerConfig& s = *servers.front();
  if (!s.auth.has_value()) {
    return Failure(io, "mcp login",
                   absl::StrCat("server ", json::Quoted(s.name),
                                " has no auth block; nothing to log in to (docs/mcp.md, "
                                "\"Authorized servers\")"));
  }
  absl::StatusOr<std::unique_ptr<RealWorld>> world = RealWorld::Create();
  if (!world.ok()) return Failure(io, "mcp login", ToStd(world.status().message()));
  const world::World& w = (*world)->world();
  std::unique_ptr<LoginBrowser> browser;
  if (s.auth->settings.grant == mcp::auth::Grant::kAuthorizationCode) {
    absl::StatusOr<std::unique_ptr<LoginBrowser>> listening =
        LoginBrowser::Listen(s.auth->redirect_port, io.out, w);
    if (!listening.ok()) {
      return Failure(io, "mcp login",
                     absl::StrCat("the redirect listener: ", listening.status().message()));
    }
    browser = *std::move(listening);
  }
  absl::StatusOr<std::shared_ptr<mcp::auth::Authorizer>> authorizer =
      mcp::auth::ConfiguredAuthorizer(s.endpoint, *s.auth, w, browser.get());
  if (!authorizer.ok()) {
    return Failure(
        io, "mcp login",
        absl::StrCat("server ", json::Quoted(s.name), ": auth: ", authorizer.status().message()));
  }
  (*authorizer)->ForgetTokens();
  mcp::Server server = mcp::ServerOf(s);
  server.authorization = *authorizer;
  absl::Time deadline = w.clock->Now() + o.timeout;
  absl::StatusOr<std::unique_ptr<mcp::Session>> session = mcp::Connect(server, w, deadline);
  if (!session.ok()) return Failure(io, "mcp login", ToStd(session.status().message()));
  // A server may let the handshake through and ask on its first request.
  if (!(*authorizer)->current().has_value() || (*authorizer)->current()->access_token.empty()) {
    absl::StatusOr<std::vector<mcp::ListedTool>> tools = mcp::ListAll(**session, deadline);
    if (!tools.ok()) {
      return Failure(
          io, "mcp login",
          ToStd(mcp::Fail(server, "list tools", **session, tools.status(), *w.clock).message()));
    }
  }
  (*session)->Close();
  std::optional<mcp::auth::Credentials> got = (*authorizer)->current();
  if (!got.has_value() || got->access_token.empty()) {
    io.out << "Server " << json::Quoted(s.name)
           << " answered without asking for authorization; nothing was stored.\n";
    return kExitOk;
  }
  io.out << "Logged in to " << json::Quoted(s.name) << ": a token for "
         << json::Quoted(got->resource) << " from " << json::Quoted(got->issuer);
  if (!got->scope.empty()) io.out << ", scope " << json::Quoted(got->scope);
  if (got->expires_at != absl::InfiniteFuture()) {
    io.out << ", expiring " << world::FormatTimestamp(got->expires_at);
  }
  io.out << (got->refresh_token.empty() ? ", no refresh token" : ", with a refresh token")
         << ".\nStored in " << json::Quoted(s.auth->credentials) << " (owner-only).\n";
  return kExitOk;
}

}  // namespace

int RunMcpCommand(std::span<const std::string> args, Io& io) {
  if (args.empty()) return UsageError(io, "mcp", "missing subcommand (pin, check, tools, call)");
  const std::string& sub = args[0];
  if (sub == "--help" || sub == "-h" || sub == "help") return io.out << kHelp, kExitOk;
  if (sub == "pin") return Pin(args.subspan(1), io);
  if (sub == "check") return Check(args.subspan(1), io);
  if (sub == "tools") return Tools(args.subspan(1), io);
  if (sub == "call") return Call(args.subspan(1), io);
  if (sub == "login") return Login(args.subspan(1), io);
  return UsageError(io, "mcp", "unknown subcommand \"" + json::Sanitize(sub) + "\"");
}

}  // namespace agentrt::cli
