// runtime/records/event_payloads.h
//
// The audit log's event payloads, typed: one struct per payload a reader needs, decoded from
// the JSON the runtime writes (docs/formats/events.md), so the operator, the re-check, the
// simulator's verdict and the crash harness read fields by name in C++ instead of by key in
// JSON, each in its own way.
//
// A payload is untrusted input (the database is a file anyone with access can edit). Decoding
// never fails on content: Decode returns nullopt only when the payload is not a JSON object; a
// member that is absent or of another type reads as the struct's default ("" for text, -1 for
// counts and indices where 0 is meaningful, nullopt for a value outside the vocabulary). Text
// members hold a string's text or, for any other JSON value, its canonical JSON
// (json::MemberText), so a reader comparing them with a row compares recorded forms.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/events.h"
#include "runtime/json/document.h"
#include "runtime/store/store.h"
#include "runtime/types.h"

namespace agentrt::records {

struct RunCreated {
  static constexpr std::string_view kType = event::kRunCreated;
  std::string goal;
  std::string limits_json;       // canonical JSON, "" when absent
  std::optional<Limits> limits;  // decoded when `limits` is an object
  bool lists_tools = false;      // the payload names the registered specs (`tools`)
  static RunCreated From(json::Value object);
};

struct RunFinished {
  static constexpr std::string_view kType = event::kRunFinished;
  std::string status;  // as recorded; ParseRunStatus for the vocabulary
  std::string reason;
  std::string detail;
  std::int64_t steps = -1;
  std::string by;  // an operator's end
  static RunFinished From(json::Value object);
};

struct StepStarted {
  static constexpr std::string_view kType = event::kStepStarted;
  std::int64_t index = -1;
  static StepStarted From(json::Value object);
};

// The run as a policy saw it (step.policy's `view`).
struct PolicyView {
  std::optional<RunStatus> status;
  std::int64_t steps = -1;      // how many of the run's steps the policy was handed
  std::int64_t approvals = -1;  // how many of its approvals
  std::int64_t step_count = 0;
  std::int64_t model_calls = 0;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t cached_input_tokens = 0;
  std::int64_t estimated_cost_micros = 0;
  std::int64_t active_ms = 0;
  static PolicyView From(json::Value object);
};

struct StepPolicy {
  static constexpr std::string_view kType = event::kStepPolicy;
  std::string outcome;  // as recorded; ParsePolicyOutcome for the vocabulary
  std::string reason;
  std::string kind;
  // Canonical JSON, "{}" when absent (a require_approval's missing capability or presentation
  // is {} in its approval, as the driver's pause makes it).
  std::string capability_json = "{}";
  std::string presentation_json = "{}";
  std::string policy_id;
  std::string spec_hash;
  // The runtime's own pauses record no view; a view that is not an object is has_view without
  // view.
  bool has_view = false;
  std::optional<PolicyView> view;
  static StepPolicy From(json::Value object);
};

struct StepToolStarted {
  static constexpr std::string_view kType = event::kStepToolStarted;
  std::string tool;
  std::string args = "{}";  // canonical JSON; {} when absent
  std::string approval_id;  // the grant it executes, "" for a call the policy allowed
  static StepToolStarted From(json::Value object);
};

struct StepFailed {
  static constexpr std::string_view kType = event::kStepFailed;
  std::string detail;
  std::string observation;  // the observation's kind, when there is one
  std::string content_hash;
  static StepFailed From(json::Value object);
};

struct StepInterrupted {
  static constexpr std::string_view kType = event::kStepInterrupted;
  // The status the step was in. The payload nests the interrupted observation's content
  // ({"previous_status":{"previous_status":"executing"}} after a crash); a flat string reads too.
  // nullopt for a cancellation's record (which holds a tool error, not a status) and for text
  // outside the vocabulary.
  std::optional<StepStatus> previous_status;
  static StepInterrupted From(json::Value object);
};

struct ApprovalRequested {
  static constexpr std::string_view kType = event::kApprovalRequested;
  std::string approval_id;
  std::string kind;
  std::string reason;
  std::string capability;    // canonical JSON
  std::string presentation;  // canonical JSON
  std::string hash;
  static ApprovalRequested From(json::Value object);
};

struct ApprovalDecided {
  static constexpr std::string_view kType = event::kApprovalDecided;
  std::string approval_id;
  std::string status_text;  // as recorded, compared with the row's own recorded text
  std::optional<ApprovalStatus> status;
  std::string by;
  std::string note;
  static ApprovalDecided From(json::Value object);
};

// PayloadObject parses a payload when it is a JSON object (nullopt otherwise), for a reader
// that decodes one of several types from one parse (Payload::From(doc->root())).
std::optional<json::Document> PayloadObject(std::string_view payload_json);

// Decode reads a payload of type `Payload`: nullopt when it is not a JSON object.
template <typename Payload>
std::optional<Payload> Decode(std::string_view payload_json) {
  std::optional<json::Document> doc = PayloadObject(payload_json);
  if (!doc) return std::nullopt;
  return Payload::From(doc->root());
}

// DecodeIf reads `event`'s payload when the event is of `Payload`'s type; nullopt otherwise.
template <typename Payload>
std::optional<Payload> DecodeIf(const store::Event& event) {
  if (event.type != Payload::kType) return std::nullopt;
  return Decode<Payload>(event.payload_json);
}

}  // namespace agentrt::records
