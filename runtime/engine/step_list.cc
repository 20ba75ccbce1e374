#include "runtime/step_list.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"

namespace agentrt {

std::size_t HeldStepsFor(const Limits& limits) {
  // The loop and failure checks walk back at most their threshold over the steps before the
  // one about to start; one more keeps the step being decided beside them.
  std::size_t looked_back = static_cast<std::size_t>(
      std::max({limits.loop_threshold, limits.max_consecutive_tool_failures, 0}));
  return std::max(kHeldSteps, looked_back + 1);
}

StepList::StepList(std::vector<Step> steps)
    : held_(std::make_shared<const HeldSteps>(
          HeldSteps{0, std::deque<Step>(std::make_move_iterator(steps.begin()),
                                        std::make_move_iterator(steps.end()))})),
      size_(held_->steps.size()) {}

std::size_t StepList::first_held() const {
  if (held_ == nullptr) return size_;
  return std::min(held_->first, size_);
}

absl::StatusOr<Step> StepList::Read(std::size_t i, StepDetail detail) const {
  if (i >= size_) {
    return absl::OutOfRangeError(
        absl::StrCat("step ", i, " is past the history's end (", size_, " steps)"));
  }
  Step out;
  AGENTRT_RETURN_IF_ERROR(ForEach(i, i + 1, detail, [&](const Step& step) {
    out = step;
    return absl::OkStatus();
  }));
  return out;
}

absl::Status StepList::ForEach(std::size_t first, std::size_t last, StepDetail detail,
                               absl::FunctionRef<absl::Status(const Step&)> fn) const {
  last = std::min(last, size_);
  if (first >= last) return absl::OkStatus();
  const std::size_t held_from = first_held();
  if (first < held_from) {
    const std::size_t to = std::min(last, held_from);
    if (source_ == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("step ", first, " is no longer held and this history has no store"));
    }
    AGENTRT_RETURN_IF_ERROR(source_->Read(first, to, detail, fn));
    first = to;
  }
  for (std::size_t i = first; i < last; ++i) {
    const Step& step = held(i);
    if (detail == StepDetail::kWithoutContent && step.observation &&
        !step.observation->content.empty()) {
      // As the store's read gives it, so a consumer sees the same step either way.
      Step light = step;
      light.observation->content.clear();
      AGENTRT_RETURN_IF_ERROR(fn(light));
      continue;
    }
    AGENTRT_RETURN_IF_ERROR(fn(step));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Step>> StepList::ToVector() const {
  std::vector<Step> out;
  out.reserve(size_);
  AGENTRT_RETURN_IF_ERROR(ForEach([&](const Step& step) {
    out.push_back(step);
    return absl::OkStatus();
  }));
  return out;
}

}  // namespace agentrt
