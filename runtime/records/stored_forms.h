// runtime/records/stored_forms.h
//
// The recorded forms of what a step holds, as the store and events carry them (canonical JSON,
// ADR 5): decisions (with unusable argument or result bytes kept out of band), observations
// and policy decisions, and the observations the runtime itself builds (reference/core.md
// §1.5). Pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/json/document.h"
#include "runtime/types.h"

namespace agentrt {

// Blank: empty or only JSON whitespace (treated as absent).
bool Blank(std::string_view s);

// DecisionJson: args and result canonical when usable; otherwise kept verbatim (base64 when
// not UTF-8) in invalid_args / invalid_result.
std::string DecisionJson(const Decision& d);
// StoredDecision: `d` as it reads back from DecisionJson (args and result canonical when usable,
// verbatim when not, "" when blank), so the step a session keeps is the step the store holds.
Decision StoredDecision(const Decision& d);
std::string ObservationJson(const Observation& obs);
// PolicyJson: the evaluation as steps.policy_json keeps it; capability and presentation are
// canonical, and omitted when blank or not JSON (the policy's answer was refused), so the step
// always reads back.
std::string PolicyJson(const PolicyDecision& p);

// CanonicalIfJson: the canonical form of `raw`, or "" when it is blank or not usable JSON.
std::string CanonicalIfJson(std::string_view raw);

// MakeObservation builds an observation whose content is a map of strings, with its hash.
Observation MakeObservation(ObservationKind kind,
                            std::vector<std::pair<std::string_view, std::string>> content,
                            std::string summary);

// ContentHash: SHA-256 of the canonical form of `raw` ("{}" when empty); of the raw bytes
// when they are not usable JSON. Never fails.
std::string ContentHash(std::string_view raw);

}  // namespace agentrt
