#include "runtime/records/stored_forms.h"

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sha256.h"
#include "runtime/json/utf8.h"

namespace agentrt {

bool Blank(std::string_view s) { return s.find_first_not_of(" \t\r\n") == std::string_view::npos; }

// The recorded form of a decision: raw JSON the agent sent is kept canonical when usable,
// and verbatim (or base64 when not UTF-8) in invalid_args / invalid_result when not.
std::string DecisionJson(const Decision& d) {
  json::JsonObject o;
  o.String("kind", d.kind).StringIfSet("tool", d.tool).StringIfSet("reason", d.reason);
  o.StringIfSet("message", d.message).StringIfSet("origin", d.origin);
  bool base64 = false;
  std::vector<std::pair<std::string_view, std::string>> invalid;
  for (auto [key, raw] : {std::pair<std::string_view, const std::string*>{"args", &d.args},
                          std::pair<std::string_view, const std::string*>{"result", &d.result}}) {
    if (Blank(*raw)) continue;
    absl::StatusOr<std::string> canonical = json::Canonicalize(*raw);
    if (canonical.ok()) {
      o.Raw(key, *canonical);
    } else {
      invalid.emplace_back(key == "args" ? "invalid_args" : "invalid_result", *raw);
      if (!json::IsValidUtf8(*raw)) base64 = true;
    }
  }
  for (auto& [key, raw] : invalid) {
    o.String(key, base64 ? absl::Base64Escape(ToAbsl(raw)) : raw);
  }
  if (base64) o.Bool("invalid_base64", true);
  return o.Build();
}

Decision StoredDecision(const Decision& d) {
  Decision stored = d;
  for (std::string* raw : {&stored.args, &stored.result}) {
    if (Blank(*raw)) {
      raw->clear();
    } else if (absl::StatusOr<std::string> canonical = json::Canonicalize(*raw); canonical.ok()) {
      *raw = *std::move(canonical);
    }
  }
  return stored;
}

std::string ObservationJson(const Observation& obs) {
  return json::JsonObject()
      .String("kind", ToString(obs.kind))
      .RawIfSet("content", obs.content)
      .StringIfSet("summary", obs.summary)
      .StringIfSet("content_hash", obs.content_hash)
      .Build();
}

std::string CanonicalIfJson(std::string_view raw) {
  if (Blank(raw)) return "";
  absl::StatusOr<std::string> canonical = json::Canonicalize(raw);
  return canonical.ok() ? *std::move(canonical) : "";
}

std::string PolicyJson(const PolicyDecision& p) {
  return json::JsonObject()
      .String("outcome", p.outcome_text)
      .StringIfSet("reason", p.reason)
      .StringIfSet("kind", p.kind)
      .RawIfSet("capability", CanonicalIfJson(p.capability))
      .RawIfSet("presentation", CanonicalIfJson(p.presentation))
      .Build();
}

// An observation whose content is a map of strings (reference/core.md §1.5).
Observation MakeObservation(ObservationKind kind,
                            std::vector<std::pair<std::string_view, std::string>> content,
                            std::string summary) {
  json::JsonObject o;
  for (auto& [k, v] : content) o.String(k, v);
  Observation obs;
  obs.kind = kind;
  obs.content = o.Build();
  obs.summary = std::move(summary);
  obs.content_hash = json::Sha256Hex(obs.content);
  return obs;
}

std::string ContentHash(std::string_view raw) {
  absl::StatusOr<std::string> canonical = json::Canonicalize(raw.empty() ? "{}" : raw);
  return json::Sha256Hex(canonical.ok() ? *canonical : raw);
}

}  // namespace agentrt
