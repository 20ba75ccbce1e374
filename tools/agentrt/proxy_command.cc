#include "tools/agentrt/proxy_command.h"

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "mcp/config.h"
#include "mcp/load_all.h"
#include "mcp/manifest.h"
#include "mcp/proxy/host_front.h"
#include "mcp/proxy/http_front.h"
#include "mcp/proxy/open.h"
#include "mcp/proxy/proxy_policy.h"
#include "mcp/proxy/reach_check.h"
#include "runtime/approvals.h"
#include "runtime/base/string_view.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sanitize.h"
#include "runtime/operator/recheck.h"
#include "runtime/records/proxy_calls.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/schema.h"
#include "runtime/world/http_server.h"
#include "runtime/world/real_filesystem.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/mcp_shared.h"
#include "tools/agentrt/real_world.h"

namespace agentrt::cli {
namespace {

constexpr char kHelp[] =
    R"(Usage: agentrt proxy --config FILE [--listen HOST:PORT [--url-file PATH]]
       agentrt proxy pin --config FILE [--server NAME]
       agentrt proxy check --config FILE
       agentrt proxy recheck --config FILE [--run RUN | --session NAME] [--limit N]
                             [--current-tools] [--json]

The governing MCP proxy (docs/proxy.md). An MCP host (a desktop assistant, an IDE, a CLI agent)
starts `agentrt proxy --config FILE` as one of its servers. Inside, the proxy is a client of the
real MCP servers FILE names, pinned and classified by you; every tool call the host makes goes
through agentrt's gate as a run of its own: recorded, checked against the tool's schema, judged
by your policy, held for your approval when the policy asks for one (decide with `agentrt
approve` or the signed webhook, on the same database), executed by the proxy itself, and its
outcome recorded in the hash-chained audit log. stdout carries only the protocol; everything
else goes to stderr, escaped. Standard input closing, SIGINT or SIGTERM stop it: no new call is
taken, holds end at once, calls in flight finish and are recorded.

  --listen HOST:PORT  serve over streamable HTTP at http://HOST:PORT/mcp instead of stdio, for
          hosts that connect to a URL (port 0: any free port). Loopback only unless you name
          another address here; the Host and Origin of every request are checked against DNS
          rebinding. --url-file PATH writes the URL there once it listens. Stops on SIGINT or
          SIGTERM.

  pin     connect to each server (or only NAME) and write its manifest, with the hints it claims
  check   start exactly as serving does (servers loaded, database opened and migrated), print
          what registered, and stop
  recheck ask today's policy every decision the proxy's runs recorded (read-only)

What the proxy governs, and what it cannot:
  - It governs only the calls that go through it. A host that also gives the model a shell or
    file tools lets it bypass the proxy; such a model can approve its own request with the
    operator command or by editing the database.
  - It is made for one person who is both the host's user and the operator. It does not
    separate them.
  - It never sees the model's calls or the prompt, so it sets no token or cost limits.
  - Each call is a run of its own: there are no limits or policy over a conversation's history.
  - An identical call within the repeat window is refused as a duplicate: the rule that stops a
    retry from paying twice also refuses a deliberate identical repeat.
  - Results are capped (64 KiB) and flattened to text (and structured content).
  - The pin covers what a server presents, not what it does.
  - Upstream servers run as your user: they must not reach the proxy's files (the configuration,
    the database, the manifests); the proxy refuses a server whose arguments name them.

Exit status: 0 ok (served until its input closed), 1 failure, 2 usage error.
)";

constexpr char kRecheckHelp[] =
    R"(Usage: agentrt proxy recheck --config FILE [--run RUN | --session NAME] [--limit N]
                               [--current-tools] [--json]

