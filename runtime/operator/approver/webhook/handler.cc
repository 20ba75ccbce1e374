#include "runtime/operator/approver/webhook/handler.h"

#include <cmath>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sanitize.h"
#include "runtime/operator/approver/errors.h"
#include "runtime/operator/view/approval_json.h"
#include "runtime/operator/view/approval_text.h"
#include "runtime/world/timestamp.h"

namespace agentrt::approver::webhook {
namespace {

using world::ServerRequest;
using world::ServerResponse;

ServerResponse Reply(int status, std::string content_type, std::string body) {
  return ServerResponse{status,
                        {{"Content-Type", std::move(content_type)}, {"Cache-Control", "no-store"}},
                        std::move(body)};
}

ServerResponse JsonReply(int status, std::string body) {
  return Reply(status, "application/json", std::move(body));
}

ServerResponse ErrorReply(int status, std::string_view code, std::string_view message) {
  return JsonReply(
      status,
      json::JsonObject().String("error", json::Sanitize(message)).String("code", code).Build());
}

// How an Approver's typed error is answered.
struct Answer {
  int status;
  std::string_view code;
};

Answer AnswerFor(ErrorKind kind, bool cancelling) {
  switch (kind) {
    case ErrorKind::kDecision:
      return {400, "bad_request"};
    case ErrorKind::kNotFound:
      return {404, "not_found"};
    case ErrorKind::kExpired:
      return {410, "expired"};
    case ErrorKind::kApprovalChanged:
      return {409, "approval_changed"};
    case ErrorKind::kNotPending:
      return {409, "not_pending"};
    case ErrorKind::kRunState:
      return cancelling ? Answer{409, "run_finished"} : Answer{409, "run_not_waiting"};
    case ErrorKind::kApprovalHash:
      return {409, "approval_hash"};
    case ErrorKind::kNone:
    case ErrorKind::kInternal:
      break;
  }
  return {500, "internal"};
}

ServerResponse ErrorFor(const absl::Status& status, bool cancelling) {
  Answer answer = AnswerFor(KindOf(status), cancelling);
  // An internal error's message may name files or SQL: it stays on this side.
  if (answer.status == 500) return ErrorReply(500, answer.code, "internal error");
  return ErrorReply(answer.status, answer.code, ToStd(status.message()));
}

// Pending JSON: the approval's fields (view::ApprovalJson) with `reason` and `expired`.
std::string PendingJson(const Pending& p) {
  json::JsonObject object;
  absl::StatusOr<json::Document> approval = json::Parse(view::ApprovalJson(p.approval));
  if (approval.ok() && approval->root().is_object()) {
    json::Value root = approval->root();
    for (std::size_t i = 0; i < root.size(); ++i) {
      object.Raw(root.key(i), json::WriteCanonical(root.member(i)));
    }
  }
  return object.String("reason", json::Sanitize(p.reason)).Bool("expired", p.expired).Build();
}

// The members a decision body may hold; each must be a string.
struct Body {
  std::string run_id;
  std::string approval_id;
  std::string hash;
  std::string by;
  std::string note;
};

// ParseBody reads a decision (or, without approval_id and hash, a cancellation) under the
// strict intake: one JSON object of known string members.
absl::StatusOr<Body> ParseBody(std::string_view bytes, bool cancellation) {
  json::IntakeLimits limits;
  limits.max_depth = 4;
  absl::StatusOr<json::Document> doc = json::Parse(bytes, limits);
  if (!doc.ok()) return doc.status();
  json::Value root = doc->root();
  if (!root.is_object()) return absl::InvalidArgumentError("not an object");
  Body body;
  for (std::size_t i = 0; i < root.size(); ++i) {
    std::string_view key = root.key(i);
    std::string* field = key == "run_id"                         ? &body.run_id
                         : key == "by"                           ? &body.by
                         : key == "note"                         ? &body.note
                         : !cancellation && key == "approval_id" ? &body.approval_id
                         : !cancellation && key == "hash"        ? &body.hash
                                                                 : nullptr;
    if (field == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown member \"", ToAbsl(json::Sanitize(key)), "\""));
    }
    if (!root.member(i).is_string()) {
      return absl::InvalidArgumentError(
          absl::StrCat("member \"", ToAbsl(key), "\" is not a string"));
    }
    *field = std::string(root.member(i).string_value());
  }
  return body;
}

