// The one place the runtime's SQL lives (runtime/records/rows.h): its guards are
// compare-and-set conditions in the statements, so a write from the wrong state changes
// nothing and says so; what it reads back from a damaged row is named, not guessed.
#include "runtime/records/rows.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/base/status_macros.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/schema.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "tests/support/status_matchers.h"
#include "tests/support/tamper.h"
#include "tests/support/test_store.h"

namespace agentrt::rows {
namespace {

class RowsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(Write([](store::Transaction& tx) {
      return InsertRun(tx, {.id = "r",
                            .goal = "g",
                            .limits_json = "{}",
                            .created_at = "2027-01-15T08:00:00.000000000Z",
                            .lease_owner = "me",
                            .lease_expires_at = "2027-01-15T08:00:30.000000000Z"});
    }));
  }

  absl::Status Write(absl::FunctionRef<absl::Status(store::Transaction&)> fn) {
    return store_->Write(fn);
  }
  template <typename T>
  T Value(absl::FunctionRef<absl::StatusOr<T>(store::Transaction&)> fn) {
    T out{};
    EXPECT_OK(store_->Write([&](store::Transaction& tx) -> absl::Status {
      absl::StatusOr<T> v = fn(tx);
      if (!v.ok()) return v.status();
      out = *std::move(v);
      return absl::OkStatus();
    }));
    return out;
  }
  RunState State() {
    return *Value<std::optional<RunState>>(
        [](store::Transaction& tx) { return ReadRunState(tx, "r"); });
  }

