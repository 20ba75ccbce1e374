#include "tools/agentrt/sim_script.h"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/sanitize.h"
#include "runtime/scripted_agent.h"

namespace agentrt::cli {
namespace {

// A step limit far beyond any script a person writes, so the count always fits an int.
constexpr int kMostSteps = 100'000;

absl::Status Invalid(std::string message) { return absl::InvalidArgumentError(message); }

// The first member of `object` (in canonical key order) that is not one of `known`.
absl::Status CheckKnown(json::Value object, std::initializer_list<std::string_view> known) {
  for (std::size_t i = 0; i < object.size(); ++i) {
    if (std::find(known.begin(), known.end(), object.key(i)) == known.end()) {
      return Invalid(absl::StrCat("unknown field ", json::Quoted(object.key(i))));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> StringMember(json::Value object, std::string_view key) {
  std::optional<json::Value> value = object.Find(key);
  if (!value) return std::string();
  if (!value->is_string()) return Invalid(absl::StrCat(json::Quoted(key), " is not a string"));
  return std::string(value->string_value());
}

absl::StatusOr<Decision> ReadStep(json::Value step) {
  if (!step.is_object()) return Invalid("not a JSON object");
  absl::Status known = CheckKnown(step, {"tool", "args", "reason", "complete", "fail"});
  if (!known.ok()) return known;
  std::optional<json::Value> tool = step.Find("tool");
  std::optional<json::Value> complete = step.Find("complete");
  std::optional<json::Value> fail = step.Find("fail");
  if (tool.has_value() + complete.has_value() + fail.has_value() != 1) {
    return Invalid(R"(exactly one of "tool", "complete" or "fail" is required)");
  }
  if (!tool) {
    for (std::string_view only : {"args", "reason"}) {
      if (step.Find(only))
        return Invalid(absl::StrCat(json::Quoted(only), " is only for a tool call"));
    }
  }
  if (complete) {
    Decision d = scripted::Complete(complete->is_null() ? "" : json::WriteCanonical(*complete));
    d.origin = "plan";
    return d;
  }
  if (fail) {
    if (!fail->is_string()) return Invalid(R"("fail" is not a string)");
    Decision d = scripted::Fail(std::string(fail->string_value()));
    d.origin = "plan";
    return d;
  }
  if (!tool->is_string() || tool->string_value().empty()) {
    return Invalid(R"("tool" is not a tool name)");
  }
  std::string args = "{}";
  if (std::optional<json::Value> value = step.Find("args")) {
    if (!value->is_object()) return Invalid(R"("args" is not a JSON object)");
    args = json::WriteCanonical(*value);
  }
  absl::StatusOr<std::string> reason = StringMember(step, "reason");
  if (!reason.ok()) return reason.status();
  Decision d = scripted::Call(std::string(tool->string_value()), args, *reason);
  d.origin = "plan";
  return d;
}

absl::StatusOr<SimScript> ReadScript(json::Value root) {
  if (!root.is_object()) return Invalid("the script is not a JSON object");
  absl::Status known = CheckKnown(root, {"goal", "steps", "max_steps"});
  if (!known.ok()) return known;
  SimScript script;
  if (!root.Find("goal")) return Invalid(R"("goal" is required)");
  absl::StatusOr<std::string> goal = StringMember(root, "goal");
  if (!goal.ok()) return goal.status();
  if (goal->empty()) return Invalid(R"("goal" is empty)");
  script.goal = *std::move(goal);
  std::optional<json::Value> steps = root.Find("steps");
  if (!steps) return Invalid(R"("steps" is required)");
  if (!steps->is_array()) return Invalid(R"("steps" is not a list)");
  if (steps->size() == 0) return Invalid(R"("steps" is empty)");
  for (std::size_t i = 0; i < steps->size(); ++i) {
    absl::StatusOr<Decision> step = ReadStep(steps->element(i));
    if (!step.ok()) {
      return Invalid(absl::StrCat("steps[", i, "]: ", step.status().message()));
    }
    script.steps.push_back(*std::move(step));
  }
  if (std::optional<json::Value> max = root.Find("max_steps")) {
    std::string_view literal = max->is_number() ? max->number_literal() : "";
    int n = 0;
    bool integer = !literal.empty() && literal.find_first_of(".eE") == std::string_view::npos &&
                   absl::SimpleAtoi(ToAbsl(literal), &n);
    if (!integer || n <= 0 || n > kMostSteps) {
      return Invalid(absl::StrCat(R"("max_steps" is not a positive integer up to )", kMostSteps));
    }
    script.limits.max_steps = n;
  }
  return script;
}

}  // namespace

absl::StatusOr<SimScript> ParseSimScript(std::string_view bytes, std::string_view name) {
  std::string where = absl::StrCat("script ", json::Sanitize(name), ": ");
  absl::StatusOr<json::Document> document = json::Parse(bytes);
  if (!document.ok()) {
    return Invalid(absl::StrCat(where, "not usable JSON: ", document.status().message()));
  }
  absl::StatusOr<SimScript> script = ReadScript(document->root());
  if (!script.ok()) return Invalid(absl::StrCat(where, script.status().message()));
  return script;
}

}  // namespace agentrt::cli
