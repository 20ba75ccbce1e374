#include "mcp/rules.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "mcp/errors.h"
#include "mcp/internal/fields.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"

namespace agentrt::mcp {
namespace {

using internal::WithContext;

absl::StatusOr<std::optional<SideEffect>> ReadSideEffect(json::Value object) {
  AGENTRT_ASSIGN_OR_RETURN(std::optional<std::string> text,
                           internal::StringMember(object, "side_effect"));
  // Absent (or "") is read: the runtime refuses the tool at Load, alone.
  if (!text || text->empty()) return std::nullopt;
  std::optional<SideEffect> side_effect = ParseSideEffect(*text);
  if (!side_effect) {
    return absl::InvalidArgumentError(
        absl::StrCat("side_effect ", Quote(*text),
                     " is not read_only, local_mutation, remote_mutation, or destructive"));
  }
  return side_effect;
}

absl::StatusOr<std::optional<PolicyOutcome>> ReadOutcome(json::Value object) {
  AGENTRT_ASSIGN_OR_RETURN(std::optional<std::string> text,
                           internal::StringMember(object, "outcome"));
  if (!text) return std::nullopt;
  if (*text == "allow") return PolicyOutcome::kAllow;
  if (*text == "require_approval") return PolicyOutcome::kRequireApproval;
  if (*text == "deny") return PolicyOutcome::kDeny;
  return absl::InvalidArgumentError(
      absl::StrCat("outcome ", Quote(*text), " is not allow, require_approval, or deny"));
}

absl::StatusOr<Rule> ReadRule(json::Value object, RuleFields fields) {
  if (!object.is_object()) return absl::InvalidArgumentError("the rule is not a JSON object");
  if (fields == RuleFields::kConfig) {
    AGENTRT_RETURN_IF_ERROR(internal::CheckKnownFields(
        object, {"side_effect", "timeout", "terminal", "description", "deny", "fixed", "rename",
                 "allow_hint_mismatch", "outcome", "repeat_window"}));
  } else {
    AGENTRT_RETURN_IF_ERROR(
        internal::CheckKnownFields(object, {"side_effect", "timeout", "terminal", "description",
                                            "deny", "fixed", "rename", "allow_hint_mismatch"}));
  }
  Rule rule;
  AGENTRT_ASSIGN_OR_RETURN(rule.side_effect, ReadSideEffect(object));
  // A negative timeout reads as 0, the server's default.
  AGENTRT_ASSIGN_OR_RETURN(std::optional<absl::Duration> timeout,
                           internal::DurationMember(object, "timeout", internal::Negative::kZero,
                                                    /*empty_is_zero=*/true));
  rule.timeout = timeout.value_or(absl::ZeroDuration());
  AGENTRT_ASSIGN_OR_RETURN(std::optional<bool> terminal, internal::BoolMember(object, "terminal"));
  rule.terminal = terminal.value_or(false);
  AGENTRT_ASSIGN_OR_RETURN(std::optional<std::string> description,
                           internal::StringMember(object, "description"));
  rule.description = description.value_or("");
  AGENTRT_ASSIGN_OR_RETURN(std::optional<std::vector<std::string>> deny,
                           internal::StringsMember(object, "deny"));
  rule.deny = deny.value_or(std::vector<std::string>{});
  AGENTRT_ASSIGN_OR_RETURN(std::optional<json::Value> fixed,
                           internal::ObjectMember(object, "fixed"));
  if (fixed) {
    for (std::size_t i = 0; i < fixed->size(); ++i) {
      // Kept as the value's canonical JSON: what is injected into every call.
      rule.fixed.emplace(std::string(fixed->key(i)), json::WriteCanonical(fixed->member(i)));
    }
  }
  AGENTRT_ASSIGN_OR_RETURN(std::optional<std::string> rename,
                           internal::StringMember(object, "rename"));
  rule.rename = rename.value_or("");
  AGENTRT_ASSIGN_OR_RETURN(std::optional<bool> allow,
                           internal::BoolMember(object, "allow_hint_mismatch"));
  rule.allow_hint_mismatch = allow.value_or(false);
  if (fields == RuleFields::kConfig) {
    AGENTRT_ASSIGN_OR_RETURN(rule.outcome, ReadOutcome(object));
    AGENTRT_ASSIGN_OR_RETURN(
        rule.repeat_window,
        internal::DurationMember(object, "repeat_window", internal::Negative::kRefused));
  }
  return rule;
}

}  // namespace

absl::StatusOr<Rules> ParseRules(json::Value object, std::string_view where, RuleFields fields) {
  if (!object.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(ToAbsl(where), ": the rules are not a JSON object"));
  }
  Rules rules;
  // Members come in sorted key order (document.h), so the first error is always the same one.
  for (std::size_t i = 0; i < object.size(); ++i) {
    std::string_view tool = object.key(i);
    absl::StatusOr<Rule> rule = ReadRule(object.member(i), fields);
    if (!rule.ok()) {
      return WithContext(absl::StrCat(ToAbsl(where), ": tool ", Quote(tool)), rule.status());
    }
    rules.emplace(std::string(tool), *std::move(rule));
  }
  return rules;
}

absl::StatusOr<Rules> ReadRules(world::Filesystem& files, const std::string& path) {
  absl::StatusOr<std::string> bytes = files.ReadOwned(path, world::kDefaultMaxFileBytes);
  if (!bytes.ok()) return WithContext("rules", bytes.status());
  std::string where = absl::StrCat("rules ", path);
  absl::StatusOr<json::Document> document = json::Parse(*bytes);
  if (!document.ok()) return WithContext(where, document.status());
  return ParseRules(document->root(), where);
}

}  // namespace agentrt::mcp
