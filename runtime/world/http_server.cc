#include "runtime/world/http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "runtime/base/status_macros.h"

namespace agentrt::world {
namespace {

// Deadlines are on the monotonic clock: a wall clock set back must not stretch them.
using Deadline = std::chrono::steady_clock::time_point;

Deadline Now() { return std::chrono::steady_clock::now(); }

Deadline After(Deadline from, absl::Duration duration) {
  return from + std::chrono::duration_cast<Deadline::duration>(absl::ToChronoNanoseconds(duration));
}

// One end of a connection: its address as the service sees it, and the address the caps per
// address count it under (ServerRequest::address).
struct Peer {
  std::string ip;
  int port = 0;
  std::string key;
  std::string remote() const { return absl::StrCat(ip, ":", port); }
};

Peer PeerOf(const sockaddr_storage& address) {
  Peer peer;
  char text[INET6_ADDRSTRLEN] = "";
  if (address.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
    ::inet_ntop(AF_INET, &v4->sin_addr, text, sizeof(text));
    peer.port = ntohs(v4->sin_port);
    peer.key = text;
  } else if (address.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
    ::inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof(text));
    peer.port = ntohs(v6->sin6_port);
    // An IPv4 client of a dual-stack socket counts as its IPv4 address; an IPv6 client as its
    // /64, every address of which its host can use.
    char key[INET6_ADDRSTRLEN] = "";
    if (IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr)) {
      ::inet_ntop(AF_INET, &v6->sin6_addr.s6_addr[12], key, sizeof(key));
      peer.key = key;
    } else {
      in6_addr prefix = v6->sin6_addr;
      std::fill(prefix.s6_addr + 8, prefix.s6_addr + 16, 0);
      ::inet_ntop(AF_INET6, &prefix, key, sizeof(key));
      peer.key = absl::StrCat(key, "/64");
    }
  }
  peer.ip = text;
  return peer;
}

// The bytes of an answer the server writes outside httplib: a 503 to a connection over a cap, a
// 408 to a request whose line never arrived.
std::string Wire(const ServerResponse& response) {
  const char* reason = response.status == 408   ? "Request Timeout"
                       : response.status == 503 ? "Service Unavailable"
                                                : "Error";
  std::string wire = absl::StrCat("HTTP/1.1 ", response.status, " ", reason, "\r\n");
  for (const auto& [key, value] : response.headers) {
    absl::StrAppend(&wire, key, ": ", value, "\r\n");
  }
  absl::StrAppend(&wire, "Content-Length: ", response.body.size(), "\r\nConnection: close\r\n\r\n",
                  response.body);
  return wire;
}

// Closes a connection after its answer. What the client sent that nobody read is dropped first,
// up to a bound and without waiting: closing over unread bytes resets the connection, and the
// reset can reach the client before it has read its answer.
void Close(int fd) {
  char sink[4096];
  for (int i = 0; i < 16 && ::recv(fd, sink, sizeof(sink), MSG_DONTWAIT) > 0; ++i) {
  }
  ::close(fd);
}

// A connection's socket as httplib reads and writes it, under the request's deadlines: every
// wait is a poll bounded by the deadline in force, and a wait for the request also ends when the
// server stops. Reads are buffered (httplib reads the head a byte at a time).
class ConnectionStream final : public httplib::Stream {
 public:
  ConnectionStream(int fd, int stop_fd, Peer peer, Deadline head_deadline,
                   absl::Duration write_timeout)
      : fd_(fd),
        stop_fd_(stop_fd),
        peer_(std::move(peer)),
        read_deadline_(head_deadline),
        write_timeout_(write_timeout) {}

  // The headers are in; the body, if there is one, has until `deadline`.
  void BodyBy(Deadline deadline) {
    in_head_ = false;
    read_deadline_ = deadline;
  }

  const Peer& peer() const { return peer_; }
  bool timed_out() const { return timed_out_; }  // a read missed its deadline
  bool stopped() const { return stopped_; }      // a read was ended by Stop
  bool answered() const { return answered_; }    // a write was tried

