// An HTTPS server on 127.0.0.1 with a certificate of its own, for tests of what the real network
// trusts: `openssl s_server -www` (the openssl command at /usr/bin/openssl) serving a self-signed
// certificate made for the test, in the test's own folder (test_folder.h). The certificate names
// localhost and 127.0.0.1, so a client that trusts it (its ca_file) verifies both names, and one
// that does not refuses the handshake. It answers a GET on any path with 200 and a status page; a
// POST gets no answer. The system picks the port, and the server is ready when Start returns;
// the destructor kills and reaps it. Test-only.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"

namespace agentrt::world {

class TlsServer {
 public:
  // OpensslInstalled: whether /usr/bin/openssl can be run; a test skips without it.
  static bool OpensslInstalled();

  // Start makes the key and certificate and starts the server, waiting (at most 10 s) until it
  // listens. Errors: Internal naming what openssl printed when either step fails.
  static absl::StatusOr<std::unique_ptr<TlsServer>> Start();
  ~TlsServer();
  TlsServer(const TlsServer&) = delete;
  TlsServer& operator=(const TlsServer&) = delete;

  int port() const { return port_; }
  // Url: https://<host>:<port><path>, e.g. Url("localhost", "/v1/messages").
  std::string Url(std::string_view host = "127.0.0.1", std::string_view path = "/") const;
  // The server's certificate (PEM): the one CA file that makes a client trust it.
  const std::string& certificate_file() const { return certificate_file_; }
  // What the server printed so far (its output and errors), for a failure's message.
  std::string Output() const;

 private:
  TlsServer(pid_t pid, int output_fd, std::string certificate_file);
  // Drain reads the server's output to its end, so it never blocks writing, and reports the
  // port once the server says it accepts (or that it never will, when the output ends first).
  void Drain();

  const pid_t pid_;
  const int output_fd_;
  const std::string certificate_file_;
  int port_ = 0;  // written by Drain before listening_ is notified
  absl::Notification listening_;
  mutable absl::Mutex mu_;
  std::string output_ ABSL_GUARDED_BY(mu_);
  std::thread drain_;
};

}  // namespace agentrt::world