Asks the configuration's policy today every decision the proxy's runs recorded (read-only: the
database is opened existing-only and nothing is written). The runs: RUN, or the newest N
(--limit, default 50) of the session (the configuration's, or --session NAME) from the proxy's
call index. Without --current-tools, each request carries the tool spec its run recorded and the
policy is built from the configuration's rules alone (no server is started); with it, the pinned
servers are loaded (the reach check and the pin hold as at startup) and each request carries its
tool's current spec.

Prints each run's report, then `<n> run(s) re-checked under <policy id>: <r> decision(s)
re-checked, <s> not re-checkable and skipped; <d> run(s) differ` and what the re-check covers:
the policy map, each rule's outcome, fixed values and renames (with --current-tools also schema
and denied-parameter changes); not the duplicate rule, the repeat window, max_pending, rejected or
expired approvals, or calls refused before the gate. --json prints the reports as a JSON array.

Exit status: 0 every decision re-checked is the same, 1 a run differs, no run was found, nothing
was re-checked, or an error; 2 usage error.
)";

constexpr char kPinHelp[] =
    R"(Usage: agentrt proxy pin --config FILE [--server NAME]

Connects to each server the proxy's configuration names (or only NAME), lists its tools, and
writes its manifest (owner-only, replaced atomically), exactly as `agentrt mcp pin` does. Prints
each tool with the hints it claims, which classify nothing: classify the tools in the
configuration's rules, then run `agentrt proxy check`.

Exit status: 0 every server pinned, 1 a server could not be pinned, 2 usage error.
)";

constexpr char kCheckHelp[] =
    R"(Usage: agentrt proxy check --config FILE

Starts the proxy exactly as serving would: the database file is checked, the servers' arguments
are checked against the proxy's own files, each server is loaded against its manifest and rules,
and the database is opened and migrated. Prints what each server registered, the status tool's
name, the session and the database, then stops. Serves nothing.

Exit status: 0 it would serve, 1 it would not (the reason names the file, server or tool),
2 usage error.
)";

struct ProxyOptions {
  std::string config;
  std::string server;
  std::string listen;
  std::string url_file;
  // recheck
  std::string run;
  std::string session;
  std::int64_t limit = 50;
  bool current_tools = false;
  bool json = false;
  FlagSet Flags(bool with_server) {
    FlagSet flags;
    flags.Add("config", &config);
    if (with_server) {
      flags.Add("server", &server);
    } else {
      flags.Add("listen", &listen).Add("url-file", &url_file);
    }
    return flags;
  }
};

// Every line for the operator goes to stderr, prefixed and escaped, one writer at a time.
class OperatorLog {
 public:
  explicit OperatorLog(std::ostream& err) : err_(err) {}
  void Line(std::string_view text) {
    std::lock_guard<std::mutex> lock(mu_);
    err_ << "agentrt proxy: " << json::Sanitize(text) << "\n";
    err_.flush();
  }
  void Lines(std::string_view text) {
    for (absl::string_view line : absl::StrSplit(ToAbsl(text), '\n', absl::SkipEmpty())) {
      Line(ToStd(line));
    }
  }

 private:
  std::mutex mu_;
  std::ostream& err_;
};

// Set by SIGINT and SIGTERM: the serving loop stops reading.
volatile sig_atomic_t g_stop_signal = 0;
extern "C" void OnStopSignal(int) { g_stop_signal = 1; }

// Serves the proxy at http://HOST:PORT/mcp until SIGINT or SIGTERM.
int ServeHttp(Io& io, const ProxyOptions& o, const mcp::Config& config, proxy::OpenedProxy& opened,
              const world::World& world, OperatorLog& log) {
  absl::StatusOr<std::pair<std::string, int>> address = proxy::ListenAddress(o.listen);
  if (!address.ok()) return UsageError(io, "proxy", ToStd(address.status().message()));
  const auto& [host, port] = *address;
  proxy::HttpFrontOptions options;
  if (!proxy::IsLoopbackName(host)) options.allowed_hosts = {host};
  proxy::HttpFront front(*opened.proxy, *world.entropy, options);
  // The server's threads inherit this mask: the signals wait for this thread's sigwait.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  sigset_t old;
  pthread_sigmask(SIG_BLOCK, &stop, &old);
  absl::StatusOr<std::unique_ptr<world::HttpServer>> server =
      world::HttpServer::Listen(host, port, front);
  if (!server.ok()) {
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return Failure(io, "proxy", ToStd(server.status().message()));
  }
  std::string shown = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  std::string url = absl::StrCat("http://", shown, ":", (*server)->port(), "/mcp");
  log.Line(absl::StrCat("serving session ", config.session, " on database ", config.database,
                        " at ", url));
  if (!o.url_file.empty()) {
    if (absl::Status written = world.filesystem->WriteAtomically(o.url_file, url + "\n", "url");
        !written.ok()) {
      pthread_sigmask(SIG_SETMASK, &old, nullptr);
      return Failure(io, "proxy", ToStd(written.message()));
    }
  }
  int signal = 0;
  sigwait(&stop, &signal);
  front.Shutdown();
  (*server)->Stop();
  opened.Close();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  log.Line("stopped by a signal; every call in flight finished");
  return kExitOk;
}

int Serve(std::span<const std::string> args, Io& io) {
  ProxyOptions o;
  int exit = kExitOk;
  std::optional<ParsedArgs> parsed = ParseFlags(io, "proxy", args, o.Flags(false), kHelp, &exit);
  if (!parsed) return exit;
  std::optional<mcp::Config> config = LoadConfig(io, "proxy", o.config, &exit);
  if (!config) return exit;
  absl::StatusOr<std::unique_ptr<RealWorld>> world = RealWorld::Create();
  if (!world.ok()) return Failure(io, "proxy", ToStd(world.status().message()));
  OperatorLog log(io.err);
  std::string reports;
  absl::StatusOr<proxy::OpenedProxy> opened = proxy::OpenProxy(
      *config, (*world)->world(), [&log](std::string_view line) { log.Line(line); }, &reports);
  log.Lines(reports);
  if (!opened.ok()) return Failure(io, "proxy", ToStd(opened.status().message()));
  if (!o.listen.empty()) return ServeHttp(io, o, *config, *opened, (*world)->world(), log);
  log.Line(absl::StrCat("serving session ", config->session, " on database ", config->database));

  std::mutex out_mu;
  proxy::HostFront front(*opened->proxy);
  proxy::Send send = [&](std::string line) {
    std::lock_guard<std::mutex> lock(out_mu);
    io.out << line << "\n";
    io.out.flush();
  };
  // SIGINT and SIGTERM interrupt the read (no SA_RESTART) and end the loop like end of input.
  struct sigaction stop = {};
  stop.sa_handler = OnStopSignal;
  sigemptyset(&stop.sa_mask);
  struct sigaction old_int = {}, old_term = {};
  sigaction(SIGINT, &stop, &old_int);
  sigaction(SIGTERM, &stop, &old_term);
  // One thread a call (the front bounds how many are in flight); the finished ones are joined
  // as new ones start, the rest at the end.
  std::list<std::pair<std::thread, std::shared_ptr<std::atomic<bool>>>> calls;
  std::string line;
  while (g_stop_signal == 0 && std::getline(io.in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    if (std::optional<std::function<void()>> task = front.Receive(line, send)) {
      for (auto it = calls.begin(); it != calls.end();) {
        if (it->second->load()) {
          it->first.join();
          it = calls.erase(it);
        } else {
          ++it;
        }
      }
      auto done = std::make_shared<std::atomic<bool>>(false);
      calls.emplace_back(std::thread([task = std::move(*task), done] {
                           task();
                           done->store(true);
                         }),
                         done);
    }
  }
  front.Shutdown();
  opened->proxy->Stop();
  for (auto& [thread, done] : calls) thread.join();
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  opened->Close();
  log.Line(g_stop_signal != 0 ? "stopped by a signal; every call in flight finished"
                              : "the host closed its input; every call in flight finished");
  return kExitOk;
}

int Pin(std::span<const std::string> args, Io& io) {
  ProxyOptions o;
  int exit = kExitOk;
  std::optional<ParsedArgs> parsed =
      ParseFlags(io, "proxy pin", args, o.Flags(true), kPinHelp, &exit);
  if (!parsed) return exit;
  return PinConfigured(io, "proxy pin", o.config, o.server,
                       "Classify the tools in the configuration's rules, then: agentrt proxy "
                       "check --config ");
}

int Check(std::span<const std::string> args, Io& io) {
  ProxyOptions o;
  int exit = kExitOk;
  std::optional<ParsedArgs> parsed =
      ParseFlags(io, "proxy check", args, o.Flags(false), kCheckHelp, &exit);
  if (!parsed) return exit;
  std::optional<mcp::Config> config = LoadConfig(io, "proxy check", o.config, &exit);
  if (!config) return exit;
  absl::StatusOr<std::unique_ptr<RealWorld>> world = RealWorld::Create();
  if (!world.ok()) return Failure(io, "proxy check", ToStd(world.status().message()));
  std::string reports;
  OperatorLog log(io.err);
  absl::StatusOr<proxy::OpenedProxy> opened = proxy::OpenProxy(
      *config, (*world)->world(), [&log](std::string_view line) { log.Line(line); }, &reports);
  io.out << reports;
  if (!opened.ok()) return Failure(io, "proxy check", ToStd(opened.status().message()));
  io.out << "status tool: " << json::Sanitize(config->status_tool) << "\n"
         << "session: " << json::Sanitize(config->session) << "\n"
         << "database: " << json::Sanitize(config->database) << "\n";
  opened->Close();
  return kExitOk;
}

int Recheck(std::span<const std::string> args, Io& io) {
  ProxyOptions o;
  int exit = kExitOk;
  FlagSet flags;
  flags.Add("config", &o.config)
      .Add("run", &o.run)
      .Add("session", &o.session)
      .Add("limit", &o.limit)
      .Add("current-tools", &o.current_tools)
      .Add("json", &o.json);
  std::optional<ParsedArgs> parsed =
      ParseFlags(io, "proxy recheck", args, flags, kRecheckHelp, &exit);
  if (!parsed) return exit;
  if (!o.run.empty() && parsed->Given("session")) {
    return UsageError(io, "proxy recheck", "--run and --session are exclusive");
  }
  if (o.limit <= 0) return UsageError(io, "proxy recheck", "--limit must be positive");
  std::optional<mcp::Config> config = LoadConfig(io, "proxy recheck", o.config, &exit);
  if (!config) return exit;
  absl::StatusOr<std::unique_ptr<RealWorld>> world = RealWorld::Create();
  if (!world.ok()) return Failure(io, "proxy recheck", ToStd(world.status().message()));
  const world::World& w = (*world)->world();
  if (absl::Status checked = proxy::CheckDatabaseFile(*w.filesystem, config->database);
      !checked.ok()) {
    return Failure(io, "proxy recheck", ToStd(checked.message()));
  }
  absl::StatusOr<std::unique_ptr<store::Store>> store =
      records::OpenExistingStore(config->database, /*read_only=*/true);
  if (!store.ok()) return Failure(io, "proxy recheck", ToStd(store.status().message()));

  std::unique_ptr<proxy::ProxyPolicy> policy = proxy::RulesPolicy(*config);
  mcp::ConfiguredTools loaded;
  std::vector<Tool*> current;
  if (o.current_tools) {
    if (absl::Status reach = proxy::CheckReach(*config, *w.filesystem, w.environment);
        !reach.ok()) {
      return Failure(io, "proxy recheck", ToStd(reach.message()));
    }
    std::vector<mcp::Manifest> manifests;
    for (const mcp::ServerConfig& s : config->servers) {
      absl::StatusOr<mcp::Manifest> manifest = mcp::ReadManifest(*w.filesystem, s.manifest);
      if (!manifest.ok()) return Failure(io, "proxy recheck", ToStd(manifest.status().message()));
      manifests.push_back(*std::move(manifest));
    }
    loaded = mcp::LoadConfigured(*config, manifests, w);
    io.err << loaded.reports;
    current = loaded.tools;
  }

  std::vector<std::string> runs;
  std::string session = parsed->Given("session") ? o.session : config->session;
  if (!o.run.empty()) {
    runs.push_back(o.run);
  } else {
    absl::Status read = (*store)->Read([&](store::Transaction& tx) -> absl::Status {
      absl::StatusOr<std::vector<std::string>> ids = rows::ProxySessionRunIds(tx, session, o.limit);
      if (!ids.ok()) return ids.status();
      runs = *std::move(ids);
      return absl::OkStatus();
    });
    if (!read.ok()) return Failure(io, "proxy recheck", ToStd(read.message()));
  }
  std::vector<RecheckReport> reports;
  int decisions = 0, skipped = 0, differ = 0;
  for (const std::string& run : runs) {
    absl::StatusOr<Run> stored = ReadRun(**store, run);
    if (absl::IsNotFound(stored.status()) && o.run.empty()) continue;  // a row never begun
    if (!stored.ok()) return Failure(io, "proxy recheck", ToStd(stored.status().message()));
    // A re-run's prior attempt, as its interruption approval named it.
    absl::StatusOr<std::vector<Approval>> approvals = ListApprovals(**store, run);
    if (approvals.ok()) policy->RegisterPriorsOf(run, *approvals);
    absl::StatusOr<RecheckReport> report =
        agentrt::Recheck(**store, run, *policy, o.current_tools ? &current : nullptr);
    if (!report.ok()) return Failure(io, "proxy recheck", ToStd(report.status().message()));
    decisions += report->same + report->different;
    skipped += report->not_recheckable;
    if (!report->Same()) ++differ;
    reports.push_back(*std::move(report));
  }
  loaded.Close();
  if (o.json) {
    std::vector<std::string> items;
    for (const RecheckReport& r : reports) items.push_back(RecheckJson(r));
    io.out << json::JsonArray(items) << "\n";
  } else {
    for (const RecheckReport& r : reports) io.out << FormatRecheck(r) << "\n";
    io.out << reports.size() << " run(s) re-checked under " << policy->Id() << ": " << decisions
           << " decision(s) re-checked, " << skipped << " not re-checkable and skipped; " << differ
           << " run(s) differ\n"
           << "covered: the policy map, each rule's outcome, fixed values and renames"
           << (o.current_tools ? ", and the tools' current schemas and denied parameters" : "")
           << "; not covered: the duplicate rule, the repeat window, max_pending, rejected or "
              "expired approvals, calls refused before the gate"
           << (o.current_tools ? "" : ", schema and denied-parameter changes (--current-tools)")
           << "\n";
  }
  if (reports.empty()) {
    return Failure(io, "proxy recheck",
                   absl::StrCat("no run of session \"", json::Sanitize(session),
                                "\" was found, so nothing was re-checked"));
  }
  if (decisions == 0) {
    return Failure(
        io, "proxy recheck",
        absl::StrCat("no decision of the policy was re-checked (", skipped, " not re-checkable)"));
  }
  return differ > 0 ? kExitFailure : kExitOk;
}

}  // namespace

int RunProxyCommand(std::span<const std::string> args, Io& io) {
  if (!args.empty()) {
    const std::string& sub = args[0];
    if (sub == "pin") return Pin(args.subspan(1), io);
    if (sub == "check") return Check(args.subspan(1), io);
    if (sub == "recheck") return Recheck(args.subspan(1), io);
    if (sub == "help") return io.out << kHelp, kExitOk;
    if (!sub.starts_with("-")) {
      return UsageError(io, "proxy", "unknown subcommand \"" + json::Sanitize(sub) + "\"");
    }
  }
  return Serve(args, io);
}

}  // namespace agentrt::cli
