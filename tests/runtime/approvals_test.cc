// Pausing for a human and resuming exactly what the human saw (docs/architecture.md, "Approvals").
#include "runtime/approvals.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/driver.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "tests/runtime/approval_story.h"
#include "tests/runtime/post_tool.h"
#include "tests/support/status_matchers.h"
#include "tests/support/tamper.h"
#include "tests/support/test_store.h"

namespace agentrt {
namespace {

using ::agentrt::scripted::Complete;
using ::agentrt::testing::ApprovalStory;
using ::agentrt::testing::Post;
using ::agentrt::testing::PostTool;

class ApprovalsTest : public ApprovalStory {};

TEST_F(ApprovalsTest, ApproveThenResumeExecutesExactlyTheRecordedRequestAndContinues) {
  ASSERT_EQ(Drive({Post("alice")})->status, RunStatus::kWaitingForApproval);
  Approval pending = Only();
  EXPECT_EQ(pending.status, ApprovalStatus::kPending);
  EXPECT_THAT(pending.request, HasSubstr(R"("args":{"to":"alice"})"));
  EXPECT_OK(VerifyApprovalHash(pending));
  absl::StatusOr<Approval> approved =
      Approve(*store_, clock_, "run-1", pending.id, Decider{"ops", "looks fine", pending.hash});
  ASSERT_OK(approved);
  EXPECT_EQ(approved->status, ApprovalStatus::kApproved);
  EXPECT_TRUE(post_.calls.empty());
  std::size_t before = store_->ListEvents("run-1")->size();

  absl::StatusOr<agentrt::Run> run = Drive({Complete()}, "run-1");
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kCompleted);
  ASSERT_THAT(post_.calls, SizeIs(1));
  EXPECT_EQ(post_.calls[0].args, R"({"to":"alice"})");
  EXPECT_THAT(TypesAfter(before),
              ElementsAre("run.resumed", "step.policy", "step.tool_started", "step.tool_finished",
                          "step.started", "step.decided", "run.finished"));
  std::vector<store::Event> events = *store_->ListEvents("run-1");
  EXPECT_THAT(events[before + 2].payload_json, HasSubstr("\"approval_id\":\"" + pending.id));
  EXPECT_FALSE(store_->VerifyEvents()->broken.has_value());
  // Resuming again grants nothing more: the run has ended.
  EXPECT_THAT(Drive({}, "run-1").status().message(), HasSubstr("cannot be resumed"));
  EXPECT_THAT(post_.calls, SizeIs(1));
}

TEST_F(ApprovalsTest, RejectCancelsTheRunAndNothingRuns) {
  ASSERT_OK(Drive({Post("bob")}));
  absl::StatusOr<Approval> rejected =
      Reject(*store_, clock_, "run-1", Only().id, Decider{"ops", "not today"});
  ASSERT_OK(rejected);
  agentrt::Run run = *ReadRun(*store_, "run-1");
  EXPECT_EQ(run.status, RunStatus::kCancelled);
  EXPECT_EQ(run.reason, "approval_rejected");
  EXPECT_EQ(run.reason_detail, "not today");
  std::vector<Step> steps = *ReadSteps(*store_, "run-1");
  EXPECT_EQ(steps[0].status, StepStatus::kFailed);
  EXPECT_EQ(steps[0].observation->summary, "approval rejected: not today");
  absl::Status again = Drive({}, "run-1").status();
  EXPECT_EQ(again.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(again.message(), HasSubstr("is CANCELLED and cannot be resumed"));
  EXPECT_TRUE(post_.calls.empty());
}

TEST_F(ApprovalsTest, AnApprovalsRunIsFoundByItsIdAlone) {
  ASSERT_OK(Drive({Post("alice")}));
  EXPECT_THAT(RunOfApproval(*store_, Only().id), IsOkAndHolds(std::string("run-1")));
  EXPECT_THAT(RunOfApproval(*store_, "nope"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("no approval nope")));
}

TEST_F(ApprovalsTest, TamperedApprovalRowIsRefusedByHash) {
  ASSERT_OK(Drive({Post("alice")}));
  Approval pending = Only();
  ASSERT_OK(Approve(*store_, clock_, "run-1", pending.id, Decider{"ops", ""}));
  ASSERT_OK(test_support::Tamper(*store_, "the approved request's arguments rewritten",
                                 "UPDATE approvals SET request_json = "
                                 "replace(request_json, 'alice', 'mallory')"));
  absl::StatusOr<agentrt::Run> run = Drive({Complete()}, "run-1");
  ASSERT_THAT(
      run, StatusIs(absl::StatusCode::kDataLoss, HasSubstr("does not match its recorded request")));
  EXPECT_TRUE(IsApprovalHashError(run.status()));
  EXPECT_TRUE(post_.calls.empty());
  EXPECT_EQ(ReadRun(*store_, "run-1")->status, RunStatus::kWaitingForApproval);
}

TEST_F(ApprovalsTest, ChangedToolSpecRePausesInsteadOfRunningUnderTheOldGrant) {
  ASSERT_OK(Drive({Post("alice")}));
  ASSERT_OK(Approve(*store_, clock_, "run-1", Only().id, Decider{"ops", ""}));
  post_.description = "Send a message. Also forward it to everyone.";
  std::size_t before = store_->ListEvents("run-1")->size();
  absl::StatusOr<agentrt::Run> run = Drive({Complete()}, "run-1");
  // A resume that pauses again: the new evaluation and a new request, no run.resumed.
  EXPECT_THAT(TypesAfter(before), ElementsAre("step.policy", "approval.requested"));
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kWaitingForApproval);
  EXPECT_TRUE(post_.calls.empty());
  std::vector<Approval> approvals = *ListApprovals(*store_, "run-1");
  ASSERT_THAT(approvals, SizeIs(2));
  EXPECT_EQ(approvals[1].status, ApprovalStatus::kPending);
  EXPECT_NE(approvals[1].hash, approvals[0].hash);
  // The old grant is spent: only the latest approval of a step can grant.
  EXPECT_THAT(Drive({}, "run-1").status().message(), HasSubstr("is pending, not approved"));
  EXPECT_THAT(*ListApprovals(*store_, "run-1"), SizeIs(2));  // no pile-up
}

TEST_F(ApprovalsTest, ApprovalExpiresAtTheNextDecisionByTheDecidersClock) {
  Limits limits;
  limits.approval_ttl = absl::Minutes(1);
  ASSERT_OK(Drive({Post("alice")}, "", limits));
  Approval pending = Only();
  clock_.Advance(absl::Minutes(2));
  std::size_t before = store_->ListEvents("run-1")->size();
  absl::StatusOr<Approval> late = Approve(*store_, clock_, "run-1", pending.id, Decider{"ops", ""});
  EXPECT_THAT(TypesAfter(before), ElementsAre("approval.decided", "run.finished"));
  ASSERT_THAT(late, StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("had expired")));
  agentrt::Run run = *ReadRun(*store_, "run-1");
  EXPECT_EQ(run.status, RunStatus::kCancelled);
  EXPECT_EQ(run.reason, "approval_expired");
  EXPECT_EQ(Only().status, ApprovalStatus::kExpired);
}