  bool is_readable() const override { return pos_ < end_; }
  bool is_writable() const override { return !stopped_; }

  ssize_t read(char* out, size_t size) override {
    while (pos_ == end_) {
      Waited waited = Wait(POLLIN, read_deadline_, /*stoppable=*/true);
      timed_out_ = waited == Waited::kLate;
      stopped_ = waited == Waited::kStopped;
      if (waited != Waited::kReady) return -1;
      ssize_t n = ::recv(fd_, buffer_, sizeof(buffer_), 0);
      if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
      if (n <= 0) return n;
      pos_ = 0;
      end_ = static_cast<std::size_t>(n);
    }
    // The response's time starts at its first byte: a "100 Continue" written before the body
    // does not use it up.
    write_deadline_.reset();
    std::size_t n = std::min(size, end_ - pos_);
    if (in_head_) {
      // httplib bounds each header line but not their number: the head is bounded here.
      n = std::min(n, kMaxHeadBytes - head_bytes_);
      if (n == 0) return -1;
      head_bytes_ += n;
    }
    std::memcpy(out, buffer_ + pos_, n);
    pos_ += n;
    return static_cast<ssize_t>(n);
  }

  using httplib::Stream::write;
  ssize_t write(const char* data, size_t size) override {
    // A request ended by Stop gets no answer: the server is going away.
    if (stopped_) return -1;
    answered_ = true;
    // A request that ran out of time is answered only if the socket takes the answer at once:
    // a client that does not send may well not read either.
    if (timed_out_) return ::send(fd_, data, size, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (!write_deadline_.has_value()) write_deadline_ = After(Now(), write_timeout_);
    for (;;) {
      ssize_t n = ::send(fd_, data, size, MSG_NOSIGNAL);
      if (n >= 0) return n;
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) return -1;
      if (Wait(POLLOUT, *write_deadline_, /*stoppable=*/false) != Waited::kReady) return -1;
    }
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = peer_.ip;
    port = peer_.port;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    Peer local;
    if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
      local = PeerOf(address);
    }
    ip = local.ip;
    port = local.port;
  }
  socket_t socket() const override { return fd_; }

 private:
  enum class Waited { kReady, kLate, kStopped };

  Waited Wait(short events, Deadline deadline, bool stoppable) const {
    pollfd fds[2] = {{fd_, events, 0}, {stop_fd_, POLLIN, 0}};
    for (;;) {
      Deadline now = Now();
      if (now >= deadline) return Waited::kLate;
      // Rounded up, so a wait never ends just short of its deadline and spins.
      auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
      int timeout =
          static_cast<int>(std::min<decltype(left)>(left, std::numeric_limits<int>::max()));
      int ready = ::poll(fds, stoppable ? 2 : 1, timeout);
      if (ready < 0 && errno != EINTR) return Waited::kReady;  // the recv or send says why
      if (ready <= 0) continue;
      if (stoppable && fds[1].revents != 0) return Waited::kStopped;
      if (fds[0].revents != 0) return Waited::kReady;
    }
  }

  const int fd_;
  const int stop_fd_;
  const Peer peer_;
  Deadline read_deadline_;
  const absl::Duration write_timeout_;
  std::optional<Deadline> write_deadline_;  // set by the first write after a read
  bool in_head_ = true;
  std::size_t head_bytes_ = 0;
  char buffer_[4096];
  std::size_t pos_ = 0;
  std::size_t end_ = 0;
  bool timed_out_ = false;
  bool stopped_ = false;
  bool answered_ = false;
};

// The connection the calling thread serves (each connection has a thread of its own). httplib
// words its own failures through the error handler, which is given the request but not the
// stream: this is how the handler learns that a read failed for want of time, not of form.
thread_local ConnectionStream* serving = nullptr;

