// runtime/engine/shared_steps.h
//
// A session's steps: the recent ones held in memory where a StepList (runtime/step_list.h) can
// share them, the older ones read back from the store (stored_steps.h). Indices are the
// run's: step i is [i] while it is held. The session appends (and changes its current step)
// as a vector would let it; an append past the window drops the oldest held step. Share(n)
// hands out the first n without copying any. Assigning a list (a session reloading its steps
// from the store) holds all of it until the next append and starts a new window, so what was
// shared before keeps showing what it showed.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <utility>
#include <vector>

#include "runtime/engine/stored_steps.h"
#include "runtime/step_list.h"
#include "runtime/types.h"

namespace agentrt {

class SharedSteps {
 public:
  // Older steps are read through `source` (the session's run in its store; null: none are,
  // and a read of one is FailedPrecondition).
  explicit SharedSteps(std::shared_ptr<internal::StoredSteps> source)
      : held_(std::make_shared<HeldSteps>()), source_(std::move(source)) {}
  SharedSteps(const SharedSteps&) = delete;
  SharedSteps& operator=(const SharedSteps&) = delete;
  // A list shared before and read after the session is gone reads nothing from the store.
  ~SharedSteps() {
    if (source_ != nullptr) source_->Detach();
  }

  // The steps [first, first + steps.size()) of the run, held until the window drops them.
  void Assign(std::vector<Step> steps, std::size_t first = 0) {
    held_ = std::make_shared<HeldSteps>(
        HeldSteps{first, std::deque<Step>(std::make_move_iterator(steps.begin()),
                                          std::make_move_iterator(steps.end()))});
  }

  std::size_t size() const { return held_->first + held_->steps.size(); }
  bool empty() const { return size() == 0; }
  // The first index held.
  std::size_t first() const { return held_->first; }
  Step& operator[](std::size_t i) { return held_->steps[i - held_->first]; }
  const Step& operator[](std::size_t i) const { return held_->steps[i - held_->first]; }
  Step& back() { return held_->steps.back(); }
  const Step& back() const { return held_->steps.back(); }
  // Appends, then drops the oldest held steps beyond `window`.
  void push_back(Step step, std::size_t window) {
    held_->steps.push_back(std::move(step));
    while (held_->steps.size() > window && held_->steps.size() > 1) {
      held_->steps.pop_front();
      ++held_->first;
    }
  }
  // The held steps.
  std::deque<Step>::iterator begin() { return held_->steps.begin(); }
  std::deque<Step>::iterator end() { return held_->steps.end(); }
  std::deque<Step>::const_iterator begin() const { return held_->steps.begin(); }
  std::deque<Step>::const_iterator end() const { return held_->steps.end(); }
  std::deque<Step>::const_reverse_iterator rbegin() const { return held_->steps.crbegin(); }
  std::deque<Step>::const_reverse_iterator rend() const { return held_->steps.crend(); }

  // The first `n` steps, shared: the caller must not change them while the list is held (the
  // session only changes its current step, which it never shares).
  StepList Share(std::size_t n) const { return StepList(held_, n, source_); }

 private:
  std::shared_ptr<HeldSteps> held_;
  std::shared_ptr<internal::StoredSteps> source_;
};

}  // namespace agentrt