TEST_F(ApprovalsTest, GrantNotResumedWithinItsTtlExpiresAtResume) {
  Limits limits;
  limits.grant_ttl = absl::Minutes(5);
  ASSERT_OK(Drive({Post("alice")}, "", limits));
  ASSERT_OK(Approve(*store_, clock_, "run-1", Only().id, Decider{"ops", ""}));
  clock_.Advance(absl::Minutes(6));
  absl::StatusOr<agentrt::Run> run = Drive({Complete()}, "run-1");
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kCancelled);
  EXPECT_EQ(run->reason, "approval_expired");
  EXPECT_TRUE(post_.calls.empty());
}

TEST_F(ApprovalsTest, ShownHashMustStillMatch) {
  ASSERT_OK(Drive({Post("alice")}));
  absl::StatusOr<Approval> approved =
      Approve(*store_, clock_, "run-1", Only().id, Decider{"ops", "", "0000"});
  ASSERT_THAT(approved,
              StatusIs(absl::StatusCode::kAborted, HasSubstr("not the one that was shown")));
  EXPECT_TRUE(IsApprovalChangedError(approved.status()));
  EXPECT_EQ(Only().status, ApprovalStatus::kPending);
}

TEST_F(ApprovalsTest, CancelEndsAnyLiveRunAndRefusesAnEndedOne) {
  ASSERT_OK(Drive({Post("alice")}));
  ASSERT_OK(Cancel(*store_, clock_, "run-1", Decider{"ops", "wrong goal"}));
  agentrt::Run run = *ReadRun(*store_, "run-1");
  EXPECT_EQ(run.status, RunStatus::kCancelled);
  EXPECT_EQ(run.reason, "operator_cancelled");
  EXPECT_EQ((*ReadSteps(*store_, "run-1"))[0].observation->summary,
            "cancelled by operator: wrong goal");
  EXPECT_EQ(Only().status, ApprovalStatus::kPending);  // left as it was
  std::vector<store::Event> events = *store_->ListEvents("run-1");
  EXPECT_THAT(events.back().payload_json, HasSubstr(R"("by":"ops")"));
  absl::Status again = Cancel(*store_, clock_, "run-1", Decider{"ops", ""});
  EXPECT_THAT(again.message(), HasSubstr("is already CANCELLED"));
}

