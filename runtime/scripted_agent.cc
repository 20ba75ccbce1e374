#include "runtime/scripted_agent.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace agentrt {

absl::StatusOr<Decision> ScriptedAgent::Decide(const StepInput& input) {
  if (next_ >= script_.size()) {
    return absl::OutOfRangeError(
        absl::StrCat("the script has no decision left after ", script_.size()));
  }
  return script_[next_++];
}

}  // namespace agentrt
