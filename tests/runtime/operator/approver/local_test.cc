// The approval channel over a local database (runtime/operator/approver/local.h): typed errors,
// expiry by the channel's own clock, bounded reads, and opening only a database that already is
// one.
#include "runtime/operator/approver/local.h"

#include <sqlite3.h>

#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/operator/approver/errors.h"
#include "runtime/records/run_reader.h"
#include "tests/runtime/operator/approver/paused_run.h"
#include "tests/support/status_matchers.h"

namespace agentrt::approver {
namespace {

using testing::kStart;
using testing::PausedRunTest;
using testing::PostTo;

class LocalTest : public PausedRunTest {
 protected:
  Decision DecisionFor(const Approval& a, std::string by = "ops") {
    return Decision{a.run_id, a.id, a.hash, std::move(by), "fine"};
  }
};

TEST_F(LocalTest, ReturnsTypedErrors) {
  Start("run-1");
  Approval a = Only("run-1");
  Local local(*store_, clock_);
  struct Row {
    std::string name;
    Decision decision;
    ErrorKind kind;
  };
  Decision no_run = DecisionFor(a);
  no_run.run_id = "";
  Decision no_approval = DecisionFor(a);
  no_approval.approval_id = "";
  Decision no_by = DecisionFor(a, "");
  Decision no_hash = DecisionFor(a);
  no_hash.hash = "";
  Decision stale_hash = DecisionFor(a);
  stale_hash.hash = std::string(64, '0');
  Decision other_approval = DecisionFor(a);
  other_approval.approval_id = "nope";
  Decision other_run = DecisionFor(a);
  other_run.run_id = "run-9";
  Row rows[] = {
      {"no run", no_run, ErrorKind::kDecision},
      {"no approval", no_approval, ErrorKind::kDecision},
      {"no decider", no_by, ErrorKind::kDecision},
      {"no hash shown", no_hash, ErrorKind::kApprovalChanged},
      {"another hash shown", stale_hash, ErrorKind::kApprovalChanged},
      {"unknown approval", other_approval, ErrorKind::kNotFound},
      {"unknown run", other_run, ErrorKind::kNotFound},
  };
  std::size_t events = EventCount();
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    for (bool approve : {true, false}) {
      absl::Status status = approve ? local.Approve(row.decision) : local.Reject(row.decision);
      EXPECT_EQ(KindOf(status), row.kind) << status;
    }
  }
  EXPECT_EQ(EventCount(), events);  // nothing was decided
  EXPECT_EQ(Only("run-1").status, ApprovalStatus::kPending);

  ASSERT_OK(local.Approve(DecisionFor(a)));
  absl::Status twice = local.Approve(DecisionFor(a));
  EXPECT_EQ(KindOf(twice), ErrorKind::kNotPending) << twice;
  EXPECT_TRUE(Matches(twice, ErrorKind::kNotPending));
  EXPECT_FALSE(Matches(twice, ErrorKind::kExpired));

  // A row rewritten without its hash: refused by the hash, not taken for a changed approval.
  Start("run-2");
  Approval b = Only("run-2");
  RewriteRequest(b, R"("to":"alice")", R"("to":"mallory")", /*rehash=*/false);
  EXPECT_EQ(KindOf(local.Approve(DecisionFor(b))), ErrorKind::kApprovalHash);

