#include "runtime/render/model_agent.h"

#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "runtime/base/status_macros.h"
#include "runtime/render/decide.h"

namespace agentrt::render {

absl::StatusOr<ModelRequest> ModelAgent::Request(const StepInput& input) const {
  ModelRequest request;
  request.system = options_.system;
  AGENTRT_ASSIGN_OR_RETURN(request.messages, Messages(input, options_.render));
  request.tools = input.tools;
  request.max_output_tokens = options_.max_output_tokens;
  return request;
}

absl::StatusOr<Decision> ModelAgent::Decide(const StepInput& input) {
  if (input.model == nullptr) {
    return absl::FailedPreconditionError(
        "model agent: the step has no model caller (the driver was given no model)");
  }
  AGENTRT_ASSIGN_OR_RETURN(ModelRequest request, Request(input));
  // Returned unchanged: the status carries the kind (a limit, an unavailable model) the run
  // ends with.
  AGENTRT_ASSIGN_OR_RETURN(ModelResponse response, input.model->Generate(request));
  Decision decision = render::Decide(response);
  decision.origin = "model";
  return decision;
}

}  // namespace agentrt::render
