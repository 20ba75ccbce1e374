#include "tests/support/fixture_runs.h"

#include "absl/strings/str_cat.h"
#include "runtime/approvals.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/records/run_reader.h"
#include "runtime/scripted_agent.h"

namespace agentrt::test_support {

ToolSpec FixtureTool::Spec() const {
  return ToolSpec{name_,
                  absl::StrCat("The fixture's ", name_, " tool."),
                  R"({"type":"object","properties":{"what":{"type":"string"}},)"
                  R"("required":["what"],"additionalProperties":false})",
                  effect_,
                  absl::Seconds(10),
                  false};
}

absl::StatusOr<ToolResult> FixtureTool::Call(const ToolCall& call) {
  ++calls;
  return ToolResult{absl::StrCat(R"({"tool":")", name_, R"(","args":)", call.args, "}"),
                    absl::StrCat(name_, " answered")};
}

absl::StatusOr<Decision> FixtureAgent::Decide(const StepInput& input) {
  using scripted::Call;
  using scripted::Complete;
  const std::string& run = input.run.goal;
  std::vector<Decision> script;
  if (run == "completed") {
    script = {Call("look", R"({"what":"the ledger"})", "look first"), Call("look", R"({"what":7})"),
              Call("erase", R"({"what":"everything"})"), Call("note", R"({"what":"seen"})"),
              Complete(R"({"done":true})")};
  } else if (run == "waiting" || run == "approved") {
    script = {Call("look", R"({"what":"the draft"})"),
              Call("post", R"({"what":"the report"})", "publish it"),
              Complete(R"({"posted":true})")};
  } else if (run == "rejected") {
    script = {Call("post", R"({"what":"a rumour"})")};
  } else {
    script = {scripted::Fail("nothing to do")};
  }
  std::size_t i = static_cast<std::size_t>(input.run.step_count - 1);
  if (i >= script.size()) return absl::OutOfRangeError("the fixture's script ran out");
  return script[i];
}

FixtureWorld::FixtureWorld(store::Store& s, std::uint64_t seed) : entropy(seed), store(s) {}

absl::Status FixtureWorld::Open() {
  DriverOptions options{&agent, policy.get(), {&look, &note, &post, &erase}, "fixture"};
  options.scheduler = &clock;
  AGENTRT_ASSIGN_OR_RETURN(driver, Driver::Create(store, clock, entropy, options));
  return absl::OkStatus();
}

namespace {

absl::Status Expect(const absl::StatusOr<Run>& run, RunStatus status) {
  if (!run.ok()) return run.status();
  if (run->status != status) {
    return absl::InternalError(absl::StrCat("run ", run->id, " is ", ToAbsl(ToString(run->status)),
                                            ", not ", ToAbsl(ToString(status)), ": ",
                                            run->reason_detail));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteFixtureRuns(FixtureWorld& w) {
  if (w.driver == nullptr) AGENTRT_RETURN_IF_ERROR(w.Open());
  const Decider ops{"ops", "checked"};
  for (const char* id : kFixtureRuns) {
    std::string run_id = id;
    w.clock.Advance(absl::Seconds(1));
    absl::StatusOr<Run> run = w.driver->StartWithId(run_id, run_id, Limits{});
    if (run_id == "completed") {
      AGENTRT_RETURN_IF_ERROR(Expect(run, RunStatus::kCompleted));
    } else if (run_id == "failed") {
      AGENTRT_RETURN_IF_ERROR(Expect(run, RunStatus::kFailed));
    } else {
      AGENTRT_RETURN_IF_ERROR(Expect(run, RunStatus::kWaitingForApproval));
    }
    if (run_id == "rejected" || run_id == "approved") {
      w.clock.Advance(absl::Seconds(30));
      AGENTRT_ASSIGN_OR_RETURN(Approval pending, PendingApproval(w.store, run_id));
      if (run_id == "rejected") {
        AGENTRT_RETURN_IF_ERROR(Reject(w.store, w.clock, run_id, pending.id, ops).status());
      } else {
        AGENTRT_RETURN_IF_ERROR(Approve(w.store, w.clock, run_id, pending.id, ops).status());
        AGENTRT_RETURN_IF_ERROR(Expect(w.driver->Resume(run_id), RunStatus::kCompleted));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> FixtureFingerprint(store::Store& store) {
  AGENTRT_ASSIGN_OR_RETURN(store::ChainHead head, store.Head());
  std::string out = absl::StrCat("head ", head.seq, " ", head.hash, "\n");
  for (const char* id : kFixtureRuns) {
    AGENTRT_ASSIGN_OR_RETURN(Run run, ReadRun(store, id));
    AGENTRT_ASSIGN_OR_RETURN(std::vector<store::Event> events, store.ListEvents(id));
    absl::StrAppend(&out, "run ", run.id, " ", ToAbsl(ToString(run.status)), " ", run.reason,
                    " steps=", run.step_count, " events=", events.size(), "\n");
    AGENTRT_ASSIGN_OR_RETURN(std::vector<Step> steps, ReadSteps(store, id));
    for (const Step& step : steps) {
      absl::StrAppend(&out, "  step ", step.index, " ", step.id, " ", ToAbsl(ToString(step.status)),
                      " ", step.observation ? step.observation->content_hash : "-", "\n");
    }
    AGENTRT_ASSIGN_OR_RETURN(std::vector<Approval> approvals, ListApprovals(store, id));
    for (const Approval& a : approvals) {
      absl::StrAppend(&out, "  approval ", a.id, " ", ToAbsl(ToString(a.status)), " ", a.hash,
                      "\n");
    }
  }
  return out;
}

}  // namespace agentrt::test_support
