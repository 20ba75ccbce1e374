// runtime/render/model_agent.h
//
// The agent a consumer gets by plugging in a model: each step renders the run so far as
// messages (messages.h), asks the step's model caller once, and reads the response as the
// decision (decide.h). It holds no state between steps; everything it shows the model comes
// from the steps the runtime recorded, so a resumed run continues the same conversation.
//
// The model is reached only through StepInput::model, the accounting caller the driver hands
// each step (limits, retries and charges happen there). A model error is returned unchanged,
// so a limit or unavailability keeps the kind the driver ends the run with.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/agent.h"
#include "runtime/model.h"
#include "runtime/render/messages.h"

namespace agentrt::render {

struct ModelAgentOptions {
  RenderOptions render;                // opening is required
  std::string system;                  // the request's system text
  std::int64_t max_output_tokens = 0;  // the request's output cap (0: the model's default)
};

class ModelAgent final : public Agent {
 public:
  explicit ModelAgent(ModelAgentOptions options) : options_(std::move(options)) {}

  // FailedPrecondition when the step has no model caller; InvalidArgument when the options
  // have no opening; the model's error as it came. Decisions are marked origin "model".
  absl::StatusOr<Decision> Decide(const StepInput& input) override;

  // The request Decide sends for `input`: the system text, the rendered messages, the step's
  // tools and the output cap.
  absl::StatusOr<ModelRequest> Request(const StepInput& input) const;

 private:
  ModelAgentOptions options_;
};

}  // namespace agentrt::render
