#include "runtime/records/event_payloads.h"

#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/scripted_agent.h"
#include "tests/runtime/approval_story.h"
#include "tests/support/status_matchers.h"

namespace agentrt::records {
namespace {

// The payloads of `type` in run "run-1", decoded, in seq order.
template <typename Payload>
std::vector<Payload> All(store::Store& store) {
  std::vector<Payload> out;
  absl::StatusOr<std::vector<store::Event>> events = store.ListEvents("run-1");
  EXPECT_OK(events);
  if (!events.ok()) return out;
  for (const store::Event& e : *events) {
    std::optional<Payload> p = DecodeIf<Payload>(e);
    if (e.type == Payload::kType) {
      EXPECT_TRUE(p.has_value()) << e.payload_json;
    } else {
      EXPECT_FALSE(p.has_value()) << e.type;
    }
    if (p) out.push_back(*std::move(p));
  }
  return out;
}

class EventPayloadsTest : public testing::ApprovalStory {};

// What the runtime writes reads back whole: a run paused for approval, approved, resumed and
// completed.
TEST_F(EventPayloadsTest, ARunsOwnEventsDecodeToWhatItRecorded) {
  Limits limits;
  limits.max_steps = 7;
  ASSERT_EQ(Drive({testing::Post("alice")}, "", limits)->status, RunStatus::kWaitingForApproval);
  Approval approval = Only();
  ASSERT_OK(Approve(*store_, clock_, "run-1", approval.id, Decider{"ops", "fine"}));
  ASSERT_EQ(Drive({scripted::Complete()}, "run-1")->status, RunStatus::kCompleted);

  std::vector<RunCreated> created = All<RunCreated>(*store_);
  ASSERT_EQ(created.size(), 1u);
  EXPECT_EQ(created[0].goal, "send it");
  ASSERT_TRUE(created[0].limits.has_value());
  EXPECT_EQ(created[0].limits->max_steps, 7);
  EXPECT_NE(created[0].limits_json.find("\"max_steps\":7"), std::string::npos);
  EXPECT_TRUE(created[0].lists_tools);

  std::vector<StepPolicy> policies = All<StepPolicy>(*store_);
  ASSERT_FALSE(policies.empty());
  EXPECT_EQ(ParsePolicyOutcome(policies[0].outcome), PolicyOutcome::kRequireApproval);
  EXPECT_FALSE(policies[0].spec_hash.empty());
  ASSERT_TRUE(policies[0].has_view);
  ASSERT_TRUE(policies[0].view.has_value());
  EXPECT_EQ(policies[0].view->status, RunStatus::kRunning);
  EXPECT_EQ(policies[0].view->steps, 0);
  EXPECT_EQ(policies[0].view->approvals, 0);

  std::vector<ApprovalRequested> requested = All<ApprovalRequested>(*store_);
  ASSERT_EQ(requested.size(), 1u);
  EXPECT_EQ(requested[0].approval_id, approval.id);
  EXPECT_EQ(requested[0].hash, approval.hash);
  EXPECT_EQ(requested[0].kind, approval.kind);

  std::vector<ApprovalDecided> decided = All<ApprovalDecided>(*store_);
  ASSERT_EQ(decided.size(), 1u);
  EXPECT_EQ(decided[0].approval_id, approval.id);
  EXPECT_EQ(decided[0].status, ApprovalStatus::kApproved);
  EXPECT_EQ(decided[0].status_text, "approved");
  EXPECT_EQ(decided[0].by, "ops");
  EXPECT_EQ(decided[0].note, "fine");

  std::vector<StepToolStarted> started = All<StepToolStarted>(*store_);
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0].tool, "post");
  EXPECT_EQ(started[0].args, R"({"to":"alice"})");
  EXPECT_EQ(started[0].approval_id, approval.id);

  std::vector<StepStarted> steps = All<StepStarted>(*store_);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].index, 0);
  EXPECT_EQ(steps[1].index, 1);

  std::vector<RunFinished> finished = All<RunFinished>(*store_);
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_EQ(ParseRunStatus(finished[0].status), RunStatus::kCompleted);
  EXPECT_EQ(finished[0].steps, 2);
}

TEST(EventPayloadDecodeTest, APayloadThatIsNotAnObjectDecodesToNothing) {
  for (const char* payload : {"", "not json", "[]", "\"approval_id\"", "17", "null"}) {
    SCOPED_TRACE(payload);
    EXPECT_FALSE(Decode<ApprovalDecided>(payload).has_value());
    EXPECT_FALSE(Decode<StepInterrupted>(payload).has_value());
  }
}

