#include "mcp/session.h"

#include <optional>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "mcp/errors.h"
#include "runtime/base/string_view.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sanitize.h"

namespace agentrt::mcp {
namespace {

constexpr std::string_view kSupported[] = {"2025-11-25", "2025-06-18", "2025-03-26"};
// How long telling the server a request was abandoned may take.
constexpr absl::Duration kCancelNoticeTimeout = absl::Seconds(1);

}  // namespace

std::string UnreadableLines(const absl::Status& status) {
  auto payload = status.GetPayload(ToAbsl(kUnreadableLinesPayload));
  return payload.has_value() ? std::string(*payload) : "";
}

bool IsSupportedProtocolVersion(std::string_view version) {
  for (std::string_view v : kSupported) {
    if (v == version) return true;
  }
  return false;
}

Session::Session(std::unique_ptr<Transport> transport, const world::Clock& clock,
                 SessionOptions options)
    : transport_(std::move(transport)), clock_(clock), options_(std::move(options)) {}

Session::~Session() { Close(); }

std::unique_ptr<Session> Session::Open(std::unique_ptr<Transport> transport,
                                       const world::Clock& clock, SessionOptions options) {
  return std::unique_ptr<Session>(new Session(std::move(transport), clock, std::move(options)));
}

absl::Status Session::Initialize(absl::Time deadline) {
  absl::MutexLock lock(&call_mu_);
  return Handshake(deadline);
}

absl::StatusOr<std::unique_ptr<Session>> Session::Connect(std::unique_ptr<Transport> transport,
                                                          const world::Clock& clock,
                                                          absl::Time deadline,
                                                          SessionOptions options) {
  std::unique_ptr<Session> session = Open(std::move(transport), clock, std::move(options));
  if (absl::Status s = session->Initialize(deadline); !s.ok()) return s;
  return session;
}

absl::Status Session::Handshake(absl::Time deadline) {
  std::string params = json::JsonObject()
                           .String("protocolVersion", kProtocolVersion)
                           .Raw("capabilities", "{}")
                           .Raw("clientInfo", json::JsonObject()
                                                  .String("name", options_.client_name)
                                                  .String("version", options_.client_version)
                                                  .Build())
                           .Build();
  absl::StatusOr<std::string> result = RoundTrip("initialize", params, deadline);
  if (!result.ok()) return result.status();
  absl::StatusOr<json::Document> doc = json::Parse(*result);
  std::optional<json::Value> version;
  if (doc.ok() && doc->root().is_object()) version = doc->root().Find("protocolVersion");
  if (!version || !version->is_string()) {
    return absl::FailedPreconditionError(
        "the server's initialize result names no protocol version");
  }
  if (!IsSupportedProtocolVersion(version->string_value())) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the server speaks protocol version ", Quote(version->string_value()),
        ", which this client does not (it speaks 2025-11-25, 2025-06-18 and 2025-03-26)"));
  }
  protocol_version_ = std::string(version->string_value());
  initialize_result_ = *std::move(result);
  transport_->SetProtocolVersion(protocol_version_);
  absl::Status sent = transport_->Send(NotificationJson("notifications/initialized", ""), deadline);
  if (!sent.ok() && !absl::IsDeadlineExceeded(sent)) return Die(Explained(sent));
  return Explained(sent);
}

absl::Status Session::dead() const {
  absl::MutexLock lock(&state_mu_);
  if (closed_) return absl::CancelledError("the session is closed");
  return dead_;
}

absl::Status Session::Explained(const absl::Status& status) const {
  if (unreadable_ == 0 || status.ok() || absl::IsCancelled(status)) return status;
  std::string detail = absl::StrCat("the server sent ", unreadable_,
                                    unreadable_ == 1 ? " line that is not a JSON-RPC message"
                                                     : " lines that are not JSON-RPC messages",
                                    "; the last: ", last_unreadable_);
  absl::Status out(status.code(), absl::StrCat(status.message(), " (", detail, ")"));
  status.ForEachPayload(
      [&](absl::string_view url, const absl::Cord& value) { out.SetPayload(url, value); });
  out.SetPayload(ToAbsl(kUnreadableLinesPayload), absl::Cord(detail));
  return out;
}

