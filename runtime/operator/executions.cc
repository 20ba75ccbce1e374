#include "runtime/operator/executions.h"

#include <optional>

#include "runtime/events.h"
#include "runtime/policy.h"
#include "runtime/records/event_payloads.h"

namespace agentrt {

Executions ReadExecutions(std::span<const store::Event> events) {
  Executions out;
  std::set<std::string> allowed_steps;  // the policy allowed the step's call
  std::set<std::string> approved;       // approval ids an operator granted
  std::map<std::string, bool> open;     // step -> a tool start without its end
  for (const store::Event& e : events) {
    if (std::optional<records::StepPolicy> policy = records::DecodeIf<records::StepPolicy>(e)) {
      if (ParsePolicyOutcome(policy->outcome) == PolicyOutcome::kAllow) {
        allowed_steps.insert(e.step_id);
      }
    } else if (std::optional<records::ApprovalDecided> decided =
                   records::DecodeIf<records::ApprovalDecided>(e)) {
      if (decided->status == ApprovalStatus::kApproved) approved.insert(decided->approval_id);
    } else if (e.type == event::kStepToolStarted) {
      ToolStart start;
      start.seq = e.seq;
      start.step_id = e.step_id;
      if (std::optional<records::StepToolStarted> payload =
              records::Decode<records::StepToolStarted>(e.payload_json)) {
        start.tool = payload->tool;
        start.args = payload->args;
        start.approval_id = payload->approval_id;
        start.authorized =
            allowed_steps.contains(e.step_id) ||
            (!payload->approval_id.empty() && approved.contains(payload->approval_id));
      }
      start.while_open = open[e.step_id];
      open[e.step_id] = true;
      ++out.starts_by_step[e.step_id];
      if (!start.approval_id.empty()) ++out.starts_by_grant[start.approval_id];
      out.starts.push_back(std::move(start));
    } else if (e.type == event::kStepToolFinished || e.type == event::kStepInterrupted) {
      open[e.step_id] = false;
      if (e.type == event::kStepInterrupted) {
        out.interrupted_at.try_emplace(e.step_id, e.seq);
        std::optional<records::StepInterrupted> stop =
            records::Decode<records::StepInterrupted>(e.payload_json);
        if (stop && stop->previous_status == StepStatus::kExecuting) {
          out.interrupted_executing.insert(e.step_id);
        }
      }
    } else if (e.type == event::kApprovalRequested) {
      std::optional<records::ApprovalRequested> request =
          records::Decode<records::ApprovalRequested>(e.payload_json);
      out.requested_at[request ? request->approval_id : std::string()] = e.seq;
    }
  }
  for (const auto& [step_id, is_open] : open) {
    if (is_open) out.never_ended.push_back(step_id);
  }
  return out;
}

}  // namespace agentrt
