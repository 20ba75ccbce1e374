// The faults a play injects and the invariants that judge them: a crash at every commit of a
// run, each storage fault at every commit, a stale owner that wakes after another took the run
// over, the operator's actions (cancel, a late decision, a grant given twice), and the
// invariants added with them: every reason in the vocabulary, what reaches a server is what the
// operator's authority allows, an approval runs exactly what it showed, once.
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/events.h"
#include "sim/judge.h"
#include "sim/play.h"
#include "sim/scenario_file.h"
#include "sim/verdict.h"
#include "tests/sim/plays.h"
#include "tests/support/real_files.h"
#include "tests/support/status_matchers.h"

namespace agentrt::sim {
namespace {

// Reads, then writes (the rule fixes the write's mode, denies its `force`); both allowed;
// completes.
v1::Scenario Base() {
  v1::Scenario scenario = test_plays::Parse(test_plays::kReadThenWrite);
  v1::Server& fs = *scenario.mutable_servers(0);
  fs.mutable_tools(1)->set_input_schema_json(
      R"({"type":"object","properties":{"path":{"type":"string"},)"
      R"("mode":{"type":"string"},"force":{"type":"boolean"}}})");
  fs.set_rules_json(R"({"read":{"side_effect":"read_only","timeout":"30s"},)"
                    R"("write":{"side_effect":"local_mutation","timeout":"30s",)"
                    R"("fixed":{"mode":"safe"},"deny":["force"]}})");
  return scenario;
}

using test_plays::ExpectRun;
using test_plays::Parse;
using test_plays::PlayOk;

bool Settled(const Outcome& outcome) {
  return outcome.run &&
         (IsTerminal(outcome.run->status) || outcome.run->status == RunStatus::kWaitingForApproval);
}

std::vector<std::string> Types(const Outcome& outcome) {
  std::vector<std::string> types;
  for (const store::Event& event : outcome.events) types.push_back(event.type);
  return types;
}

// The runtime dies as it begins each of its write transactions in turn: whichever it was, the
// restarted runtime picks the run up from what was committed (starting it again when even its
// creation was lost), the run settles, no call reaches a server twice on the runtime's own
// authority, and both ends are reached: completed (a read was interrupted, or nothing was), and
// waiting for an operator (the write was).
TEST(FaultsTest, ACrashAtEveryCommitLeavesTheInvariantsAndASettledRun) {
  v1::Scenario scenario = Base();
  Outcome clean = PlayOk(scenario);
  ASSERT_GT(clean.commits, 5u);
  std::set<RunStatus> ends;
  for (std::uint32_t commit = 1; commit <= clean.commits; ++commit) {
    scenario.mutable_crash()->set_at_commit(commit);
    Outcome outcome = PlayOk(scenario);
    SCOPED_TRACE(absl::StrCat("crash at commit ", commit));
    EXPECT_TRUE(outcome.crashed);
    EXPECT_EQ(outcome.disk_faults, 1);
    EXPECT_GE(outcome.restarts, 1);
    EXPECT_TRUE(Settled(outcome));
    EXPECT_THAT(BrokenInvariants(outcome), IsEmpty());
    EXPECT_LE(outcome.effects.size(), 2u);
    if (outcome.run) ends.insert(outcome.run->status);
  }
  EXPECT_THAT(ends, ::testing::Contains(RunStatus::kCompleted));
  EXPECT_THAT(ends, ::testing::Contains(RunStatus::kWaitingForApproval));
  // Past the last commit nothing fires.
  scenario.mutable_crash()->set_at_commit(clean.commits + 1);
  Outcome past = PlayOk(scenario);
  EXPECT_FALSE(past.crashed);
  EXPECT_EQ(past.chain_head, clean.chain_head);
}

// Each storage fault at each commit: the store fails closed (the transaction is not half
// written), the runtime is restarted, and the run picks up and settles with every invariant.
TEST(FaultsTest, EveryStorageFaultAtEveryCommitFailsClosedAndTheRunResumes) {
  v1::Scenario scenario = Base();
  std::uint32_t commits = PlayOk(scenario).commits;
  for (v1::StorageFault::Kind kind : {v1::StorageFault::WRITE_FAILS, v1::StorageFault::SYNC_FAILS,
                                      v1::StorageFault::DISK_FULL, v1::StorageFault::POWER_CUT}) {
    int restarted = 0;
    for (std::uint32_t commit = 1; commit <= commits; ++commit) {
      scenario.clear_storage_faults();
      v1::StorageFault* fault = scenario.add_storage_faults();
      fault->set_kind(kind);
      fault->set_at_commit(commit);
      Outcome outcome = PlayOk(scenario);
      SCOPED_TRACE(absl::StrCat(v1::StorageFault::Kind_Name(kind), " at commit ", commit));
      EXPECT_EQ(outcome.disk_faults, 1);
      EXPECT_TRUE(Settled(outcome));
      EXPECT_THAT(BrokenInvariants(outcome), IsEmpty());
      EXPECT_LE(outcome.effects.size(), 2u);
      restarted += outcome.restarts > 0 ? 1 : 0;
    }
    // A fault in a transaction that wrote is a failed session, and a restart.
    EXPECT_GT(restarted, 0) << v1::StorageFault::Kind_Name(kind);
  }
}

// The runtime stops mid-write (a paused process); once its lease expired another takes the run
// over: the write's outcome is unknown to it, so it pauses for an operator instead of running it
// again. Then the stopped one wakes with its answer: its late write is refused, and nothing it
// does reaches a server. Granting the interrupted write runs it again, by the operator's
// authority.
TEST(FaultsTest, AStaleOwnerThatWakesIsRefusedAndRepeatsNothing) {
  v1::Scenario scenario = Base();
  scenario.mutable_crash()->set_after_call(2);
  scenario.mutable_crash()->set_stale_owner(true);
  Outcome outcome = PlayOk(scenario);
  EXPECT_TRUE(outcome.crashed);
  EXPECT_EQ(outcome.takeover_error, "");
  // It woke to a run no longer its own, and ended without writing.
  EXPECT_THAT(outcome.stale_session, ::testing::Not(IsEmpty()));
  EXPECT_EQ(outcome.stale_events, 0);
  ExpectRun(outcome, RunStatus::kWaitingForApproval, 2);
  EXPECT_THAT(Types(outcome), ::testing::Contains(std::string(event::kLeaseTakenOver)));

  scenario.add_approvals();
  Outcome granted = PlayOk(scenario);
  ExpectRun(granted, RunStatus::kCompleted, 3);
  EXPECT_EQ(Types(granted).back(), event::kRunFinished);

  // Stopped mid-read instead: the new owner does not read again; the run completes, and the
  // stale runtime's late result is refused.
  scenario.clear_approvals();
  scenario.mutable_crash()->set_after_call(1);
  Outcome read = PlayOk(scenario);
  ExpectRun(read, RunStatus::kCompleted, 2);
  EXPECT_THAT(read.stale_session, ::testing::Not(IsEmpty()));
  EXPECT_EQ(read.stale_events, 0);
  read.stale_events = 1;
  EXPECT_THAT(BrokenInvariants(read),
              ElementsAre("a stale owner wrote 1 events after another had taken its run over"));
}

v1::Scenario NeedsApproval() {
  v1::Scenario scenario = Base();
  scenario.mutable_policy()->set_local_mutation(v1::REQUIRE_APPROVAL);
  return scenario;
}

v1::Scenario Fixture(const std::string& name) {
  absl::StatusOr<v1::Scenario> scenario =
      ReadScenario(test_support::RealFiles(),
                   absl::StrCat(AGENTRT_SOURCE_DIR, "/fixtures/scenarios/", name, ".textproto"));
  EXPECT_OK(scenario);
  return *scenario;
}

// Two worlds a generated swarm found (shrunk into fixtures): a takeover that failed at its first
// write leaves the stopped runtime its run, so what it writes on waking is no stale owner's; and
// a grant whose tool did not load again after a restart is refused by the runtime, whose refusal
// is an answer, with the run waiting as stored.
TEST(FaultsTest, WhatTheGeneratedSwarmFoundStaysAnswered) {
  Outcome kept = PlayOk(Fixture("generated_stale_owner_whose_takeover_failed"));
  EXPECT_TRUE(kept.crashed);
  EXPECT_THAT(kept.takeover_error, HasSubstr("I/O error"));
  EXPECT_EQ(kept.stale_events, 0);
  EXPECT_THAT(BrokenInvariants(kept), IsEmpty());

  Outcome gone = PlayOk(Fixture("generated_granted_tool_gone_after_a_restart"));
  EXPECT_THAT(gone.resume_refusal, HasSubstr("is not registered"));
  ExpectRun(gone, RunStatus::kWaitingForApproval, 1);
}

TEST(FaultsTest, AnOperatorCancelsTheWaitingRun) {
  v1::Scenario scenario = NeedsApproval();
  scenario.add_approvals()->set_cancel(true);
  Outcome outcome = PlayOk(scenario);
  ExpectRun(outcome, RunStatus::kCancelled, 1);
  EXPECT_EQ(outcome.run->reason, "operator_cancelled");
}

// A decision past the approval's time to live is refused as expired, and the run is cancelled.
TEST(FaultsTest, ALateGrantFindsTheApprovalExpired) {
  v1::Scenario scenario = NeedsApproval();
  scenario.mutable_limits()->set_approval_ttl("5m");
  scenario.add_approvals()->set_after("10m");
  Outcome late = PlayOk(scenario);
  ExpectRun(late, RunStatus::kCancelled, 1);
  EXPECT_EQ(late.run->reason, "approval_expired");

  scenario.mutable_approvals(0)->set_after("4m");  // in time
  ExpectRun(PlayOk(scenario), RunStatus::kCompleted, 2);
}

// The second grant of one approval is refused, and the call runs once; an operator's second
// grant taken would break an invariant.
TEST(FaultsTest, AGrantGivenTwiceRunsTheCallOnce) {
  v1::Scenario scenario = NeedsApproval();
  scenario.add_approvals()->set_twice(true);
  Outcome outcome = PlayOk(scenario);
  ExpectRun(outcome, RunStatus::kCompleted, 2);
  EXPECT_EQ(outcome.operator_difference, "");
  outcome.operator_difference = "approval a was granted a second time";
  EXPECT_THAT(BrokenInvariants(outcome), ElementsAre("approval a was granted a second time"));
}

// An operator's grant from another process (a store of its own on the same database, as
// `agentrt approve` beside the driver): the run resumes on it exactly as on a grant through the
// runtime's own store, to the same chain head.
TEST(FaultsTest, AGrantFromASecondProcessIsTheSameGrant) {
  v1::Scenario scenario = NeedsApproval();
  scenario.add_approvals();
  Outcome here = PlayOk(scenario);
  scenario.mutable_approvals(0)->set_from_second_process(true);
  Outcome there = PlayOk(scenario);
  ExpectRun(there, RunStatus::kCompleted, 2);
  EXPECT_EQ(there.chain_head, here.chain_head);
  // And a rejection from it ends the run.
  scenario.mutable_approvals(0)->set_reject(true);
  ExpectRun(PlayOk(scenario), RunStatus::kCancelled, 1);
}

// Liveness: a run that took longer to settle after its last fault than every step, restart and
// decision could wait is caught.
TEST(FaultsTest, ARunSlowToSettleAfterItsLastFaultIsCaught) {
  v1::Scenario scenario = Base();
  scenario.mutable_crash()->set_at_commit(3);
  Outcome outcome = PlayOk(scenario);
  ASSERT_THAT(BrokenInvariants(outcome), IsEmpty());
  EXPECT_GT(outcome.settle_bound, absl::Hours(24));
  outcome.settled_after = outcome.settle_bound + absl::Seconds(1);
  EXPECT_THAT(BrokenInvariants(outcome),
              ElementsAre(HasSubstr("of virtual time to settle after its last fault")));
}

TEST(FaultsTest, AFixedParameterArrivesFixedAndADeniedOneNever) {
  Outcome outcome = PlayOk(Base());
  ASSERT_EQ(outcome.effects.size(), 2u);
  EXPECT_EQ(outcome.effects[1].arguments, R"({"mode":"safe","path":"b"})");
  ASSERT_THAT(BrokenInvariants(outcome), IsEmpty());

  Outcome unfixed = outcome;
  unfixed.effects[1].arguments = R"({"mode":"unsafe","path":"b"})";
  EXPECT_THAT(BrokenInvariants(unfixed),
              Contains(HasSubstr("did not carry the fixed parameter \"mode\"")));
  Outcome denied = outcome;
  denied.effects[1].arguments = R"({"force":true,"mode":"safe","path":"b"})";
  EXPECT_THAT(BrokenInvariants(denied),
              Contains(HasSubstr("carried the denied parameter \"force\"")));
  Outcome unpinned = outcome;
  unpinned.pinned[0].second = {"read"};
  EXPECT_THAT(BrokenInvariants(unpinned),
              Contains(HasSubstr("reached a tool that was never pinned")));
}

TEST(FaultsTest, AnApprovalRunsExactlyWhatItShowedOnce) {
  v1::Scenario scenario = NeedsApproval();
  scenario.add_approvals();
  Outcome outcome = PlayOk(scenario);
  ASSERT_EQ(outcome.approvals.size(), 1u);
  ASSERT_THAT(BrokenInvariants(outcome), IsEmpty());

  Outcome other = outcome;
  std::string& request = other.approvals[0].request;
  std::size_t at = request.find(R"("path":"b")");
  ASSERT_NE(at, std::string::npos) << request;
  request.replace(at, 10, R"("path":"c")");
  EXPECT_THAT(BrokenInvariants(other), Contains(HasSubstr("runs a call other than approval")));

  Outcome twice = outcome;
  for (const store::Event& event : outcome.events) {
    if (event.type == event::kStepToolStarted &&
        event.payload_json.find("approval") != std::string::npos) {
      twice.events.push_back(event);
    }
  }
  EXPECT_THAT(BrokenInvariants(twice), Contains(HasSubstr("ran 2 times")));
}

TEST(FaultsTest, AReasonOutsideTheVocabularyIsCaught) {
  Outcome outcome = PlayOk(Base());
  Outcome made_up = outcome;
  made_up.run->reason = "because";
  EXPECT_THAT(BrokenInvariants(made_up),
              Contains(HasSubstr("ended with a reason outside the vocabulary: \"because\"")));
  Outcome failure = outcome;
  failure.observations.push_back(R"(tool_error {"error":"x","failure":"exploded"})");
  EXPECT_THAT(BrokenInvariants(failure),
              Contains(HasSubstr("tool failure is outside the vocabulary")));
}

// What the file format refuses of the faults, by field.
TEST(FaultsTest, TheFileRefusesFaultsItCannotPlay) {
  auto refusal = [](std::string extra) {
    return ParseScenario(absl::StrCat(ScenarioText(Base()), extra), "test.textproto").status();
  };
  EXPECT_THAT(refusal("crash { after_call: 1 at_commit: 2 }"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("crash.at_commit")));
  EXPECT_THAT(refusal("crash { stale_owner: true }"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("it needs after_call")));
  EXPECT_THAT(refusal("storage_faults { kind: POWER_CUT }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("storage_faults[0].at_commit: write transactions count from 1")));
  EXPECT_THAT(refusal("approvals { cancel: true reject: true }"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("approvals[0].cancel")));
  EXPECT_THAT(refusal("approvals { after: \"25h\" }"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("past the limit")));
  EXPECT_THAT(refusal("limits { approval_ttl: \"soon\" }"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("limits.approval_ttl")));
}

// A raw tool is found by its `name`; a raw JSON naming it otherwise (a generated world once did,
// and the report's accounting then looked for a tool the server never offered) is refused.
TEST(FaultsTest, ARawToolNamedTwoWaysIsRefused) {
  auto raw = [](std::string name, std::string raw_name) {
    return ParseScenario(absl::StrCat(R"(servers { name: "s" tools { name: ")", name,
                                      R"(" raw_json: '{"name":")", raw_name,
                                      R"(","inputSchema":{"type":"object"}}' } })"),
                         "raw.textproto")
        .status();
  };
  EXPECT_THAT(raw("list", "list\\\\u001b[2K"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("servers[0].tools[0].raw_json: the raw JSON names the tool "
                                 "\"list\\x1b[2K\" but `name` is \"list\"")));
  EXPECT_OK(raw("list", "list"));
  EXPECT_OK(raw("evil\\x1b[31m", "evil\\\\u001b[31m"));  // the same name, escaped two ways
}

}  // namespace
}  // namespace agentrt::sim
