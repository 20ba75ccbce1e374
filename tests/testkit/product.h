// tests/testkit/product.h
//
// A small product, as a consumer of the test kit would have one: a workspace agent's tools (read
// and write files, pay an invoice) and its policy (reads allowed; writes only inside
// /workspace/; payments over 100 need approval of kind "payment"; anything destructive
// aborts the run). The kit's tests check this product the way its own tests would. Test-only.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/intake.h"
#include "runtime/policy.h"
#include "runtime/tool.h"

namespace agentrt::testkit::product {

inline constexpr char kPathSchema[] =
    R"({"type":"object","properties":{"path":{"type":"string","minLength":1}},)"
    R"("required":["path"],"additionalProperties":false})";
inline constexpr char kWriteSchema[] =
    R"({"type":"object","properties":{"path":{"type":"string","minLength":1},)"
    R"("content":{"type":"string","maxLength":200}},"required":["path","content"],)"
    R"("additionalProperties":false})";
inline constexpr char kPaySchema[] =
    R"({"type":"object","properties":{"amount":{"type":"number","minimum":0,"maximum":10000},)"
    R"("currency":{"enum":["EUR","USD"]},"memo":{"type":"string","maxLength":40}},)"
    R"("required":["amount","currency"],"additionalProperties":false})";

// A tool with a fixed spec that answers every call with its arguments.
class EchoTool : public Tool {
 public:
  EchoTool(std::string name, SideEffect side_effect, std::string schema)
      : spec_{std::move(name), "A product tool.", std::move(schema),
              side_effect,     absl::Seconds(5),  false} {}
  ToolSpec Spec() const override { return spec_; }
  absl::StatusOr<ToolResult> Call(const ToolCall& call) override {
    return ToolResult{absl::StrCat(R"({"echo":)", call.args.empty() ? "{}" : call.args, "}"),
                      spec_.name};
  }

 private:
  ToolSpec spec_;
};

inline std::unique_ptr<EchoTool> ReadFile() {
  return std::make_unique<EchoTool>("read_file", SideEffect::kReadOnly, kPathSchema);
}
inline std::unique_ptr<EchoTool> WriteFile() {
  return std::make_unique<EchoTool>("write_file", SideEffect::kLocalMutation, kWriteSchema);
}
inline std::unique_ptr<EchoTool> Pay() {
  return std::make_unique<EchoTool>("pay", SideEffect::kRemoteMutation, kPaySchema);
}

inline std::string Member(const std::string& args, std::string_view key) {
  absl::StatusOr<json::Document> doc = json::Parse(args);
  if (!doc.ok()) return "";
  std::optional<json::Value> v = doc->root().Find(key);
  if (!v) return "";
  return v->is_string() ? std::string(v->string_value()) : std::string(v->number_literal());
}

// Decides from its input only: the request and the run view.
class WorkspacePolicy : public Policy {
 public:
  absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest& request,
                                          const RunView& view) override {
    PolicyDecision d;
    if (request.spec.side_effect == SideEffect::kDestructive) {
      d.outcome = PolicyOutcome::kAbort;
      d.reason = "destructive tools end the run";
      return d;
    }
    if (request.spec.side_effect == SideEffect::kReadOnly) {
      d.outcome = PolicyOutcome::kAllow;
      d.reason = "reads are allowed";
      return d;
    }
    if (request.spec.name == "pay") {
      double amount = std::strtod(Member(request.args, "amount").c_str(), nullptr);
      if (amount > 100) {
        return NeedApproval("payment", "payments over 100 need approval",
                            absl::StrCat(R"({"amount":)", Member(request.args, "amount"), "}"),
                            request.args);
      }
      d.outcome = PolicyOutcome::kAllow;
      d.reason = "small payment";
      return d;
    }
    // A run that already failed three steps writes nothing more.
    int failed = 0;
    AGENTRT_RETURN_IF_ERROR(view.steps.ForEach([&](const Step& s) {
      failed += s.status == StepStatus::kFailed;
      return absl::OkStatus();
    }));
    if (failed >= 3) {
      d.outcome = PolicyOutcome::kDeny;
      d.reason = "too many failed steps to keep writing";
      return d;
    }
    bool inside = absl::StartsWith(Member(request.args, "path"), "/workspace/") &&
                  !absl::StrContains(Member(request.args, "path"), "..");
    d.outcome = inside ? PolicyOutcome::kAllow : PolicyOutcome::kDeny;
    d.reason = inside ? "inside the workspace" : "writes stay inside /workspace/";
    return d;
  }
  std::string Id() const override { return "workspace/1"; }
};

}  // namespace agentrt::testkit::product
