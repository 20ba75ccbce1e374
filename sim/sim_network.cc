#include "sim/sim_network.h"

#include <deque>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "sim/scenario_file.h"
#include "sim/sim_launcher.h"

namespace agentrt::sim {
namespace {

struct Chunk {
  absl::Time at;
  std::string bytes;
};

class SimResponse final : public world::HttpResponse {
 public:
  SimResponse(world::ManualClock& clock, int status, world::HttpFields headers,
              std::deque<Chunk> chunks, bool breaks, std::shared_ptr<bool> dead)
      : clock_(clock),
        status_(status),
        headers_(std::move(headers)),
        chunks_(std::move(chunks)),
        breaks_(breaks),
        dead_(std::move(dead)) {}

  int status() const override { return status_; }
  const world::HttpFields& headers() const override { return headers_; }

  absl::StatusOr<std::string> Read(absl::Time deadline) override {
    if (closed_ || *dead_) return absl::CancelledError("the response was closed");
    if (!chunks_.empty()) {
      if (chunks_.front().at > deadline) return Until(deadline);
      MoveClockTo(clock_, chunks_.front().at);
      std::string bytes = std::move(chunks_.front().bytes);
      chunks_.pop_front();
      return bytes;
    }
    if (breaks_) return absl::UnavailableError("the connection broke before the end of the body");
    if (hangs_) return Until(deadline);
    return std::string();
  }

  void Close() override { closed_ = true; }

  // The body stays open after its chunks: a stream the server never finishes.
  void set_hangs() { hangs_ = true; }

 private:
  absl::StatusOr<std::string> Until(absl::Time deadline) {
    if (deadline == absl::InfiniteFuture()) {
      return absl::UnavailableError(
          "the simulated server will never send more and the read has no deadline");
    }
    MoveClockTo(clock_, deadline);
    return absl::DeadlineExceededError("no body bytes by the deadline");
  }

