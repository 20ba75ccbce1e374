// Re-checking a finished run against a stricter policy under review (Recheck): every policy
// evaluation the run recorded is asked again, and the report names the ones now decided
// differently. Nothing is written; the run stays as it ended.
#include "runtime/operator/recheck.h"

#include <iostream>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/base/status_macros.h"
#include "runtime/driver.h"
#include "runtime/policy.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"

namespace {

constexpr char kPathSchema[] =
    R"({"type":"object","properties":{"path":{"type":"string"}},"required":["path"]})";

// A tool of the given name and side-effect class that always succeeds.
class FileTool final : public agentrt::Tool {
 public:
  FileTool(std::string name, agentrt::SideEffect side_effect)
      : name_(std::move(name)), side_effect_(side_effect) {}
  agentrt::ToolSpec Spec() const override {
    return {.name = name_,
            .description = "A file tool.",
            .input_schema = kPathSchema,
            .side_effect = side_effect_,
            .timeout = absl::Seconds(5)};
  }
  absl::StatusOr<agentrt::ToolResult> Call(const agentrt::ToolCall& call) override {
    return agentrt::ToolResult{"{}", "ok"};
  }

 private:
  std::string name_;
  agentrt::SideEffect side_effect_;
};

// The stricter policy: local writes now need a person too.
class ReviewWrites final : public agentrt::Policy {
 public:
  absl::StatusOr<agentrt::PolicyDecision> Evaluate(const agentrt::ToolRequest& request,
                                                   const agentrt::RunView& view) override {
    if (request.spec.side_effect == agentrt::SideEffect::kReadOnly) {
      return agentrt::PolicyDecision{.outcome = agentrt::PolicyOutcome::kAllow,
                                     .reason = "reads are allowed"};
    }
    return agentrt::NeedApproval("write", "every write is reviewed", request.args, "{}");
  }
  std::string Id() const override { return "review-writes/v2"; }
};

}  // namespace

absl::Status Example() {
  agentrt::world::ManualClock clock(absl::FromUnixSeconds(1'800'000'000));
  agentrt::world::SeededEntropy entropy(1);
  AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<agentrt::store::Store> store,
                           agentrt::records::OpenStoreInMemory(clock));
  FileTool read_file("read_file", agentrt::SideEffect::kReadOnly);
  FileTool write_file("write_file", agentrt::SideEffect::kLocalMutation);
  agentrt::ScriptedAgent agent({
      agentrt::scripted::Call("read_file", R"({"path":"draft.md"})"),
      agentrt::scripted::Call("write_file", R"({"path":"final.md"})"),
      agentrt::scripted::Complete(),
  });
  // The run is decided by the default policy, which allows local writes.
  std::unique_ptr<agentrt::Policy> policy = agentrt::DefaultPolicy();
  agentrt::DriverOptions options;
  options.agent = &agent;
  options.policy = policy.get();
  options.tools = {&read_file, &write_file};
  options.scheduler = &clock;
  AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<agentrt::Driver> driver,
                           agentrt::Driver::Create(*store, clock, entropy, std::move(options)));
  AGENTRT_ASSIGN_OR_RETURN(agentrt::Run run, driver->StartWithId("run-1", "publish the draft"));

  ReviewWrites stricter;
  AGENTRT_ASSIGN_OR_RETURN(agentrt::RecheckReport report,
                           agentrt::Recheck(*store, run.id, stricter));
  std::cout << agentrt::FormatRecheck(report);
  std::cout << "same: " << (report.Same() ? "yes" : "no") << "\n";
  return absl::OkStatus();
}

// The report's lines are longer than the column limit; clang-format keeps them whole.
// clang-format off
// Output:
// run run-1 COMPLETED: 1 of 2 re-checked evaluations differ; policy identity unknown; recorded specs
// DIFFERENT step 1 seq 10 write_file: require_approval (write) — was allow, now require_approval (write)
// same      step 0 seq 5 read_file: allow
// same: no