bool WantsText(const ServerRequest& request) {
  std::optional<std::string> accept = request.Header("Accept");
  return (accept.has_value() && absl::StrContains(*accept, "text/plain")) ||
         request.Param("format") == "text";
}

}  // namespace

absl::StatusOr<std::unique_ptr<Handler>> Handler::Create(Config config) {
  auto invalid = [](std::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat("webhook config: ", ToAbsl(what)));
  };
  if (config.approver == nullptr) return invalid("approver is required");
  if (config.clock == nullptr) return invalid("clock is required");
  if (config.secret.size() < kMinSecretBytes) {
    return invalid(absl::StrCat("secret must be at least ", kMinSecretBytes, " bytes, not ",
                                config.secret.size()));
  }
  if (config.skew <= absl::ZeroDuration()) return invalid("skew must be positive");
  if (!(config.rate > 0) || !std::isfinite(config.rate)) return invalid("rate must be positive");
  if (config.burst < 1) return invalid("burst must be at least 1");
  if (!(config.failure_rate > 0) || !std::isfinite(config.failure_rate)) {
    return invalid("failure_rate must be positive");
  }
  if (config.failure_burst < 1) return invalid("failure_burst must be at least 1");
  if (config.max_addresses < 1) return invalid("max_addresses must be at least 1");
  if (config.max_body < 1) return invalid("max_body must be at least 1 byte");
  if (config.limit < 1) return invalid("limit must be at least 1");
  return std::unique_ptr<Handler>(new Handler(std::move(config)));
}

Handler::Handler(Config config)
    : config_(std::move(config)),
      limiter_(*config_.clock, config_.rate, config_.burst),
      failures_(*config_.clock, config_.failure_rate, config_.failure_burst, config_.max_addresses),
      verifier_(config_.secret, config_.skew, signature_capacity()) {}

std::size_t Handler::signature_capacity() const {
  double window = config_.rate * 2 * absl::ToDoubleSeconds(config_.skew);
  return static_cast<std::size_t>(config_.burst) + static_cast<std::size_t>(std::ceil(window)) + 1;
}

ServerResponse Handler::Handle(const ServerRequest& request) {
  if (std::optional<ServerResponse> refused = Admit(request)) return *refused;
  return Serve(request);
}

std::optional<ServerResponse> Handler::Admit(const ServerRequest& head) {
  if (failures_.Spent(head.address)) {
    return Limited(head, "too many failed requests from this address; slow down");
  }
  // What needs no body is checked before the body is read: a request that cannot verify costs
  // neither the read nor the MAC.
  absl::Status signed_head = verifier_.CheckHead(head, config_.clock->Now());
  if (!signed_head.ok()) {
    return Failed(head, 401, "unauthorized", ToStd(signed_head.message()));
  }
  return std::nullopt;
}

ServerResponse Handler::Refused(const ServerRequest& head, int status) {
  if (status == 503) {
    // Over a connection cap, before any request: the caps are the bound here.
    ServerResponse response = Refuse(head, 503, "busy", "too many connections open; retry shortly");
    response.headers.emplace_back("Retry-After", "1");
    return response;
  }
  if (status == 413) {
    return Failed(head, 413, "body_too_large",
                  absl::StrCat("request body is larger than ", config_.max_body, " bytes"));
  }
  if (status == 404) return Failed(head, 404, "not_found", "no such route");
  if (status == 408) {
    return Failed(head, 408, "request_timeout", "the request did not arrive in time");
  }
  if (status >= 500) return Refuse(head, 500, "internal", "internal error");
  return Failed(head, 400, "bad_request", "the request could not be read");
}