  world::ManualClock clock_{absl::FromUnixSeconds(1'800'000'000)};
  std::unique_ptr<store::Store> store_ = *test_support::OpenTestStore(clock_);
};

TEST_F(RowsTest, ClaimStepCountsOnlyTheExpectedStepForTheOwnerOfARunningRun) {
  auto claim = [&](std::int64_t index, std::string owner) {
    return Value<bool>([&](store::Transaction& tx) {
      return ClaimStep(tx, "r", index, owner, "2027-01-15T08:01:00.000000000Z");
    });
  };
  EXPECT_FALSE(claim(0, "rival"));  // not the owner
  EXPECT_FALSE(claim(1, "me"));     // not the step count the run is at
  EXPECT_TRUE(claim(0, "me"));
  EXPECT_FALSE(claim(0, "me"));  // the same step twice
  EXPECT_EQ(State().step_count, 1);
  EXPECT_EQ(State().lease_expires_at, "2027-01-15T08:01:00.000000000Z");
  ASSERT_OK(Write([](store::Transaction& tx) { return PauseForApproval(tx, "r"); }));
  EXPECT_EQ(State().status, "WAITING_FOR_APPROVAL");
  EXPECT_EQ(State().lease_owner, "");
  EXPECT_FALSE(claim(1, "me"));  // a paused run claims nothing
}

TEST_F(RowsTest, RenewLeaseOnlyForTheOwnerOfARunningRun) {
  auto renew = [&](std::string owner) {
    return Value<bool>([&](store::Transaction& tx) {
      return RenewLease(tx, "r", owner, "2027-01-15T08:05:00.000000000Z");
    });
  };
  EXPECT_FALSE(renew("rival"));
  EXPECT_TRUE(renew("me"));
  ASSERT_OK(Write([](store::Transaction& tx) {
    return FinishRun(tx, "r",
                     {.status = RunStatus::kCompleted,
                      .reason = "goal_completed",
                      .finished_at = "2027-01-15T08:06:00.000000000Z"});
  }));
  EXPECT_FALSE(renew("me"));  // an ended run has no lease to keep
  EXPECT_EQ(State().lease_owner, "");
}

TEST_F(RowsTest, EndStepMovesAStepOnlyFromTheStatusItWasIn) {
  ASSERT_OK(Write([](store::Transaction& tx) {
    return InsertStep(tx, "s", "r", 0, "2027-01-15T08:00:01.000000000Z");
  }));
  auto end = [&](StepStatus from, StepStatus to) {
    return Value<bool>([&](store::Transaction& tx) {
      return EndStep(tx, "s", from,
                     {.status = to, .finished_at = "2027-01-15T08:00:02.000000000Z"});
    });
  };
  EXPECT_FALSE(end(StepStatus::kExecuting, StepStatus::kDone));  // it is deciding
  EXPECT_TRUE(end(StepStatus::kDeciding, StepStatus::kFailed));
  EXPECT_FALSE(end(StepStatus::kDeciding, StepStatus::kDone));  // already ended
}

TEST_F(RowsTest, ApprovalDecisionsNeedAPendingApprovalWithItsHash) {
  ASSERT_OK(Write([](store::Transaction& tx) {
    return InsertApproval(tx, {.id = "a",
                               .run_id = "r",
                               .step_id = "s",
                               .kind = "k",
                               .capability_json = "{}",
                               .presentation_json = "{}",
                               .request_json = "{}",
                               .hash = "h1",
                               .created_at = "2027-01-15T08:00:01.000000000Z"});
  }));
  auto decide = [&](std::string hash) {
    return Value<bool>([&](store::Transaction& tx) {
      return DecideApproval(tx, "a", hash, "approved", "2027-01-15T08:00:02.000000000Z", "ops", "");
    });
  };
  EXPECT_FALSE(decide("h2"));  // not the approval that was asked
  EXPECT_TRUE(decide("h1"));
  EXPECT_FALSE(decide("h1"));  // no longer pending
  // A grant expires from approved, keeping who decided.
  EXPECT_FALSE(Value<bool>([](store::Transaction& tx) {
    return ExpireApproval(tx, "a", ApprovalStatus::kPending, "h1",
                          "2027-01-15T09:00:00.000000000Z");
  }));
  EXPECT_TRUE(Value<bool>([](store::Transaction& tx) {
    return ExpireApproval(tx, "a", ApprovalStatus::kApproved, "h1",
                          "2027-01-15T09:00:00.000000000Z");
  }));
  std::optional<Approval> a = Value<std::optional<Approval>>(
      [](store::Transaction& tx) { return ReadApproval(tx, "r", "a"); });
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->status, ApprovalStatus::kExpired);
  EXPECT_EQ(a->decided_by, "ops");
  EXPECT_FALSE(Value<std::optional<Approval>>([](store::Transaction& tx) {
                 return ReadApproval(tx, "other-run", "a");
               }).has_value());
}

TEST_F(RowsTest, AStepStatusTheRuntimeNeverWritesIsDamageNotAState) {
  ASSERT_OK(Write([](store::Transaction& tx) -> absl::Status {
    AGENTRT_RETURN_IF_ERROR(InsertStep(tx, "s", "r", 0, "2027-01-15T08:00:01.000000000Z"));
    return test_support::TamperIn(tx, "a step status the runtime never writes",
                                  "UPDATE steps SET status = 'done-ish'")
        .status();
  }));
  std::vector<Step> steps = *agentrt::ReadSteps(*store_, "r");
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].status, StepStatus::kFailed);
  EXPECT_THAT(steps[0].decode_error, HasSubstr("status: not a step status"));
  StepPage page = *agentrt::ReadStepsPage(*store_, "r", 10, 0);
  ASSERT_EQ(page.steps.size(), 1u);
  EXPECT_THAT(page.steps[0].decode_error, HasSubstr("status: not a step status"));
}

TEST_F(RowsTest, AnObservationKindTheRuntimeNeverWritesIsDamageNotAResult) {
  ASSERT_OK(Write([](store::Transaction& tx) -> absl::Status {
    AGENTRT_RETURN_IF_ERROR(InsertStep(tx, "s", "r", 0, "2027-01-15T08:00:01.000000000Z"));
    return test_support::TamperIn(
               tx, "an observation kind the runtime never writes",
               R"(UPDATE steps SET observation_json = '{"kind":"tool_rezult","content":"ok"}')")
        .status();
  }));
  std::vector<Step> steps = *agentrt::ReadSteps(*store_, "r");
  ASSERT_EQ(steps.size(), 1u);
  ASSERT_TRUE(steps[0].observation.has_value());
  EXPECT_EQ(steps[0].observation->kind, ObservationKind::kToolError);
  EXPECT_EQ(steps[0].observation->content, "ok");
  EXPECT_THAT(steps[0].decode_error, HasSubstr("observation: kind is not an observation kind"));
}

