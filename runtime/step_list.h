// runtime/step_list.h
//
// A run's history as an agent (StepInput::steps) and a policy (RunView::steps) are handed it:
// the steps before the current one, in index order, read-only. The driver holds only the most
// recent steps in memory (the window: at least kHeldSteps, more when the run's loop or failure
// limit looks further back); older steps are read from the store when asked for. So what a run
// holds does not grow with its length (docs/decisions/0026-step-history.md).
//
// What a consumer may do with a StepList, and for how long:
//   - back() and held(i) return references into the driver's window. They are valid only
//     during the call the list was handed in (Decide, Evaluate, a reconciliation): the driver
//     drops older steps from the window as the run goes on.
//   - Read(i) and ForEach(...) return steps by value (or hand each to a callback), from the
//     window when it holds them, else from the store. They work while the driver that shared
//     the list is alive; once it is gone, a step it no longer held reads as FailedPrecondition
//     naming the step. They must not be called inside a store transaction of the caller's.
//   - The list itself may be kept and copied: what it shows never changes (the driver only
//     appends after the steps it shared, and a session that reloads its steps starts a new
//     window).
// A StepList made from a vector holds every step itself and never reads the store (tests,
// re-checks, a consumer's own history).
#pragma once

#include <algorithm>
#include <cstddef>
#include <deque>
#include <memory>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/types.h"

namespace agentrt {

// What a read of a step brings back. kWithoutContent leaves the observation's content empty
// (its kind, summary and content hash are kept): what a renderer needs of a step it shows by
// summary, read without moving a large result out of the store.
enum class StepDetail { kWhole, kWithoutContent };

// The fewest steps a driver holds in memory (the window); a run whose loop threshold or
// consecutive-failure limit is larger holds that many (plus one).
inline constexpr std::size_t kHeldSteps = 16;

// How many steps a driver holds for a run with these limits.
std::size_t HeldStepsFor(const Limits& limits);

// Reads steps the window no longer holds (the store's side; the driver implements it).
class StepSource {
 public:
  virtual ~StepSource() = default;
  // Steps [first, last) with `detail`, in index order, each handed to `fn` (which may stop the
  // walk by returning an error, returned as it is). The step handed over lives only during
  // the call.
  virtual absl::Status Read(std::size_t first, std::size_t last, StepDetail detail,
                            absl::FunctionRef<absl::Status(const Step&)> fn) const = 0;
};

// The steps a driver holds: indices [first, first + steps.size()).
struct HeldSteps {
  std::size_t first = 0;
  std::deque<Step> steps;
};

class StepList {
 public:
  StepList() = default;
  // Holds every step of `steps` itself.
  StepList(std::vector<Step> steps);  // NOLINT(google-explicit-constructor): a vector is a list
  // The first `size` steps of a run whose window is `held` and whose older steps `source` reads.
  StepList(std::shared_ptr<const HeldSteps> held, std::size_t size,
           std::shared_ptr<const StepSource> source)
      : held_(std::move(held)), size_(size), source_(std::move(source)) {}

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // Steps [first_held(), size()) are held in memory; older ones are read from the store.
  std::size_t first_held() const;
  // Step i, held (first_held() <= i < size()). See the header comment for how long it lives.
  const Step& held(std::size_t i) const { return held_->steps[i - held_->first]; }
  // The last step (the list must not be empty); always held.
  const Step& back() const { return held(size_ - 1); }

  // Step i (< size()), a copy. OutOfRange past the end; FailedPrecondition when it must be
  // read from a store that is gone; the store's error otherwise.
  absl::StatusOr<Step> Read(std::size_t i, StepDetail detail = StepDetail::kWhole) const;
  // Steps [first, min(last, size())) in order, each handed to `fn`, whose first error stops
  // the walk and is returned.
  absl::Status ForEach(std::size_t first, std::size_t last, StepDetail detail,
                       absl::FunctionRef<absl::Status(const Step&)> fn) const;
  absl::Status ForEach(absl::FunctionRef<absl::Status(const Step&)> fn) const {
    return ForEach(0, size_, StepDetail::kWhole, fn);
  }
  // Every step, copied (a run's whole history: for tests and small runs).
  absl::StatusOr<std::vector<Step>> ToVector() const;

 private:
  std::shared_ptr<const HeldSteps> held_;
  std::size_t size_ = 0;
  std::shared_ptr<const StepSource> source_;
};

}  // namespace agentrt