absl::Status Session::Die(const absl::Status& status) {
  absl::MutexLock lock(&state_mu_);
  if (closed_) return absl::CancelledError("the session is closed");
  if (dead_.ok()) {
    dead_ = absl::UnavailableError(absl::StrCat("the connection is lost: ", status.message()));
    status.ForEachPayload(
        [&](absl::string_view url, const absl::Cord& value) { dead_.SetPayload(url, value); });
  }
  return dead_;
}

absl::Status Session::Answer(const Message& request, absl::Time deadline) {
  std::string answer =
      request.method == "ping"
          ? ResultJson(request.id, "{}")
          : ErrorJson(request.id, kMethodNotFound,
                      request.method.empty()
                          ? "a request needs a method"
                          : absl::StrCat("agentrt does not support ", request.method));
  absl::Status sent = transport_->Send(answer, deadline);
  if (sent.ok() || absl::IsDeadlineExceeded(sent) || absl::IsCancelled(sent)) return sent;
  return Die(Explained(sent));
}

absl::StatusOr<std::string> Session::RoundTrip(std::string_view method, std::string_view params,
                                               absl::Time deadline) {
  if (absl::Status gone = dead(); !gone.ok()) return gone;
  std::int64_t id = next_id_++;
  std::string id_json = absl::StrCat(id);
  absl::Status sent = transport_->Send(RequestJson(id, method, params), deadline);
  if (absl::IsNotFound(sent) && method != "initialize") {
    // An HTTP server forgot the session: one new handshake, and the request once more.
    if (absl::Status again = Handshake(deadline); !again.ok()) return again;
    id = next_id_++;
    id_json = absl::StrCat(id);
    sent = transport_->Send(RequestJson(id, method, params), deadline);
  }
  if (!sent.ok()) {
    if (absl::IsDeadlineExceeded(sent) || absl::IsCancelled(sent)) return Explained(sent);
    return Die(Explained(sent));
  }
  for (;;) {
    absl::StatusOr<std::string> line = transport_->Receive(deadline);
    if (!line.ok()) {
      if (absl::IsCancelled(line.status())) return line.status();
      if (absl::IsDeadlineExceeded(line.status())) {
        // Best effort: the server may stop working on it.
        transport_
            ->Send(NotificationJson("notifications/cancelled",
                                    json::JsonObject()
                                        .Int("requestId", id)
                                        .String("reason", "the client's deadline passed")
                                        .Build()),
                   clock_.Now() + kCancelNoticeTimeout)
            .IgnoreError();
        return Explained(absl::DeadlineExceededError(
            absl::StrCat("no answer to ", ToAbsl(method), " by the deadline")));
      }
      return Die(Explained(line.status()));
    }
    absl::StatusOr<Message> message = ParseMessage(*line);
    if (!message.ok()) {
      ++unreadable_;
      // Kept quoted and bounded: a line can be megabytes, and every byte of it server-chosen.
      last_unreadable_ =
          absl::StrCat(Quote(*line), " (",
                       json::Truncate(json::Sanitize(ToStd(message.status().message())),
                                      static_cast<int>(kQuotedBytes)),
                       ")");
      continue;
    }
    switch (message->kind) {
      case Message::Kind::kRequest:
        if (absl::Status answered = Answer(*message, deadline); !answered.ok()) {
          if (absl::IsDeadlineExceeded(answered)) continue;  // the wait below will say so
          return answered;
        }
        continue;
      case Message::Kind::kNotification:
        continue;
      case Message::Kind::kResult:
        if (message->id != id_json) continue;
        return std::move(message->result);
      case Message::Kind::kError:
        if (message->id != id_json) continue;
        return absl::FailedPreconditionError(absl::StrCat("the server answered ", ToAbsl(method),
                                                          " with error ", message->error_code, ": ",
                                                          Quote(message->error_message)));
    }
  }
}

absl::StatusOr<std::string> Session::Request(std::string_view method, std::string_view params,
                                             absl::Time deadline) {
  absl::MutexLock lock(&call_mu_);
  return RoundTrip(method, params, deadline);
}

void Session::Close() {
  {
    absl::MutexLock lock(&state_mu_);
    if (closed_) return;
    closed_ = true;
  }
  transport_->Close();
}

std::string Session::StderrTail(absl::Time deadline) { return transport_->StderrTail(deadline); }

}  // namespace agentrt::mcp
