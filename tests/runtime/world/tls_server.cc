#include "tests/runtime/world/tls_server.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "runtime/base/string_view.h"
#include "tests/support/test_folder.h"

extern char** environ;

namespace agentrt::world {
namespace {

constexpr char kOpenssl[] = "/usr/bin/openssl";
constexpr absl::Duration kPatience = absl::Seconds(10);

// Spawn starts `argv` with standard input from /dev/null and standard output and error into
// `output_fd`, which it then closes in this process (the child keeps its copy).
absl::StatusOr<pid_t> Spawn(const std::vector<std::string>& argv, int output_fd) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, output_fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, output_fd, STDERR_FILENO);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(output_fd);
  if (rc != 0) {
    return absl::InternalError(absl::StrCat("tls server: cannot start \"", absl::StrJoin(argv, " "),
                                            "\": ", std::strerror(rc)));
  }
  return pid;
}

// ReadToEnd reads `fd` until every writer closed it, then closes it.
std::string ReadToEnd(int fd) {
  std::string text;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

int Reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// MakeCertificate writes key.pem and cert.pem into the test's folder: a P-256 key (made in
// milliseconds, where RSA takes a noticeable part of a second) and a certificate it signs itself,
// valid for a day, naming both ways a test reaches loopback.
absl::Status MakeCertificate(const std::string& key_file, const std::string& certificate_file) {
  int output[2];
  if (::pipe2(output, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("tls server: pipe2: ", std::strerror(errno)));
  }
  absl::StatusOr<pid_t> pid =
      Spawn({kOpenssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
             "-nodes", "-keyout", key_file, "-out", certificate_file, "-days", "1", "-subj",
             "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"},
            output[1]);
  if (!pid.ok()) {
    ::close(output[0]);
    return pid.status();
  }
  std::string printed = ReadToEnd(output[0]);
  int status = Reap(*pid);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::InternalError(
        absl::StrCat("tls server: openssl req could not make the certificate: ", printed));
  }
  return absl::OkStatus();
}

}  // namespace

bool TlsServer::OpensslInstalled() { return ::access(kOpenssl, X_OK) == 0; }

absl::StatusOr<std::unique_ptr<TlsServer>> TlsServer::Start() {
  const std::string key_file = test_support::TestFile("tls_key.pem");
  const std::string certificate_file = test_support::TestFile("tls_cert.pem");
  if (absl::Status made = MakeCertificate(key_file, certificate_file); !made.ok()) return made;

  int output[2];
  if (::pipe2(output, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("tls server: pipe2: ", std::strerror(errno)));
  }
  // Port 0: the system picks a free one, which s_server prints ("ACCEPT 127.0.0.1:<port>"), so
  // no other process can take it between choosing and listening. Not -quiet: that line is
  // what says the server listens.
  absl::StatusOr<pid_t> pid = Spawn({kOpenssl, "s_server", "-accept", "127.0.0.1:0", "-cert",
                                     certificate_file, "-key", key_file, "-www"},
                                    output[1]);
  if (!pid.ok()) {
    ::close(output[0]);
    return pid.status();
  }
  std::unique_ptr<TlsServer> server(new TlsServer(*pid, output[0], certificate_file));
  if (!server->listening_.WaitForNotificationWithTimeout(kPatience) || server->port_ == 0) {
    return absl::InternalError(
        absl::StrCat("tls server: openssl s_server did not say it listens within ",
                     absl::FormatDuration(kPatience), "; it printed: ", server->Output()));
  }
  return server;
}

TlsServer::TlsServer(pid_t pid, int output_fd, std::string certificate_file)
    : pid_(pid),
      output_fd_(output_fd),
      certificate_file_(std::move(certificate_file)),
      drain_([this] { Drain(); }) {}

TlsServer::~TlsServer() {
  ::kill(pid_, SIGKILL);
  Reap(pid_);
  drain_.join();  // the output ends with the process that wrote it
  ::close(output_fd_);
}

void TlsServer::Drain() {
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(output_fd_, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (listening_.HasBeenNotified()) {
      absl::MutexLock lock(&mu_);
      output_.append(buffer, static_cast<std::size_t>(n));
      continue;
    }
    std::string text;
    {
      absl::MutexLock lock(&mu_);
      output_.append(buffer, static_cast<std::size_t>(n));
      text = output_;
    }
    std::size_t accept = text.find("ACCEPT ");
    if (accept == std::string::npos) continue;
    std::size_t end = text.find('\n', accept);
    if (end == std::string::npos) continue;  // the rest of the line is still to come
    std::string_view line = std::string_view(text).substr(accept, end - accept);
    std::size_t colon = line.rfind(':');
    int port = 0;
    if (colon != std::string_view::npos &&
        absl::SimpleAtoi(ToAbsl(line.substr(colon + 1)), &port)) {
      port_ = port;
    }
    listening_.Notify();
  }
  if (!listening_.HasBeenNotified()) listening_.Notify();  // it ended without listening
}

std::string TlsServer::Output() const {
  absl::MutexLock lock(&mu_);
  return output_;
}

std::string TlsServer::Url(std::string_view host, std::string_view path) const {
  return absl::StrCat("https://", ToAbsl(host), ":", port_, ToAbsl(path));
}

}  // namespace agentrt::world
