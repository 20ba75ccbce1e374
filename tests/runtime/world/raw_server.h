// A TCP server on 127.0.0.1 for tests that need an HTTP peer of their own making: one that
// writes a stream piece by piece when the test says so, stalls, cuts a body short, or counts
// the connections it gets (a proxy that must not be used). Each connection is handed to the
// handler on a thread of its own; every wait inside is bounded, so a failing test ends.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/time/time.h"

namespace agentrt::world {

class RawConnection {
 public:
  explicit RawConnection(int fd) : fd_(fd) {}
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  // ReadRequest reads one request: its head and the body its Content-Length declares. "" when
  // the peer closed first or nothing came for 10 s.
  std::string ReadRequest();
  // Write writes all of `bytes`; false when the peer is gone.
  bool Write(std::string_view bytes);
  // WriteUntilBlocked writes `bytes`; the first time the peer takes nothing for `patience`,
  // calls `on_blocked` once, then waits for it as long as 10 s a time. Returns what was written.
  std::size_t WriteUntilBlocked(std::string_view bytes, absl::Duration patience,
                                const std::function<void()>& on_blocked);
  // WaitForPeerClose reads until the peer closes: true, or false after `timeout`.
  bool WaitForPeerClose(absl::Duration timeout);
  void Close();

 private:
  bool WaitFor(short events, absl::Duration timeout);
  int fd_;
};

// Chunk is one chunk of a chunked body ("<hex size>\r\n<bytes>\r\n").
std::string Chunk(std::string_view bytes);

class RawServer {
 public:
  using Handler = std::function<void(RawConnection&)>;
  // Listens on 127.0.0.1, port chosen by the system; aborts the test program if it cannot.
  explicit RawServer(Handler handler);
  ~RawServer();  // stops accepting and waits for every handler

  int port() const { return port_; }
  std::string Url(std::string_view path = "/") const;
  int connections() const { return connections_.load(); }

 private:
  void Accept();

  Handler handler_;
  int listen_fd_ = -1;
  int stop_fd_ = -1;  // an eventfd that ends the accept loop
  int port_ = 0;
  std::atomic<int> connections_{0};
  std::thread acceptor_;
  std::mutex mu_;
  std::vector<std::thread> handlers_;
};

// ClosedPort is a loopback port nothing listens on (it was bound, then closed).
int ClosedPort();

}  // namespace agentrt::world