// httplib's parser and router, driven one connection at a time by our accept loop instead of
// its own: that loop hands connections to a fixed pool of threads that slow clients fill, under
// per-read timeouts that a steady trickle never trips.
class Parser final : public httplib::Server {
 public:
  using httplib::Server::process_request;
  int listening_socket() const { return svr_sock_; }
};

ServerRequest Head(const httplib::Request& req) {
  ServerRequest head;
  head.method = req.method;
  head.path = req.path;
  for (const auto& [key, value] : req.params) head.query.emplace_back(key, value);
  for (const auto& [key, value] : req.headers) head.headers.emplace_back(key, value);
  head.remote = absl::StrCat(req.remote_addr, ":", req.remote_port);
  if (serving != nullptr) head.address = serving->peer().key;
  return head;
}

void Write(const ServerResponse& response, httplib::Response& res) {
  res.status = response.status;
  std::string content_type = "application/octet-stream";
  for (const auto& [key, value] : response.headers) {
    if (absl::EqualsIgnoreCase(key, "Content-Type")) {
      content_type = value;
    } else {
      res.set_header(key, value);
    }
  }
  res.set_content(response.body, content_type);
}

}  // namespace

absl::Status Validate(const HttpServerOptions& options) {
  auto invalid = [](absl::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat("http server options: ", what));
  };
  if (options.max_connections_per_address < 1) {
    return invalid("max_connections_per_address must be at least 1");
  }
  if (options.max_connections <= options.max_connections_per_address) {
    return invalid(absl::StrCat("max_connections (", options.max_connections,
                                ") must be above max_connections_per_address (",
                                options.max_connections_per_address,
                                "), so that one address cannot hold every connection"));
  }
  const std::pair<const char*, absl::Duration> durations[] = {
      {"header_timeout", options.header_timeout},
      {"body_timeout", options.body_timeout},
      {"write_timeout", options.write_timeout}};
  for (const auto& [name, duration] : durations) {
    if (duration <= absl::ZeroDuration() || duration == absl::InfiniteDuration()) {
      return invalid(absl::StrCat(name, " must be positive and finite"));
    }
  }
  if (options.min_body_rate < 1) return invalid("min_body_rate must be at least 1 byte a second");
  return absl::OkStatus();
}

struct HttpServer::Impl {
  Impl(HttpService& service, HttpServerOptions options) : service(service), options(options) {}
  ~Impl() {
    if (listen_fd >= 0) ::close(listen_fd);
    if (stop_fd >= 0) ::close(stop_fd);
  }

  void Route();
  void AcceptLoop();
  void Take(int fd, Peer peer);
  void ServeConnection(int fd, const Peer& peer, Deadline accepted);
  void Release(const std::string& key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  void Reap();
  absl::Duration BodyAllowance(const httplib::Request& req) const;

  HttpService& service;
  const HttpServerOptions options;
  std::string host;
  int port = 0;
  Parser parser;
  int listen_fd = -1;
  int stop_fd = -1;  // an eventfd, readable once Stop has begun
  std::thread acceptor;
  bool stopped = false;

  absl::Mutex mu;
  int open ABSL_GUARDED_BY(mu) = 0;
  std::map<std::string, int> open_by_address ABSL_GUARDED_BY(mu);
  std::map<std::thread::id, std::thread> threads ABSL_GUARDED_BY(mu);
  std::vector<std::thread::id> finished ABSL_GUARDED_BY(mu);  // to join
};

void HttpServer::Impl::Route() {
  parser.set_payload_max_length(service.max_body());
  parser.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    ServerRequest head = Head(req);
    std::optional<ServerResponse> refusal = service.Admit(head);
    if (!refusal.has_value()) {
      // A declared length over the bound is refused before a byte of the body is read. The
      // connection ends with the answer (httplib says Connection: close), so the unread body
      // is never taken for a next request.
      std::size_t length = 0;
      std::string declared = req.get_header_value("Content-Length");
      if (!declared.empty() &&
          (!absl::SimpleAtoi(declared, &length) || length > service.max_body())) {
        refusal = service.Refused(head, 413);
      }
    }
    if (!refusal.has_value()) return httplib::Server::HandlerResponse::Unhandled;
    Write(*refusal, res);
    return httplib::Server::HandlerResponse::Handled;
  });
  auto serve = [this](const httplib::Request& req, httplib::Response& res) {
    ServerRequest request = Head(req);
    request.body = req.body;
    Write(service.Serve(request), res);
  };
  parser.Get(".*", serve);
  parser.Post(".*", serve);
  parser.Put(".*", serve);
  parser.Patch(".*", serve);
  parser.Delete(".*", serve);
  parser.Options(".*", serve);
  // A response httplib made itself (an unreadable request, a chunked body over the bound, a
  // request out of time) has no body yet: the service words it. The service's own responses
  // always have one.
  parser.set_error_handler(httplib::Server::HandlerWithResponse(
      [this](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        ServerRequest head = Head(req);
        int status = res.status;
        if (serving != nullptr) {
          // Ended by Stop: nothing will be written, so nothing is worded (or logged).
          if (serving->stopped()) return httplib::Server::HandlerResponse::Unhandled;
          head.remote = serving->peer().remote();  // httplib sets it only once the head is in
          head.address = serving->peer().key;
          if (serving->timed_out()) status = 408;
        }
        Write(service.Refused(head, status), res);
        return httplib::Server::HandlerResponse::Handled;
      }));
}

