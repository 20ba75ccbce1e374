#include "runtime/engine/model_caller.h"

#include <exception>
#include <limits>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/events.h"
#include "runtime/json/json_object.h"
#include "runtime/reasons.h"
#include "runtime/records/rows.h"
#include "runtime/status_payloads.h"
#include "runtime/world/timestamp.h"

namespace agentrt {
namespace {

using store::Transaction;

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

// Adds a charge to a total: negative charges count as 0, the sum saturates.
std::int64_t SaturatingAdd(std::int64_t total, std::int64_t charge) {
  if (charge <= 0) return total;
  return total > kMax - charge ? kMax : total + charge;
}

}  // namespace

// What one attempt came to.
struct AccountingModelCaller::Attempt {
  std::string status;  // ok, error, ambiguous
  Usage charged;
  std::int64_t cost_micros = 0;
  std::string error;  // recorded on the row and event
  bool retry = false;
  absl::Duration retry_after = absl::ZeroDuration();
  std::string unavailable;  // why it is not retried (the model-unavailable error's text)
  absl::Time completed_at;
  ModelResponse response;
};

AccountingModelCaller::AccountingModelCaller(const ModelConfig& config, ModelCallScope scope)
    : config_(config), scope_(std::move(scope)) {}

std::int64_t AccountingModelCaller::Cost(const Usage& usage) const {
  auto it = config_.prices.find(config_.model->Name());
  return it == config_.prices.end() ? 0 : CostMicros(usage, it->second);
}

absl::StatusOr<AccountingModelCaller::Reservation> AccountingModelCaller::Reserve(
    const Limits& l, std::int64_t estimated_input, std::int64_t cap) {
  absl::MutexLock lock(&mu_);
  // The totals as committed now (other attempts may have finished since the run was read).
  Reservation totals;
  AGENTRT_RETURN_IF_ERROR(scope_.store->Read([&](Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(std::optional<rows::ModelTotals> stored,
                             rows::ReadModelTotals(tx, scope_.run_id));
    if (!stored.has_value()) {
      return absl::NotFoundError(absl::StrCat("run ", scope_.run_id, " not found"));
    }
    totals = {stored->calls, stored->input_tokens, stored->output_tokens, stored->cost_micros};
    return absl::OkStatus();
  }));
  std::int64_t calls = SaturatingAdd(totals.calls, in_flight_.calls);
  std::int64_t tokens =
      SaturatingAdd(SaturatingAdd(totals.input_tokens, in_flight_.input_tokens),
                    SaturatingAdd(totals.output_tokens, in_flight_.output_tokens));
  std::int64_t cost = SaturatingAdd(totals.cost_micros, in_flight_.cost_micros);
  if (l.max_model_calls > 0 && calls >= l.max_model_calls) {
    return LimitError(reason::kLimitModelCalls,
                      absl::StrCat(calls, " model calls made, limit ", l.max_model_calls));
  }
  // A model the table does not list costs nothing here, nor does one listed at a zero price
  // (a local model): neither can pass a cost limit, so neither needs a cap to be held to one.
  auto price = config_.prices.find(config_.model->Name());
  bool priced = price != config_.prices.end() &&
                (price->second.input_per_mtok != 0 || price->second.output_per_mtok != 0 ||
                 price->second.cached_input_per_mtok != 0);
  if (cap <= 0) {
    // Without an output cap nothing bounds what the reply may cost.
    if (l.max_total_tokens > 0) {
      return LimitError(reason::kLimitTokens,
                        absl::StrCat("the request sets no output cap, so it cannot be held to ",
                                     l.max_total_tokens, " tokens"));
    }
    if (l.max_estimated_cost_micros > 0 && priced) {
      return LimitError(reason::kLimitCost,
                        absl::StrCat("the request sets no output cap, so it cannot be held to ",
                                     l.max_estimated_cost_micros, " micros"));
    }
  }
  Reservation estimate{1, estimated_input, cap > 0 ? cap : 0, 0};
  estimate.cost_micros = Cost(Usage{estimate.input_tokens, estimate.output_tokens, 0});
  std::int64_t projected_tokens =
      SaturatingAdd(tokens, SaturatingAdd(estimate.input_tokens, estimate.output_tokens));
  if (l.max_total_tokens > 0 && projected_tokens > l.max_total_tokens) {
    return LimitError(reason::kLimitTokens, absl::StrCat("projected ", projected_tokens,
                                                         " tokens, limit ", l.max_total_tokens));
  }
  std::int64_t projected_cost = SaturatingAdd(cost, estimate.cost_micros);
  if (l.max_estimated_cost_micros > 0 && projected_cost > l.max_estimated_cost_micros) {
    return LimitError(reason::kLimitCost,
                      absl::StrCat("projected cost ", projected_cost, " micros, limit ",
                                   l.max_estimated_cost_micros));
  }
  in_flight_.calls += estimate.calls;
  in_flight_.input_tokens = SaturatingAdd(in_flight_.input_tokens, estimate.input_tokens);
  in_flight_.output_tokens = SaturatingAdd(in_flight_.output_tokens, estimate.output_tokens);
  in_flight_.cost_micros = SaturatingAdd(in_flight_.cost_micros, estimate.cost_micros);
  return estimate;
}

void AccountingModelCaller::Release(const Reservation& r) {
  absl::MutexLock lock(&mu_);
  in_flight_.calls -= r.calls;
  in_flight_.input_tokens -= r.input_tokens;
  in_flight_.output_tokens -= r.output_tokens;
  in_flight_.cost_micros -= r.cost_micros;
}

absl::Status AccountingModelCaller::RunAttempt(const ModelRequest& request, int attempt,
                                               const Reservation& estimate, Attempt& out) {
  const world::Clock& clock = *scope_.clock;
  std::string model_name = config_.model->Name();
  std::string call_id = scope_.entropy->NewId();
  absl::Time dispatched_at = clock.Now();
  std::string dispatched_text = world::FormatTimestamp(dispatched_at);
  AGENTRT_RETURN_IF_ERROR(scope_.store->Write(
      [&](Transaction& tx) -> absl::Status {
        if (scope_.require_lease) AGENTRT_RETURN_IF_ERROR(scope_.require_lease(tx));
        AGENTRT_RETURN_IF_ERROR(rows::InsertModelCall(tx, {.id = call_id,
                                                           .run_id = scope_.run_id,
                                                           .step_id = scope_.step_id,
                                                           .attempt = attempt,
                                                           .model = model_name,
                                                           .dispatched_at = dispatched_text}));
        return tx
            .AppendEvent(scope_.run_id, scope_.step_id, dispatched_at, event::kModelDispatched,
                         json::JsonObject()
                             .String("call_id", call_id)
                             .Int("attempt", attempt)
                             .String("model", model_name)
                             .Build())
            .status();
      },
      // A dispatched call may be charged: its record is on disk before the model is called.
      {.durable = true}));

  absl::Duration timeout =
      config_.call_timeout > absl::ZeroDuration() ? config_.call_timeout : absl::Minutes(2);
  absl::StatusOr<ModelResponse> reply;
  try {
    reply = config_.model->Generate(request, dispatched_at + timeout);
  } catch (const std::exception& e) {
    reply = absl::InternalError(absl::StrCat("model threw: ", e.what()));
  } catch (...) {
    reply = absl::InternalError("model threw a non-standard exception");
  }
  out.completed_at = clock.Now();
  absl::Duration latency = out.completed_at - dispatched_at;

  Usage estimated{estimate.input_tokens, estimate.output_tokens, 0};
  auto charge = [&](const Usage& u) {
    out.charged = u;
    out.cost_micros = Cost(u);
  };
  ModelErrorInfo info = reply.ok() ? ModelErrorInfo{} : ClassifyModelError(reply.status());
  std::string unusable;
  if (reply.ok()) {
    unusable = UnusableUsageReason(reply->usage);
  } else if (info.kind == ModelErrorKind::kServed && info.usage) {
    unusable = UnusableUsageReason(*info.usage);
  } else if (info.kind == ModelErrorKind::kUnusableUsage) {
    unusable = std::string(ToStd(reply.status().message()));
  }
  if (!unusable.empty()) {
    // The provider's count cannot be trusted: charge what it may have cost, discard the reply.
    out.status = "error";
    out.error = absl::StrCat("unusable usage: ", unusable);
    charge(estimated);
    out.unavailable = absl::StrCat("the provider reported unusable usage: ", unusable);
  } else if (reply.ok()) {
    out.status = "ok";
    charge(reply->usage);
    out.response = *std::move(reply);
  } else {
    out.error = std::string(ToStd(reply.status().message()));
    switch (info.kind) {
      case ModelErrorKind::kServed:
        out.status = "error";
        charge(*info.usage);
        out.unavailable = out.error;
        break;
      case ModelErrorKind::kAmbiguous:
        out.status = "ambiguous";
        charge(estimated);
        out.retry = true;
        break;
      case ModelErrorKind::kTransient:
        out.status = "error";
        out.retry = true;
        out.retry_after = info.retry_after;
        break;
      default:
        out.status = "error";
        out.unavailable = out.error;
        break;
    }
  }

  std::string completed_text = world::FormatTimestamp(out.completed_at);
  std::int64_t latency_ms = absl::ToInt64Milliseconds(latency);
  return scope_.store->Write([&](Transaction& tx) -> absl::Status {
    AGENTRT_RETURN_IF_ERROR(
        rows::CompleteModelCall(tx, call_id,
                                {.status = out.status,
                                 .input_tokens = out.charged.input_tokens,
                                 .output_tokens = out.charged.output_tokens,
                                 .cached_input_tokens = out.charged.cached_input_tokens,
                                 .cost_micros = out.cost_micros,
                                 .latency_ms = latency_ms,
                                 .error = out.error,
                                 .completed_at = completed_text}));
    AGENTRT_ASSIGN_OR_RETURN(std::optional<rows::ModelTotals> t,
                             rows::ReadModelTotals(tx, scope_.run_id));
    if (!t.has_value())
      return absl::NotFoundError(absl::StrCat("run ", scope_.run_id, " not found"));
    AGENTRT_RETURN_IF_ERROR(rows::WriteModelTotals(
        tx, scope_.run_id,
        {.calls = SaturatingAdd(t->calls, 1),
         .input_tokens = SaturatingAdd(t->input_tokens, out.charged.input_tokens),
         .output_tokens = SaturatingAdd(t->output_tokens, out.charged.output_tokens),
         .cached_input_tokens =
             SaturatingAdd(t->cached_input_tokens, out.charged.cached_input_tokens),
         .cost_micros = SaturatingAdd(t->cost_micros, out.cost_micros)}));
    json::JsonObject payload;
    payload.String("call_id", call_id)
        .Int("attempt", attempt)
        .String("status", out.status)
        .String("model", model_name)
        .Raw("usage", UsageJson(out.charged))
        .Int("cost_micros", out.cost_micros)
        .Int("latency_ms", latency_ms)
        .StringIfSet("error", out.error);
    return tx
        .AppendEvent(scope_.run_id, scope_.step_id, out.completed_at,
                     out.status == "ok" ? event::kModelCompleted : event::kModelFailed,
                     payload.Build())
        .status();
  });
}

absl::StatusOr<ModelResponse> AccountingModelCaller::Generate(const ModelRequest& original) {
  ModelRequest request = original;
  const Limits& limits = scope_.limits;
  if (limits.max_output_tokens_per_call > 0 &&
      (request.max_output_tokens <= 0 ||
       request.max_output_tokens > limits.max_output_tokens_per_call)) {
    request.max_output_tokens = limits.max_output_tokens_per_call;
  }
  // The request is the same at every attempt: its estimate is worked out once.
  const std::int64_t estimated_input = EstimateInputTokens(request);
  int attempts = 1 + (config_.max_retries > 0 ? config_.max_retries : 0);
  absl::Duration backoff =
      config_.backoff > absl::ZeroDuration() ? config_.backoff : absl::Seconds(1);
  std::string last;
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    if (scope_.cancellation != nullptr && scope_.cancellation->cancelled()) {
      return absl::CancelledError(absl::StrCat(
          "run ", scope_.run_id, ": cancelled by its caller; no model call was dispatched"));
    }
    AGENTRT_ASSIGN_OR_RETURN(Reservation estimate,
                             Reserve(limits, estimated_input, request.max_output_tokens));
    Attempt a;
    absl::Status recorded = RunAttempt(request, attempt, estimate, a);
    Release(estimate);
    AGENTRT_RETURN_IF_ERROR(recorded);
    if (a.status == "ok") return std::move(a.response);
    if (!a.retry) return ModelUnavailableError(attempt, a.unavailable);
    last = a.error;
    if (attempt == attempts) break;

    absl::Duration wait = backoff * (std::int64_t{1} << std::min(attempt - 1, 30));
    if (a.retry_after > absl::ZeroDuration()) {
      if (a.retry_after > config_.max_retry_after) {
        return ModelUnavailableError(
            attempt,
            absl::StrCat(last, " (the provider asked to wait ", absl::FormatDuration(a.retry_after),
                         ", longer than ", absl::FormatDuration(config_.max_retry_after), ")"));
      }
      wait = std::max(wait, a.retry_after);
    }
    absl::Time retry_at = a.completed_at + wait;
    if (limits.max_elapsed_time > absl::ZeroDuration() &&
        retry_at - scope_.run_created_at >= limits.max_elapsed_time) {
      return ModelUnavailableError(attempt, absl::StrCat(last, " (no time left to retry)"));
    }
    if (limits.max_active_time > absl::ZeroDuration() &&
        scope_.run_active_time + (retry_at - scope_.step_started_at) >= limits.max_active_time) {
      return ModelUnavailableError(attempt, absl::StrCat(last, " (no active time left to retry)"));
    }
    // Only the caller's cancellation cuts a backoff short.
    if (scope_.cancellation == nullptr) {
      absl::Notification never;
      scope_.clock->WaitUntil(never, retry_at);
    } else {
      const world::Clock* clock = scope_.clock;
      Cancellation::Waker waker(scope_.cancellation, [clock] { clock->Wake(); });
      scope_.clock->WaitUntil(scope_.cancellation->notification(), retry_at);
    }
  }
  return ModelUnavailableError(attempts, last);
}

