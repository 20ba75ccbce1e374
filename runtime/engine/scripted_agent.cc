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

namespace scripted {

Decision Call(std::string tool, std::string args, std::string reason) {
  Decision d;
  d.kind = ToString(DecisionKind::kToolCall);
  d.tool = std::move(tool);
  d.args = std::move(args);
  d.reason = std::move(reason);
  return d;
}

Decision Complete(std::string result) {
  Decision d;
  d.kind = ToString(DecisionKind::kComplete);
  d.result = std::move(result);
  return d;
}

Decision Fail(std::string message) {
  Decision d;
  d.kind = ToString(DecisionKind::kFail);
  d.message = std::move(message);
  return d;
}

}  // namespace scripted

}  // namespace agentrt
