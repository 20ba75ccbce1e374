#include "runtime/replay/recording_model.h"

#include "runtime/replay/proto/cassette.pb.h"

namespace agentrt::replay {

absl::StatusOr<ModelResponse> RecordingModel::Generate(const ModelRequest& request,
                                                       absl::Time deadline) {
  absl::StatusOr<ModelResponse> response = ModelWrapper::Generate(request, deadline);
  if (absl::Status s = recorder_.RecordModel(Name(), request, response).status(); !s.ok()) {
    return s;
  }
  return response;
}

}  // namespace agentrt::replay
