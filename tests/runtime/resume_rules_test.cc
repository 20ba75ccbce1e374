// What a resume checks before an approved call runs, and what time a wait for a human counts
// as (docs/architecture.md, "Approvals"): the policy is asked
// again and may deny, abort or want another approval; the arguments meet the current schema; a
// pending approval or a grant can expire; the wait is elapsed time but not active time.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/approvals.h"
#include "runtime/driver.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "tests/runtime/post_tool.h"
#include "tests/support/status_matchers.h"
#include "tests/support/tamper.h"
#include "tests/support/test_store.h"

namespace agentrt {
namespace {

using ::agentrt::scripted::Call;
using ::agentrt::scripted::Complete;

constexpr absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

// The default policy until the test changes its mind.
class ChangingPolicy final : public Policy {
 public:
  enum class Mode { kDefault, kDeny, kAbort, kOtherApproval, kUnknown, kError };
  absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest& request,
                                          const RunView& view) override {
    switch (mode) {
      case Mode::kDefault:
        return inner_->Evaluate(request, view);
      case Mode::kDeny:
        return PolicyDecision{PolicyOutcome::kDeny, "deny", "not any more"};
      case Mode::kAbort:
        return PolicyDecision{PolicyOutcome::kAbort, "abort", "stop everything"};
      case Mode::kOtherApproval:
        return NeedApproval("finance", "a finance review now", R"({"budget":"q4"})",
                            R"({"why":"budget"})");
      case Mode::kUnknown:
        return PolicyDecision{PolicyOutcome::kUnknown, "maybe", ""};
      case Mode::kError:
        return absl::UnavailableError("rules service down");
    }
    return absl::InternalError("unreachable");
  }
  Mode mode = Mode::kDefault;

 private:
  std::unique_ptr<Policy> inner_ = DefaultPolicy();
};

class ResumeRulesTest : public ::testing::Test {
 protected:
  absl::StatusOr<agentrt::Run> Drive(std::vector<Decision> script, bool resume = false,
                                     Limits limits = Limits{}) {
    agent_ = std::make_unique<ScriptedAgent>(std::move(script));
    DriverOptions options;
    options.agent = agent_.get();
    options.policy = &policy_;
    options.tools = {&post_};
    options.scheduler = &lease_clock_;
    auto driver = *Driver::Create(*store_, clock_, entropy_, options);
    return resume ? driver->Resume("r") : driver->StartWithId("r", "post it", limits);
  }
  // Starts a run that pauses at the post, and approves it.
  void PausedAndApproved(Limits limits = Limits{}) {
    ASSERT_EQ(Drive({Call("post", R"({"to":"ops"})"), Complete()}, false, limits)->status,
              RunStatus::kWaitingForApproval);
    ASSERT_OK(Approve(*store_, clock_, "r", Pending().id, Decider{"ops", ""}));
  }
  Approval Pending() { return *PendingApproval(*store_, "r"); }
  std::vector<Step> Steps() { return *ReadSteps(*store_, "r"); }

  world::ManualClock clock_{kStart};
  world::ManualClock lease_clock_{kStart};
  world::SeededEntropy entropy_{8};
  std::unique_ptr<store::Store> store_ = *test_support::OpenTestStore(clock_);
  ChangingPolicy policy_;
  testing::PostTool post_;
  std::unique_ptr<ScriptedAgent> agent_;
};

TEST_F(ResumeRulesTest, APolicyThatNowDeniesEndsTheStepAndTheCallNeverRuns) {
  PausedAndApproved();
  policy_.mode = ChangingPolicy::Mode::kDeny;
  absl::StatusOr<agentrt::Run> run = Drive({Complete(), Complete()}, /*resume=*/true);
  ASSERT_OK(run);
  EXPECT_TRUE(post_.calls.empty());
  EXPECT_EQ(Steps()[0].status, StepStatus::kFailed);
  EXPECT_EQ(Steps()[0].observation->summary, "denied on resume: not any more");
  EXPECT_EQ(run->status, RunStatus::kCompleted);  // the loop went on to the agent's next step
}

TEST_F(ResumeRulesTest, APolicyThatNowAbortsEndsTheRun) {
  PausedAndApproved();
  policy_.mode = ChangingPolicy::Mode::kAbort;
  absl::StatusOr<agentrt::Run> run = Drive({Complete()}, /*resume=*/true);
  ASSERT_OK(run);
  EXPECT_TRUE(post_.calls.empty());
  EXPECT_EQ(run->status, RunStatus::kFailed);
  EXPECT_EQ(run->reason, "policy_abort");
  EXPECT_EQ(Steps()[0].observation->summary, "aborted on resume: stop everything");
}

TEST_F(ResumeRulesTest, APolicyThatNowWantsAnotherApprovalPausesAgain) {
  PausedAndApproved();
  std::string first = ListApprovals(*store_, "r")->at(0).id;
  policy_.mode = ChangingPolicy::Mode::kOtherApproval;
  absl::StatusOr<agentrt::Run> run = Drive({Complete()}, /*resume=*/true);
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kWaitingForApproval);
  EXPECT_TRUE(post_.calls.empty());
  std::vector<Approval> approvals = *ListApprovals(*store_, "r");
  ASSERT_THAT(approvals, SizeIs(2));  // in the order they were made
  EXPECT_EQ(approvals[0].id, first);
  EXPECT_EQ(approvals[0].status, ApprovalStatus::kApproved);
  EXPECT_EQ(approvals[1].kind, "finance");
  EXPECT_EQ(approvals[1].status, ApprovalStatus::kPending);
  EXPECT_LE(approvals[0].created_at, approvals[1].created_at);
}

