// `agentrt demo proxy`: the governing proxy as a newcomer meets it. This command plays the MCP
// host (a model's application): it starts `agentrt proxy` as its stdio server, exactly as a
// desktop host would, in front of the real filesystem MCP server in a private sandbox, and prints
// what the model sees at each step; it also plays the operator, deciding with the same functions
// `agentrt approve` and `reject` run, on the same database, from outside the proxy.
#include "tools/agentrt/demos/proxy_demo.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "mcp/proxy/answers.h"
#include "mcp/server.h"
#include "mcp/session.h"
#include "runtime/approvals.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/members.h"
#include "runtime/json/sanitize.h"
#include "runtime/records/schema.h"
#include "runtime/world/clock.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/db_flag.h"
#include "tools/agentrt/mcp_shared.h"
#include "tools/agentrt/real_world.h"

namespace agentrt::cli {
namespace {

constexpr char kHelp[] =
    R"(Usage: agentrt demo proxy --db PATH [--servers DIR]

The governing MCP proxy (docs/proxy.md) as a host meets it. This command plays the host: it
starts `agentrt proxy` as its stdio server, in front of the real filesystem MCP server (Node,
from the pinned install) in a private sandbox beside the database (proxy-sandbox, mode 0700),
and prints what the model sees at each step:
  1. the tools the proxy offers (the classified ones, and the status tool);
  2. a read: allowed, its content comes back;
  3. a write: held for an operator (PENDING_APPROVAL), nothing written;
  4. the operator approves it (the same function `agentrt approve` runs, on the same database);
  5. the host calls again: exactly the approved write runs; the file is on disk;
  6. the host retries after a timeout: refused as a DUPLICATE, nothing written twice;
  7. another write the operator rejects with a note: REJECTED;
  8. the status tool's answer.
The configuration, manifest and database are written beside the database (proxy-config.json,
proxy-manifest.json, the database itself). Follow with `agentrt events RUN --db PATH`.

Exit status: 0 every step answered as shown, 1 a step did not (or the server is not installed:
the message says how to install it), 2 usage error.
)";

// What the host saw of one call.
struct Seen {
  bool is_error = false;
  std::string text;
};

absl::StatusOr<Seen> CallTool(mcp::Session& session, const world::Clock& clock,
                              std::string_view tool, std::string_view args) {
  std::string params = json::JsonObject().String("name", tool).Raw("arguments", args).Build();
  absl::StatusOr<std::string> result =
      session.Request("tools/call", params, clock.Now() + absl::Seconds(60));
  if (!result.ok()) return result.status();
  absl::StatusOr<json::Document> doc = json::Parse(*result);
  if (!doc.ok()) return doc.status();
  Seen seen;
  std::optional<json::Value> error = doc->root().Find("isError");
  seen.is_error = error && error->is_bool() && error->bool_value();
  std::optional<json::Value> content = doc->root().Find("content");
  if (content && content->is_array() && content->size() > 0) {
    seen.text = json::MemberText(content->element(0), "text");
  }
  return seen;
}

// The model's view of an answer, on one line, escaped and cut.
std::string Shown(const Seen& seen) {
  std::string line = json::Truncate(json::Sanitize(seen.text), 220);
  return absl::StrCat("model sees", seen.is_error ? " (isError)" : "", ": ", line, "\n");
}

}  // namespace

