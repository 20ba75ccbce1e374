#include "mcp/http_transport.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "mcp/errors.h"
#include "mcp/jsonrpc.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/sanitize.h"

namespace agentrt::mcp {
namespace {

constexpr absl::Duration kDefaultRetry = absl::Seconds(1);
// How much of an error answer's body a message quotes.
constexpr std::size_t kErrorBodyBytes = 4096;

bool VisibleAscii(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < 0x21 || c > 0x7E) return false;
  }
  return true;
}

bool IsEventStream(const world::HttpResponse& response) {
  std::optional<std::string> type = world::FindHeader(response.headers(), "Content-Type");
  return type &&
         absl::StartsWithIgnoreCase(absl::StripLeadingAsciiWhitespace(*type), "text/event-stream");
}

}  // namespace

HttpTransport::HttpTransport(world::Network& network, const world::Clock& clock,
                             HttpTransportOptions options)
    : network_(network), clock_(clock), options_(std::move(options)) {}

HttpTransport::~HttpTransport() { Close(); }

std::string HttpTransport::session_id() const {
  absl::MutexLock lock(&mu_);
  return session_id_;
}

void HttpTransport::SetProtocolVersion(std::string_view version) {
  absl::MutexLock lock(&mu_);
  protocol_version_ = std::string(version);
}

world::HttpRequest HttpTransport::Request(std::string method) const {
  world::HttpRequest request;
  request.method = std::move(method);
  request.url = options_.endpoint;
  request.max_body_bytes = options_.max_body_bytes;
  request.headers = options_.headers;
  absl::MutexLock lock(&mu_);
  if (!session_id_.empty()) request.headers.emplace_back("Mcp-Session-Id", session_id_);
  if (!protocol_version_.empty()) {
    request.headers.emplace_back("MCP-Protocol-Version", protocol_version_);
  }
  return request;
}

void HttpTransport::Queue(std::string message) { queue_.push_back(std::move(message)); }