ServerResponse Handler::Serve(const ServerRequest& request) {
  if (request.body.size() > config_.max_body) return Refused(request, 413);
  absl::Status verified = verifier_.Verify(request, config_.clock->Now(), &limiter_);
  if (absl::IsResourceExhausted(verified)) return Limited(request, ToStd(verified.message()));
  if (!verified.ok()) return Failed(request, 401, "unauthorized", ToStd(verified.message()));
  return Route(request);
}

ServerResponse Handler::Route(const ServerRequest& request) {
  std::vector<std::string> parts;
  if (absl::StartsWith(request.path, "/")) {
    parts = absl::StrSplit(request.path.substr(1), '/');
  }
  bool well_formed = parts.size() >= 3 && parts[0] == "runs";
  for (const std::string& part : parts) well_formed = well_formed && !part.empty();
  if (well_formed) {
    const std::string& run = parts[1];
    bool get = request.method == "GET";
    bool post = request.method == "POST";
    if (parts[2] == "approvals") {
      if (parts.size() == 3 && get) return List(request, run);
      if (parts.size() == 4 && get) return Show(request, run, parts[3]);
      if (parts.size() == 5 && post && (parts[4] == "approve" || parts[4] == "reject")) {
        return Decide(request, run, parts[3], parts[4] == "approve");
      }
    } else if (parts[2] == "cancel" && parts.size() == 3 && post) {
      return CancelRun(request, run);
    }
  }
  return Refuse(request, 404, "not_found", "no such route");
}

ServerResponse Handler::List(const ServerRequest& request, const std::string& run) {
  absl::StatusOr<std::vector<Pending>> pending = config_.approver->ListPending(run, config_.limit);
  if (!pending.ok()) return ErrorFor(pending.status(), false);
  std::string items = "[";
  for (std::size_t i = 0; i < pending->size(); ++i) {
    if (i > 0) items += ",";
    items += PendingJson((*pending)[i]);
  }
  items += "]";
  return JsonReply(
      200, json::JsonObject().String("run_id", json::Sanitize(run)).Raw("pending", items).Build());
}

ServerResponse Handler::Show(const ServerRequest& request, const std::string& run,
                             const std::string& approval) {
  absl::StatusOr<Pending> pending = config_.approver->Show(run, approval);
  if (!pending.ok()) return ErrorFor(pending.status(), false);
  if (pending->expired || pending->approval.status == ApprovalStatus::kExpired) {
    // Reported, not written: the runtime expires it at the next decision or resume.
    return ErrorReply(410, "expired",
                      absl::StrCat("approval ", json::Sanitize(approval), " has expired"));
  }
  if (WantsText(request)) {
    view::ApprovalTextOptions options;
    options.reason = pending->reason;
    options.now = config_.clock->Now();
    return Reply(200, "text/plain; charset=utf-8", view::ApprovalText(pending->approval, options));
  }
  return JsonReply(200, PendingJson(*pending));
}

ServerResponse Handler::Decide(const ServerRequest& request, const std::string& run,
                               const std::string& approval, bool approve) {
  std::string_view action = approve ? "approve" : "reject";
  auto refuse = [&](std::string_view by, int status, std::string_view code,
                    std::string_view message) {
    ObserveDecision(request, run, action, approval, by, status, message);
    return ErrorReply(status, code, message);
  };
  absl::StatusOr<Body> body = ParseBody(request.body, /*cancellation=*/false);
  if (!body.ok()) {
    return refuse("", 400, "bad_request",
                  absl::StrCat("body is not a JSON decision: ", body.status().message()));
  }
  if (body->run_id != run || body->approval_id != approval) {
    return refuse(body->by, 400, "bad_request",
                  "the decision must name the run and approval of its path");
  }
  if (body->hash.empty() || body->by.empty()) {
    return refuse(body->by, 400, "bad_request", "hash and by are required");
  }
  Decision decision{body->run_id, body->approval_id, body->hash, body->by, body->note};
  absl::Status decided =
      approve ? config_.approver->Approve(decision) : config_.approver->Reject(decision);
  if (!decided.ok()) {
    ServerResponse response = ErrorFor(decided, false);
    ObserveDecision(request, run, action, approval, body->by, response.status,
                    ToStd(decided.message()));
    return response;
  }
  int status = approve ? 202 : 200;
  ObserveDecision(request, run, action, approval, body->by, status, "");
  return JsonReply(status, json::JsonObject()
                               .String("status", approve ? "approved" : "rejected")
                               .String("run_id", decision.run_id)
                               .String("approval_id", decision.approval_id)
                               .String("hash", decision.hash)
                               .String("by", decision.by)
                               .Build());
}

