#include "runtime/engine/tool_outcome.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/sha256.h"
#include "runtime/json/utf8.h"
#include "runtime/records/stored_forms.h"
#include "runtime/status_payloads.h"

namespace agentrt::internal {
namespace {

using Ending = ToolOutcome::Ending;

ToolOutcome Interrupted(const absl::Status& error, std::string_view name) {
  return {Ending::kInterrupted,
          MakeObservation(ObservationKind::kInterrupted,
                          {{"tool", std::string(name)},
                           {"error", std::string(ToStd(error.message()))},
                           {"failure", std::string(ToString(ToolFailure::kCancelled))},
                           {"previous_status", std::string(ToString(StepStatus::kExecuting))}},
                          absl::StrCat(ToAbsl(name), " was cancelled; its outcome is unknown")),
          ""};
}

ToolOutcome Failed(const absl::Status& error, std::string_view name,
                   absl::FunctionRef<bool()> expired) {
  std::string message(ToStd(error.message()));
  ToolOutcome outcome;
  ToolFailure failure = ToolFailure::kError;
  std::string summary = absl::StrCat(ToAbsl(name), " error: ", ToAbsl(message));
  if (IsAbortRun(error)) {
    outcome.ending = Ending::kAbortRun;
    outcome.abort_detail =
        std::string(error.GetPayload(ToAbsl(payload::kAbortRun)).value_or(absl::Cord()).Flatten());
    failure = ToolFailure::kAbort;
    summary = absl::StrCat(ToAbsl(name), " aborted the run: ", ToAbsl(outcome.abort_detail));
  } else if (error.code() == absl::StatusCode::kDeadlineExceeded || expired()) {
    failure = ToolFailure::kTimeout;
    summary = absl::StrCat(ToAbsl(name), " timeout: ", ToAbsl(message));
  } else if (error.GetPayload(ToAbsl(payload::kToolPanic)).has_value()) {
    summary = absl::StrCat(ToAbsl(name), " panicked");
  }
  outcome.observation = MakeObservation(ObservationKind::kToolError,
                                        {{"tool", std::string(name)},
                                         {"error", message},
                                         {"failure", std::string(ToString(failure))}},
                                        summary);
  return outcome;
}

ToolOutcome Answered(const ToolResult& result, std::string_view name, bool terminal) {
  std::string content = Blank(result.content) ? "{}" : result.content;
  absl::StatusOr<std::string> canonical = json::Canonicalize(content);
  if (!canonical.ok()) {
    std::string why(ToStd(canonical.status().message()));
    bool utf8 = json::IsValidUtf8(content);
    return {Ending::kFailed,
            MakeObservation(
                ObservationKind::kToolError,
                {{"tool", std::string(name)},
                 {"error", "content is not usable JSON: " + why},
                 {"failure", std::string(ToString(ToolFailure::kInvalidContent))},
                 {utf8 ? "content" : "content_base64",
                  utf8 ? content : std::string(absl::Base64Escape(ToAbsl(content)))}},
                absl::StrCat(ToAbsl(name), " returned content is not usable JSON: ", ToAbsl(why))),
            ""};
  }
  ToolOutcome outcome{terminal ? Ending::kCompleteRun : Ending::kDone, {}, ""};
  outcome.observation.kind = ObservationKind::kToolResult;
  outcome.observation.content = *canonical;
  outcome.observation.summary = result.summary;
  outcome.observation.content_hash = json::Sha256Hex(*canonical);
  return outcome;
}

}  // namespace

ToolOutcome ClassifyToolResult(const absl::StatusOr<ToolResult>& result, std::string_view name,
                               bool terminal, absl::FunctionRef<bool()> cancelled,
                               absl::FunctionRef<bool()> expired) {
  if (result.ok()) return Answered(*result, name, terminal);
  if (cancelled() && !IsAbortRun(result.status())) return Interrupted(result.status(), name);
  return Failed(result.status(), name, expired);
}

}  // namespace agentrt::internal
