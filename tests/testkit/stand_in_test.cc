// StandIn (docs/testkit.md): a tool of a class no real tool of the product has, to
// test the control for that class before such a tool exists.
#include "testkit/stand_in.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/driver.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "testkit/policy_check.h"
#include "tests/support/status_matchers.h"
#include "tests/testkit/product.h"

namespace agentrt::testkit {
namespace {

TEST(StandInTest, StandsForAClassNoToolHas) {
  // The product has no destructive tool yet; its policy must still end a run that asks for one.
  auto read = product::ReadFile();
  auto drop = StandIn("drop_table", SideEffect::kDestructive,
                      R"({"type":"object","properties":{"table":{"type":"string"}},)"
                      R"("required":["table"]})",
                      R"({"dropped":true})");
  ToolSpec spec = drop->Spec();
  EXPECT_EQ(spec.side_effect, SideEffect::kDestructive);
  EXPECT_THAT(spec.description, HasSubstr("Stands in for a destructive tool"));
  product::WorkspacePolicy policy;
  absl::StatusOr<Report> report =
      CheckPolicy(policy, {read.get(), drop.get()},
                  {{"drop", "drop_table", R"({"table":"users"})", Abort()},
                   {"drop without a table", "drop_table", "{}", Refused()}});
  ASSERT_OK(report);
  EXPECT_TRUE(report->ok()) << report->Text();

  // Through the driver: the aborted call never reaches the stand-in.
  world::ManualClock clock(absl::FromUnixSeconds(1'800'000'000));
  world::SeededEntropy entropy(11);
  auto store = *records::OpenStoreInMemory(clock);
  ScriptedAgent agent({Decision{"tool_call", "drop_table", R"({"table":"users"})"}});
  DriverOptions options{&agent, &policy, {read.get(), drop.get()}, "t"};
  options.scheduler = &clock;
  auto driver = *Driver::Create(*store, clock, entropy, options);
  absl::StatusOr<agentrt::Run> run = driver->StartWithId("r1", "clean up", Limits{});
  ASSERT_OK(run);
  EXPECT_EQ(run->reason, "policy_abort");
  EXPECT_TRUE(drop->calls().empty());

  // Allowed, it records the call as the agent sent it and answers with its fixed result.
  auto allow = DefaultPolicy();
  auto wipe = StandIn("wipe", SideEffect::kLocalMutation);
  ScriptedAgent agent2(
      {Decision{"tool_call", "wipe", R"({ "all" : true })"}, Decision{"complete"}});
  DriverOptions options2{&agent2, allow.get(), {wipe.get()}, "t"};
  options2.scheduler = &clock;
  auto driver2 = *Driver::Create(*store, clock, entropy, options2);
  ASSERT_OK(driver2->StartWithId("r2", "wipe", Limits{}));
  std::vector<RecordedCall> calls = wipe->calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].run_id, "r2");
  EXPECT_EQ(calls[0].args, R"({ "all" : true })");
  std::vector<Step> steps = *ReadSteps(*store, "r2");
  ASSERT_TRUE(steps[0].observation.has_value());
  EXPECT_EQ(steps[0].observation->content, "{}");
}

}  // namespace
}  // namespace agentrt::testkit
