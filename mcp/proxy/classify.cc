#include "mcp/proxy/classify.h"

#include <cctype>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/approvals.h"
#include "runtime/base/string_view.h"
#include "runtime/json/intake.h"
#include "runtime/json/members.h"
#include "runtime/world/timestamp.h"

namespace agentrt::proxy {
namespace {

// Consumes `prefix` from the front of `text`.
bool Eat(std::string_view& text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return false;
  text.remove_prefix(prefix.size());
  return true;
}

bool EatDigits(std::string_view& text) {
  std::size_t n = 0;
  while (n < text.size() && std::isdigit(static_cast<unsigned char>(text[n]))) ++n;
  text.remove_prefix(n);
  return n > 0;
}

// `<server>/<upstream>: <n> bytes[, truncated][, structured content of <n> bytes dropped for
// the text], error: ` at the start.
bool IsAnswerError(const GovernedTool& tool, std::string_view text) {
  if (!Eat(text, tool.server) || !Eat(text, "/") || !Eat(text, tool.upstream) || !Eat(text, ": ") ||
      !EatDigits(text) || !Eat(text, " bytes")) {
    return false;
  }
  Eat(text, ", truncated");
  if (Eat(text, ", structured content of ")) {
    if (!EatDigits(text) || !Eat(text, " bytes dropped for the text")) return false;
  }
  return text.starts_with(", error: ");
}

bool IsRefusalBeforeSending(const GovernedTool& tool, std::string_view text) {
  if (!Eat(text, tool.name) || !Eat(text, ": ")) return false;
  if (text.starts_with("arguments are not a JSON object") ||
      text.starts_with("the server asked for more input")) {
    return true;
  }
  if (!Eat(text, "parameter \"")) return false;
  return absl::StrContains(ToAbsl(text), "\" is denied by the operator") ||
         absl::StrContains(ToAbsl(text), "\" is fixed by the operator");
}

}  // namespace

Known ClassifyToolError(const GovernedTool* tool, bool read_only, std::string_view content,
                        std::string* ended) {
  if (read_only) return Known::kKnown;
  *ended = "no_answer";
  absl::StatusOr<json::Document> doc = json::Parse(content);
  if (!doc.ok() || !doc->root().is_object()) return Known::kUnknown;
  std::string failure = json::MemberText(doc->root(), "failure");
  std::string error = json::MemberText(doc->root(), "error");
  if (failure == "timeout") {
    *ended = "timed_out";
    return Known::kUnknown;
  }
  if (failure == "invalid_content") return Known::kKnown;
  if (tool == nullptr) return Known::kUnknown;
  if (IsAnswerError(*tool, error) || IsRefusalBeforeSending(*tool, error)) return Known::kKnown;
  return Known::kUnknown;
}

LastAttempt FindLastAttempt(const std::string& run_id, const std::vector<Step>& steps,
                            const std::vector<Approval>& approvals,
                            const std::function<const GovernedTool*(std::string_view)>& find) {
  LastAttempt out;
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    const Step& step = *it;
    if (!step.decision || step.decision->Kind() != DecisionKind::kToolCall) continue;
    const GovernedTool* tool = find(step.decision->tool);
    Attempt self{run_id, step.id, world::FormatTimestamp(step.started_at), "cut_off"};
    const Approval* latest = nullptr;
    for (const Approval& a : approvals) {
      if (a.step_id == step.id) latest = &a;
    }
    if (step.status == StepStatus::kInterrupted && step.observation) {
      absl::StatusOr<json::Document> content = json::Parse(step.observation->content);
      std::string previous =
          content.ok() ? json::MemberText(content->root(), "previous_status") : "";
      if (previous == ToString(StepStatus::kExecuting)) {
        out.kind = LastAttempt::Kind::kUnknown;
        out.step = &step;
        out.attempt = self;
        return out;
      }
      if (latest == nullptr || latest->kind != kInterruptedSideEffectKind) continue;
    }
    if (step.observation && step.observation->kind == ObservationKind::kToolResult) {
      out.kind = LastAttempt::Kind::kKnown;
      out.step = &step;
      out.executed = true;
      return out;
    }
    if (step.observation && step.observation->kind == ObservationKind::kInterrupted &&
        step.status != StepStatus::kInterrupted) {
      out.kind = LastAttempt::Kind::kUnknown;
      out.step = &step;
      out.attempt = self;
      return out;
    }
    if (step.observation && step.observation->kind == ObservationKind::kToolError) {
      std::string ended;
      bool read_only = tool != nullptr && !tool->mutating();
      if (ClassifyToolError(tool, read_only, step.observation->content, &ended) == Known::kKnown) {
        out.kind = LastAttempt::Kind::kKnown;
        out.step = &step;
        out.executed = true;
        return out;
      }
      out.kind = LastAttempt::Kind::kUnknown;
      out.step = &step;
      out.attempt = self;
      out.attempt.ended = ended;
      return out;
    }
    if (latest != nullptr && latest->kind == kInterruptedSideEffectKind) {
      out.kind = LastAttempt::Kind::kUnknown;
      out.step = &step;
      out.attempt = InterruptedAttempt(*latest).value_or(self);
      return out;
    }
  }
  return out;
}

}  // namespace agentrt::proxy