  EXPECT_EQ(KindOf(local.Cancel("run-2", "", "")), ErrorKind::kDecision);
  EXPECT_EQ(KindOf(local.Cancel("", "ops", "")), ErrorKind::kDecision);
  EXPECT_EQ(KindOf(local.Cancel("run-9", "ops", "")), ErrorKind::kNotFound);
  ASSERT_OK(local.Cancel("run-2", "ops", "enough"));
  EXPECT_EQ(KindOf(local.Cancel("run-2", "ops", "")), ErrorKind::kRunState);
  EXPECT_EQ(KindOf(local.Approve(DecisionFor(b))), ErrorKind::kRunState);
}

TEST_F(LocalTest, ExpiredWrapsNotPendingAndCancelsRun) {
  Limits limits;
  limits.approval_ttl = absl::Minutes(1);
  Start("run-1", {PostTo(R"("alice")")}, limits);
  Approval a = Only("run-1");
  Local local(*store_, clock_);
  clock_.Advance(absl::Minutes(2));

  // Showing reports the expiry and writes nothing.
  std::size_t events = EventCount();
  absl::StatusOr<Pending> shown = local.Show("run-1", a.id);
  ASSERT_OK(shown);
  EXPECT_TRUE(shown->expired);
  EXPECT_EQ(EventCount(), events);
  EXPECT_EQ(ReadRun(*store_, "run-1")->status, RunStatus::kWaitingForApproval);

  // Deciding runs the runtime's expiry: the run is cancelled.
  absl::Status late = local.Approve(DecisionFor(a));
  EXPECT_EQ(KindOf(late), ErrorKind::kExpired) << late;
  EXPECT_TRUE(Matches(late, ErrorKind::kNotPending));
  EXPECT_EQ(late.code(), absl::StatusCode::kFailedPrecondition);
  agentrt::Run run = *ReadRun(*store_, "run-1");
  EXPECT_EQ(run.status, RunStatus::kCancelled);
  EXPECT_EQ(run.reason, "approval_expired");
  EXPECT_EQ(Only("run-1").status, ApprovalStatus::kExpired);
}

// An operator decides on the clock it was given.
TEST_F(LocalTest, ItsOwnClockDecidesExpiry) {
  Limits limits;
  limits.approval_ttl = absl::Minutes(1);
  Start("run-1", {PostTo(R"("alice")")}, limits);
  Start("run-2", {PostTo(R"("bob")")}, limits);
  world::ManualClock early(kStart + absl::Seconds(30));
  world::ManualClock late(kStart + absl::Minutes(2));
  Local on_time(*store_, early);
  Local too_late(*store_, late);

  EXPECT_TRUE(too_late.Show("run-1", Only("run-1").id)->expired);
  EXPECT_FALSE(on_time.Show("run-1", Only("run-1").id)->expired);
  Approval a = Only("run-1");
  ASSERT_OK(on_time.Approve(DecisionFor(a)));
  EXPECT_EQ(Only("run-1").status, ApprovalStatus::kApproved);

  Approval b = Only("run-2");
  EXPECT_EQ(KindOf(too_late.Approve(DecisionFor(b))), ErrorKind::kExpired);
  EXPECT_EQ(Only("run-2").status, ApprovalStatus::kExpired);
  EXPECT_EQ(Only("run-2").decided_at, late.Now());
}

TEST_F(LocalTest, ListsAWaitingRunsPendingApprovalsWithThePolicysReason) {
  Start("run-1");
  Local local(*store_, clock_);
  absl::StatusOr<std::vector<Pending>> pending = local.ListPending("run-1", 20);
  ASSERT_OK(pending);
  ASSERT_THAT(*pending, SizeIs(1));
  EXPECT_EQ((*pending)[0].approval.id, Only("run-1").id);
  EXPECT_EQ((*pending)[0].approval.hash, Only("run-1").hash);
  EXPECT_EQ((*pending)[0].reason, "side effect remote_mutation is require_approval by policy");
  EXPECT_FALSE((*pending)[0].expired);

  EXPECT_EQ(KindOf(local.ListPending("run-9", 20).status()), ErrorKind::kNotFound);
  EXPECT_EQ(KindOf(local.ListPending("run-1", 0).status()), ErrorKind::kDecision);
  ASSERT_OK(local.Reject(DecisionFor(Only("run-1"))));
  EXPECT_THAT(*local.ListPending("run-1", 20), IsEmpty());  // not waiting: nothing pending
  // Show still shows it, decided.
  EXPECT_EQ(local.Show("run-1", Only("run-1").id)->approval.status, ApprovalStatus::kRejected);
}

// The reason shown with an approval is the one the policy gave when it paused for it, even after
// a resume asked the policy again and it paused once more with another reason (the step's
// policy now holds that later evaluation).
TEST_F(LocalTest, AnApprovalsReasonIsThePausingPolicysAfterAResumeTimeDecision) {
  class Changing final : public Policy {
   public:
    absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest&, const RunView&) override {
      return NeedApproval("payment", reason, R"({"limit":)" + limit + "}", "{}");
    }
    std::string reason = "a person looks at every payment";
    std::string limit = "100";
  };
  auto changing = std::make_unique<Changing>();
  Changing& policy = *changing;
  policy_ = std::move(changing);
  Start("run-1");
  Local local(*store_, clock_);
  Approval first = Only("run-1");
  ASSERT_OK(local.Approve(DecisionFor(first)));
  policy.reason = "the limit changed";
  policy.limit = "200";
  ASSERT_EQ(Resume("run-1", {scripted::Complete()})->status, RunStatus::kWaitingForApproval);
  std::vector<Approval> approvals = *ListApprovals(*store_, "run-1");
  ASSERT_THAT(approvals, SizeIs(2));
  EXPECT_EQ(local.Show("run-1", approvals[0].id)->reason, "a person looks at every payment");
  EXPECT_EQ(local.Show("run-1", approvals[1].id)->reason, "the limit changed");
  absl::StatusOr<std::vector<Pending>> pending = local.ListPending("run-1", 20);
  ASSERT_THAT(*pending, SizeIs(1));
  EXPECT_EQ((*pending)[0].reason, "the limit changed");
}