// A run left RUNNING by another owner is refused while that owner's lease is live, and taken
// over (lease.taken_over) once it expired.
TEST_F(ApprovalsTest, LiveForeignLeaseIsRefusedAndAnExpiredOneTakenOver) {
  ASSERT_OK(Drive({Post("alice")}));
  world::ManualClock lease_clock(absl::FromUnixSeconds(2'000'000'000));
  std::string expiry = "2033-05-18T03:33:50.000000000Z";  // 30 s after lease_clock's time
  ASSERT_OK(test_support::Tamper(*store_, "the run taken by another owner's live lease",
                                 "UPDATE runs SET status = 'RUNNING', lease_owner = 'other/1', "
                                 "lease_expires_at = ?1",
                                 {std::string_view(expiry)}));
  agent_ = std::make_unique<ScriptedAgent>(std::vector<Decision>{Complete()});
  DriverOptions options = Options(&lease_clock);
  auto driver = *Driver::Create(*store_, clock_, entropy_, options);
  absl::StatusOr<agentrt::Run> refused = driver->Resume("run-1");
  ASSERT_THAT(refused, StatusIs(absl::StatusCode::kFailedPrecondition,
                                HasSubstr("is leased by other/1 until " + expiry)));
  lease_clock.Advance(absl::Minutes(1));
  absl::StatusOr<agentrt::Run> taken = driver->Resume("run-1");
  ASSERT_OK(taken);
  std::vector<store::Event> events = *store_->ListEvents("run-1");
  bool taken_over = false;
  for (const store::Event& e : events) {
    if (e.type == "lease.taken_over") {
      taken_over = true;
      EXPECT_THAT(e.payload_json, HasSubstr(R"("previous_owner":"other/1")"));
    }
  }
  EXPECT_TRUE(taken_over);
  EXPECT_TRUE(post_.calls.empty());  // the awaiting step was not executed by the takeover
}

TEST_F(ApprovalsTest, AStepThatCannotBeReadFailsTheRunOnResumeWithoutRunningAnything) {
  ASSERT_OK(Drive({Post("alice")}));
  ASSERT_OK(Approve(*store_, clock_, "run-1", Only().id, Decider{"ops", ""}));
  ASSERT_OK(test_support::Tamper(*store_, "the step's decision not JSON",
                                 "UPDATE steps SET decision_json = '{not json'"));
  absl::StatusOr<agentrt::Run> run = Drive({Complete()}, "run-1");
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kFailed);
  EXPECT_EQ(run->reason, "internal_error");
  EXPECT_THAT(run->reason_detail, HasSubstr("step 0 cannot be read: decision: not JSON"));
  EXPECT_TRUE(post_.calls.empty());
}

// Leaves run-1 as a crash would: RUNNING under a dead owner's expired lease, step 0 executing
// the post tool.
void CrashWhilePosting(store::Store& store) {
  ASSERT_OK(store.Write([](store::Transaction& tx) -> absl::Status {
    for (const char* sql :
         {"DELETE FROM approvals", "UPDATE steps SET status = 'executing', policy_json = ''",
          "UPDATE runs SET status = 'RUNNING', lease_owner = 'dead/1', "
          "lease_expires_at = '2000-01-01T00:00:00.000000000Z'"}) {
      if (absl::StatusOr<std::int64_t> n = test_support::TamperIn(tx, "a crash while posting", sql);
          !n.ok())
        return n.status();
    }
    return absl::OkStatus();
  }));
}

TEST_F(ApprovalsTest, ReconciliationDecidesHowAnInterruptedRunGoesOn) {
  struct Row {
    std::string name;
    absl::StatusOr<Reconciliation> rec;
    RunStatus status;
    std::string reason;
    std::string detail = "";  // a part of the reason detail, when it matters
  };
  Reconciliation completed;
  completed.outcome = Reconciliation::Outcome::kCompleted;
  completed.result = R"({"posted":true})";
  completed.detail = "the post is on the channel";
  Reconciliation conflict;
  conflict.outcome = Reconciliation::Outcome::kConflict;
  conflict.detail = "two posts found";
  Reconciliation waiting;
  waiting.outcome = Reconciliation::Outcome::kWaiting;
  PolicyDecision ask;
  ask.outcome = PolicyOutcome::kRequireApproval;
  ask.kind = "check_the_channel";
  ask.reason = "look before posting again";
  waiting.pause = ask;
  Reconciliation cont;  // continue: the agent decides again
  Reconciliation waiting_for_nothing;
  waiting_for_nothing.outcome = Reconciliation::Outcome::kWaiting;
  Reconciliation unusable = completed;
  unusable.result = R"({"posted":tru)";
  Row rows[] = {
      {"completed", completed, RunStatus::kCompleted, "goal_completed"},
      {"conflict", conflict, RunStatus::kFailed, "reconcile_conflict"},
      {"waiting", waiting, RunStatus::kWaitingForApproval, ""},
      {"continue", cont, RunStatus::kCompleted, "goal_completed"},
      {"waiting without an approval to wait for", waiting_for_nothing, RunStatus::kFailed,
       "reconcile_conflict", "asked to wait but gave no approval"},
      {"an error", absl::UnavailableError("the ledger is down"), RunStatus::kFailed,
       "internal_error", "reconcile: the ledger is down"},
      {"an unusable result", unusable, RunStatus::kFailed, "internal_error",
       "result is not usable JSON"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    store_ = *test_support::OpenTestStore(clock_);
    ASSERT_OK(Drive({Post("alice")}));
    CrashWhilePosting(*store_);
    agent_ = std::make_unique<ScriptedAgent>(std::vector<Decision>{Complete()});
    DriverOptions options = Options();
    RunView seen;
    options.reconcile = [&](const RunView& view) -> absl::StatusOr<Reconciliation> {
      seen = view;
      return row.rec;
    };
    auto driver = *Driver::Create(*store_, clock_, entropy_, options);
    absl::StatusOr<agentrt::Run> run = driver->Resume("run-1");
    ASSERT_OK(run);
    EXPECT_EQ(run->status, row.status);
    EXPECT_EQ(run->reason, row.reason);
    EXPECT_THAT(run->reason_detail, HasSubstr(row.detail));
    ASSERT_FALSE(seen.steps.empty());
    EXPECT_EQ(seen.steps.Read(0)->status, StepStatus::kInterrupted);  // marked before it was asked
    EXPECT_TRUE(post_.calls.empty());  // reconciliation never re-runs the call by itself
    if (row.name == "completed") {
      EXPECT_EQ(run->result, R"({"posted":true})");
    }
    if (row.name == "waiting") {
      EXPECT_EQ(Only().kind, "check_the_channel");
    }
  }
}

TEST_F(ApprovalsTest, AGateAttachesToAGrantAndExecutesItOnce) {
  ASSERT_OK(Drive({Post("alice")}));
  Approval pending = Only();
  DriverOptions options = Options();
  options.agent = nullptr;  // a loop the test owns
  auto gate = *Driver::Create(*store_, clock_, entropy_, options);
  // Not approved yet: attaching refuses and nothing changes.
  EXPECT_THAT(gate->Attach("run-1").status().message(), HasSubstr("is pending, not approved"));
  ASSERT_OK(Approve(*store_, clock_, "run-1", pending.id, Decider{"ops", ""}));
  auto attached = gate->Attach("run-1");
  ASSERT_OK(attached);
  auto& [session, verdict] = *attached;
  EXPECT_EQ(verdict.outcome, GateVerdict::Outcome::kAllowed);
  EXPECT_EQ(ReadRun(*store_, "run-1")->status, RunStatus::kWaitingForApproval);  // until Execute
  EXPECT_TRUE(post_.calls.empty());
  absl::StatusOr<Observation> obs = session->Execute();
  ASSERT_OK(obs);
  EXPECT_EQ(obs->summary, "sent");
  EXPECT_THAT(post_.calls, SizeIs(1));
  // Once: the allowed call was executed.
  EXPECT_EQ(session->Execute().status().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(*session->Step());
  Decision done;
  done.kind = "complete";
  EXPECT_EQ(session->Propose(done)->outcome, GateVerdict::Outcome::kEnded);
  EXPECT_EQ(ReadRun(*store_, "run-1")->status, RunStatus::kCompleted);
}

TEST_F(ApprovalsTest, AGrantHeldByAGateExpiresIfNotExecutedInTime) {
  Limits limits;
  limits.grant_ttl = absl::Minutes(5);
  ASSERT_OK(Drive({Post("alice")}, "", limits));
  ASSERT_OK(Approve(*store_, clock_, "run-1", Only().id, Decider{"ops", ""}));
  DriverOptions options = Options();
  options.agent = nullptr;  // a loop the test owns
  auto gate = *Driver::Create(*store_, clock_, entropy_, options);
  auto attached = gate->Attach("run-1");
  ASSERT_OK(attached);
  ASSERT_EQ(attached->second.outcome, GateVerdict::Outcome::kAllowed);
  clock_.Advance(absl::Minutes(6));  // the caller waited too long
  absl::StatusOr<Observation> obs = attached->first->Execute();
  ASSERT_THAT(obs, StatusIs(absl::StatusCode::kFailedPrecondition,
                            HasSubstr("expired before it was executed")));
  EXPECT_TRUE(IsApprovalExpiredError(obs.status()));
  EXPECT_TRUE(IsNotPendingError(obs.status()));
  EXPECT_TRUE(post_.calls.empty());
  EXPECT_EQ(ReadRun(*store_, "run-1")->reason, "approval_expired");
}

TEST_F(ApprovalsTest, AGateAttachesToAnInterruptedRunAndGoesOn) {
  ASSERT_OK(Drive({Post("alice")}));
  CrashWhilePosting(*store_);
  DriverOptions options = Options();
  options.agent = nullptr;  // a loop the test owns
  Reconciliation cont;
  options.reconcile = [&](const RunView&) -> absl::StatusOr<Reconciliation> { return cont; };
  auto gate = *Driver::Create(*store_, clock_, entropy_, options);
  auto attached = gate->Attach("run-1");
  ASSERT_OK(attached);
  EXPECT_EQ(attached->second.outcome, GateVerdict::Outcome::kOpen);
  EXPECT_TRUE(*attached->first->Step());
  EXPECT_TRUE(post_.calls.empty());
}

// A crash takeover writes lease.taken_over, step.interrupted per step in flight, then
// (a side effect with unknown outcome) step.policy and approval.requested; rejecting it ends
// the run with approval.decided and run.finished, and nothing runs again.
TEST_F(ApprovalsTest, TakeoverOfAnInterruptedSideEffectFollowsTheCanonicalSequence) {
  ASSERT_OK(Drive({Post("alice")}));
  CrashWhilePosting(*store_);
  std::size_t before = store_->ListEvents("run-1")->size();
  agent_ = std::make_unique<ScriptedAgent>(std::vector<Decision>{Complete()});
  DriverOptions options = Options();
  auto driver = *Driver::Create(*store_, clock_, entropy_, options);
  absl::StatusOr<agentrt::Run> run = driver->Resume("run-1");
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kWaitingForApproval);
  EXPECT_THAT(TypesAfter(before), ElementsAre("lease.taken_over", "step.interrupted", "step.policy",
                                              "approval.requested"));
  Approval pending = Only();
  EXPECT_EQ(pending.kind, "interrupted_side_effect");
  EXPECT_THAT(pending.presentation, HasSubstr("whether it took effect is unknown"));
  before = store_->ListEvents("run-1")->size();
  ASSERT_OK(Reject(*store_, clock_, "run-1", pending.id, Decider{"ops", "it went out"}));
  EXPECT_THAT(TypesAfter(before), ElementsAre("approval.decided", "run.finished"));
  EXPECT_TRUE(post_.calls.empty());
}

// A loop whose run was taken over by another owner records nothing more.
TEST_F(ApprovalsTest, ALoopThatLostItsRunRecordsNothingMore) {
  class Stolen : public Tool {
   public:
    explicit Stolen(store::Store& store) : store_(store) {}
    ToolSpec Spec() const override {
      return ToolSpec{"work",           "Work.", R"({"type":"object"})", SideEffect::kReadOnly,
                      absl::Seconds(5), false};
    }
    absl::StatusOr<ToolResult> Call(const ToolCall&) override {
      // Meanwhile another owner took the run over.
      EXPECT_OK(test_support::Tamper(store_, "the run taken over by another owner",
                                     "UPDATE runs SET lease_owner = 'other/1'"));
      return ToolResult{"{}", "done"};
    }
    store::Store& store_;
  } stolen(*store_);
  Decision work;
  work.kind = "tool_call";
  work.tool = "work";
  work.args = "{}";
  agent_ = std::make_unique<ScriptedAgent>(std::vector<Decision>{work, Complete()});
  DriverOptions options;
  options.agent = agent_.get();
  options.policy = policy_.get();
  options.tools = {&stolen};
  options.scheduler = &lease_clock_;
  auto driver = *Driver::Create(*store_, clock_, entropy_, options);
  absl::StatusOr<agentrt::Run> run = driver->StartWithId("run-1", "stolen", Limits{});
  ASSERT_THAT(run,
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("is leased by other/1")));
  std::vector<store::Event> events = *store_->ListEvents("run-1");
  EXPECT_EQ(events.back().type, "step.tool_started");  // its outcome was not recorded
}

TEST_F(ApprovalsTest, PendingApprovalSelectionNeverGuesses) {
  ASSERT_OK(Drive({Post("alice")}));
  absl::StatusOr<Approval> only = PendingApproval(*store_, "run-1");
  ASSERT_OK(only);
  EXPECT_EQ(only->id, Only().id);
  EXPECT_EQ(PendingApproval(*store_, "run-1", "nope").status().code(), absl::StatusCode::kNotFound);
  ASSERT_OK(Approve(*store_, clock_, "run-1", only->id, Decider{}));
  EXPECT_THAT(PendingApproval(*store_, "run-1").status().message(),
              HasSubstr("has no pending approval"));
  EXPECT_THAT(PendingApproval(*store_, "run-1", only->id).status().message(),
              HasSubstr("is approved"));
}

// A consumer's policy that asks with NeedApproval: what it passed is what the approval binds
// and what DecodePresentation gives back.
class AskingPolicy final : public Policy {
 public:
  absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest& request, const RunView&) override {
    return NeedApproval("send_mail", "mail leaves the company", R"({"to": ["alice"], "max": 1})",
                        R"({ "summary": "send 1 mail to alice", "body": "hi" })");
  }
};