ServerResponse Handler::CancelRun(const ServerRequest& request, const std::string& run) {
  auto refuse = [&](std::string_view by, int status, std::string_view code,
                    std::string_view message) {
    ObserveDecision(request, run, "cancel", "", by, status, message);
    return ErrorReply(status, code, message);
  };
  absl::StatusOr<Body> body = ParseBody(request.body, /*cancellation=*/true);
  if (!body.ok()) {
    return refuse("", 400, "bad_request",
                  absl::StrCat("body is not a JSON decision: ", body.status().message()));
  }
  if (body->run_id != run) {
    return refuse(body->by, 400, "bad_request", "the cancellation must name the run of its path");
  }
  absl::Status cancelled = config_.approver->Cancel(body->run_id, body->by, body->note);
  if (!cancelled.ok()) {
    ServerResponse response = ErrorFor(cancelled, true);
    ObserveDecision(request, run, "cancel", "", body->by, response.status,
                    ToStd(cancelled.message()));
    return response;
  }
  ObserveDecision(request, run, "cancel", "", body->by, 200, "");
  return JsonReply(200, json::JsonObject()
                            .String("status", "cancelled")
                            .String("run_id", body->run_id)
                            .String("by", body->by)
                            .Build());
}

ServerResponse Handler::Refuse(const ServerRequest& request, int status, std::string_view code,
                               std::string_view reason) {
  if (config_.observer) {
    store::Event event;
    event.at = world::FormatTimestamp(config_.clock->Now());
    event.type = "webhook.refused";
    event.payload_json = json::JsonObject()
                             .String("method", json::Sanitize(request.method))
                             .String("path", json::Sanitize(request.path))
                             .Int("status", status)
                             .String("reason", json::Sanitize(reason))
                             .String("remote", json::Sanitize(request.remote))
                             .Build();
    config_.observer(event);
  }
  return ErrorReply(status, code, reason);
}

ServerResponse Handler::Limited(const ServerRequest& request, std::string_view reason) {
  ServerResponse response = Refuse(request, 429, "rate_limited", reason);
  response.headers.emplace_back("Retry-After", "1");
  return response;
}

ServerResponse Handler::Failed(const ServerRequest& request, int status, std::string_view code,
                               std::string_view reason) {
  failures_.Charge(request.address);
  return Refuse(request, status, code, reason);
}

void Handler::ObserveDecision(const ServerRequest& request, std::string_view run,
                              std::string_view action, std::string_view approval,
                              std::string_view by, int status, std::string_view error) {
  if (!config_.observer) return;
  store::Event event;
  event.run_id = json::Sanitize(run);
  event.at = world::FormatTimestamp(config_.clock->Now());
  event.type = "webhook.decision";
  event.payload_json = json::JsonObject()
                           .String("action", action)
                           .String("approval_id", json::Sanitize(approval))
                           .String("by", json::Sanitize(by))
                           .Int("status", status)
                           .String("remote", json::Sanitize(request.remote))
                           .StringIfSet("error", json::Sanitize(error))
                           .Build();
  config_.observer(event);
}

}  // namespace agentrt::approver::webhook
