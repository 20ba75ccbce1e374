// tests/runtime/approval_story.h
//
// The story the approval tests tell: run "run-1" asks to post a message (a remote mutation the
// default policy pauses for a human), on an in-memory store, a manual clock and seeded entropy.
// Each test drives it with a fresh driver and decides, edits or resumes in between.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/approvals.h"
#include "runtime/driver.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "tests/runtime/post_tool.h"
#include "tests/support/test_store.h"

namespace agentrt::testing {

inline Decision Post(std::string to) { return scripted::Call("post", R"({"to":")" + to + R"("})"); }

class ApprovalStory : public ::testing::Test {
 protected:
  void SetUp() override { store_ = *test_support::OpenTestStore(clock_); }

  // Runs `script` with a fresh driver: StartWithId(`run_id`) when `resume` is empty, else
  // Resume(resume).
  absl::StatusOr<agentrt::Run> Drive(std::vector<Decision> script, std::string resume = "",
                                     Limits limits = {}, std::string run_id = "run-1") {
    agent_ = std::make_unique<ScriptedAgent>(std::move(script));
    auto driver = Driver::Create(*store_, clock_, entropy_, Options());
    if (!driver.ok()) return driver.status();
    if (resume.empty()) return (*driver)->StartWithId(run_id, "send it", limits);
    return (*driver)->Resume(resume);
  }

  // The driver options every test here starts from: the scripted agent (if any), the default
  // policy, the post tool, and the lease clock given (the fixture's when none is).
  DriverOptions Options(world::ManualClock* lease_clock = nullptr) {
    DriverOptions options;
    options.agent = agent_.get();
    options.policy = policy_.get();
    options.tools = {&post_};
    options.scheduler = lease_clock != nullptr ? lease_clock : &lease_clock_;
    return options;
  }

  // Run "run-1"'s only approval.
  Approval Only() {
    std::vector<Approval> approvals = *ListApprovals(*store_, "run-1");
    EXPECT_THAT(approvals, ::testing::SizeIs(1));
    return approvals.back();
  }

  // The types of run "run-1"'s events after the first `n`.
  std::vector<std::string> TypesAfter(std::size_t n) {
    std::vector<std::string> types;
    std::vector<store::Event> events = *store_->ListEvents("run-1");
    for (std::size_t i = n; i < events.size(); ++i) types.push_back(events[i].type);
    return types;
  }

  world::ManualClock clock_{absl::FromUnixSeconds(1'800'000'000)};
  world::ManualClock lease_clock_{absl::FromUnixSeconds(1'800'000'000)};
  world::SeededEntropy entropy_{3};
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<Policy> policy_ = DefaultPolicy();
  std::unique_ptr<ScriptedAgent> agent_;
  PostTool post_;
};

}  // namespace agentrt::testing
