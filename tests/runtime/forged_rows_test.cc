// A database edited by someone with write access: rows rewritten so that they no longer say what
// the chain recorded. Deciding and resuming refuse such a row before anything is decided or run
// (runtime/engine/chain_check.h), and AuditRows reports every one (runtime/row_audit.h).
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/approvals.h"
#include "runtime/records/run_reader.h"
#include "runtime/row_audit.h"
#include "tests/runtime/approval_story.h"
#include "tests/support/status_matchers.h"
#include "tests/support/tamper.h"

namespace agentrt {

void PrintTo(const RowContradiction& c, std::ostream* os) {
  *os << "run " << c.run_id << ", " << c.row << ": " << c.detail;
}

namespace {

using ::agentrt::scripted::Complete;
using ::agentrt::testing::ApprovalStory;
using ::agentrt::testing::Post;
using ::testing::Field;

class ForgedRowsTest : public ApprovalStory {
 protected:
  // Plants `what` with one raw statement (tests/support/tamper.h).
  void Plant(std::string_view what, const std::string& sql) {
    ASSERT_OK(test_support::Tamper(*store_, what, sql));
  }

  // The forgery of the report: the approval's arguments rewritten, and its hash recomputed with
  // the public formula so that the row verifies over its own fields.
  void ForgeArguments(const Approval& a, const std::string& from, const std::string& to) {
    std::string request = absl::StrReplaceAll(a.request, {{from, to}});
    ASSERT_NE(request, a.request);
    std::string hash = ApprovalHash(a.kind, a.capability, a.presentation, request);
    Plant("the approval's arguments rewritten, its hash recomputed",
          absl::StrCat("UPDATE approvals SET request_json = '", request, "', hash = '", hash,
                       "' WHERE id = '", a.id, "'"));
    Approval forged = Only();
    ASSERT_OK(VerifyApprovalHash(forged));  // the row alone cannot tell
  }

