#include "testkit/stand_in.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"

namespace agentrt::testkit {

StandInTool::StandInTool(std::string name, SideEffect side_effect, std::string schema,
                         std::string result)
    : result_(std::move(result)) {
  spec_.name = std::move(name);
  spec_.description =
      absl::StrCat("Stands in for a ", ToAbsl(ToString(side_effect)), " tool (test kit).");
  spec_.input_schema = schema.empty() ? R"({"type":"object"})" : std::move(schema);
  spec_.side_effect = side_effect;
  spec_.timeout = absl::Seconds(10);
}

ToolSpec StandInTool::Spec() const { return spec_; }

absl::StatusOr<ToolResult> StandInTool::Call(const ToolCall& call) {
  absl::MutexLock lock(&mu_);
  calls_.push_back({call.run_id, call.step_id, call.args});
  return ToolResult{result_, "stand-in"};
}

std::vector<RecordedCall> StandInTool::calls() const {
  absl::MutexLock lock(&mu_);
  return calls_;
}

std::unique_ptr<StandInTool> StandIn(std::string name, SideEffect side_effect, std::string schema,
                                     std::string result) {
  return std::make_unique<StandInTool>(std::move(name), side_effect, std::move(schema),
                                       std::move(result));
}

}  // namespace agentrt::testkit
