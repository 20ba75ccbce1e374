#include "runtime/render/messages.h"

#include <algorithm>
#include <deque>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/json_object.h"
#include "runtime/json/utf8.h"
#include "runtime/records/stored_forms.h"

namespace agentrt::render {
namespace {

ContentBlock Text(std::string text) {
  ContentBlock b;
  b.type = "text";
  b.text = std::move(text);
  return b;
}

bool IsToolCall(const Decision& d) {
  return d.Kind() == DecisionKind::kToolCall && !d.tool.empty();
}

// Not usable as JSON: the bytes the stored form keeps out of band (records/stored_forms.h
// DecisionJson).
bool Unusable(const std::string& raw) { return !Blank(raw) && !json::Canonicalize(raw).ok(); }

std::string Nudge(const Step& step) {
  DecisionKind kind = step.decision ? step.decision->Kind() : DecisionKind::kUnknown;
  if (kind == DecisionKind::kNoToolCall) return std::string(kNoToolCallNudge);
  if (kind == DecisionKind::kTruncated) return std::string(kTruncatedNudge);
  std::string text(kNotExecutable);
  if (step.observation && !step.observation->summary.empty()) {
    absl::StrAppend(&text, " (", ToAbsl(step.observation->summary), ")");
  }
  absl::StrAppend(&text, ToAbsl(kAskForOneCall));
  return text;
}

// The index of the earliest step shown whole: the `recent`-th step with a recorded decision,
// counted from the end (steps.size() when none is). Usually found in the held window; else the
// older steps are walked without their results, keeping only the last few decided indices.
absl::StatusOr<std::size_t> FirstShownWhole(const StepList& steps, std::size_t recent) {
  std::size_t whole_from = steps.size();
  std::size_t found = 0;
  const std::size_t held_from = steps.first_held();
  for (std::size_t i = steps.size(); i > held_from && found < recent;) {
    --i;
    if (steps.held(i).decision) {
      ++found;
      whole_from = i;
    }
  }
  if (found == recent || held_from == 0) return whole_from;
  std::deque<std::size_t> latest;  // the last (recent - found) decided indices before held_from
  std::size_t i = 0;
  AGENTRT_RETURN_IF_ERROR(
      steps.ForEach(0, held_from, StepDetail::kWithoutContent, [&](const Step& step) {
        if (step.decision) {
          latest.push_back(i);
          if (latest.size() > recent - found) latest.pop_front();
        }
        ++i;
        return absl::OkStatus();
      }));
  return latest.empty() ? whole_from : latest.front();
}

}  // namespace

std::string DefaultToolUseId(const Step& step) { return absl::StrCat("step_", step.index); }

// Canonical, so a step held in memory (the agent's bytes) and the same step read back from the
// store (canonical bytes) render alike.
std::string Args(const Decision& decision) {
  if (Blank(decision.args)) return "{}";
  if (absl::StatusOr<std::string> canonical = json::Canonicalize(decision.args); canonical.ok()) {
    return *canonical;
  }
  // As the stored form does: base64 when either kept field is not UTF-8.
  const bool base64 = !json::IsValidUtf8(decision.args) ||
                      (Unusable(decision.result) && !json::IsValidUtf8(decision.result));
  if (base64) {
    return json::JsonObject()
        .String("invalid_json_base64", absl::Base64Escape(ToAbsl(decision.args)))
        .Build();
  }
  return json::JsonObject().String("invalid_json", decision.args).Build();
}

Message DefaultAssistant(const Step& step, std::string_view id) {
  Message m;
  m.role = "assistant";
  const Decision empty;
  const Decision& d = step.decision ? *step.decision : empty;
  if (!IsToolCall(d)) {
    m.content.push_back(Text(d.reason.empty() ? "(no tool call)" : d.reason));
    return m;
  }
  if (!d.reason.empty()) m.content.push_back(Text(d.reason));
  ContentBlock use;
  use.type = "tool_use";
  use.tool_use_id = std::string(id);
  use.name = d.tool;
  use.input = Args(d);
  m.content.push_back(std::move(use));
  return m;
}

ContentBlock DefaultObservation(const Step& step, std::string_view id, bool full,
                                std::size_t max_content_bytes) {
  if (!step.decision || !IsToolCall(*step.decision) || !step.observation) {
    return Text(Nudge(step));
  }
  const Observation& obs = *step.observation;
  ContentBlock b;
  b.type = "tool_result";
  b.tool_use_id = std::string(id);
  b.is_error = obs.is_failure();
  if (obs.kind == ObservationKind::kInterrupted) {
    b.content = std::string(kInterruptedText);
  } else if (!full || obs.content.size() > max_content_bytes) {
    b.content = absl::StrCat(ToAbsl(kSummaryPrefix), ToAbsl(obs.summary));
  } else {
    b.content = obs.content;
  }
  return b;
}

absl::StatusOr<std::vector<Message>> Messages(const StepInput& input,
                                              const RenderOptions& options) {
  if (!options.opening) {
    return absl::InvalidArgumentError(
        "render options: opening is required (it writes the first user turn)");
  }
  std::vector<Message> messages;
  messages.push_back(Message{"user", {Text(options.opening(input))}});

  const StepList& steps = input.steps;
  const std::size_t recent = static_cast<std::size_t>(std::max(options.recent_results, 0));
  AGENTRT_ASSIGN_OR_RETURN(std::size_t whole_from, FirstShownWhole(steps, recent));
  auto render = [&](const Step& step, bool full) {
    if (!step.decision) return;
    std::string id = options.tool_use_id ? options.tool_use_id(step) : "";
    if (id.empty()) id = DefaultToolUseId(step);

    std::optional<Message> assistant = options.assistant ? options.assistant(step) : std::nullopt;
    messages.push_back(assistant ? *std::move(assistant) : DefaultAssistant(step, id));

    std::optional<ContentBlock> observed =
        options.observation ? options.observation(step, id, full) : std::nullopt;
    if (!observed || observed->type.empty()) {
      observed = DefaultObservation(step, id, full, options.max_content_bytes);
    }
    messages.push_back(Message{"user", {*std::move(observed)}});
  };
  // The steps shown by their summary are read without their results.
  AGENTRT_RETURN_IF_ERROR(
      steps.ForEach(0, whole_from, StepDetail::kWithoutContent, [&](const Step& step) {
        render(step, false);
        return absl::OkStatus();
      }));
  AGENTRT_RETURN_IF_ERROR(
      steps.ForEach(whole_from, steps.size(), StepDetail::kWhole, [&](const Step& step) {
        render(step, true);
        return absl::OkStatus();
      }));
  return messages;
}

}  // namespace agentrt::render