  RowAudit Audit() {
    absl::StatusOr<RowAudit> audit = AuditRows(*store_);
    EXPECT_OK(audit);
    return audit.ok() ? *audit : RowAudit{};
  }
};

auto Contradiction(std::string row, std::string detail) {
  return AllOf(Field(&RowContradiction::row, HasSubstr(row)),
               Field(&RowContradiction::detail, HasSubstr(detail)));
}

TEST_F(ForgedRowsTest, AnApprovedGrantWithForgedArgumentsAndARecomputedHashDoesNotRun) {
  ASSERT_EQ(Drive({Post("alice")})->status, RunStatus::kWaitingForApproval);
  ASSERT_OK(Approve(*store_, clock_, "run-1", Only().id, Decider{"ops", ""}));
  ForgeArguments(Only(), "alice", "mallory");

  absl::StatusOr<agentrt::Run> run = Drive({Complete()}, "run-1");
  ASSERT_THAT(run, StatusIs(absl::StatusCode::kDataLoss,
                            AllOf(HasSubstr("does not match the audit chain"),
                                  HasSubstr("is not the one approval.requested recorded"),
                                  HasSubstr("nothing was run"))));
  EXPECT_TRUE(IsApprovalHashError(run.status()));
  EXPECT_TRUE(post_.calls.empty());
  EXPECT_EQ(ReadRun(*store_, "run-1")->status, RunStatus::kWaitingForApproval);
  EXPECT_THAT(Audit().first,
              ElementsAre(Contradiction("approval", "is not the one approval.requested recorded")));
}

TEST_F(ForgedRowsTest, APendingApprovalWithForgedArgumentsCannotBeApprovedOrRejected) {
  ASSERT_EQ(Drive({Post("alice")})->status, RunStatus::kWaitingForApproval);
  ForgeArguments(Only(), "alice", "mallory");
  std::size_t events = store_->ListEvents("run-1")->size();
  for (bool approve : {true, false}) {
    SCOPED_TRACE(approve);
    absl::StatusOr<Approval> decided =
        approve ? Approve(*store_, clock_, "run-1", Only().id, Decider{"ops", ""})
                : Reject(*store_, clock_, "run-1", Only().id, Decider{"ops", ""});
    ASSERT_THAT(
        decided,
        StatusIs(absl::StatusCode::kDataLoss,
                 AllOf(HasSubstr("approval " + Only().id + " does not match the audit chain"),
                       HasSubstr("nothing was decided"))));
    EXPECT_TRUE(IsApprovalHashError(decided.status()));
  }
  EXPECT_EQ(Only().status, ApprovalStatus::kPending);
  EXPECT_EQ(store_->ListEvents("run-1")->size(), events);  // nothing was recorded either
}

TEST_F(ForgedRowsTest, APendingApprovalMarkedApprovedInTheDatabaseGrantsNothing) {
  ASSERT_EQ(Drive({Post("alice")})->status, RunStatus::kWaitingForApproval);
  Plant("the pending approval marked approved",
        "UPDATE approvals SET status = 'approved', decided_by = 'ops', "
        "decided_at = '2027-01-15T08:00:00.000000000Z'");
  absl::StatusOr<agentrt::Run> run = Drive({Complete()}, "run-1");
  ASSERT_THAT(run, StatusIs(absl::StatusCode::kDataLoss,
                            HasSubstr(R"(it is "approved", but the chain recorded it "pending")")));
  EXPECT_TRUE(IsApprovalHashError(run.status()));
  EXPECT_TRUE(post_.calls.empty());
}

TEST_F(ForgedRowsTest, AnEndedRunEditedBackToWaitingIsNotResumed) {
  ASSERT_EQ(Drive({Post("alice")})->status, RunStatus::kWaitingForApproval);
  ASSERT_OK(Reject(*store_, clock_, "run-1", Only().id, Decider{"ops", "no"}));
  Plant("the cancelled run back to waiting",
        "UPDATE runs SET status = 'WAITING_FOR_APPROVAL', reason = '', finished_at = ''");
  Plant("its step back to awaiting", "UPDATE steps SET status = 'awaiting_approval'");
  Plant("the rejected approval marked approved", "UPDATE approvals SET status = 'approved'");
  absl::StatusOr<agentrt::Run> run = Drive({Complete()}, "run-1");
  ASSERT_THAT(run, StatusIs(absl::StatusCode::kDataLoss,
                            AllOf(HasSubstr("run run-1 does not match the audit chain"),
                                  HasSubstr("but the chain recorded it finished \"CANCELLED\""))));
  EXPECT_TRUE(post_.calls.empty());
}

TEST_F(ForgedRowsTest, AnInterruptedCallWhoseDecisionWasRewrittenIsNotPutToTheOperator) {
  ASSERT_OK(Drive({Post("alice")}));
  // The process died while posting (approvals_test.cc's CrashWhilePosting), and the step's
  // decision was then rewritten: the operator would be asked to run mallory's post again.
  Plant("no approval", "DELETE FROM approvals");
  Plant("the step executing", "UPDATE steps SET status = 'executing', policy_json = ''");
  Plant("the run left running by a dead owner",
        "UPDATE runs SET status = 'RUNNING', lease_owner = 'dead/1', "
        "lease_expires_at = '2000-01-01T00:00:00.000000000Z'");
  Plant("the step's decision rewritten",
        "UPDATE steps SET decision_json = replace(decision_json, 'alice', 'mallory')");
  absl::StatusOr<agentrt::Run> run = Drive({Complete()}, "run-1");
  ASSERT_THAT(run, StatusIs(absl::StatusCode::kDataLoss,
                            AllOf(HasSubstr("step 0 of run run-1 does not match the audit chain"),
                                  HasSubstr("differs from the one step.decided recorded"),
                                  HasSubstr("nothing was resumed"))));
  EXPECT_THAT(*ListApprovals(*store_, "run-1"), IsEmpty());
}

TEST_F(ForgedRowsTest, ALongerGrantOrMoreStepsWrittenIntoTheLimitsAreRefusedOnResume) {
  Limits limits;
  limits.grant_ttl = absl::Minutes(5);
  ASSERT_EQ(Drive({Post("alice")}, "", limits)->status, RunStatus::kWaitingForApproval);
  ASSERT_OK(Approve(*store_, clock_, "run-1", Only().id, Decider{"ops", ""}));
  Plant("a longer grant TTL written into the limits",
        "UPDATE runs SET limits_json = replace(limits_json, '\"grant_ttl\":300000000000', "
        "'\"grant_ttl\":300000000000000')");
  absl::StatusOr<agentrt::Run> run = Drive({Complete()}, "run-1");
  ASSERT_THAT(run, StatusIs(absl::StatusCode::kDataLoss,
                            HasSubstr("differ from the ones run.created recorded")));
  EXPECT_TRUE(post_.calls.empty());
}

TEST_F(ForgedRowsTest, AnIntactDatabaseAgreesWithItsChainThroughEveryKindOfEnd) {
  Limits limits;
  limits.approval_ttl = absl::Minutes(1);
  // Approved and resumed to the end; rejected; expired; still pending.
  ASSERT_OK(Drive({Post("alice")}));
  ASSERT_OK(Approve(*store_, clock_, "run-1", Only().id, Decider{"ops", "fine"}));
  ASSERT_EQ(Drive({Complete()}, "run-1")->status, RunStatus::kCompleted);
  auto start = [&](std::string id, Limits l) { return Drive({Post("bob")}, "", l, id); };
  ASSERT_OK(start("run-2", {}));
  ASSERT_OK(Reject(*store_, clock_, "run-2", PendingApproval(*store_, "run-2")->id,
                   Decider{"ops", "no"}));
  ASSERT_OK(start("run-3", limits));
  std::string expiring = PendingApproval(*store_, "run-3")->id;
  clock_.Advance(absl::Minutes(2));
  ASSERT_TRUE(IsApprovalExpiredError(
      Approve(*store_, clock_, "run-3", expiring, Decider{"ops", ""}).status()));
  ASSERT_OK(start("run-4", limits));
  ASSERT_OK(Cancel(*store_, clock_, "run-4", Decider{"ops", "enough"}));
  ASSERT_OK(start("run-5", limits));

  RowAudit audit = Audit();
  EXPECT_THAT(audit.first, IsEmpty());
  EXPECT_EQ(audit.contradictions, 0);
  EXPECT_EQ(audit.runs, 5);
  EXPECT_EQ(audit.approvals, 5);
  EXPECT_GE(audit.steps, 6);
}

TEST_F(ForgedRowsTest, TheAuditReportsEveryKindOfRowThatContradictsItsChain) {
  struct Row {
    std::string name;
    std::vector<std::string> sql;
    std::string row;
    std::string detail;
  };
  const std::vector<Row> rows = {
      {"goal", {"UPDATE runs SET goal = 'delete every backup'"}, "run", "its goal differs"},
      {"status outside the vocabulary",
       {"UPDATE runs SET status = 'BOGUS'"},
       "run",
       "its status \"BOGUS\" is not a run status"},
      {"ended without run.finished",
       {"UPDATE runs SET status = 'COMPLETED'"},
       "run",
       "the chain holds no run.finished"},
      {"step decision", {"UPDATE steps SET decision_json = '{}'"}, "step 0", "its decision"},
      {"step status", {"UPDATE steps SET status = 'paused'"}, "step 0", "is not a step status"},
      {"approval marked approved",
       {"UPDATE approvals SET status = 'approved'"},
       "approval",
       "but the chain recorded it \"pending\""},
      {"approval expiry moved",
       {"UPDATE approvals SET expires_at = '2099-01-01T00:00:00.000000000Z'"},
       "approval",
       "its expiry"},
      {"approval deleted",
       {"DELETE FROM approvals"},
       "approval",
       "the chain recorded approval.requested for it, but it has no row"},
      {"approval row edited without its hash",
       {"UPDATE approvals SET kind = 'rubber_stamp'"},
       "approval",
       "its hash does not match its own request"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    SetUp();
    ASSERT_EQ(Drive({Post("alice")})->status, RunStatus::kWaitingForApproval);
    ASSERT_EQ(Audit().contradictions, 0);
    for (const std::string& sql : row.sql) Plant(row.name, sql);
    RowAudit audit = Audit();
    EXPECT_EQ(audit.contradictions, 1);
    EXPECT_THAT(audit.first, ElementsAre(Contradiction(row.row, row.detail)));
  }
}

}  // namespace
}  // namespace agentrt
