#include "runtime/replay/recording_model.h"

#include "runtime/base/status_macros.h"

namespace agentrt::replay {

absl::StatusOr<ModelResponse> RecordingModel::Generate(const ModelRequest& request,
                                                       absl::Time deadline) {
  AGENTRT_ASSIGN_OR_RETURN(ModelResponse response, inner_.Generate(request, deadline));
  AGENTRT_RETURN_IF_ERROR(recorder_.RecordModel(inner_.Name(), request, response).status());
  return response;
}

}  // namespace agentrt::replay
