#include "tests/runtime/world/raw_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "runtime/base/string_view.h"

namespace agentrt::world {
namespace {

constexpr absl::Duration kPatience = absl::Seconds(10);

[[noreturn]] void Die(const char* what) {
  std::perror(what);
  std::abort();
}

int ListenOnLoopback(int* port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) Die("socket");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) Die("bind");
  socklen_t length = sizeof address;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    Die("getsockname");
  }
  *port = ntohs(address.sin_port);
  return fd;
}

}  // namespace

RawConnection::~RawConnection() { Close(); }

void RawConnection::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool RawConnection::WaitFor(short events, absl::Duration timeout) {
  pollfd p{fd_, events, 0};
  int rc;
  do {
    rc = ::poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(timeout)));
  } while (rc < 0 && errno == EINTR);
  return rc > 0;
}

std::string RawConnection::ReadRequest() {
  std::string data;
  char buffer[4096];
  std::size_t head_end = std::string::npos;
  std::size_t want = 0;
  for (;;) {
    if (head_end == std::string::npos) {
      head_end = data.find("\r\n\r\n");
      if (head_end != std::string::npos) {
        head_end += 4;
        want = head_end;
        for (absl::string_view line :
             absl::StrSplit(absl::string_view(data).substr(0, head_end), "\r\n")) {
          if (absl::StartsWithIgnoreCase(line, "content-length:")) {
            std::size_t length = 0;
            if (absl::SimpleAtoi(absl::StripAsciiWhitespace(line.substr(15)), &length)) {
              want += length;
            }
          }
        }
      }
    }
    if (head_end != std::string::npos && data.size() >= want) return data;
    if (!WaitFor(POLLIN, kPatience)) return "";
    ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
    if (n <= 0) return "";
    data.append(buffer, static_cast<std::size_t>(n));
  }
}

bool RawConnection::Write(std::string_view bytes) {
  while (!bytes.empty()) {
    if (!WaitFor(POLLOUT, kPatience)) return false;
    ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::size_t RawConnection::WriteUntilBlocked(std::string_view bytes, absl::Duration patience,
                                             const std::function<void()>& on_blocked) {
  std::size_t written = 0;
  bool blocked = false;
  while (written < bytes.size()) {
    if (!WaitFor(POLLOUT, blocked ? kPatience : patience)) {
      if (blocked) return written;
      blocked = true;
      on_blocked();
      continue;
    }
    ssize_t n =
        ::send(fd_, bytes.data() + written, bytes.size() - written, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) return written;
    written += static_cast<std::size_t>(n);
  }
  return written;
}

bool RawConnection::WaitForPeerClose(absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  char buffer[4096];
  for (;;) {
    absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration() || !WaitFor(POLLIN, left)) return false;
    ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) return true;
  }
}

std::string Chunk(std::string_view bytes) {
  return absl::StrCat(absl::Hex(bytes.size()), "\r\n", ToAbsl(bytes), "\r\n");
}

RawServer::RawServer(Handler handler) : handler_(std::move(handler)) {
  listen_fd_ = ListenOnLoopback(&port_);
  if (::listen(listen_fd_, 16) != 0) Die("listen");
  stop_fd_ = ::eventfd(0, EFD_CLOEXEC);
  if (stop_fd_ < 0) Die("eventfd");
  acceptor_ = std::thread([this] { Accept(); });
}

RawServer::~RawServer() {
  std::uint64_t one = 1;
  if (::write(stop_fd_, &one, sizeof one) < 0) Die("eventfd write");
  acceptor_.join();
  for (std::thread& t : handlers_) t.join();
  ::close(listen_fd_);
  ::close(stop_fd_);
}

std::string RawServer::Url(std::string_view path) const {
  return absl::StrCat("http://127.0.0.1:", port_, ToAbsl(path));
}

void RawServer::Accept() {
  for (;;) {
    pollfd p[2] = {{listen_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    if (::poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      Die("poll");
    }
    if (p[1].revents != 0) return;
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    connections_.fetch_add(1);
    std::lock_guard<std::mutex> lock(mu_);
    handlers_.emplace_back([this, fd] {
      RawConnection connection(fd);
      handler_(connection);
    });
  }
}

int ClosedPort() {
  int port = 0;
  int fd = ListenOnLoopback(&port);
  ::close(fd);
  return port;
}

}  // namespace agentrt::world
