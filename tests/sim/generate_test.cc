// Generated worlds (sim/generate.h): a seed is always the same world, every world is a scenario
// the file format reads back exactly, the seeds reach every part of the world the generator
// promises (hostile behaviours, agents, operator's actions, faults), a fuzzer's bytes build
// worlds too, and a generated world is judged by the invariants alone.
#include "sim/generate.h"

#include <map>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "sim/judge.h"
#include "sim/scenario_file.h"
#include "sim/shrink.h"
#include "sim/swarm.h"
#include "tests/support/status_matchers.h"

namespace agentrt::sim {
namespace {

using ::google::protobuf::util::MessageDifferencer;

TEST(GenerateTest, ASeedIsAlwaysTheSameWorld) {
  for (std::int64_t seed : {1, 2, 77, 123456789}) {
    EXPECT_EQ(ScenarioText(GenerateWorld(seed)), ScenarioText(GenerateWorld(seed))) << seed;
  }
  EXPECT_NE(ScenarioText(GenerateWorld(1)), ScenarioText(GenerateWorld(2)));
  v1::Scenario world = GenerateWorld(42);
  EXPECT_EQ(world.name(), "generated-42");
  EXPECT_EQ(world.generated_from_seed(), 42);
  EXPECT_TRUE(world.expect().invariants_only());
}

// A generated world is a scenario like any other: written out (`sim generate`), it reads back
// through every check of the file format as exactly the world, so `sim run` plays what the swarm
// played.
TEST(GenerateTest, EveryWorldReadsBackExactly) {
  for (std::int64_t seed = 1; seed <= 400; ++seed) {
    v1::Scenario world = GenerateWorld(seed);
    absl::StatusOr<v1::Scenario> read = ParseScenario(ScenarioText(world), "generated.textproto");
    ASSERT_OK(read) << "seed " << seed;
    EXPECT_TRUE(MessageDifferencer::Equals(*read, world)) << "seed " << seed;
  }
}

// What the seeds reach, counted over the first 2,000: each kind of thing the generator promises
// shows up (a part of the world no seed reaches is a part no swarm checks).
TEST(GenerateTest, TheSeedsReachEveryPartOfTheWorld) {
  std::map<std::string, int> seen;
  auto saw = [&](bool what, const char* name) {
    if (what) ++seen[name];
  };
  for (std::int64_t seed = 1; seed <= 2000; ++seed) {
    v1::Scenario w = GenerateWorld(seed);
    saw(w.servers_size() == 3, "three servers");
    for (const v1::Server& s : w.servers()) {
      saw(s.transport() == v1::Server::STDIO, "stdio");
      saw(s.transport() == v1::Server::HTTP && !s.http().sse(), "http json");
      saw(s.http().sse(), "http sse");
      saw(s.http().auth().required(), "authorization");
      saw(s.http().lose_session_after() > 0, "lost session");
      saw(s.startup().hang(), "handshake hangs");
      saw(!s.startup().protocol_version().empty(), "another protocol version");
      saw(!s.listings().empty() && s.listings(0).loop(), "looping listing");
      saw(absl::StrContains(s.rules_json(), "\"deny\""), "denied parameter");
      saw(absl::StrContains(s.rules_json(), "\"fixed\""), "fixed parameter");
      std::set<std::string> pin_only;
      for (const v1::Tool& t : s.tools()) {
        if (t.phase() == v1::PIN_ONLY) pin_only.insert(t.name());
        saw(t.phase() == v1::LOAD_ONLY && pin_only.contains(t.name()), "rug pull");
        saw(t.phase() == v1::LOAD_ONLY && !pin_only.contains(t.name()), "added or renamed");
        saw(!t.raw_json().empty(), "hostile name");
        saw(t.name() == "read_text_file" || t.name() == "write_file", "filesystem server shape");
        for (const v1::Call& c : t.calls()) {
          saw(c.action() == v1::Call::HANG, "hang");
          saw(c.action() == v1::Call::CRASH, "crash mid-call");
          saw(c.action() == v1::Call::EXIT, "exit");
          saw(c.action() == v1::Call::WRONG_ID, "wrong id");
          saw(c.action() == v1::Call::INPUT_REQUIRED, "input required");
          saw(!c.before().empty(), "lines before an answer");
          saw(c.text_bytes() > 65536, "oversized result");
          saw(absl::StrContains(c.text(), "Approved by the operator"), "lie in a result");
        }
      }
    }
    saw(!w.agent().steps().empty(), "scripted agent");
    saw(!w.agent().model().empty(), "model in the loop");
    for (const v1::ModelReply& r : w.agent().model()) {
      saw(r.tool_uses_size() > 1, "two tool uses in a reply");
      for (const v1::ModelToolUse& u : r.tool_uses()) {
        saw(u.input_json() == "not json", "malformed tool input");
      }
    }
    for (const v1::Step& s : w.agent().steps()) {
      saw(s.call().tool() == "nope_tool", "unknown tool");
      saw(absl::StrContains(s.call().args_json(), R"("set")"), "denied parameter set");
    }
    for (const v1::Approval& a : w.approvals()) {
      saw(a.reject(), "reject");
      saw(a.cancel(), "cancel");
      saw(!a.after().empty(), "late decision");
      saw(a.twice(), "approve twice");
      saw(a.from_second_process(), "approve from a second process");
      saw(!a.reject() && !a.cancel() && a.after().empty() && !a.twice(), "approve");
    }
    saw(!w.limits().approval_ttl().empty(), "approval ttl");
    saw(w.crash().after_call() > 0 && !w.crash().stale_owner(), "crash after a call");
    saw(w.crash().stale_owner(), "stale owner");
    saw(w.crash().at_commit() > 0, "crash at a commit");
    for (const v1::StorageFault& f : w.storage_faults()) {
      saw(f.kind() == v1::StorageFault::WRITE_FAILS, "write fails");
      saw(f.kind() == v1::StorageFault::SYNC_FAILS, "sync fails");
      saw(f.kind() == v1::StorageFault::DISK_FULL, "disk full");
      saw(f.kind() == v1::StorageFault::POWER_CUT, "power cut");
    }
    saw(!w.perturbations().empty(), "perturbations");
  }
  for (const char* part : {"three servers",
                           "stdio",
                           "http json",
                           "http sse",
                           "authorization",
                           "lost session",
                           "handshake hangs",
                           "another protocol version",
                           "looping listing",
                           "denied parameter",
                           "fixed parameter",
                           "rug pull",
                           "added or renamed",
                           "hostile name",
                           "filesystem server shape",
                           "hang",
                           "crash mid-call",
                           "exit",
                           "wrong id",
                           "input required",
                           "lines before an answer",
                           "oversized result",
                           "lie in a result",
                           "scripted agent",
                           "model in the loop",
                           "two tool uses in a reply",
                           "malformed tool input",
                           "unknown tool",
                           "denied parameter set",
                           "reject",
                           "cancel",
                           "late decision",
                           "approve twice",
                           "approve from a second process",
                           "approve",
                           "approval ttl",
                           "crash after a call",
                           "stale owner",
                           "crash at a commit",
                           "write fails",
                           "sync fails",
                           "disk full",
                           "power cut",
                           "perturbations"}) {
    EXPECT_GE(seen[part], 5) << part;
  }
}

// A fuzzer's bytes build worlds with the same generator: no bytes is the simplest world, and
// any bytes make a world the file format accepts.
TEST(GenerateTest, BytesBuildWorldsToo) {
  ByteChoices none("");
  v1::Scenario simplest = GenerateWorld(none, "bytes");
  EXPECT_EQ(simplest.servers_size(), 1);
  EXPECT_OK(ParseScenario(ScenarioText(simplest), "bytes.textproto"));
  std::string bytes;
  for (int i = 0; i < 4096; ++i) bytes.push_back(static_cast<char>((i * 131 + 7) & 0xff));
  for (std::size_t from = 0; from < 512; from += 61) {
    ByteChoices some(std::string_view(bytes).substr(from));
    EXPECT_OK(ParseScenario(ScenarioText(GenerateWorld(some, "bytes")), "bytes.textproto"));
  }
}

// A generated world expects nothing but the invariants: whatever its pin, load and run do, it
// passes when none breaks; and a broken one still fails it.
TEST(GenerateTest, AGeneratedWorldIsJudgedByTheInvariantsAlone) {
  int played = 0;
  for (std::int64_t seed = 1; seed <= 60; ++seed) {
    Verdict verdict = JudgeGenerated(seed, {});
    EXPECT_TRUE(verdict.passed) << seed << ": " << verdict.difference;
    played += verdict.status.has_value() ? 1 : 0;
  }
  EXPECT_GT(played, 30);  // most worlds make a run
}

// Shrinking a generated world takes away whole servers, tools, agent steps, approvals and
// faults until only what the failure needs is left. The failure here is the test's own: the
// runtime was restarted after a call reached a server.
TEST(GenerateTest, ShrinkingAGeneratedWorldLeavesWhatTheFailureNeeds) {
  auto judge = [](const v1::Scenario& s) {
    Verdict v = Judge(s, PerturbedOnce());
    if (v.restarts > 0 && v.effects > 0) {
      v.passed = false;
      v.difference = "restarted after a call";
    }
    return v;
  };
  std::int64_t seed = 1;
  while (judge(GenerateWorld(seed)).passed) ++seed;
  v1::Scenario world = GenerateWorld(seed);
  absl::StatusOr<Shrunk> shrunk = Shrink(world, judge);
  ASSERT_OK(shrunk);
  EXPECT_EQ(shrunk->verdict.difference, "restarted after a call");
  EXPECT_LT(ScenarioText(shrunk->scenario).size(), ScenarioText(world).size());
  EXPECT_LE(shrunk->scenario.servers_size(), world.servers_size());
  // What made the runtime restart is kept; a call reaching a server needs a step or a reply.
  EXPECT_TRUE(shrunk->scenario.has_crash() || !shrunk->scenario.storage_faults().empty());
  EXPECT_TRUE(!shrunk->scenario.agent().steps().empty() ||
              !shrunk->scenario.agent().model().empty());
  EXPECT_OK(ParseScenario(ScenarioText(shrunk->scenario), "shrunk.textproto"));
  // The generated world's own shrink refuses a world that does not fail.
  EXPECT_THAT(ShrinkGenerated(1), test_support::StatusIs(absl::StatusCode::kFailedPrecondition));
}

}  // namespace
}  // namespace agentrt::sim