std::int64_t EstimateInputTokens(const ModelRequest& request) {
  return static_cast<std::int64_t>(ModelRequestJson(request).size() / 3 + 1);
}

absl::Status LimitError(std::string_view reason, std::string_view detail) {
  absl::Status status =
      absl::ResourceExhaustedError(absl::StrCat(ToAbsl(reason), ": ", ToAbsl(detail)));
  status.SetPayload(ToAbsl(payload::kLimit), absl::Cord(ToAbsl(reason)));
  return status;
}

std::optional<std::string> LimitReasonOf(const absl::Status& status) {
  absl::optional<absl::Cord> reason = status.GetPayload(ToAbsl(payload::kLimit));
  if (!reason) return std::nullopt;
  return std::string(*reason);
}

absl::Status ModelUnavailableError(int attempts, std::string_view last) {
  absl::Status status =
      absl::UnavailableError(absl::StrCat("model unavailable after ", attempts, " attempt",
                                          attempts == 1 ? "" : "s", ": ", ToAbsl(last)));
  status.SetPayload(ToAbsl(payload::kModelUnavailable), absl::Cord("1"));
  return status;
}

bool IsModelUnavailable(const absl::Status& status) {
  return status.GetPayload(ToAbsl(payload::kModelUnavailable)).has_value();
}

}  // namespace agentrt
