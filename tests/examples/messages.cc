// Rendering a run's steps as the conversation a model sees next (render::Messages): the
// opening turn, then for every decided step what the model asked for and what came of it.
// Only the latest results are shown whole; older ones by their summary.
#include "runtime/render/messages.h"

#include <iostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/agent.h"
#include "runtime/base/status_macros.h"
#include "runtime/model.h"
#include "runtime/scripted_agent.h"
#include "runtime/types.h"

namespace {

// A step as the driver records it: the decision, then what came of it.
agentrt::Step DecidedStep(int index, agentrt::Decision decision, agentrt::ObservationKind kind,
                          std::string content, std::string summary) {
  agentrt::Step step;
  step.index = index;
  step.status = kind == agentrt::ObservationKind::kToolResult ? agentrt::StepStatus::kDone
                                                              : agentrt::StepStatus::kFailed;
  step.decision = std::move(decision);
  step.observation = agentrt::Observation{
      .kind = kind, .content = std::move(content), .summary = std::move(summary)};
  return step;
}

// One line per message: its role, then each block's type and the fields that type uses.
void Print(const agentrt::Message& message) {
  std::cout << message.role << ":";
  const char* separator = " ";
  for (const agentrt::ContentBlock& block : message.content) {
    std::cout << separator << block.type;
    if (block.type == "text") {
      std::cout << " \"" << block.text << "\"";
    } else if (block.type == "tool_use") {
      std::cout << " " << block.tool_use_id << " " << block.name << " " << block.input;
    } else if (block.type == "tool_result") {
      std::cout << " " << block.tool_use_id << (block.is_error ? " is_error " : " ")
                << block.content;
    }
    separator = " | ";
  }
  std::cout << "\n";
}

}  // namespace

absl::Status Example() {
  agentrt::StepInput input;
  input.run.id = "run-1";
  input.run.goal = "When was agentrt 1.0 released?";
  std::vector<agentrt::Step> steps;
  steps.push_back(DecidedStep(0, agentrt::scripted::Call("search", R"({ "q": "agentrt" })"),
                              agentrt::ObservationKind::kToolResult,
                              R"({"hits":["agentrt.dev/v1"]})", "1 hit"));
  steps.push_back(DecidedStep(
      1,
      agentrt::scripted::Call("fetch", R"({"url":"agentrt.dev/v1"})", "Reading the releases page."),
      agentrt::ObservationKind::kToolError, R"({"error":"timed out after 10s"})",
      "timed out after 10s"));
  // A reply with no tool call, recorded as the invalid decision it is (see decide.cc).
  steps.push_back(DecidedStep(
      2, agentrt::Decision{.kind = "no_tool_call", .reason = "It was probably in March."},
      agentrt::ObservationKind::kInvalidDecision, R"({"error":"the reply contained no tool call"})",
      "invalid decision: the reply contained no tool call"));
  input.steps = std::move(steps);

  agentrt::render::RenderOptions options;
  options.opening = [](const agentrt::StepInput& in) { return "Goal: " + in.run.goal; };
  options.recent_results = 2;  // step 0's result is older: shown by its summary
  AGENTRT_ASSIGN_OR_RETURN(std::vector<agentrt::Message> messages,
                           agentrt::render::Messages(input, options));
  for (const agentrt::Message& message : messages) Print(message);
  return absl::OkStatus();
}

// Output:
// user: text "Goal: When was agentrt 1.0 released?"
// assistant: tool_use step_0 search {"q":"agentrt"}
// user: tool_result step_0 [summary] 1 hit
// assistant: text "Reading the releases page." | tool_use step_1 fetch {"url":"agentrt.dev/v1"}
// user: tool_result step_1 is_error {"error":"timed out after 10s"}
// assistant: text "It was probably in March."
// user: text "Your reply contained no executable tool call. Respond with exactly one tool call."