TEST_F(ApprovalsTest, NeedApprovalPausesAndBindsWhatWasShown) {
  policy_ = std::make_unique<AskingPolicy>();
  ASSERT_EQ(Drive({Post("alice")})->status, RunStatus::kWaitingForApproval);
  Approval pending = Only();
  EXPECT_EQ(pending.kind, "send_mail");
  EXPECT_EQ(pending.capability, R"({"max":1,"to":["alice"]})");
  EXPECT_EQ(pending.presentation, R"({"body":"hi","summary":"send 1 mail to alice"})");
  EXPECT_EQ(pending.hash,
            ApprovalHash(pending.kind, pending.capability, pending.presentation, pending.request));
  absl::StatusOr<json::Document> shown = DecodePresentation(pending);
  ASSERT_OK(shown);
  EXPECT_EQ(shown->root().Find("summary")->string_value(), "send 1 mail to alice");
}

TEST(NeedApprovalTest, RefusesValuesThatAreNotJson) {
  absl::StatusOr<PolicyDecision> empty = NeedApproval("k", "r", "", " ");
  ASSERT_OK(empty);
  EXPECT_EQ(empty->capability, "{}");
  EXPECT_EQ(empty->presentation, "{}");
  absl::StatusOr<PolicyDecision> bad = NeedApproval("k", "r", "{}", R"({"a":1,"a":2})");
  EXPECT_TRUE(absl::IsInvalidArgument(bad.status()));
  EXPECT_THAT(bad.status().message(), HasSubstr("approval presentation: "));
  EXPECT_THAT(NeedApproval("k", "r", "{", "{}").status().message(),
              HasSubstr("approval capability: "));
}

