// runtime/step_list.h
//
// The steps of a run as an agent (StepInput::steps) and a policy (RunView::steps) are handed
// them: read-only, in order, and cheap to hand over. The driver keeps its steps where a
// StepList can share them, so giving an agent the 400 steps before its 401st costs a pointer
// and a count, not a copy of 400 observations (which made a step's cost grow with the run's
// length). A StepList made from a vector owns a copy of it (tests, re-checks).
//
// What a StepList shows never changes: the driver only appends steps after the ones it shared,
// and a session that reloads its steps from the store starts a new list. It may be kept after
// the call it was handed in (a recording policy keeps its views), and copied freely.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <vector>

#include "runtime/types.h"

namespace agentrt {

class StepList {
 public:
  using value_type = Step;
  using size_type = std::size_t;
  using const_iterator = std::deque<Step>::const_iterator;
  using iterator = const_iterator;

  StepList() = default;
  // Owns a copy of `steps`.
  StepList(std::vector<Step> steps)  // NOLINT(google-explicit-constructor): a vector is a list
      : steps_(std::make_shared<const std::deque<Step>>(std::make_move_iterator(steps.begin()),
                                                        std::make_move_iterator(steps.end()))),
        size_(steps_->size()) {}
  // The first `size` steps of `steps`, shared.
  StepList(std::shared_ptr<const std::deque<Step>> steps, std::size_t size)
      : steps_(std::move(steps)), size_(steps_ == nullptr ? 0 : std::min(size, steps_->size())) {}

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const Step& operator[](std::size_t i) const { return (*steps_)[i]; }
  const Step& front() const { return (*steps_)[0]; }
  const Step& back() const { return (*steps_)[size_ - 1]; }
  const_iterator begin() const { return steps_ == nullptr ? const_iterator() : steps_->begin(); }
  const_iterator end() const {
    return steps_ == nullptr ? const_iterator()
                             : steps_->begin() + static_cast<std::ptrdiff_t>(size_);
  }

  // A copy, for a caller that needs one it can change.
  std::vector<Step> ToVector() const { return std::vector<Step>(begin(), end()); }

 private:
  std::shared_ptr<const std::deque<Step>> steps_;
  std::size_t size_ = 0;
};

}  // namespace agentrt
