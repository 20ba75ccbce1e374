// runtime/engine/stored_steps.h
//
// The store's side of a session's history (runtime/step_list.h): the steps a driver no longer
// holds, read back from its run's rows a page at a time (rows::ReadStepRange). A read after the
// session is gone (Detach) is FailedPrecondition naming the step, never a read through a store
// that may be gone too.
#pragma once

#include <atomic>
#include <cstddef>
#include <string>

#include "runtime/step_list.h"
#include "runtime/store/store.h"

namespace agentrt::internal {

class StoredSteps final : public StepSource {
 public:
  // The most steps one read transaction brings back (and so holds at once).
  static constexpr std::size_t kPage = 64;

  StoredSteps(store::Store& store, std::string run_id)
      : store_(&store), run_id_(std::move(run_id)) {}

  absl::Status Read(std::size_t first, std::size_t last, StepDetail detail,
                    absl::FunctionRef<absl::Status(const Step&)> fn) const override;

  // Later reads fail: the session that made this is going.
  void Detach() { store_.store(nullptr); }

 private:
  std::atomic<store::Store*> store_;
  const std::string run_id_;
};

}  // namespace agentrt::internal