TEST(NeedApprovalTest, DecodePresentationReportsWhatIsWrong) {
  Approval a;
  a.id = "ap-1";
  EXPECT_THAT(DecodePresentation(a).status().message(), HasSubstr("ap-1 has no presentation"));
  a.presentation = "{not json";
  EXPECT_THAT(DecodePresentation(a).status().message(),
              HasSubstr("ap-1: presentation is not JSON"));
}

// A decision on an expired approval is ErrApprovalExpired, which also
// matches ErrNotPending; a decided approval and a run in the wrong state are told apart from it
// by the error, never by its words.
TEST_F(ApprovalsTest, DecisionOnAnExpiredApprovalIsExpiredAndAlsoNotPending) {
  Limits limits;
  limits.approval_ttl = absl::Minutes(1);
  ASSERT_OK(Drive({Post("alice")}, "", limits));
  clock_.Advance(absl::Minutes(2));
  absl::Status late = Approve(*store_, clock_, "run-1", Only().id, Decider{"ops", ""}).status();
  EXPECT_EQ(late.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(IsApprovalExpiredError(late));
  EXPECT_TRUE(IsNotPendingError(late));
  EXPECT_FALSE(IsRunStateError(late));
  // The run is cancelled now: deciding again is a run-state refusal, not an expiry.
  absl::Status again = Reject(*store_, clock_, "run-1", Only().id, Decider{"ops", ""}).status();
  EXPECT_TRUE(IsRunStateError(again));
  EXPECT_FALSE(IsNotPendingError(again));
  EXPECT_TRUE(IsRunStateError(Cancel(*store_, clock_, "run-1", Decider{"ops", ""})));
}

TEST_F(ApprovalsTest, DecisionOnADecidedApprovalIsNotPendingButNotExpired) {
  ASSERT_OK(Drive({Post("alice")}));
  ASSERT_OK(Approve(*store_, clock_, "run-1", Only().id, Decider{"ops", ""}));
  absl::Status twice = Approve(*store_, clock_, "run-1", Only().id, Decider{"ops", ""}).status();
  EXPECT_THAT(twice.message(), HasSubstr("is already approved"));
  EXPECT_TRUE(IsNotPendingError(twice));
  EXPECT_FALSE(IsApprovalExpiredError(twice));
  EXPECT_FALSE(IsRunStateError(twice));
}

}  // namespace
}  // namespace agentrt