void HttpServer::Impl::AcceptLoop() {
  for (;;) {
    pollfd fds[2] = {{listen_fd, POLLIN, 0}, {stop_fd, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0 || (fds[0].revents & (POLLERR | POLLHUP | POLLNVAL)) != 0) return;
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&address), &length,
                       SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      // Out of descriptors or memory: the connection waits in the backlog; look again shortly
      // instead of spinning on a socket that stays readable.
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        pollfd stop = {stop_fd, POLLIN, 0};
        ::poll(&stop, 1, 10);
      }
      continue;
    }
    Take(fd, PeerOf(address));
  }
}

void HttpServer::Impl::Take(int fd, Peer peer) {
  Deadline accepted = Now();
  Reap();
  bool admitted = false;
  {
    absl::MutexLock lock(&mu);
    int& from_peer = open_by_address[peer.key];
    admitted = open < options.max_connections && from_peer < options.max_connections_per_address;
    if (admitted) {
      ++open;
      ++from_peer;
    } else if (from_peer == 0) {
      open_by_address.erase(peer.key);
    }
  }
  if (admitted) {
    try {
      std::thread thread([this, fd, peer, accepted] { ServeConnection(fd, peer, accepted); });
      absl::MutexLock lock(&mu);
      std::thread::id id = thread.get_id();
      threads.emplace(id, std::move(thread));
      return;
    } catch (const std::system_error&) {
      // No thread to serve it: refused like a connection over a cap.
      absl::MutexLock lock(&mu);
      Release(peer.key);
    }
  }
  ServerRequest head;
  head.remote = peer.remote();
  head.address = peer.key;
  std::string wire = Wire(service.Refused(head, 503));
  // A fresh socket's buffer takes a few hundred bytes at once; the accept loop never waits on a
  // client.
  ::send(fd, wire.data(), wire.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  Close(fd);
}

void HttpServer::Impl::ServeConnection(int fd, const Peer& peer, Deadline accepted) {
  ConnectionStream stream(fd, stop_fd, peer, After(accepted, options.header_timeout),
                          options.write_timeout);
  serving = &stream;
  bool closed = false;
  parser.process_request(stream, /*close_connection=*/true, closed, [&](httplib::Request& req) {
    stream.BodyBy(After(Now(), BodyAllowance(req)));
  });
  // httplib gives up without a word on a request line that never came: the answer is ours.
  if (stream.timed_out() && !stream.answered()) {
    ServerRequest head;
    head.remote = peer.remote();
    head.address = peer.key;
    std::string wire = Wire(service.Refused(head, 408));
    stream.write(wire.data(), wire.size());
  }
  serving = nullptr;
  {
    // Before the close: a client that has read its answer to the end finds its slot free.
    absl::MutexLock lock(&mu);
    Release(peer.key);
    finished.push_back(std::this_thread::get_id());
  }
  Close(fd);
}

void HttpServer::Impl::Release(const std::string& key) {
  --open;
  auto it = open_by_address.find(key);
  if (it != open_by_address.end() && --it->second == 0) open_by_address.erase(it);
}

void HttpServer::Impl::Reap() {
  std::vector<std::thread> done;
  {
    absl::MutexLock lock(&mu);
    for (std::thread::id id : finished) {
      auto it = threads.find(id);
      if (it == threads.end()) continue;
      done.push_back(std::move(it->second));
      threads.erase(it);
    }
    finished.clear();
  }
  for (std::thread& thread : done) thread.join();
}

absl::Duration HttpServer::Impl::BodyAllowance(const httplib::Request& req) const {
  // A body of undeclared length (chunked, or read to the end) may be as long as the bound.
  std::size_t size = service.max_body();
  if (req.has_header("Content-Length") &&
      !absl::SimpleAtoi(req.get_header_value("Content-Length"), &size)) {
    size = 0;  // refused before the body is read
  }
  size = std::min(size, service.max_body());
  return options.body_timeout +
         absl::Seconds(static_cast<double>(size) / static_cast<double>(options.min_body_rate));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() { Stop(); }

const std::string& HttpServer::host() const { return impl_->host; }

int HttpServer::port() const { return impl_->port; }

void HttpServer::Stop() {
  Impl& s = *impl_;
  if (s.stopped) return;
  s.stopped = true;
  // Wakes every wait on stop_fd: the accept loop's, and those of the requests still arriving.
  std::uint64_t one = 1;
  ssize_t woken = ::write(s.stop_fd, &one, sizeof(one));
  (void)woken;  // an eventfd write fails only on overflow, which one write cannot reach
  if (s.acceptor.joinable()) s.acceptor.join();
  // From here the kernel refuses new connections.
  ::close(s.listen_fd);
  s.listen_fd = -1;
  std::map<std::thread::id, std::thread> threads;
  {
    absl::MutexLock lock(&s.mu);
    threads.swap(s.threads);
  }
  for (auto& [id, thread] : threads) thread.join();
}

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Listen(const std::string& host, int port,
                                                               HttpService& service,
                                                               HttpServerOptions options) {
  AGENTRT_RETURN_IF_ERROR(Validate(options));
  auto impl = std::make_unique<Impl>(service, options);
  impl->host = host;
  impl->Route();
  if (port == 0) {
    impl->port = impl->parser.bind_to_any_port(host);
    if (impl->port < 0) {
      return absl::UnavailableError(absl::StrCat("cannot listen on ", host, " (any port)"));
    }
  } else {
    if (!impl->parser.bind_to_port(host, port)) {
      return absl::UnavailableError(absl::StrCat("cannot listen on ", host, ":", port));
    }
    impl->port = port;
  }
  impl->listen_fd = impl->parser.listening_socket();
  impl->stop_fd = ::eventfd(0, EFD_CLOEXEC);
  // httplib listens with a backlog of 5: a burst of connections would wait in SYN retries
  // instead of reaching the accept loop, which answers the excess at once.
  if (impl->stop_fd < 0 || ::listen(impl->listen_fd, SOMAXCONN) != 0 ||
      ::fcntl(impl->listen_fd, F_SETFL, ::fcntl(impl->listen_fd, F_GETFL) | O_NONBLOCK) != 0) {
    return absl::UnavailableError(absl::StrCat("cannot serve on ", host, ":", impl->port));
  }
  Impl* raw = impl.get();
  try {
    impl->acceptor = std::thread([raw] { raw->AcceptLoop(); });
  } catch (const std::system_error&) {
    return absl::UnavailableError(
        absl::StrCat("cannot serve on ", host, ":", impl->port, ": no thread to accept on"));
  }
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

}  // namespace agentrt::world
