#include "sim/scripted_model.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace agentrt::sim {

ScriptedModel::ScriptedModel(std::vector<ModelResponse> responses, std::vector<absl::Status> errors,
                             std::string name)
    : name_(std::move(name)), responses_(std::move(responses)), errors_(std::move(errors)) {}

absl::StatusOr<ModelResponse> ScriptedModel::Generate(const ModelRequest& request,
                                                      absl::Time deadline) {
  std::size_t call;
  {
    absl::MutexLock lock(&mu_);
    call = requests_.size();
    requests_.push_back(request);
  }
  if (call < errors_.size() && !errors_[call].ok()) return errors_[call];
  if (call < responses_.size()) return responses_[call];
  return absl::OutOfRangeError(absl::StrCat("scripted model: no response for call ", call));
}

std::vector<ModelRequest> ScriptedModel::requests() const {
  absl::MutexLock lock(&mu_);
  return requests_;
}

std::size_t ScriptedModel::calls() const {
  absl::MutexLock lock(&mu_);
  return requests_.size();
}

}  // namespace agentrt::sim