TEST_F(ResumeRulesTest, AnUnknownOrFailingPolicyOnResumeFailsTheRunAsInternal) {
  for (ChangingPolicy::Mode mode : {ChangingPolicy::Mode::kUnknown, ChangingPolicy::Mode::kError}) {
    SCOPED_TRACE(static_cast<int>(mode));
    store_ = *test_support::OpenTestStore(clock_);
    policy_.mode = ChangingPolicy::Mode::kDefault;
    PausedAndApproved();
    policy_.mode = mode;
    absl::StatusOr<agentrt::Run> run = Drive({Complete()}, /*resume=*/true);
    ASSERT_OK(run);
    EXPECT_EQ(run->status, RunStatus::kFailed);
    EXPECT_EQ(run->reason, "internal_error");
    EXPECT_THAT(run->reason_detail, HasSubstr(mode == ChangingPolicy::Mode::kUnknown
                                                  ? "unknown policy outcome \"maybe\""
                                                  : "policy: rules service down"));
  }
  EXPECT_TRUE(post_.calls.empty());
}

TEST_F(ResumeRulesTest, ApprovedArgumentsTheCurrentSchemaRefusesAreAnInvalidDecision) {
  PausedAndApproved();
  // The tool now wants a field the approved call does not have.
  post_.schema = R"({"type":"object","properties":{"to":{"type":"string"},"cc":{"type":"string"}},)"
                 R"("required":["to","cc"]})";
  absl::StatusOr<agentrt::Run> run = Drive({Complete()}, /*resume=*/true);
  ASSERT_OK(run);
  EXPECT_TRUE(post_.calls.empty());
  EXPECT_EQ(Steps()[0].observation->kind, ObservationKind::kInvalidDecision);
  EXPECT_THAT(Steps()[0].observation->summary, HasSubstr("invalid decision on resume: "));
  EXPECT_EQ(run->status, RunStatus::kCompleted);
}

TEST_F(ResumeRulesTest, APendingApprovalPastItsTtlExpiresAtResumeAndCancelsTheRun) {
  Limits limits;
  limits.approval_ttl = absl::Minutes(1);
  ASSERT_EQ(Drive({Call("post", R"({"to":"ops"})")}, false, limits)->status,
            RunStatus::kWaitingForApproval);
  clock_.Advance(absl::Minutes(2));
  absl::StatusOr<agentrt::Run> run = Drive({Complete()}, /*resume=*/true);
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kCancelled);
  EXPECT_EQ(run->reason, "approval_expired");
  EXPECT_EQ(ListApprovals(*store_, "r")->at(0).status, ApprovalStatus::kExpired);
  EXPECT_TRUE(post_.calls.empty());
}

TEST_F(ResumeRulesTest, TheApprovalTtlNeverExpiresAGrant) {
  Limits limits;
  limits.approval_ttl = absl::Minutes(1);  // for deciding; no grant_ttl
  PausedAndApproved(limits);
  clock_.Advance(absl::Hours(5));
  absl::StatusOr<agentrt::Run> run = Drive({Complete()}, /*resume=*/true);
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kCompleted);
  EXPECT_THAT(post_.calls, SizeIs(1));
  EXPECT_EQ(ReadRun(*store_, "r")->limits.grant_ttl, absl::ZeroDuration());  // read back as 0
}

