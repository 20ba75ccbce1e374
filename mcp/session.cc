#include "mcp/session.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "mcp/errors.h"
#include "runtime/base/string_view.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"

namespace agentrt::mcp {
namespace {

constexpr std::string_view kSupported[] = {"2025-11-25", "2025-06-18", "2025-03-26"};
// How long telling the server a request was abandoned may take.
constexpr absl::Duration kCancelNoticeTimeout = absl::Seconds(1);

}  // namespace

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
  if (!sent.ok() && !absl::IsDeadlineExceeded(sent)) return Die(sent);
  return sent;
}

absl::Status Session::dead() const {
  absl::MutexLock lock(&state_mu_);
  if (closed_) return absl::CancelledError("the session is closed");
  return dead_;
}

absl::Status Session::Die(const absl::Status& status) {
  absl::MutexLock lock(&state_mu_);
  if (closed_) return absl::CancelledError("the session is closed");
  if (dead_.ok()) {
    dead_ = absl::UnavailableError(absl::StrCat("the connection is lost: ", status.message()));
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
  return Die(sent);
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
    if (absl::IsDeadlineExceeded(sent) || absl::IsCancelled(sent)) return sent;
    return Die(sent);
  }
  for (;;) {
    absl::StatusOr<std::string> line = transport_->Receive(deadline);
    if (!line.ok()) {
      if (absl::IsCancelled(line.status())) return line.status();
      std::string skipped =
          unreadable_ == 0
              ? ""
              : absl::StrCat(" (the server sent ", unreadable_,
                             " lines that are not JSON-RPC messages; the last: ", last_unreadable_,
                             ")");
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
        return absl::DeadlineExceededError(
            absl::StrCat("no answer to ", ToAbsl(method), " by the deadline", skipped));
      }
      absl::Status died = Die(line.status());
      return absl::Status(died.code(), absl::StrCat(died.message(), skipped));
    }
    absl::StatusOr<Message> message = ParseMessage(*line);
    if (!message.ok()) {
      ++unreadable_;
      last_unreadable_ = std::string(message.status().message());
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
