// The driver session's states (runtime/engine/session_state.h): the transition table, what each
// state lets a write require, and that a transition the table does not list changes nothing.
#include "runtime/engine/session_state.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.h"

namespace agentrt::internal {
namespace {

using State = SessionState;

StagedDecision Staged(std::string step_id) {
  StagedDecision staged;
  staged.step_id = std::move(step_id);
  staged.json = R"({"kind":"tool_call"})";
  return staged;
}

AllowedCall Call(std::string tool) {
  AllowedCall call;
  call.decision.kind = "tool_call";
  call.decision.tool = std::move(tool);
  return call;
}

Grant GrantOf(std::string approval_id) {
  Grant grant;
  grant.approval.id = std::move(approval_id);
  grant.resumed_at = absl::FromUnixSeconds(100);
  return grant;
}

TEST(SessionStateTest, ANewSessionDrivesARunningRunWithNothingOwed) {
  State state;
  EXPECT_EQ(state.name(), "Driving");
  EXPECT_EQ(state.guard(), RunStatus::kRunning);
  EXPECT_EQ(state.staged(), nullptr);
  EXPECT_EQ(state.call(), nullptr);
  EXPECT_EQ(state.grant(), nullptr);
  EXPECT_FALSE(state.released());
}

TEST(SessionStateTest, ALoopStepStagesItsDecisionWhichGoesAlongWithTheAllowedCall) {
  State state;
  ASSERT_OK(state.Apply(State::Stage{Staged("step-1")}));
  ASSERT_NE(state.staged(), nullptr);
  EXPECT_EQ(state.staged()->step_id, "step-1");

  ASSERT_OK(state.Apply(State::Allow{Call("write")}));
  EXPECT_EQ(state.name(), "Allowed");
  EXPECT_EQ(state.guard(), RunStatus::kRunning);
  ASSERT_NE(state.call(), nullptr);
  EXPECT_EQ(state.call()->decision.tool, "write");
  ASSERT_NE(state.staged(), nullptr) << "the decision commits with the call's start";

  AllowedCall taken;
  ASSERT_OK(state.Apply(State::Take{&taken}));
  EXPECT_EQ(taken.decision.tool, "write");
  EXPECT_EQ(state.name(), "Driving");
  EXPECT_EQ(state.call(), nullptr);
  ASSERT_NE(state.staged(), nullptr);
  ASSERT_OK(state.Apply(State::Committed{}));
  EXPECT_EQ(state.staged(), nullptr);
}

TEST(SessionStateTest, AnAllowedCallNeverExecutedStillHasItsDecisionWritten) {
  State state;
  ASSERT_OK(state.Apply(State::Stage{Staged("step-1")}));
  ASSERT_OK(state.Apply(State::Allow{Call("write")}));
  ASSERT_OK(state.Apply(State::Committed{}));  // a gate closed: the decision written alone
  EXPECT_EQ(state.staged(), nullptr);
  ASSERT_NE(state.call(), nullptr);
  ASSERT_OK(state.Apply(State::Release{}));
  EXPECT_TRUE(state.released());
  EXPECT_EQ(state.guard(), std::nullopt) << "a released session writes nothing";
  EXPECT_EQ(state.call(), nullptr);
}

TEST(SessionStateTest, AResumedGrantWritesAgainstTheWaitingRunUntilItsFirstWriteEntersIt) {
  State state;
  ASSERT_OK(state.Apply(State::GrantResumed{GrantOf("approval-1")}));
  EXPECT_EQ(state.name(), "EnteringGrant");
  EXPECT_EQ(state.guard(), RunStatus::kWaitingForApproval);
  ASSERT_NE(state.grant(), nullptr);
  EXPECT_EQ(state.grant()->approval.id, "approval-1");
  EXPECT_EQ(state.grant()->resumed_at, absl::FromUnixSeconds(100));

  // Allowed again: the call waits (a gate's Execute), and the run is still waiting.
  ASSERT_OK(state.Apply(State::Allow{Call("deploy")}));
  EXPECT_EQ(state.guard(), RunStatus::kWaitingForApproval);
  ASSERT_NE(state.call(), nullptr);
  EXPECT_THAT(state.Apply(State::Enter{}), StatusIs(absl::StatusCode::kInternal))
      << "a run is entered by the call's start, not before the call is taken";

  ASSERT_OK(state.Apply(State::Take{}));
  ASSERT_NE(state.grant(), nullptr) << "the call's start is the write that enters";
  ASSERT_OK(state.Apply(State::Enter{}));
  EXPECT_EQ(state.name(), "Driving");
  EXPECT_EQ(state.guard(), RunStatus::kRunning);
  EXPECT_EQ(state.grant(), nullptr);
}

TEST(SessionStateTest, EnteringWhileDrivingChangesNothing) {
  State state;
  ASSERT_OK(state.Apply(State::Stage{Staged("step-1")}));
  ASSERT_OK(state.Apply(State::Enter{}));  // every step's end enters; a driven run already is
  EXPECT_EQ(state.name(), "Driving");
  ASSERT_NE(state.staged(), nullptr);
}

TEST(SessionStateTest, ADamagedPausedRunIsOnlyFailedAgainstItsWaitingStatus) {
  State state;
  ASSERT_OK(state.Apply(State::FailPaused{}));
  EXPECT_EQ(state.name(), "FailingPaused");
  EXPECT_EQ(state.guard(), RunStatus::kWaitingForApproval);
  EXPECT_THAT(state.Apply(State::Stage{Staged("step-1")}), StatusIs(absl::StatusCode::kInternal));
  EXPECT_THAT(state.Apply(State::Allow{Call("x")}), StatusIs(absl::StatusCode::kInternal));
  EXPECT_THAT(state.Apply(State::Enter{}), StatusIs(absl::StatusCode::kInternal));
}

TEST(SessionStateTest, TransitionsTheTableDoesNotListAreRefusedAndChangeNothing) {
  State state;
  EXPECT_THAT(state.Apply(State::Take{}),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("from Driving on Take")));
  EXPECT_THAT(state.Apply(State::Committed{}), IsOk()) << "nothing staged: nothing to clear";

