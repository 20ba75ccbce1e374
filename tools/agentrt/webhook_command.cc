#include "tools/agentrt/webhook_command.h"

#include <signal.h>
#include <sys/stat.h>

#include <fstream>
#include <ostream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"
#include "runtime/operator/approver/local.h"
#include "runtime/operator/approver/webhook/handler.h"
#include "runtime/world/clock.h"
#include "runtime/world/http_server.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/db_flag.h"

namespace agentrt::cli {
namespace {

constexpr std::string_view kCommand = "webhook serve";
struct WebhookOptions {
  std::string db;
  std::string listen;       // ADDRESS:PORT to listen on
  std::string secret_file;  // the shared secret's file
  int max_connections = world::HttpServerOptions{}.max_connections;
  int max_connections_per_address = world::HttpServerOptions{}.max_connections_per_address;
};

constexpr char kHelp[] =
    R"(Usage: agentrt webhook serve [--db PATH] --listen HOST:PORT --secret_file FILE
                             [--max_connections N] [--max_connections_per_address N]

Serves the approval webhook over the database until interrupted (SIGINT or SIGTERM). Clients
sign each request with the shared secret (docs/operators.md, "Approving over HTTP"):
  GET  /runs/RUN/approvals                 the run's pending approvals
  GET  /runs/RUN/approvals/ID              one approval (text with ?format=text)
  POST /runs/RUN/approvals/ID/approve      {"run_id","approval_id","hash","by","note"}
  POST /runs/RUN/approvals/ID/reject       the same; the run is cancelled
  POST /runs/RUN/cancel                    {"run_id","by","note"}
The secret file must be readable by its owner only and hold at least 32 bytes. Approving runs
nothing: the run waits until its consumer resumes it.

At most --max_connections (default 64) connections are open at once, and at most
--max_connections_per_address (default 8) from one address; a connection over either is
answered 503 at once. A request's headers must arrive within 5 s and its body within 5 s plus
1 s for each 4 KiB; a slower request is answered 408 and closed. Requests whose signature
verifies share a rate limit (10 a second, bursts of 20); requests refused before that
(unsigned, forged, replayed, too large, too slow) are counted against their address only:
20, then one a second, and past that the address is answered 429 before its body is read.

Exit status: 0 stopped by a signal, 1 could not serve, 2 usage error.
)";

// The secret: the file's bytes without one trailing newline. Refuses a file others may read.
absl::StatusOr<std::string> ReadSecret(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return absl::NotFoundError(absl::StrCat("secret file ", path, " cannot be read"));
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat("secret file ", path, " is not a file"));
  }
  if ((st.st_mode & 077) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "secret file ", path, " is readable by group or others; run chmod 600 ", path));
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  if (!in) return absl::NotFoundError(absl::StrCat("secret file ", path, " cannot be read"));
  std::string secret = bytes.str();
  if (secret.ends_with("\r\n")) {
    secret.resize(secret.size() - 2);
  } else if (secret.ends_with("\n")) {
    secret.pop_back();
  }
  return secret;
}

// One line an event to `err`; requests are served on several threads at once, and the lock
// keeps their lines whole.
class Log {
 public:
  explicit Log(std::ostream& err) : err_(err) {}
  void operator()(const store::Event& e) {
    absl::MutexLock lock(&mu_);
    err_ << e.at << " " << e.type << " " << json::Sanitize(e.payload_json) << std::endl;
  }

 private:
  absl::Mutex mu_;
  std::ostream& err_;
};

}  // namespace

int RunWebhookCommand(std::span<const std::string> args, Io& io) {
  WebhookOptions o;
  absl::StatusOr<ParsedArgs> parsed =
      ParseArgs(args, FlagSet()
                          .Add("db", &o.db)
                          .Add("listen", &o.listen)
                          .Add("secret_file", &o.secret_file)
                          .Add("max_connections", &o.max_connections)
                          .Add("max_connections_per_address", &o.max_connections_per_address));
  if (!parsed.ok()) return UsageError(io, kCommand, ToStd(parsed.status().message()));
  if (parsed->help) {
    io.out << kHelp;
    return kExitOk;
  }
  if (parsed->positional.size() != 1 || parsed->positional[0] != "serve") {
    return UsageError(io, kCommand, "expected: agentrt webhook serve");
  }
  const std::string& listen = o.listen;
  std::size_t colon = listen.rfind(':');
  int port = -1;
  if (colon == std::string::npos || colon == 0 ||
      !absl::SimpleAtoi(listen.substr(colon + 1), &port) || port < 0 || port > 65535) {
    return UsageError(io, kCommand, "--listen must be HOST:PORT, e.g. 127.0.0.1:8787");
  }
  std::string host = listen.substr(0, colon);
  if (o.secret_file.empty()) {
    return UsageError(io, kCommand, "--secret_file is required");
  }
  world::HttpServerOptions options;
  options.max_connections = o.max_connections;
  options.max_connections_per_address = o.max_connections_per_address;
  if (absl::Status valid = world::Validate(options); !valid.ok()) {
    return UsageError(io, kCommand, ToStd(valid.message()));
  }
  absl::StatusOr<std::string> path = DatabasePath(o.db);
  if (!path.ok()) return UsageError(io, kCommand, ToStd(path.status().message()));

  absl::StatusOr<std::string> secret = ReadSecret(o.secret_file);
  if (!secret.ok()) return Failure(io, kCommand, ToStd(secret.status().message()));
  world::RealClock clock;
  absl::StatusOr<std::unique_ptr<approver::Local>> local = approver::Local::Open(*path, clock);
  if (!local.ok()) return Failure(io, kCommand, ToStd(local.status().message()));
  approver::webhook::Config config;
  config.approver = local->get();
  config.secret = *secret;
  config.clock = &clock;
  Log log(io.err);
  config.observer = [&log](const store::Event& e) { log(e); };
  absl::StatusOr<std::unique_ptr<approver::webhook::Handler>> handler =
      approver::webhook::Handler::Create(std::move(config));
  if (!handler.ok()) return Failure(io, kCommand, ToStd(handler.status().message()));

  // The serving threads inherit this mask, so the signals reach only sigwait below.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  absl::StatusOr<std::unique_ptr<world::HttpServer>> server =
      world::HttpServer::Listen(host, port, **handler, options);
  if (!server.ok()) return Failure(io, kCommand, ToStd(server.status().message()));
  io.out << "listening on http://" << host << ":" << (*server)->port() << std::endl;
  int received = 0;
  sigwait(&stop, &received);
  (*server)->Stop();
  io.out << "stopped" << std::endl;
  return kExitOk;
}

}  // namespace agentrt::cli
