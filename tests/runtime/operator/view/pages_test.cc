// Read models for operator surfaces (runtime/operator/view/summary.h, pages.h) and the
// pending-approval selection rule (runtime/approvals.h), over real runs in a database file.
#include "runtime/operator/view/pages.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/approvals.h"
#include "runtime/driver.h"
#include "runtime/json/intake.h"
#include "runtime/operator/view/approval_json.h"
#include "runtime/operator/view/bound.h"
#include "runtime/operator/view/summary.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "tests/support/status_matchers.h"
#include "tests/support/tamper.h"
#include "tests/support/test_folder.h"

namespace agentrt::view {
namespace {

class NamedTool : public Tool {
 public:
  NamedTool(std::string name, SideEffect side_effect) : name_(name), side_effect_(side_effect) {}
  ToolSpec Spec() const override {
    return ToolSpec{name_,
                    "A tool.",
                    R"({"type":"object","properties":{"to":{"type":"string"}}})",
                    side_effect_,
                    absl::Seconds(5),
                    false};
  }
  absl::StatusOr<ToolResult> Call(const ToolCall&) override {
    return ToolResult{R"({"ok":true})", name_ + " done"};
  }

 private:
  std::string name_;
  SideEffect side_effect_;
};

Decision Call(std::string tool, std::string to = "alice") {
  return scripted::Call(std::move(tool), R"({"to":")" + to + R"("})");
}
using ::agentrt::scripted::Complete;

class ViewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = test_support::TestFile("audit.db");
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + suffix);
    store_ = *records::OpenStore(path_, clock_);
  }

  // Starts run `id` with `script` (a minute after the previous one) or resumes it.
  agentrt::Run Drive(std::string id, std::vector<Decision> script, bool resume = false) {
    clock_.Advance(absl::Minutes(1));
    ScriptedAgent agent(std::move(script));
    DriverOptions options;
    options.agent = &agent;
    options.policy = policy_.get();
    options.tools = {&post_, &read_, &wipe_};
    options.scheduler = &lease_clock_;
    auto driver = Driver::Create(*store_, clock_, entropy_, options);
    EXPECT_OK(driver);
    absl::StatusOr<agentrt::Run> run =
        resume ? (*driver)->Resume(id) : (*driver)->StartWithId(id, "goal of " + id);
    EXPECT_OK(run);
    return *run;
  }

  // Adds a second pending approval to a waiting run, as a re-pause would leave one.
  void AddPendingApproval(const std::string& run, const std::string& id) {
    ASSERT_OK(test_support::Tamper(
        *store_, "a second pending approval",
        "INSERT INTO approvals (id, run_key, step_id, kind, "
        "capability_json, presentation_json, request_json, hash, "
        "status, created_at) SELECT ?1, run_key, step_id, kind, "
        "capability_json, presentation_json, request_json, hash, "
        "'pending', created_at FROM approvals WHERE run_key = (SELECT run_key FROM runs "
        "WHERE id = ?2) LIMIT 1",
        {std::string_view(id), std::string_view(run)}));
  }

  // Plants `what` with one raw statement (tests/support/tamper.h).
  void Plant(std::string_view what, std::string_view sql) {
    ASSERT_OK(test_support::Tamper(*store_, what, sql));
  }

  world::ManualClock clock_{absl::FromUnixSeconds(1'800'000'000)};
  world::ManualClock lease_clock_{absl::FromUnixSeconds(1'800'000'000)};
  world::SeededEntropy entropy_{7};
  std::string path_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<Policy> policy_ = DefaultPolicy();
  NamedTool post_{"post", SideEffect::kRemoteMutation};
  NamedTool read_{"read", SideEffect::kReadOnly};
  NamedTool wipe_{"wipe", SideEffect::kDestructive};
};

TEST_F(ViewTest, Runs_SummariesCarryTheWaitingApproval) {
  Drive("done", {Call("read"), Complete()});
  agentrt::Run one = Drive("one", {Call("post")});
  agentrt::Run two = Drive("two", {Call("post")});
  AddPendingApproval("two", "second");
  ASSERT_EQ(one.status, RunStatus::kWaitingForApproval);
  Plant("the run's model totals",
        "UPDATE runs SET model_calls = 3, input_tokens = 1200, output_tokens = 80, "
        "estimated_cost_micros = 4321 WHERE id = 'one'");

  absl::StatusOr<RunsPageResult> page = RunsPage(*store_, 10, 0);
  ASSERT_OK(page);
  EXPECT_EQ(page->total, 3);
  ASSERT_THAT(page->runs, SizeIs(3));
  // Newest first.
  EXPECT_EQ(page->runs[0].id, "two");
  EXPECT_EQ(page->runs[1].id, "one");
  EXPECT_EQ(page->runs[2].id, "done");
  // Exactly one pending approval: named. Two: the operator must choose, so none is named.
  std::string only = ListApprovals(*store_, "one")->at(0).id;
  EXPECT_EQ(page->runs[1].pending_approval_id, only);
  EXPECT_EQ(page->runs[0].pending_approval_id, "");
  EXPECT_EQ(page->runs[2].pending_approval_id, "");
  // Model totals travel with the summary.
  EXPECT_EQ(page->runs[1].model_calls, 3);
  EXPECT_EQ(ToJson(page->runs[1]),
            R"({"created_at":"2027-01-15T08:02:00.000000000Z","estimated_cost_micros":4321,)"
            R"("goal":"goal of one","id":"one","model_calls":3,"pending_approval_id":")" +
                only +
                R"(","status":"WAITING_FOR_APPROVAL","steps":1,)"
                R"("usage":{"input_tokens":1200,"output_tokens":80}})");
  EXPECT_EQ(ToJson(page->runs[2]),
            R"({"created_at":"2027-01-15T08:01:00.000000000Z",)"
            R"("finished_at":"2027-01-15T08:01:00.000000000Z","goal":"goal of done","id":"done",)"
            R"("reason":"goal_completed","status":"COMPLETED","steps":2})");
  // The page's one query for pending approvals agrees with each run's own summary.
  for (const RunSummary& listed : page->runs) {
    SCOPED_TRACE(listed.id);
    absl::StatusOr<RunSummary> summary = Summary(*store_, *ReadRun(*store_, listed.id));
    ASSERT_OK(summary);
    EXPECT_EQ(ToJson(*summary), ToJson(listed));
  }
}

TEST_F(ViewTest, Summary_TerminalRunHasNoPendingApproval) {
  Drive("r", {Call("post")});
  world::ManualClock operator_clock(absl::FromUnixSeconds(1'800'001'000));
  ASSERT_OK(Cancel(*store_, operator_clock, "r", Decider{"ops", "stop"}));
  // Cancel leaves the approval pending, but a cancelled run waits for nothing.
  ASSERT_EQ(ListApprovals(*store_, "r")->at(0).status, ApprovalStatus::kPending);
  absl::StatusOr<RunSummary> summary = Summary(*store_, *ReadRun(*store_, "r"));
  ASSERT_OK(summary);
  EXPECT_EQ(summary->status, RunStatus::kCancelled);
  EXPECT_EQ(summary->pending_approval_id, "");
  EXPECT_EQ(summary->reason, "operator_cancelled");
  EXPECT_EQ(summary->reason_detail, "stop");
  EXPECT_EQ(RunsPage(*store_, 5, 0)->runs[0].pending_approval_id, "");
  absl::StatusOr<RunDetailPage> detail = DetailPage(*store_, "r", 5, 0);
  ASSERT_OK(detail);
  EXPECT_FALSE(detail->waiting.has_value());
  EXPECT_EQ(detail->pending_total, 1);
}

TEST_F(ViewTest, Steps_SummarizeDecisionPolicyAndObservation) {
  Drive("r", {Call("read"), Call("wipe"), Call("post")});
  std::string approval = ListApprovals(*store_, "r")->at(0).id;
  ASSERT_OK(Approve(*store_, clock_, "r", approval, Decider{"ops"}));
  Drive("r", {Complete()}, /*resume=*/true);

  absl::StatusOr<StepsPageResult> page = StepsPage(*store_, "r", 10, 0);
  ASSERT_OK(page);
  EXPECT_EQ(page->total, 4);
  ASSERT_THAT(page->steps, SizeIs(4));
  auto json = [&](int i) { return ToJson(page->steps[i]); };
  auto prefix = [&](int i) {
    return R"({"decision":"tool_call","id":")" + page->steps[i].id + R"(","index":)" +
           std::to_string(i) + ",";
  };
  EXPECT_EQ(json(0), prefix(0) + R"("observation":"tool_result","policy":"allow",)"
                                 R"("status":"done","summary":"read done","tool":"read"})");
  // The denied step: its decision, its failure and why. (Which policy outcome the step row
  // holds is the driver's to record; the summary shows whatever it holds.)
  const StepSummary& denied = page->steps[1];
  EXPECT_EQ(denied.decision, "tool_call");
  EXPECT_EQ(denied.tool, "wipe");
  EXPECT_EQ(denied.status, StepStatus::kFailed);
  EXPECT_EQ(denied.observation, "policy_denied");
  EXPECT_EQ(denied.summary, "denied: side effect destructive is deny by policy");
  // The approved step: the policy asked again on resume still requires the approval it was
  // granted, and the call ran.
  EXPECT_EQ(json(2), prefix(2) + R"("observation":"tool_result","policy":"require_approval",)"
                                 R"("status":"done","summary":"post done","tool":"post"})");
  EXPECT_EQ(json(3), R"({"decision":"complete","id":")" + page->steps[3].id +
                         R"(","index":3,"status":"done"})");
  // A page of it.
  absl::StatusOr<StepsPageResult> second = StepsPage(*store_, "r", 2, 1);
  ASSERT_OK(second);
  EXPECT_EQ(second->total, 4);
  ASSERT_THAT(second->steps, SizeIs(2));
  EXPECT_EQ(second->steps[0].index, 1);
  EXPECT_EQ(second->steps[1].index, 2);
}

TEST_F(ViewTest, PendingApproval_SelectionRule) {
  Drive("r", {Call("post")});
  Drive("other", {Call("post")});
  std::string first = ListApprovals(*store_, "r")->at(0).id;
  std::string elsewhere = ListApprovals(*store_, "other")->at(0).id;
  struct Row {
    std::string name;
    std::string named;
    std::function<void()> before;
    absl::StatusCode code;
    std::string expect;  // the id chosen, or a part of the error
  };
  std::vector<Row> rows = {
      {"exactly one, unnamed: that one", "", [] {}, absl::StatusCode::kOk, first},
      {"named and pending: that one", first, [] {}, absl::StatusCode::kOk, first},
      {"named, another run's", elsewhere, [] {}, absl::StatusCode::kNotFound,
       "run r has no approval " + elsewhere},
      {"named, unknown", "nope", [] {}, absl::StatusCode::kNotFound, "has no approval nope"},
      {"several: never guesses, names them", "",
       [&] {
         for (int i = 0; i < 22; ++i) AddPendingApproval("r", "extra" + std::to_string(100 + i));
       },
       absl::StatusCode::kFailedPrecondition,
       "run r has 23 pending approvals; name one of " + first +
           ", extra100, extra101, extra102, extra103, extra104, extra105, extra106, extra107, "
           "extra108, extra109, extra110, extra111, extra112, extra113, extra114, extra115, "
           "extra116, extra117, extra118 and 3 more"},
      {"several, one named: that one", "extra107", [] {}, absl::StatusCode::kOk, "extra107"},
      {"named but decided: refused with its status", first,
       [&] { ASSERT_OK(Approve(*store_, clock_, "r", first, Decider{"ops"})); },
       absl::StatusCode::kFailedPrecondition, "approval " + first + " is approved"},
      {"none pending", "",
       [&] {
         Plant("every approval rejected",
               "UPDATE approvals SET status = 'rejected' WHERE run_key = (SELECT run_key FROM runs "
               "WHERE id = 'r')");
       },
       absl::StatusCode::kNotFound, "run r has no pending approval"},
  };
  for (Row& row : rows) {
    SCOPED_TRACE(row.name);
    row.before();
    absl::StatusOr<Approval> chosen = PendingApproval(*store_, "r", row.named);
    EXPECT_EQ(chosen.status().code(), row.code) << chosen.status();
    if (chosen.ok()) {
      EXPECT_EQ(chosen->id, row.expect);
    } else {
      EXPECT_THAT(chosen.status().message(), HasSubstr(row.expect));
    }
  }
}

TEST_F(ViewTest, DetailPage_WaitingApprovalWhateverTheOffset) {
  Drive("r", {Call("read"), Call("read"), Call("post")});
  absl::StatusOr<RunDetailPage> first = DetailPage(*store_, "r", 2, 0);
  ASSERT_OK(first);
  EXPECT_EQ(first->run.id, "r");
  EXPECT_EQ(first->steps_total, 3);
  EXPECT_THAT(first->steps, SizeIs(2));
  EXPECT_EQ(first->pending_total, 1);
  EXPECT_THAT(first->pending, SizeIs(1));
  EXPECT_EQ(first->approvals_total, 1);
  ASSERT_TRUE(first->waiting.has_value());
  EXPECT_EQ(first->run.pending_approval_id, first->waiting->id);

  absl::StatusOr<RunDetailPage> later = DetailPage(*store_, "r", 2, 2);
  ASSERT_OK(later);
  EXPECT_THAT(later->steps, SizeIs(1));
  EXPECT_THAT(later->pending, IsEmpty());
  ASSERT_TRUE(later->waiting.has_value());
  EXPECT_EQ(later->waiting->id, first->waiting->id);
  EXPECT_EQ(later->run.pending_approval_id, first->waiting->id);

  EXPECT_EQ(DetailPage(*store_, "nope", 2, 0).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(DetailPage(*store_, "r", 0, 0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RunsPage(*store_, 1, -1).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(ViewTest, Pages_ReadOnlyThePageAndCapWhatTheyShow) {
  Drive("a", {Call("read"), Complete()});
  Drive("b", {Call("read"), Complete()});
  Drive("c", {Call("read"), Complete()});
  // Rows the page does not show may be unreadable; the ones it shows are capped, not refused.
  Plant("unreadable steps",
        "UPDATE steps SET decision_json = 'not json', observation_json = '{' "
        "WHERE run_key = (SELECT run_key FROM runs WHERE id = 'a')");
  Plant("a huge goal and a bidi override",
        "UPDATE runs SET goal = 'x' || hex(zeroblob(500000)), "
        "reason_detail = char(0x202e) || 'evil' WHERE id = 'b'");
  Plant("a goal that is not UTF-8",
        "UPDATE runs SET goal = 'bad ' || CAST(x'ff41' AS TEXT) WHERE id = 'c'");

  absl::StatusOr<RunsPageResult> page = RunsPage(*store_, 2, 0);
  ASSERT_OK(page);
  EXPECT_EQ(page->total, 3);
  ASSERT_THAT(page->runs, SizeIs(2));
  EXPECT_EQ(page->runs[0].goal,
            "bad \xEF\xBF\xBD"
            "A");
  EXPECT_LE(page->runs[1].goal.size(), kMaxDisplayText);
  EXPECT_THAT(page->runs[1].goal, ::testing::EndsWith("…"));
  EXPECT_OK(json::Parse(ToJson(page->runs[0])));
  absl::StatusOr<RunsPageResult> last = RunsPage(*store_, 2, 2);
  ASSERT_OK(last);
  ASSERT_THAT(last->runs, SizeIs(1));
  EXPECT_EQ(last->runs[0].id, "a");

  absl::StatusOr<StepsPageResult> steps = StepsPage(*store_, "a", 10, 0);
  ASSERT_OK(steps);
  ASSERT_THAT(steps->steps, SizeIs(2));
  EXPECT_EQ(steps->steps[0].tool, "");
  EXPECT_EQ(steps->steps[0].observation, "");
  EXPECT_EQ(steps->steps[0].policy, "allow");
}

TEST_F(ViewTest, ApprovalJson_CarriesTheStoredFieldsAndNamesUnreadableOnes) {
  Drive("r", {Call("post", std::string(3000, 'z'))});
  Approval a = ListApprovals(*store_, "r")->at(0);
  absl::StatusOr<json::Document> whole = json::Parse(ApprovalJson(a));
  ASSERT_OK(whole);
  EXPECT_EQ(whole->root().Find("hash")->string_value(), a.hash);
  EXPECT_EQ(whole->root().Find("status")->string_value(), "pending");
  EXPECT_FALSE(whole->root().Find("decided_at").has_value());
  EXPECT_THAT(ApprovalJson(a), HasSubstr(std::string(3000, 'z')));
  std::string bounded = ApprovalJson(BoundApproval(a));
  EXPECT_THAT(bounded, HasSubstr("…[2600 bytes omitted]…"));
  EXPECT_THAT(bounded, HasSubstr("\"hash\":\"" + a.hash + "\""));
  a.presentation = "{broken";
  std::string broken = ApprovalJson(a);
  EXPECT_OK(json::Parse(broken));
  EXPECT_THAT(broken, HasSubstr(R"("decode_error":"presentation: not JSON")"));
}

}  // namespace
}  // namespace agentrt::view
