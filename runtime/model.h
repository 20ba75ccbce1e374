// runtime/model.h
//
// The model, as the runtime sees it: a request of
// messages, the tools on offer and an output cap; a response of text, tool uses, token usage, a
// stop reason and the provider's raw bytes. Model is a world interface like Clock: a provider
// adapter, a scripted model or a replayed recording all implement it, and the runtime never
// knows which.
//
// Agents never hold a Model. They get a ModelCaller (StepInput::model), the accounting wrapper
// that reserves, limits, retries, charges and records every attempt (model_caller.h).
//
// How a model reports failure decides what the runtime does with it, so the kind travels in
// the status, never in its words:
//  - TransientError: nothing was served (rate limited, overloaded); retried, charged nothing;
//  - AmbiguousError (or DeadlineExceeded): it may have been served (timeout, connection lost);
//    retried, charged the conservative estimate;
//  - ServedError: the provider did the work and failed; charged its usage, never retried;
//  - UnusableUsageError: the provider's usage report cannot be trusted; charged the estimate,
//    never retried;
//  - any other status is permanent: never retried, charged nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/types.h"

namespace agentrt {

// One block of a message. `type` is text, tool_use or tool_result; the other fields belong to
// one of them (named as their JSON fields are).
struct ContentBlock {
  std::string type;
  std::string text;         // text
  std::string tool_use_id;  // tool_use (its id) and tool_result (the use it answers)
  std::string name;         // tool_use
  std::string input;        // tool_use: the arguments, raw JSON
  std::string content;      // tool_result
  bool is_error = false;    // tool_result
};

struct Message {
  std::string role;  // "user" or "assistant"
  std::vector<ContentBlock> content;
};

struct ModelRequest {
  std::string system;
  std::vector<Message> messages;
  std::vector<ToolSpec> tools;
  std::int64_t max_output_tokens = 0;  // 0: the model's default
};

struct ToolUse {
  std::string id;
  std::string name;
  std::string args;  // raw JSON
};

struct Usage {
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t cached_input_tokens = 0;  // part of input_tokens
};

// Stop reasons the runtime acts on (render/decide.h).
namespace stop_reason {
inline constexpr std::string_view kEndTurn = "end_turn";
inline constexpr std::string_view kToolUse = "tool_use";
inline constexpr std::string_view kMaxTokens = "max_tokens";
inline constexpr std::string_view kRefusal = "refusal";
inline constexpr std::string_view kContextWindowExceeded = "model_context_window_exceeded";
}  // namespace stop_reason

struct ModelResponse {
  std::string text;
  std::vector<ToolUse> tool_uses;
  std::string stop_reason;
  Usage usage;
  std::string raw;  // the provider's bytes, kept exactly (replay reproduces them)
};

class Model {
 public:
  virtual ~Model() = default;
  // The name prices are looked up by and recordings are keyed by.
  virtual std::string Name() const = 0;
  // Generate answers one request. `deadline` is on the runtime's clock; a model that cannot
  // answer in time returns AmbiguousError or DeadlineExceeded.
  virtual absl::StatusOr<ModelResponse> Generate(const ModelRequest& request,
                                                 absl::Time deadline) = 0;
};

// ModelWrapper forwards every call to a target model, so a model that changes one call (records
// it, counts it) overrides only that one (world/clock.h's ClockWrapper says why). The target is
// not owned and must outlive this.
class ModelWrapper : public Model {
 public:
  explicit ModelWrapper(Model& target) : target_(target) {}
  Model& target() const { return target_; }
  std::string Name() const override { return target_.Name(); }
  absl::StatusOr<ModelResponse> Generate(const ModelRequest& request,
                                         absl::Time deadline) override {
    return target_.Generate(request, deadline);
  }

 private:
  Model& target_;
};

// What agents get: Generate with every attempt accounted for (model_caller.h).
class ModelCaller {
 public:
  virtual ~ModelCaller() = default;
  virtual absl::StatusOr<ModelResponse> Generate(const ModelRequest& request) = 0;
};

// The kinds of model failure (see the header comment).
enum class ModelErrorKind { kPermanent, kTransient, kAmbiguous, kServed, kUnusableUsage };

// `retry_after` > 0: the provider asked to wait at least that long.
absl::Status TransientError(std::string_view message,
                            absl::Duration retry_after = absl::ZeroDuration());
absl::Status AmbiguousError(std::string_view message);
absl::Status ServedError(std::string_view message, const Usage& usage);
absl::Status UnusableUsageError(std::string_view message);

struct ModelErrorInfo {
  ModelErrorKind kind = ModelErrorKind::kPermanent;
  absl::Duration retry_after = absl::ZeroDuration();
  std::optional<Usage> usage;  // kServed
};
// ClassifyModelError reads the kind a model error carries; DeadlineExceeded without one is
// ambiguous, anything else unmarked is permanent.
ModelErrorInfo ClassifyModelError(const absl::Status& status);

// Canonical JSON of the request (the form recordings are keyed by and input is estimated from).
std::string ModelRequestJson(const ModelRequest& request);
// Canonical JSON of the response without `raw` (what a recording stores beside the raw bytes).
std::string ModelResponseJson(const ModelResponse& response);
// ParseModelResponse reads ModelResponseJson's form back. InvalidArgument names the field.
absl::StatusOr<ModelResponse> ParseModelResponse(std::string_view json);

// UsageJson: {"cached_input_tokens"? ,"input_tokens","output_tokens"} (cached omitted when 0).
std::string UsageJson(const Usage& usage);

// Why a usage report cannot be charged ("" when it can): a negative count, or more cached
// input than input.
std::string UnusableUsageReason(const Usage& usage);

}  // namespace agentrt
