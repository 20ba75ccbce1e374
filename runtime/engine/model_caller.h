// runtime/engine/model_caller.h
//
// Model accounting: the only way an agent reaches a model. For each
// attempt the caller
//  1. re-reads the run and refuses before dispatch when the run's totals, plus what other
//     attempts of this step have reserved, plus this request's conservative projection (its
//     estimated input and its output cap) would pass the run's call, token or cost limit;
//  2. records the attempt as a model_calls row (status dispatched) and a model.dispatched
//     event — in the same transaction that checks this driver still holds the run — before the
//     model is called, so a process dying mid-call leaves a visible, uncharged row;
//  3. records the outcome (status, usage, cost, latency) with the run's totals and a
//     model.completed or model.failed event, in one transaction.
// Transient failures and ambiguous ones (timeout, connection lost) are retried with exponential
// backoff waited on the injected Clock; a served error, unusable usage or any other failure is
// not. Ambiguous attempts and unusable usage are charged the conservative estimate, since the
// provider may have done the work. Out of attempts: a model-unavailable error.
//
// The errors an agent gets back carry what the run should end with when the agent returns
// them (the driver reads LimitReasonOf / IsModelUnavailable): a LimitError ends the run with
// its limit reason, a model-unavailable error as model_unavailable.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "runtime/driver.h"
#include "runtime/model.h"
#include "runtime/prices.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"

namespace agentrt {

// What the caller needs from the step it serves.
struct ModelCallScope {
  store::Store* store = nullptr;
  const world::Clock* clock = nullptr;
  world::Entropy* entropy = nullptr;
  std::string run_id;
  std::string step_id;
  absl::Time step_started_at;
  // The run as the step started: its limits (they never change while a run lives), when it
  // was created and its active time before this step (a retry's wait is held to both).
  Limits limits;
  absl::Time run_created_at;
  absl::Duration run_active_time;
  // Called inside the dispatch transaction: an error (this driver no longer holds the run)
  // stops the attempt before the model is called.
  std::function<absl::Status(store::Transaction&)> require_lease;
  // The caller's; null when the run cannot be cancelled. Once cancelled, no attempt is
  // dispatched and a backoff ends at once (the caller gets absl::Cancelled).
  const Cancellation* cancellation = nullptr;
};

// One step's model caller. Thread-safe: concurrent calls reserve against each other.
class AccountingModelCaller final : public ModelCaller {
 public:
  AccountingModelCaller(const ModelConfig& config, ModelCallScope scope);
  absl::StatusOr<ModelResponse> Generate(const ModelRequest& request) override;

 private:
  struct Reservation {
    std::int64_t calls = 0;
    std::int64_t input_tokens = 0;
    std::int64_t output_tokens = 0;
    std::int64_t cost_micros = 0;
  };
  struct Attempt;

  // Checks the limits against the totals, the other attempts in flight and this attempt's
  // projection (`estimated_input` plus the output `cap`), and reserves the projection.
  absl::StatusOr<Reservation> Reserve(const Limits& limits, std::int64_t estimated_input,
                                      std::int64_t cap);
  void Release(const Reservation& r);
  absl::Status RunAttempt(const ModelRequest& request, int attempt, const Reservation& estimate,
                          Attempt& out);
  std::int64_t Cost(const Usage& usage) const;

  const ModelConfig& config_;
  ModelCallScope scope_;
  absl::Mutex mu_;
  Reservation in_flight_ ABSL_GUARDED_BY(mu_);
};

// EstimateInputTokens: a conservative token count for a request (its canonical JSON's length
// / 3 + 1).
std::int64_t EstimateInputTokens(const ModelRequest& request);

// A limit the next call would pass: "<reason>: <detail>" (ResourceExhausted).
absl::Status LimitError(std::string_view reason, std::string_view detail);
// The limit reason a status carries (limit_model_calls, limit_tokens, limit_cost), if any.
std::optional<std::string> LimitReasonOf(const absl::Status& status);
// "model unavailable after N attempt(s): <last error>" (Unavailable).
absl::Status ModelUnavailableError(int attempts, std::string_view last);
bool IsModelUnavailable(const absl::Status& status);

}  // namespace agentrt
