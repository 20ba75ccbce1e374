// Raw HTTP/1.1 over loopback for the webhook's transport tests: a connection made from a chosen
// loopback address (all of 127.0.0.0/8 is loopback on Linux, so one test can be many remote
// addresses), the slow attacker, and an answer read off the wire as it came, repeated
// headers and all. Shared by the webhook's limit tests and the command's.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "runtime/base/string_view.h"
#include "runtime/json/intake.h"
#include "runtime/json/members.h"
#include "runtime/world/http_service.h"

namespace agentrt::testing {

// An HTTP answer as it came off the wire.
struct Answer {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  // How many times the header `name` appears.
  int Count(std::string_view name) const {
    int count = 0;
    for (const auto& [key, value] : headers) count += absl::EqualsIgnoreCase(key, ToAbsl(name));
    return count;
  }
  std::string Header(std::string_view name) const {
    for (const auto& [key, value] : headers) {
      if (absl::EqualsIgnoreCase(key, ToAbsl(name))) return value;
    }
    return "";
  }
  std::string Member(std::string_view key) const {
    absl::StatusOr<json::Document> doc = json::Parse(body);
    return doc.ok() ? json::MemberText(doc->root(), key) : "";
  }
};

inline Answer Parse(const std::string& wire) {
  Answer answer;
  std::size_t end = wire.find("\r\n\r\n");
  if (end == std::string::npos) return answer;
  std::vector<std::string> lines = absl::StrSplit(wire.substr(0, end), "\r\n");
  std::vector<std::string> status_line = absl::StrSplit(lines[0], absl::MaxSplits(' ', 2));
  if (status_line.size() < 2 || !absl::SimpleAtoi(status_line[1], &answer.status)) return answer;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    std::size_t colon = lines[i].find(':');
    if (colon == std::string::npos) continue;
    answer.headers.emplace_back(
        lines[i].substr(0, colon),
        std::string(absl::StripLeadingAsciiWhitespace(lines[i].substr(colon + 1))));
  }
  answer.body = wire.substr(end + 4);
  return answer;
}

// The bytes of `request` as a client sends them.
inline std::string Bytes(const world::ServerRequest& request) {
  std::string wire = absl::StrCat(request.method, " ", request.path, " HTTP/1.1\r\nHost: a\r\n");
  for (const auto& [key, value] : request.headers) absl::StrAppend(&wire, key, ": ", value, "\r\n");
  if (request.method == "POST") {
    absl::StrAppend(&wire, "Content-Length: ", request.body.size(), "\r\n");
  }
  absl::StrAppend(&wire, "\r\n", request.body);
  return wire;
}

// One TCP connection to the server on 127.0.0.1, made from the loopback address `from`.
class RawClient {
 public:
  RawClient(int port, const char* from) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in source{};
    source.sin_family = AF_INET;
    ::inet_pton(AF_INET, from, &source.sin_addr);
    sockaddr_in server{};
    server.sin_family = AF_INET;
    server.sin_port = htons(static_cast<std::uint16_t>(port));
    server.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = fd_ >= 0 &&
                 ::bind(fd_, reinterpret_cast<sockaddr*>(&source), sizeof(source)) == 0 &&
                 ::connect(fd_, reinterpret_cast<sockaddr*>(&server), sizeof(server)) == 0;
    EXPECT_TRUE(connected_) << "cannot connect from " << from;
  }
  ~RawClient() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  int fd() const { return fd_; }

  // Sends without a signal once the server has closed; false then.
  bool Send(std::string_view bytes) {
    return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(bytes.size());
  }
  // Whether an answer (or the end) is there to read within `wait`.
  bool Readable(absl::Duration wait) {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(wait))) > 0;
  }
  // What has arrived, without waiting.
  std::string Arrived() {
    std::string bytes;
    char buffer[4096];
    for (ssize_t n; (n = ::recv(fd_, buffer, sizeof(buffer), MSG_DONTWAIT)) > 0;) {
      bytes.append(buffer, static_cast<std::size_t>(n));
    }
    return bytes;
  }
  // Reads until the server closes the connection; a failure if it has not within `bound`.
  std::string ReadToEnd(absl::Duration bound = absl::Seconds(5)) {
    std::string bytes;
    absl::Time until = absl::Now() + bound;
    char buffer[4096];
    for (;;) {
      absl::Duration left = until - absl::Now();
      if (left <= absl::ZeroDuration()) {
        ADD_FAILURE() << "the connection did not end within " << bound << "; read: " << bytes;
        return bytes;
      }
      if (!Readable(left)) continue;
      ssize_t n = ::recv(fd_, buffer, sizeof(buffer), 0);
      if (n <= 0) return bytes;
      bytes.append(buffer, static_cast<std::size_t>(n));
    }
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

// The attacker: `count` connections from `from`, each sending a request line and a
// header line, and then one more header line every half second, never ending the request.
class SlowClients {
 public:
  SlowClients(int port, const char* from, int count) {
    for (int i = 0; i < count; ++i) {
      clients_.push_back(std::make_unique<RawClient>(port, from));
      clients_.back()->Send("GET /runs/run-1/approvals HTTP/1.1\r\nHost: a\r\n");
    }
    drip_ = std::thread([this] {
      for (int line = 0; !done_.WaitForNotificationWithTimeout(absl::Milliseconds(500)); ++line) {
        for (auto& client : clients_) client->Send(absl::StrCat("X-Slow-", line, ": 1\r\n"));
      }
    });
  }
  ~SlowClients() {
    done_.Notify();
    drip_.join();
  }

  // Waits until `expected` clients have been answered (at most `bound`) and returns every
  // answer there is then; a client without one still holds its connection.
  std::vector<std::string> Answers(std::size_t expected, absl::Duration bound) {
    std::vector<std::string> answers(clients_.size());
    std::size_t answered = 0;
    absl::Time until = absl::Now() + bound;
    for (;;) {
      std::vector<pollfd> waiting;
      for (std::size_t i = 0; i < clients_.size(); ++i) {
        if (!answers[i].empty()) continue;
        answers[i] = clients_[i]->Arrived();
        if (answers[i].empty()) {
          waiting.push_back({clients_[i]->fd(), POLLIN, 0});
        } else {
          ++answered;
        }
      }
      absl::Duration left = until - absl::Now();
      if (answered >= expected || left <= absl::ZeroDuration()) return answers;
      ::poll(waiting.data(), waiting.size(), static_cast<int>(absl::ToInt64Milliseconds(left)) + 1);
    }
  }

 private:
  std::vector<std::unique_ptr<RawClient>> clients_;
  absl::Notification done_;
  std::thread drip_;
};

}  // namespace agentrt::testing