absl::Status HttpTransport::Authorized(world::HttpRequest& request, absl::Time deadline) {
  if (options_.authorization == nullptr) return absl::OkStatus();
  absl::StatusOr<std::string> header = options_.authorization->Header(deadline);
  if (!header.ok()) {
    return absl::Status(header.status().code(),
                        absl::StrCat("authorization: ", header.status().message()));
  }
  if (!header->empty()) request.headers.emplace_back("Authorization", *std::move(header));
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<world::HttpResponse>> HttpTransport::Post(std::string_view message,
                                                                         absl::Time deadline) {
  for (int round = 0;; ++round) {
    world::HttpRequest request = Request("POST");
    request.headers.emplace_back("Content-Type", "application/json");
    request.headers.emplace_back("Accept", "application/json, text/event-stream");
    request.body = std::string(message);
    if (absl::Status authorized = Authorized(request, deadline); !authorized.ok()) {
      return authorized;
    }
    absl::StatusOr<std::unique_ptr<world::HttpResponse>> response =
        network_.Send(request, deadline);
    if (!response.ok()) return response.status();
    int status = (*response)->status();
    if (options_.authorization != nullptr && (status == 401 || status == 403) &&
        round < kMaxAuthorizationRounds) {
      world::HttpFields headers = (*response)->headers();
      (*response)->Close();
      absl::Status refused = options_.authorization->Refused(status, headers, deadline);
      if (!refused.ok()) {
        return absl::Status(refused.code(), absl::StrCat("authorization (the server answered HTTP ",
                                                         status, "): ", refused.message()));
      }
      continue;
    }
    return std::shared_ptr<world::HttpResponse>(*std::move(response));
  }
}

absl::Status HttpTransport::Send(std::string_view message, absl::Time deadline) {
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return absl::CancelledError("the connection is closed");
  }
  absl::StatusOr<Message> parsed = ParseMessage(message);
  if (!parsed.ok()) return absl::InternalError("the client built a message that does not parse");
  bool request = parsed->kind == Message::Kind::kRequest;
  bool had_session = !session_id().empty();
  if (request) {
    // A new request: whatever answer was open is abandoned.
    std::shared_ptr<world::HttpResponse> previous;
    {
      absl::MutexLock lock(&mu_);
      previous = std::move(stream_);
    }
    if (previous != nullptr) previous->Close();
    sse_.reset();
    awaiting_ = parsed->id;
    resumes_ = 0;
  }
  absl::StatusOr<std::shared_ptr<world::HttpResponse>> posted = Post(message, deadline);
  if (!posted.ok()) return posted.status();
  std::shared_ptr<world::HttpResponse> response = *std::move(posted);
  int status = response->status();
  if (status == 404 && had_session) {
    absl::MutexLock lock(&mu_);
    session_id_.clear();
    return absl::NotFoundError("the server no longer knows the session (HTTP 404)");
  }
  if (status >= 300 && status < 400) {
    return absl::UnavailableError(
        absl::StrCat("the server answered HTTP ", status, ", a redirect, which is never followed"));
  }
  if (status == 401 && options_.authorization == nullptr) {
    response->Close();
    return absl::UnavailableError(
        "the server requires authorization (HTTP 401); give it an `auth` block in the "
        "configuration (docs/mcp.md, \"Authorized servers\")");
  }
  if (status >= 400) {
    absl::StatusOr<std::string> body = world::ReadBody(*response, deadline);
    std::string text = body.ok() ? *body : std::string(body.status().message());
    // An error about this very request, in JSON-RPC, is the request's answer.
    if (absl::StatusOr<Message> error = ParseMessage(text);
        request && error.ok() && error->kind == Message::Kind::kError &&
        (error->id.empty() || error->id == awaiting_)) {
      Queue(ErrorJson(awaiting_, static_cast<int>(error->error_code), error->error_message));
      return absl::OkStatus();
    }
    return absl::UnavailableError(absl::StrCat("the server answered HTTP ", status, ": ",
                                               json::QuoteBytes(text, kErrorBodyBytes)));
  }
  if (std::optional<std::string> id = world::FindHeader(response->headers(), "Mcp-Session-Id")) {
    if (!VisibleAscii(*id)) {
      return absl::UnavailableError("the server's session id is not visible ASCII");
    }
    absl::MutexLock lock(&mu_);
    session_id_ = *id;
  }
  if (!request) {
    response->Close();  // 202 (or a 200 with nothing we wait for)
    return absl::OkStatus();
  }
  if (status == 202) {
    return absl::UnavailableError("the server accepted the request (HTTP 202) without answering");
  }
  if (IsEventStream(*response)) {
    sse_.emplace(options_.max_body_bytes);
    absl::MutexLock lock(&mu_);
    if (closed_) {
      response->Close();
      return absl::CancelledError("the connection is closed");
    }
    stream_ = std::move(response);
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> body = world::ReadBody(*response, deadline);
  if (!body.ok()) return body.status();
  // One message, or (older servers) a batch of them.
  absl::StatusOr<json::Document> doc = json::Parse(*body);
  if (doc.ok() && doc->root().is_array()) {
    for (std::size_t i = 0; i < doc->root().size(); ++i) {
      Queue(json::WriteCanonical(doc->root().element(i)));
    }
  } else {
    Queue(*std::move(body));
  }
  return absl::OkStatus();
}

absl::Status HttpTransport::Pump(absl::Time deadline) {
  std::shared_ptr<world::HttpResponse> stream;
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return absl::CancelledError("the connection is closed");
    stream = stream_;
  }
  absl::StatusOr<std::string> chunk = stream->Read(deadline);
  if (!chunk.ok() &&
      (absl::IsDeadlineExceeded(chunk.status()) || absl::IsCancelled(chunk.status()))) {
    return chunk.status();
  }
  if (!chunk.ok() && absl::IsResourceExhausted(chunk.status())) return chunk.status();
  absl::StatusOr<std::vector<world::SseEvent>> events =
      chunk.ok() && !chunk->empty() ? sse_->Feed(*chunk) : sse_->Finish();
  if (!events.ok()) return events.status();
  for (world::SseEvent& event : *events) {
    // Priming events carry an id and no data; other event types are not messages. The name is
    // compared trimmed, as the SDKs do (`event:  message ` is a message).
    if (absl::StripAsciiWhitespace(event.type) == "message" && !event.data.empty()) {
      Queue(std::move(event.data));
    }
  }
  if (!chunk.ok() || chunk->empty()) {
    // The stream ended (or broke): what it held is queued; resuming is Receive's decision.
    absl::MutexLock lock(&mu_);
    if (stream_ == stream) stream_.reset();
  }
  return absl::OkStatus();
}