TEST_F(ResumeRulesTest, CancelClosesAnApprovedRunThatWasNotResumed) {
  PausedAndApproved();
  ASSERT_OK(Cancel(*store_, clock_, "r", Decider{"ops", "changed my mind"}));
  EXPECT_EQ(ReadRun(*store_, "r")->status, RunStatus::kCancelled);
  EXPECT_EQ(ReadRun(*store_, "r")->reason, "operator_cancelled");
  absl::Status resumed = Drive({Complete()}, /*resume=*/true).status();
  EXPECT_EQ(resumed.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(resumed.message(), HasSubstr("is CANCELLED and cannot be resumed"));
  EXPECT_TRUE(post_.calls.empty());
}

// The approved call runs under a live lease kept by a heartbeat, as the loop's calls do: a
// rival cannot take the run over while it runs past the lease's TTL.
TEST_F(ResumeRulesTest, TheApprovedCallKeepsItsLeaseThroughACallLongerThanTheTtl) {
  PausedAndApproved();
  absl::Status rival_resume;
  post_.during_call = [&] {
    lease_clock_.Advance(absl::Seconds(70));  // more than two TTLs of 30 s
    ScriptedAgent rival_agent({Complete()});
    DriverOptions options;
    options.agent = &rival_agent;
    options.policy = &policy_;
    options.tools = {&post_};
    options.scheduler = &lease_clock_;
    options.lease_owner = "rival";
    rival_resume = (*Driver::Create(*store_, clock_, entropy_, options))->Resume("r").status();
  };
  absl::StatusOr<agentrt::Run> run = Drive({Complete()}, /*resume=*/true);
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kCompleted);
  EXPECT_EQ(rival_resume.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(rival_resume.message(), HasSubstr("is leased by"));
  EXPECT_THAT(post_.calls, SizeIs(1));
}

TEST_F(ResumeRulesTest, ADamagedRunCannotBeApprovedButCanBeCancelled) {
  ASSERT_EQ(Drive({Call("post", R"({"to":"ops"})")})->status, RunStatus::kWaitingForApproval);
  std::string id = Pending().id;
  // Someone rewrote the rows: the approval's request no longer reads, nor does the step.
  ASSERT_OK(store_->Write([](store::Transaction& tx) -> absl::Status {
    for (const char* sql : {"UPDATE approvals SET request_json = '{not json'",
                            "UPDATE steps SET decision_json = 'garbage'"}) {
      if (absl::StatusOr<std::int64_t> n =
              test_support::TamperIn(tx, "an unreadable request and decision", sql);
          !n.ok()) {
        return n.status();
      }
    }
    return absl::OkStatus();
  }));
  absl::StatusOr<Approval> approved = Approve(*store_, clock_, "r", id, Decider{"ops", ""});
  EXPECT_EQ(approved.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_TRUE(IsApprovalHashError(approved.status()));
  // An operator can always end it: Cancel needs to read nothing the damage touched.
  ASSERT_OK(Cancel(*store_, clock_, "r", Decider{"ops", "damaged"}));
  EXPECT_EQ(ReadRun(*store_, "r")->status, RunStatus::kCancelled);
  EXPECT_TRUE(post_.calls.empty());
}

TEST_F(ResumeRulesTest, TheWaitForAHumanIsElapsedTimeButNotActiveTime) {
  // Active time: an hour waiting for the operator counts nothing; the resumed step's clock
  // restarts at the resume.
  Limits active;
  active.max_active_time = absl::Minutes(10);
  PausedAndApproved(active);
  clock_.Advance(absl::Hours(1));
  absl::StatusOr<agentrt::Run> run = Drive({Complete()}, /*resume=*/true);
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kCompleted);
  EXPECT_LT(ReadRun(*store_, "r")->active_time, absl::Minutes(10));
  EXPECT_GE(Steps()[0].started_at, kStart + absl::Hours(1));  // restarted at the resume

  // Elapsed time: the same hour counts, and the next step finds the deadline passed.
  store_ = *test_support::OpenTestStore(clock_);
  post_.calls.clear();
  Limits elapsed;
  elapsed.max_elapsed_time = absl::Minutes(30);
  PausedAndApproved(elapsed);
  clock_.Advance(absl::Hours(1));
  run = Drive({Complete()}, /*resume=*/true);
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kFailed);
  EXPECT_EQ(run->reason, "limit_elapsed_time");
  EXPECT_THAT(post_.calls,
              SizeIs(1));  // the approved call ran; the deadline stopped what came next
}

}  // namespace
}  // namespace agentrt
