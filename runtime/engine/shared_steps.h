// runtime/engine/shared_steps.h
//
// A session's steps, kept where a StepList (runtime/step_list.h) can share them: the session
// appends and changes steps as a vector would let it; Share(n) hands out the first n without
// copying them. Assigning a whole new list (a session reloading its steps from the store)
// starts new storage, so what was shared before keeps showing what it showed.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <vector>

#include "runtime/step_list.h"
#include "runtime/types.h"

namespace agentrt {

class SharedSteps {
 public:
  SharedSteps() : steps_(std::make_shared<std::deque<Step>>()) {}
  SharedSteps& operator=(std::vector<Step> steps) {
    steps_ = std::make_shared<std::deque<Step>>(std::make_move_iterator(steps.begin()),
                                                std::make_move_iterator(steps.end()));
    return *this;
  }

  std::size_t size() const { return steps_->size(); }
  bool empty() const { return steps_->empty(); }
  Step& operator[](std::size_t i) { return (*steps_)[i]; }
  const Step& operator[](std::size_t i) const { return (*steps_)[i]; }
  Step& back() { return steps_->back(); }
  const Step& back() const { return steps_->back(); }
  void push_back(Step step) { steps_->push_back(std::move(step)); }
  std::deque<Step>::iterator begin() { return steps_->begin(); }
  std::deque<Step>::iterator end() { return steps_->end(); }
  std::deque<Step>::const_iterator begin() const { return steps_->begin(); }
  std::deque<Step>::const_iterator end() const { return steps_->end(); }
  std::deque<Step>::const_reverse_iterator rbegin() const { return steps_->crbegin(); }
  std::deque<Step>::const_reverse_iterator rend() const { return steps_->crend(); }

  // The first `n` steps, shared: the caller must not change them while the list is held (the
  // session only changes its current step, which it never shares).
  StepList Share(std::size_t n) const { return StepList(steps_, n); }

 private:
  std::shared_ptr<std::deque<Step>> steps_;
};

}  // namespace agentrt