TEST_F(RowsTest, ReadLeaseReadsTheStoredLeaseAndNamesAnUnknownRun) {
  RunLease held = *ReadLease(*store_, "r");
  EXPECT_EQ(held.owner, "me");
  EXPECT_EQ(held.expires_at, "2027-01-15T08:00:30.000000000Z");
  ASSERT_OK(Write([](store::Transaction& tx) { return PauseForApproval(tx, "r"); }));
  RunLease free = *ReadLease(*store_, "r");
  EXPECT_EQ(free.owner, "");
  EXPECT_EQ(free.expires_at, "");
  absl::StatusOr<RunLease> unknown = ReadLease(*store_, "nobody\x1b[2J");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(unknown.status().message(), HasSubstr("no run nobody\\x1b[2J"));
}

TEST_F(RowsTest, ModelTotalsReadBackAsWritten) {
  ASSERT_OK(Write([](store::Transaction& tx) {
    return WriteModelTotals(tx, "r", {3, 100, 20, 10, 999});
  }));
  ModelTotals t = *Value<std::optional<ModelTotals>>(
      [](store::Transaction& tx) { return ReadModelTotals(tx, "r"); });
  EXPECT_EQ(t.calls, 3);
  EXPECT_EQ(t.input_tokens, 100);
  EXPECT_EQ(t.output_tokens, 20);
  EXPECT_EQ(t.cached_input_tokens, 10);
  EXPECT_EQ(t.cost_micros, 999);
  EXPECT_FALSE(Value<std::optional<ModelTotals>>([](store::Transaction& tx) {
                 return ReadModelTotals(tx, "none");
               }).has_value());
}

// The loop's refresh reads only what changes while a run lives, and then holds exactly what a
// whole read gives.
TEST_F(RowsTest, ARefreshedRunIsWhatAWholeReadGives) {
  agentrt::Run run =
      *Value<std::optional<agentrt::Run>>([](store::Transaction& tx) { return ReadRun(tx, "r"); });
  ASSERT_OK(Write([](store::Transaction& tx) -> absl::Status {
    AGENTRT_RETURN_IF_ERROR(ClaimStep(tx, "r", 0, "me", "2027-01-15T08:01:00.000000000Z").status());
    AGENTRT_RETURN_IF_ERROR(WriteModelTotals(tx, "r", {3, 100, 20, 10, 999}));
    AGENTRT_RETURN_IF_ERROR(AddActiveTime(tx, "r", 1500));
    return test_support::TamperIn(
               tx, "the run ended behind the runtime's back",
               "UPDATE runs SET status = 'COMPLETED', reason = 'goal_completed', "
               "reason_detail = 'd', result_json = '{\"ok\":1}', "
               "finished_at = '2027-01-15T08:02:00.000000000Z' WHERE id = 'r'")
        .status();
  }));
  EXPECT_TRUE(Value<bool>([&](store::Transaction& tx) { return RefreshRun(tx, run); }));
  agentrt::Run whole =
      *Value<std::optional<agentrt::Run>>([](store::Transaction& tx) { return ReadRun(tx, "r"); });
  EXPECT_EQ(run.status, RunStatus::kCompleted);
  EXPECT_EQ(run.status, whole.status);
  EXPECT_EQ(run.reason, whole.reason);
  EXPECT_EQ(run.reason_detail, whole.reason_detail);
  EXPECT_EQ(run.result, whole.result);
  EXPECT_EQ(run.finished_at, whole.finished_at);
  EXPECT_EQ(run.step_count, 1);
  EXPECT_EQ(run.step_count, whole.step_count);
  EXPECT_EQ(run.active_time, absl::Milliseconds(1500));
  EXPECT_EQ(run.active_time, whole.active_time);
  EXPECT_EQ(run.model_calls, 3);
  EXPECT_EQ(run.model_calls, whole.model_calls);
  EXPECT_EQ(run.input_tokens, whole.input_tokens);
  EXPECT_EQ(run.output_tokens, whole.output_tokens);
  EXPECT_EQ(run.cached_input_tokens, whole.cached_input_tokens);
  EXPECT_EQ(run.estimated_cost_micros, 999);
  EXPECT_EQ(run.estimated_cost_micros, whole.estimated_cost_micros);
  EXPECT_EQ(run.goal, whole.goal);
  EXPECT_EQ(run.created_at, whole.created_at);
  agentrt::Run gone;
  gone.id = "none";
  EXPECT_FALSE(Value<bool>([&](store::Transaction& tx) { return RefreshRun(tx, gone); }));
}

}  // namespace
}  // namespace agentrt::rows
