#include "tests/mcp/http_everything.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tests/mcp/real_servers.h"

namespace agentrt::mcp::real_servers {
namespace {

// A TCP port on loopback that nothing listened on a moment ago (0 when none could be had).
int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t size = sizeof(address);
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0) {
    port = ntohs(address.sin_port);
  }
  ::close(fd);
  return port;
}

}  // namespace

HttpEverything::HttpEverything(const world::Clock& clock, std::string path)
    : clock_(clock),
      path_(std::move(path)),
      launcher_(clock, {.stdin_grace = absl::Milliseconds(100), .term_grace = absl::Seconds(2)}) {}

HttpEverything::~HttpEverything() { Close(); }

absl::Status HttpEverything::Start(absl::Duration within) {
  int port = FreePort();
  if (port == 0) return absl::UnavailableError("no free loopback port");
  world::LaunchSpec spec;
  spec.argv = {"node", Script("server-everything"), "streamableHttp"};
  spec.env = {"PATH=" + path_, absl::StrCat("PORT=", port)};
  spec.stderr_sink = [this](std::string_view chunk) {
    absl::MutexLock lock(&mu_);
    stderr_.append(chunk);
    if (!listening_.HasBeenNotified() &&
        absl::StrContains(stderr_, "Streamable HTTP Server listening on port")) {
      listening_.Notify();
    }
  };
  absl::StatusOr<std::unique_ptr<world::Process>> process = launcher_.Start(spec);
  if (!process.ok()) return process.status();
  process_ = *std::move(process);
  if (!listening_.WaitForNotificationWithTimeout(within)) {
    return absl::DeadlineExceededError(
        absl::StrCat("the everything server did not listen; stderr: ", Stderr()));
  }
  server_.name = "everything";
  server_.endpoint = absl::StrCat("http://127.0.0.1:", port, "/mcp");
  server_.connect_timeout = absl::Seconds(30);
  return absl::OkStatus();
}

std::int64_t HttpEverything::pid() const { return process_ ? process_->pid() : 0; }

std::string HttpEverything::LogWithTerminations(int count, absl::Duration within) {
  std::string log;
  absl::Time deadline = clock_.Now() + within;
  while (process_ && Count(log, "Received session termination request") < count) {
    absl::StatusOr<std::string> chunk = process_->Read(deadline);
    if (!chunk.ok() || chunk->empty()) break;
    log += *chunk;
  }
  return log;
}

void HttpEverything::Close() {
  if (process_) process_->Close();
}

std::string HttpEverything::Stderr() {
  absl::MutexLock lock(&mu_);
  return stderr_;
}

}  // namespace agentrt::mcp::real_servers