TEST(EventPayloadDecodeTest, MissingOrMistypedMembersReadAsTheDefaults) {
  std::optional<StepStarted> started = Decode<StepStarted>(R"({"index":"three"})");
  ASSERT_TRUE(started);
  EXPECT_EQ(started->index, -1);

  std::optional<StepToolStarted> tool = Decode<StepToolStarted>(R"({"tool":"post"})");
  ASSERT_TRUE(tool);
  EXPECT_EQ(tool->args, "{}");
  EXPECT_EQ(tool->approval_id, "");

  std::optional<StepPolicy> policy = Decode<StepPolicy>(R"({"outcome":"allow","view":[1]})");
  ASSERT_TRUE(policy);
  EXPECT_TRUE(policy->has_view);
  EXPECT_FALSE(policy->view.has_value());  // a view that is not an object
  EXPECT_EQ(policy->capability_json, "{}");
  EXPECT_EQ(policy->presentation_json, "{}");
  EXPECT_FALSE(Decode<StepPolicy>(R"({"outcome":"allow"})")->has_view);

  std::optional<RunCreated> created = Decode<RunCreated>(R"({"goal":"g","limits":"7"})");
  ASSERT_TRUE(created);
  EXPECT_FALSE(created->limits.has_value());
  EXPECT_EQ(created->limits_json, "7");
  EXPECT_FALSE(created->lists_tools);
}

TEST(EventPayloadDecodeTest, AStatusOutsideTheVocabularyKeepsItsTextAndParsesToNothing) {
  std::optional<ApprovalDecided> decided =
      Decode<ApprovalDecided>(R"({"approval_id":"a","status":"approved-ish"})");
  ASSERT_TRUE(decided);
  EXPECT_EQ(decided->status_text, "approved-ish");
  EXPECT_FALSE(decided->status.has_value());

  std::optional<StepPolicy> policy =
      Decode<StepPolicy>(R"({"view":{"status":"PAUSED","steps":2,"approvals":1}})");
  ASSERT_TRUE(policy && policy->view);
  EXPECT_FALSE(policy->view->status.has_value());
  EXPECT_EQ(policy->view->steps, 2);
}

TEST(EventPayloadDecodeTest, AnInterruptionsPreviousStatusReadsNestedOrFlat) {
  EXPECT_THAT(Decode<StepInterrupted>(R"({"previous_status":{"previous_status":"executing"}})")
                  ->previous_status,
              Optional(StepStatus::kExecuting));
  EXPECT_THAT(
      Decode<StepInterrupted>(R"({"previous_status":"awaiting_approval"})")->previous_status,
      Optional(StepStatus::kAwaitingApproval));
  // A cancellation's record holds a tool error, and unknown text is no status.
  EXPECT_FALSE(
      Decode<StepInterrupted>(R"({"previous_status":{"tool":"post","failure":"cancelled"}})")
          ->previous_status.has_value());
  EXPECT_FALSE(
      Decode<StepInterrupted>(R"({"previous_status":"EXECUTING"})")->previous_status.has_value());
}

TEST(VocabularyParseTest, EveryNameParsesBackAndNothingElseDoes) {
  for (DecisionKind k : {DecisionKind::kToolCall, DecisionKind::kComplete, DecisionKind::kFail,
                         DecisionKind::kTruncated, DecisionKind::kNoToolCall}) {
    EXPECT_EQ(ParseDecisionKind(ToString(k)), k);
  }
  EXPECT_EQ(ParseDecisionKind(""), DecisionKind::kUnknown);
  EXPECT_EQ(ParseDecisionKind("TOOL_CALL"), DecisionKind::kUnknown);
  Decision d;
  d.kind = "tool_call";
  EXPECT_EQ(d.Kind(), DecisionKind::kToolCall);
  for (StepStatus s : {StepStatus::kDeciding, StepStatus::kAwaitingApproval, StepStatus::kExecuting,
                       StepStatus::kDone, StepStatus::kFailed, StepStatus::kInterrupted}) {
    EXPECT_EQ(ParseStepStatus(ToString(s)), s);
  }
  for (ApprovalStatus s : {ApprovalStatus::kPending, ApprovalStatus::kApproved,
                           ApprovalStatus::kRejected, ApprovalStatus::kExpired}) {
    EXPECT_EQ(ParseApprovalStatus(ToString(s)), s);
  }
  for (PolicyOutcome o : {PolicyOutcome::kAllow, PolicyOutcome::kRequireApproval,
                          PolicyOutcome::kDeny, PolicyOutcome::kAbort}) {
    EXPECT_EQ(ParsePolicyOutcome(ToString(o)), o);
  }
  EXPECT_FALSE(ParsePolicyOutcome("").has_value());  // kUnknown's empty name parses to nothing
  EXPECT_FALSE(ParseStepStatus("").has_value());
  EXPECT_FALSE(ParseApprovalStatus("Approved").has_value());
  EXPECT_EQ(ToString(ToolFailure::kInvalidContent), "invalid_content");
  for (ToolFailure f : {ToolFailure::kError, ToolFailure::kAbort, ToolFailure::kTimeout,
                        ToolFailure::kCancelled, ToolFailure::kInvalidContent}) {
    EXPECT_EQ(ParseToolFailure(ToString(f)), f);
  }
  EXPECT_FALSE(ParseToolFailure("exploded").has_value());
  EXPECT_FALSE(ParseToolFailure("").has_value());
}

}  // namespace
}  // namespace agentrt::records
