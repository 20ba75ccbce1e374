// runtime/engine/executing_runs.h
//
// The runs one driver is executing: a second Start, Resume, Begin or
// Attach of a run this driver already drives fails at once, before anything is read or
// written, instead of waiting on (or fighting over) the driver's own lease. A session holds
// its claim from its first call until it ends (its lease released); the claim is then free at
// once. Thread-safe: sessions of one driver may run on different threads.
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace agentrt::internal {

class ExecutingRuns {
 public:
  // A run claimed by one session; releases the claim when destroyed (or reset). Move-only.
  class Claim {
   public:
    Claim() = default;
    Claim(Claim&& other) noexcept : runs_(other.runs_), run_id_(std::move(other.run_id_)) {
      other.runs_ = nullptr;
    }
    Claim& operator=(Claim&& other) noexcept {
      if (this != &other) {
        Reset();
        runs_ = other.runs_;
        run_id_ = std::move(other.run_id_);
        other.runs_ = nullptr;
      }
      return *this;
    }
    ~Claim() { Reset(); }
    void Reset();

   private:
    friend class ExecutingRuns;
    Claim(ExecutingRuns* runs, std::string run_id) : runs_(runs), run_id_(std::move(run_id)) {}
    ExecutingRuns* runs_ = nullptr;
    std::string run_id_;
  };

  // Take claims `run_id` for one session. FailedPrecondition "run R is leased by <owner>, the
  // driver asked, which is executing it in another session" when the driver already holds it.
  absl::StatusOr<Claim> Take(std::string_view run_id, std::string_view owner);

 private:
  absl::Mutex mu_;
  std::set<std::string, std::less<>> runs_ ABSL_GUARDED_BY(mu_);
};

}  // namespace agentrt::internal