int RunProxyDemo(std::span<const std::string> args, Io& io) {
  const std::string command = "demo proxy";
  int exit = kExitOk;
  std::string db_flag, servers_flag;
  std::optional<ParsedArgs> parsed = ParseFlags(
      io, command, args, FlagSet().Add("db", &db_flag).Add("servers", &servers_flag), kHelp, &exit);
  if (!parsed) return exit;
  absl::StatusOr<std::string> db_path = DatabasePath(db_flag);
  if (!db_path.ok()) return UsageError(io, command, ToStd(db_path.status().message()));
  std::error_code error;
  std::filesystem::path db = std::filesystem::absolute(*db_path, error);
  std::filesystem::path folder = db.parent_path();
  if (!std::filesystem::is_directory(folder, error)) {
    return Failure(io, command,
                   absl::StrCat("the database's folder ", json::Sanitize(folder.string()),
                                " does not exist; create it, or name a database in a folder that "
                                "does"));
  }
  std::filesystem::path servers = servers_flag.empty()
                                      ? std::filesystem::path(AGENTRT_SOURCE_DIR) /
                                            "fixtures/servers/node_modules/@modelcontextprotocol"
                                      : std::filesystem::path(servers_flag);
  std::filesystem::path entry = servers / "server-filesystem/dist/index.js";
  if (!std::filesystem::exists(entry)) {
    return Failure(
        io, command,
        absl::StrCat("the filesystem server is not installed at ", json::Sanitize(entry.string()),
                     " (install it: cd fixtures/servers && npm ci --ignore-scripts)"));
  }
  std::filesystem::path sandbox = folder / "proxy-sandbox";
  if (!std::filesystem::exists(sandbox) &&
      (::mkdir(sandbox.c_str(), 0700) != 0 || ::chmod(sandbox.c_str(), 0700) != 0)) {
    return Failure(io, command,
                   absl::StrCat("cannot create the sandbox ", json::Sanitize(sandbox.string()),
                                ": ", std::strerror(errno)));
  }
  std::ofstream(sandbox / "notes.txt") << "Rent is due on the first: 950.00 to the landlord.\n";
  std::filesystem::remove(sandbox / "report.txt", error);
  std::filesystem::remove(sandbox / "secrets.txt", error);

  // The operator's configuration: reads allowed, a write waits for an operator.
  std::filesystem::path config = folder / "proxy-config.json";
  std::ofstream(config, std::ios::trunc)
      << json::JsonObject()
             .String("database", db.string())
             .String("session", "demo")
             .String("hold", "0s")
             .String("lease_ttl", "3s")
             .Raw("servers",
                  "[" +
                      json::JsonObject()
                          .String("name", "fs")
                          .Raw("command",
                               absl::StrCat(R"(["node",)", json::JsonString(entry.string()), ",",
                                            json::JsonString(sandbox.string()), "]"))
                          .String("connect_timeout", "30s")
                          .String("manifest", (folder / "proxy-manifest.json").string())
                          .Raw("rules",
                               R"({"read_text_file":{"side_effect":"read_only","timeout":"10s"},)"
                               R"("write_file":{"side_effect":"local_mutation","timeout":"10s",)"
                               R"("allow_hint_mismatch":true,"outcome":"require_approval"}})")
                          .Build() +
                      "]")
             .Build()
      << "\n";
  ::chmod(config.c_str(), 0600);

  absl::StatusOr<std::unique_ptr<RealWorld>> real = RealWorld::Create();
  if (!real.ok()) return Failure(io, command, ToStd(real.status().message()));
  const world::World& w = (*real)->world();
  absl::StatusOr<mcp::Config> read_config = mcp::ReadConfig(*w.filesystem, config.string());
  if (!read_config.ok()) return Failure(io, command, ToStd(read_config.status().message()));
  io.out << "operator: agentrt proxy pin --config " << json::Sanitize(config.string()) << "\n";
  std::vector<const mcp::ServerConfig*> to_pin = {&read_config->servers[0]};
  std::ostringstream pinned;
  Io quiet{.in = io.in, .out = pinned, .err = io.err};
  if (PinServers(quiet, command, to_pin, w) != kExitOk) return kExitFailure;

  // The host starts the proxy as its server.
  char self[4096];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return Failure(io, command, "cannot find this program's own path");
  mcp::Server proxy;
  proxy.name = "proxy";
  proxy.command = {std::string(self, static_cast<std::size_t>(n)), "proxy", "--config",
                   config.string()};
  proxy.connect_timeout = absl::Seconds(30);
  io.out << "host: starts agentrt proxy --config " << json::Sanitize(config.string())
         << " as its MCP server\n";
  absl::StatusOr<std::unique_ptr<mcp::Session>> session =
      mcp::Connect(proxy, w, w.clock->Now() + absl::Seconds(30));
  if (!session.ok()) return Failure(io, command, ToStd(session.status().message()));
  absl::StatusOr<std::string> listed =
      (*session)->Request("tools/list", "{}", w.clock->Now() + absl::Seconds(30));
  if (!listed.ok()) return Failure(io, command, ToStd(listed.status().message()));
  absl::StatusOr<json::Document> tools = json::Parse(*listed);
  std::vector<std::string> names;
  if (tools.ok()) {
    std::optional<json::Value> list = tools->root().Find("tools");
    for (std::size_t i = 0; list && i < list->size(); ++i) {
      names.push_back(json::Sanitize(json::MemberText(list->element(i), "name")));
    }
  }
  io.out << "model sees tools: " << absl::StrJoin(names, ", ") << "\n";

  auto call = [&](std::string_view what, std::string_view tool,
                  const std::string& arguments) -> std::optional<Seen> {
    io.out << "model calls " << tool << " (" << what << ")\n";
    absl::StatusOr<Seen> seen = CallTool(**session, *w.clock, tool, arguments);
    if (!seen.ok()) {
      Failure(io, command, ToStd(seen.status().message()));
      return std::nullopt;
    }
    io.out << Shown(*seen);
    return *seen;
  };
  auto decide = [&](const std::string& approval, bool approve, std::string note) -> bool {
    // The operator was shown the approval's id; its run is found by it, on the same database.
    absl::StatusOr<std::unique_ptr<store::Store>> store =
        records::OpenExistingStore(db.string(), /*read_only=*/false);
    if (!store.ok()) {
      Failure(io, command, ToStd(store.status().message()));
      return false;
    }
    absl::StatusOr<std::string> found = RunOfApproval(**store, approval);
    if (!found.ok()) {
      Failure(io, command, ToStd(found.status().message()));
      return false;
    }
    const std::string& run = *found;
    io.out << "operator: agentrt " << (approve ? "approve " : "reject ") << run << " --approval "
           << approval << " --db " << json::Sanitize(db.string())
           << (note.empty() ? "" : " --note \"" + note + "\"") << "\n";
    Decider by{.by = "demo operator", .note = std::move(note), .shown_hash = ""};
    absl::StatusOr<Approval> decided = approve ? Approve(**store, *w.clock, run, approval, by)
                                               : Reject(**store, *w.clock, run, approval, by);
    if (!decided.ok()) {
      Failure(io, command, ToStd(decided.status().message()));
      return false;
    }
    return true;
  };

  std::string read = json::JsonObject().String("path", (sandbox / "notes.txt").string()).Build();
  std::string write = json::JsonObject()
                          .String("path", (sandbox / "report.txt").string())
                          .String("content", "Paid rent: 950.00 to the landlord.\n")
                          .Build();
  std::string secret = json::JsonObject()
                           .String("path", (sandbox / "secrets.txt").string())
                           .String("content", "the landlord's bank password\n")
                           .Build();
  bool ok = true;
  std::optional<Seen> seen;
  ok = ok && (seen = call("a read, allowed", "fs_read_text_file", read)) && !seen->is_error;
  ok = ok && (seen = call("a write, which waits for an operator", "fs_write_file", write)) &&
       seen->text.starts_with("PENDING_APPROVAL");
  ok = ok && !std::filesystem::exists(sandbox / "report.txt");
  ok = ok && decide(proxy::ApprovalNamedIn(seen->text), true, "");
  ok = ok && (seen = call("again, once approved", "fs_write_file", write)) && !seen->is_error;
  ok = ok && std::filesystem::exists(sandbox / "report.txt");
  ok = ok && (seen = call("again: the host retries after a timeout", "fs_write_file", write)) &&
       seen->text.starts_with("DUPLICATE");
  ok = ok && (seen = call("another write", "fs_write_file", secret)) &&
       seen->text.starts_with("PENDING_APPROVAL");
  ok = ok && decide(proxy::ApprovalNamedIn(seen->text), false, "never write credentials");
  ok = ok && (seen = call("again, once rejected", "fs_write_file", secret)) &&
       seen->text.starts_with("REJECTED");
  ok = ok && !std::filesystem::exists(sandbox / "secrets.txt");
  ok = ok && (seen = call("the status tool", "gate_status", "{}"));
  (*session)->Close();
  if (!ok) return Failure(io, command, "a step did not answer as the demonstration expects");
  io.out << "through the proxy the server wrote report.txt once and secrets.txt never\n"
         << "see the audit log: agentrt runs --db " << json::Sanitize(db.string())
         << "   and: agentrt verify --db " << json::Sanitize(db.string()) << "\n";
  return kExitOk;
}

}  // namespace agentrt::cli