  ASSERT_OK(state.Apply(State::Stage{Staged("step-1")}));
  EXPECT_THAT(state.Apply(State::GrantResumed{GrantOf("a")}),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("from Driving on Grant")))
      << "a grant is resumed before any decision of the session";
  EXPECT_THAT(state.Apply(State::FailPaused{}), StatusIs(absl::StatusCode::kInternal));
  EXPECT_EQ(state.name(), "Driving");
  ASSERT_NE(state.staged(), nullptr) << "a refused transition keeps the state as it was";

  ASSERT_OK(state.Apply(State::Allow{Call("write")}));
  EXPECT_THAT(state.Apply(State::Allow{Call("other")}),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("from Allowed on Allow")));
  EXPECT_EQ(state.call()->decision.tool, "write");
  EXPECT_THAT(state.Apply(State::Stage{Staged("step-2")}), StatusIs(absl::StatusCode::kInternal));

  ASSERT_OK(state.Apply(State::Release{}));
  for (State::Event event : {State::Event(State::Stage{Staged("s")}), State::Event(State::Take{}),
                             State::Event(State::Enter{}), State::Event(State::Committed{})}) {
    EXPECT_THAT(state.Apply(event), StatusIs(absl::StatusCode::kInternal, HasSubstr("Released")));
  }
  EXPECT_OK(state.Apply(State::Release{})) << "releasing twice is harmless";
  EXPECT_TRUE(state.released());
}

TEST(SessionStateTest, AGrantAllowedTwiceIsRefused) {
  State state;
  ASSERT_OK(state.Apply(State::GrantResumed{GrantOf("a")}));
  ASSERT_OK(state.Apply(State::Allow{Call("deploy")}));
  EXPECT_THAT(state.Apply(State::Allow{Call("deploy")}), StatusIs(absl::StatusCode::kInternal));
  ASSERT_OK(state.Apply(State::Take{}));
  EXPECT_THAT(state.Apply(State::Take{}), StatusIs(absl::StatusCode::kInternal));
}

}  // namespace
}  // namespace agentrt::internal