absl::Status HttpTransport::Resume(absl::Time deadline) {
  if (resumes_ >= options_.max_resumes) {
    return absl::UnavailableError(
        absl::StrCat("the answer stream ended ", resumes_ + 1, " times without the response"));
  }
  if (!sse_.has_value() || sse_->last_event_id().empty()) {
    return absl::UnavailableError(
        "the answer ended before the response, with no event id to resume it from");
  }
  ++resumes_;
  absl::Duration retry =
      sse_->retry_ms().has_value() ? absl::Milliseconds(*sse_->retry_ms()) : kDefaultRetry;
  absl::Time at = clock_.Now() + retry;
  if (at > deadline) {
    return absl::DeadlineExceededError(
        "the answer stream ended and resuming it would pass the "
        "deadline");
  }
  absl::Notification never;
  clock_.WaitUntil(never, at);
  world::HttpRequest request = Request("GET");
  request.headers.emplace_back("Accept", "text/event-stream");
  request.headers.emplace_back("Last-Event-ID", sse_->last_event_id());
  if (absl::Status authorized = Authorized(request, deadline); !authorized.ok()) return authorized;
  absl::StatusOr<std::unique_ptr<world::HttpResponse>> response = network_.Send(request, deadline);
  if (!response.ok()) return response.status();
  if ((*response)->status() != 200 || !IsEventStream(**response)) {
    return absl::UnavailableError(absl::StrCat(
        "resuming the answer stream: the server answered HTTP ", (*response)->status()));
  }
  absl::MutexLock lock(&mu_);
  if (closed_) return absl::CancelledError("the connection is closed");
  stream_ = std::shared_ptr<world::HttpResponse>(*std::move(response));
  return absl::OkStatus();
}

absl::StatusOr<std::string> HttpTransport::Receive(absl::Time deadline) {
  for (;;) {
    if (!queue_.empty()) {
      std::string message = std::move(queue_.front());
      queue_.pop_front();
      if (!awaiting_.empty()) {
        absl::StatusOr<Message> parsed = ParseMessage(message);
        if (parsed.ok() && parsed->id == awaiting_ &&
            (parsed->kind == Message::Kind::kResult || parsed->kind == Message::Kind::kError)) {
          awaiting_.clear();
        }
      }
      return message;
    }
    bool open;
    {
      absl::MutexLock lock(&mu_);
      if (closed_) return absl::CancelledError("the connection is closed");
      open = stream_ != nullptr;
    }
    if (!open) {
      if (awaiting_.empty()) return absl::UnavailableError("no answer from the server is open");
      if (absl::Status resumed = Resume(deadline); !resumed.ok()) return resumed;
      continue;
    }
    if (absl::Status pumped = Pump(deadline); !pumped.ok()) return pumped;
  }
}

void HttpTransport::Close() {
  std::shared_ptr<world::HttpResponse> stream;
  std::string session;
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return;
    closed_ = true;
    stream = std::move(stream_);
    session = session_id_;
  }
  if (stream != nullptr) stream->Close();
  if (session.empty()) return;
  world::HttpRequest request = Request("DELETE");
  absl::Time deadline = clock_.Now() + options_.close_timeout;
  if (!Authorized(request, deadline).ok()) return;
  absl::StatusOr<std::unique_ptr<world::HttpResponse>> deleted = network_.Send(request, deadline);
  if (deleted.ok()) (*deleted)->Close();
}

}  // namespace agentrt::mcp
