// tests/tools/run_database.h
//
// A database of runs for the operator commands' tests, written through the runtime the way a
// consumer's program writes one: a driver with the default policy over two tools, "read" (read
// only) and "post" (a remote mutation, so a call to it waits for an operator). Its clock is a
// manual one that moves a minute before each run and its ids are seeded, so what a command
// prints about the runs (times, approval ids) is the same on every machine. Header-only,
// test-only.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "runtime/driver.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "tests/support/status_matchers.h"

namespace agentrt::testing {

// "post": sends a message, a remote mutation.
class PostTool : public Tool {
 public:
  ToolSpec Spec() const override {
    return ToolSpec{"post",
                    "Send a message.",
                    R"({"type":"object"})",
                    SideEffect::kRemoteMutation,
                    absl::Seconds(5),
                    false};
  }
  absl::StatusOr<ToolResult> Call(const ToolCall&) override {
    return ToolResult{R"({"sent":true})", "sent"};
  }
};

// "read": reads, only.
class ReadTool : public Tool {
 public:
  ToolSpec Spec() const override {
    return ToolSpec{"read",           "Read.", R"({"type":"object"})", SideEffect::kReadOnly,
                    absl::Seconds(5), false};
  }
  absl::StatusOr<ToolResult> Call(const ToolCall&) override {
    return ToolResult{R"({"text":"hi"})", "read 2 bytes"};
  }
};

class RunDatabase {
 public:
  // The database file at `path`, created by the first run.
  explicit RunDatabase(std::string path) : path_(std::move(path)) {}

  const std::string& path() const { return path_; }

  // Drive drives run `id` (goal "goal of <id>") through `script` with the default policy, a
  // minute after the run before, in this process, and closes the database again.
  void Drive(const std::string& id, std::vector<Decision> script) {
    clock_.Advance(absl::Minutes(1));
    absl::StatusOr<std::unique_ptr<store::Store>> store = Open();
    ASSERT_OK(store);
    ScriptedAgent agent(std::move(script));
    std::unique_ptr<Policy> policy = DefaultPolicy();
    DriverOptions options;
    options.agent = &agent;
    options.policy = policy.get();
    options.tools = {&post_, &read_};
    options.scheduler = &lease_clock_;
    absl::StatusOr<std::unique_ptr<Driver>> driver =
        Driver::Create(**store, clock_, entropy_, options);
    ASSERT_OK(driver);
    ASSERT_OK((*driver)->StartWithId(id, "goal of " + id));
  }

  // Waiting leaves run `id` waiting for an operator's approval of a post with `args`, after
  // one read.
  void Waiting(const std::string& id, std::string args = R"({"to":"ops@example.com"})") {
    Drive(id, {scripted::Call("read", "{}"), scripted::Call("post", std::move(args))});
  }

  // Open opens (or creates) the database on its clock, for what a test reads or plants itself
  // (tests/support/tamper.h).
  absl::StatusOr<std::unique_ptr<store::Store>> Open() { return records::OpenStore(path_, clock_); }

 private:
  std::string path_;
  world::ManualClock clock_{absl::FromUnixSeconds(1'800'000'000)};
  world::ManualClock lease_clock_{absl::FromUnixSeconds(1'800'000'000)};
  world::SeededEntropy entropy_{11};
  PostTool post_;
  ReadTool read_;
};

}  // namespace agentrt::testing
