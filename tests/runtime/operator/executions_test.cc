// One reading of a run's tool executions (runtime/operator/executions.h), on which the
// simulator's verdict and the crash harness judge their invariants: a start's authority is what
// was decided before it, a start while the step's last one is open is marked, and starts are
// counted by step and by grant.
#include "runtime/operator/executions.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/events.h"
#include "tests/support/status_matchers.h"

namespace agentrt {
namespace {

store::Event E(std::int64_t seq, std::string step, std::string_view type, std::string payload) {
  store::Event e;
  e.seq = seq;
  e.run_id = "r";
  e.step_id = std::move(step);
  e.type = std::string(type);
  e.payload_json = std::move(payload);
  return e;
}

TEST(ExecutionsTest, AStartIsAuthorizedOnlyByWhatWasDecidedBeforeIt) {
  std::vector<store::Event> log = {
      // s1 starts before its policy allowed it; s2 after; s3 under a grant approved first.
      E(1, "s1", event::kStepToolStarted, R"({"tool":"fs_write","args":{"path":"a"}})"),
      E(2, "s1", event::kStepPolicy, R"({"outcome":"allow"})"),
      E(3, "s1", event::kStepToolFinished, "{}"),
      E(4, "s2", event::kStepPolicy, R"({"outcome":"allow"})"),
      E(5, "s2", event::kStepToolStarted, R"({"tool":"fs_read","args":{}})"),
      E(6, "s2", event::kStepToolFinished, "{}"),
      E(7, "s3", event::kApprovalRequested, R"({"approval_id":"ap1"})"),
      E(8, "", event::kApprovalDecided, R"({"approval_id":"ap1","status":"approved"})"),
      E(9, "s3", event::kStepToolStarted, R"({"tool":"fs_write","approval_id":"ap1"})"),
      E(10, "s3", event::kStepToolFinished, "{}"),
      // s4 denied: its start has no authority.
      E(11, "s4", event::kStepPolicy, R"({"outcome":"deny"})"),
      E(12, "s4", event::kStepToolStarted, R"({"tool":"fs_delete"})"),
      E(13, "s4", event::kStepToolFinished, "{}"),
  };
  Executions x = ReadExecutions(log);
  ASSERT_EQ(x.starts.size(), 4u);
  EXPECT_FALSE(x.starts[0].authorized);
  EXPECT_EQ(x.starts[0].args, R"({"path":"a"})");
  EXPECT_TRUE(x.starts[1].authorized);
  EXPECT_TRUE(x.starts[2].authorized);
  EXPECT_EQ(x.starts[2].approval_id, "ap1");
  EXPECT_FALSE(x.starts[3].authorized);
  EXPECT_THAT(x.starts_by_grant, ElementsAre(Pair("ap1", 1)));
  EXPECT_THAT(x.requested_at, ElementsAre(Pair("ap1", 7)));
  EXPECT_TRUE(x.never_ended.empty());
}

TEST(ExecutionsTest, StartsWhileOpenAndNeverEndedAreMarked) {
  std::vector<store::Event> log = {
      E(1, "s1", event::kStepToolStarted, R"({"tool":"t"})"),
      E(2, "s1", event::kStepToolStarted, R"({"tool":"t"})"),  // again before it ended
      E(3, "s1", event::kStepInterrupted, R"({"previous_status":{"previous_status":"executing"}})"),
      E(4, "s1", event::kStepToolStarted, R"({"tool":"t"})"),  // after an end: not open
      E(5, "s2", event::kStepToolStarted, R"({"tool":"u"})"),  // never ended
  };
  Executions x = ReadExecutions(log);
  ASSERT_EQ(x.starts.size(), 4u);
  EXPECT_FALSE(x.starts[0].while_open);
  EXPECT_TRUE(x.starts[1].while_open);
  EXPECT_FALSE(x.starts[2].while_open);
  EXPECT_THAT(x.never_ended, ElementsAre("s1", "s2"));
  EXPECT_THAT(x.starts_by_step, ElementsAre(Pair("s1", 3), Pair("s2", 1)));
  EXPECT_THAT(x.interrupted_at, ElementsAre(Pair("s1", 3)));
  EXPECT_THAT(x.interrupted_executing, ElementsAre("s1"));
}

TEST(ExecutionsTest, AStartWhosePayloadDoesNotReadIsStillAStart) {
  std::vector<store::Event> log = {E(1, "s1", event::kStepPolicy, R"({"outcome":"allow"})"),
                                   E(2, "s1", event::kStepToolStarted, "not json")};
  Executions x = ReadExecutions(log);
  ASSERT_EQ(x.starts.size(), 1u);
  EXPECT_EQ(x.starts[0].tool, "");
  EXPECT_FALSE(x.starts[0].authorized);
  EXPECT_THAT(x.starts_by_step, ElementsAre(Pair("s1", 1)));
}

}  // namespace
}  // namespace agentrt