  world::ManualClock& clock_;
  int status_;
  world::HttpFields headers_;
  std::deque<Chunk> chunks_;
  bool breaks_;
  bool hangs_ = false;
  bool closed_ = false;
  std::shared_ptr<bool> dead_;
};

// The path of an absolute URL, without its query.
std::string PathOf(std::string_view url) {
  std::size_t start = url.find("://");
  if (start == std::string_view::npos) return "";
  url.remove_prefix(start + 3);
  std::size_t slash = url.find('/');
  if (slash == std::string_view::npos) return "/";
  url.remove_prefix(slash);
  return std::string(url.substr(0, url.find_first_of("?#")));
}

std::string HostOf(std::string_view url) {
  std::size_t start = url.find("://");
  if (start == std::string_view::npos) return "";
  url.remove_prefix(start + 3);
  std::size_t end = url.find_first_of("/:?#");
  return std::string(url.substr(0, end));
}

std::unique_ptr<SimResponse> Plain(world::ManualClock& clock, int status, std::string body,
                                   std::shared_ptr<bool> dead, world::HttpFields headers = {}) {
  std::deque<Chunk> chunks;
  if (!body.empty()) chunks.push_back({clock.Now(), std::move(body)});
  return std::make_unique<SimResponse>(clock, status, std::move(headers), std::move(chunks), false,
                                       std::move(dead));
}

}  // namespace

std::string SimEndpoint(std::string_view name) {
  return absl::StrCat("http://", ToAbsl(name), ".sim/mcp");
}

SimNetwork::SimNetwork(world::ManualClock& clock, std::map<std::string, FakeServer*> servers,
                       FakeProvider* provider, std::map<std::string, FakeAuthServer*> auth)
    : clock_(clock), provider_(provider) {
  for (auto& [name, server] : servers) hosts_[absl::StrCat(name, ".sim")].server = server;
  for (auto& [name, server] : auth) hosts_[absl::StrCat(name, ".sim")].auth = server;
}

absl::StatusOr<std::unique_ptr<world::HttpResponse>> SimNetwork::Send(
    const world::HttpRequest& request, absl::Time deadline) {
  if (*dead_) return absl::UnavailableError("the simulated runtime is dead");
  if (!absl::StartsWith(request.url, "http://") && !absl::StartsWith(request.url, "https://")) {
    return absl::InvalidArgumentError(
        absl::StrCat("URL ", request.url, " is not absolute http(s)"));
  }
  std::string host_name = HostOf(request.url);
  if (provider_ != nullptr && host_name == kProviderHost) return ServeProvider(request, deadline);
  auto it = hosts_.find(host_name);
  if (it == hosts_.end()) {
    return absl::UnavailableError(absl::StrCat("cannot reach ", request.url, ": no such host"));
  }
  Host& host = it->second;
  FakeServer& server = *host.server;
  const v1::Http& http = server.config().http();
  if (!http.redirect_to().empty()) {
    return Plain(clock_, 307, "", dead_, {{"Location", http.redirect_to()}});
  }
  if (host.auth != nullptr) {
    std::optional<FakeAuthServer::Answer> answer =
        host.auth->Serve(request, PathOf(request.url), clock_.Now());
    if (!answer.has_value()) answer = host.auth->Admit(request, clock_.Now());
    if (answer.has_value()) {
      absl::Time at = clock_.Now() + answer->delay;
      if (at > deadline) {
        MoveClockTo(clock_, deadline);
        return absl::DeadlineExceededError("no response headers by the deadline");
      }
      MoveClockTo(clock_, at);
      return Plain(clock_, answer->status, std::move(answer->body), dead_,
                   std::move(answer->headers));
    }
  }
  std::optional<std::string> session = world::FindHeader(request.headers, "Mcp-Session-Id");
  if (request.method == "DELETE") {
    if (session && *session == host.session) host.session.clear();
    return Plain(clock_, 200, "", dead_);
  }
  if (request.method != "POST") return Plain(clock_, 405, "", dead_);
  if (session) {
    if (*session != host.session) return Plain(clock_, 404, "", dead_);
    ++host.requests;
    if (http.lose_session_after() > 0 && !host.lost && host.requests > http.lose_session_after()) {
      host.lost = true;
      host.session.clear();
      return Plain(clock_, 404, "", dead_);
    }
  }
  bool initialize = absl::StrContains(request.body, "\"initialize\"");
  Reply reply = server.Handle(request.body);
  if (reply.notification) {
    // A notification or a response of the client's: accepted.
    return Plain(clock_, 202, "", dead_);
  }
  if (reply.clock_jump > absl::ZeroDuration()) MoveClockTo(clock_, clock_.Now() + reply.clock_jump);
  absl::Time at = clock_.Now() + reply.delay;
  world::HttpFields headers;
  if (initialize && reply.answered) {
    host.session = http.session_id().empty() ? std::string("sim-session") : http.session_id();
    if (++host.sessions > 1) absl::StrAppend(&host.session, "-", host.sessions);
    host.requests = 0;
    headers.emplace_back("Mcp-Session-Id", host.session);
  }
  bool dies = reply.end != Reply::End::kOpen;
  if (!http.sse()) {
    // JSON: the headers come with the answer; no answer, no headers.
    if (!reply.answered || dies) {
      if (dies) {
        if (at > deadline)
          return absl::DeadlineExceededError("no response headers by the deadline");
        MoveClockTo(clock_, at);
        return absl::UnavailableError(
            absl::StrCat("cannot reach ", request.url, ": the connection broke"));
      }
      if (deadline == absl::InfiniteFuture()) {
        return absl::UnavailableError(
            "the simulated server will never answer and the request "
            "has no deadline");
      }
      MoveClockTo(clock_, deadline);
      return absl::DeadlineExceededError("no response headers by the deadline");
    }
    if (at > deadline) {
      MoveClockTo(clock_, deadline);
      return absl::DeadlineExceededError("no response headers by the deadline");
    }
    MoveClockTo(clock_, at);
    if (http.oversized()) {
      return absl::ResourceExhaustedError(
          absl::StrCat("response body exceeds ", request.max_body_bytes, " bytes"));
    }
    headers.emplace_back("Content-Type", "application/json");
    std::deque<Chunk> chunks;
    for (std::string& piece : reply.Pieces(reply.answer(), reply.lines[reply.answer()])) {
      chunks.push_back({at, std::move(piece)});
    }
    return std::make_unique<SimResponse>(clock_, 200, std::move(headers), std::move(chunks), false,
                                         dead_);
  }
  // Server-sent events: the headers at once, then each line as an event when it is due.
  if (http.oversized()) {
    return absl::ResourceExhaustedError(
        absl::StrCat("response body exceeds ", request.max_body_bytes, " bytes"));
  }
  headers.emplace_back("Content-Type", "text/event-stream");
  std::deque<Chunk> chunks;
  for (std::size_t i = 0; i < reply.lines.size(); ++i) {
    bool answer = i == reply.answer();
    if (answer && http.broken_sse()) break;
    for (std::string& piece :
         reply.Pieces(i, absl::StrCat("event: message\ndata: ", reply.lines[i], "\n\n"))) {
      chunks.push_back({at, std::move(piece)});
    }
  }
  auto response = std::make_unique<SimResponse>(clock_, 200, std::move(headers), std::move(chunks),
                                                dies, dead_);
  if (!reply.answered && !dies) response->set_hangs();
  return response;
}

absl::StatusOr<std::unique_ptr<world::HttpResponse>> SimNetwork::ServeProvider(
    const world::HttpRequest& request, absl::Time deadline) {
  std::optional<FakeProvider::Answer> answer = provider_->Next(request);
  if (!answer) {
    return Plain(clock_, 500, R"({"error":"the scenario's provider has no answer left"})", dead_,
                 {{"Content-Type", "application/json"}});
  }
  // What a swarm does to this answer: a jump of the clock before it, a delay, two pieces, a
  // connection that breaks off.
  const v1::ProviderExchange* e = answer->exchange;
  const v1::Perturbation& p = answer->perturbation;
  if (!p.clock_jump().empty()) MoveClockTo(clock_, clock_.Now() + ScenarioDuration(p.clock_jump()));
  absl::Time at = clock_.Now() + ScenarioDuration(e->delay()) + ScenarioDuration(p.delay());
  if (at > deadline) {
    MoveClockTo(clock_, deadline);
    return absl::DeadlineExceededError(
        absl::StrCat(request.method, " ", request.url, ": no answer by the deadline"));
  }
  MoveClockTo(clock_, at);
  world::HttpFields headers;
  for (const v1::Header& h : e->headers()) headers.emplace_back(h.name(), h.value());
  if (!world::FindHeader(headers, "Content-Type")) {
    headers.emplace_back("Content-Type", "application/json");
  }
  const bool cut = e->cut() || p.drop();
  std::string body = e->body();
  if (cut) body.resize(body.size() / 2);
  std::deque<Chunk> chunks;
  if (p.partial_write() && body.size() > 1) {
    std::string rest = body.substr(body.size() / 2);
    body.resize(body.size() / 2);
    chunks.push_back({at, std::move(body)});
    chunks.push_back({at, std::move(rest)});
  } else if (!body.empty()) {
    chunks.push_back({at, std::move(body)});
  }
  return std::make_unique<SimResponse>(clock_, e->status() == 0 ? 200 : e->status(),
                                       std::move(headers), std::move(chunks), cut, dead_);
}

}  // namespace agentrt::sim