TEST_F(LocalTest, PendingIsBoundedButKeepsTheHash) {
  std::string big(5000, 'x');
  Start("run-1", {PostTo("\"" + big + "\"")});
  Local local(*store_, clock_);
  Approval stored = Only("run-1");
  absl::StatusOr<Pending> shown = local.Show("run-1", stored.id);
  ASSERT_OK(shown);
  EXPECT_THAT(shown->approval.request, HasSubstr("bytes omitted"));
  EXPECT_LT(shown->approval.request.size(), stored.request.size());
  EXPECT_EQ(shown->approval.hash, stored.hash);
  // The bounded form is only for showing: deciding with its hash decides the stored approval.
  ASSERT_OK(local.Approve(Decision{"run-1", stored.id, shown->approval.hash, "ops", ""}));
}

TEST_F(LocalTest, RunReadsTheRunWithoutTheStore) {
  std::string goal(5000, 'g');
  Start("run-1", {PostTo(R"("alice")")}, {}, goal);
  auto local = Local::Open(path_, clock_);
  ASSERT_OK(local);
  RunReader& reader = **local;
  ASSERT_OK((*local)->Cancel("run-1", "ops", std::string(3000, 'n')));
  absl::StatusOr<agentrt::Run> run = reader.ReadRun("run-1");
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kCancelled);
  EXPECT_THAT(run->goal, HasSubstr("…[4600 bytes omitted]…"));
  EXPECT_THAT(run->reason_detail, HasSubstr("…[2600 bytes omitted]…"));
  EXPECT_EQ(KindOf(reader.ReadRun("run-9").status()), ErrorKind::kNotFound);
}

TEST_F(LocalTest, OpenUsesOpenExistingAndItsObserverSeesTheDecision) {
  Start("run-1");
  std::vector<std::string> seen;
  auto local = Local::Open(path_, clock_, [&](const store::Event& e) { seen.push_back(e.type); });
  ASSERT_OK(local);
  Approval a = Only("run-1");
  ASSERT_OK((*local)->Approve(DecisionFor(a)));
  EXPECT_THAT(seen, ::testing::ElementsAre("approval.decided"));
  EXPECT_EQ(Only("run-1").status, ApprovalStatus::kApproved);  // written to the file
}

TEST_F(LocalTest, OpenRefusesADatabaseWithoutTheSchema) {
  if (test_support::OnTestServer()) GTEST_SKIP() << "files of every kind, planted with SQLite";
  store_.reset();
  auto sql = [](const std::string& path, const char* statement) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, statement, nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  };
  auto tables = [](const std::string& path) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM sqlite_master", -1, &stmt, nullptr);
    sqlite3_step(stmt);
    int n = sqlite3_column_int(stmt, 0);
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return n;
  };

  std::string missing = (dir_ / "missing.db").string();
  absl::Status status = Local::Open(missing, clock_).status();
  EXPECT_THAT(status.message(), HasSubstr("does not exist"));
  EXPECT_FALSE(std::filesystem::exists(missing));  // never created

  std::string empty = (dir_ / "empty.db").string();
  std::ofstream(empty).close();
  std::filesystem::permissions(
      empty, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  status = Local::Open(empty, clock_).status();
  EXPECT_THAT(status.message(), HasSubstr("schema version 0"));
  EXPECT_EQ(tables(empty), 0);  // never migrated

  std::string foreign = (dir_ / "foreign.db").string();
  sql(foreign, "CREATE TABLE notes (body TEXT)");
  std::filesystem::permissions(
      foreign, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  status = Local::Open(foreign, clock_).status();
  EXPECT_THAT(status.message(), HasSubstr("is not an agentrt database"));
  EXPECT_EQ(tables(foreign), 1);

  sql(path_, "INSERT INTO schema_migrations (version, applied_at) VALUES (999, '')");
  status = Local::Open(path_, clock_).status();
  EXPECT_THAT(status.message(), HasSubstr("is at schema version 999"));
}

}  // namespace
}  // namespace agentrt::approver
