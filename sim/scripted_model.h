// sim/scripted_model.h
//
// A model that answers from a script (docs/architecture.md, "Record and replay"): call i (counting
// from 0) returns errors[i] when that status is set (not OK), otherwise responses[i]; a call past
// both lists fails with OutOfRange "scripted model: no response for call i". Every request is
// kept, in call order, failed calls included, so a test can check what the agent asked.
//
// Thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "runtime/model.h"

namespace agentrt::sim {

class ScriptedModel : public Model {
 public:
  explicit ScriptedModel(std::vector<ModelResponse> responses,
                         std::vector<absl::Status> errors = {}, std::string name = "scripted");

  std::string Name() const override { return name_; }
  absl::StatusOr<ModelResponse> Generate(const ModelRequest& request, absl::Time deadline) override;

  // The requests received so far, in call order.
  std::vector<ModelRequest> requests() const;
  std::size_t calls() const;

 private:
  const std::string name_;
  const std::vector<ModelResponse> responses_;
  const std::vector<absl::Status> errors_;
  mutable absl::Mutex mu_;
  std::vector<ModelRequest> requests_ ABSL_GUARDED_BY(mu_);
};

}  // namespace agentrt::sim
