// A real agentrt database in a temporary folder, with runs paused for approval the way a
// consumer's driver pauses them: a scripted agent asks to post, the default policy requires
// approval for a remote mutation. Shared by the approver and webhook tests.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/approvals.h"
#include "runtime/driver.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "tests/runtime/post_tool.h"
#include "tests/support/status_matchers.h"
#include "tests/support/tamper.h"
#include "tests/support/test_folder.h"
#include "tests/support/test_store.h"

namespace agentrt::testing {

inline const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

using ::agentrt::scripted::Complete;

inline Decision PostTo(const std::string& to_json_string) {
  return scripted::Call("post", R"({"to":)" + to_json_string + "}");
}

class PausedRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_support::TestFolder();
    // A file, or a schema of the test server in the suite's "[postgres]" registration.
    path_ = test_support::TestDatabase("audit.db");
    absl::StatusOr<std::unique_ptr<store::Store>> store = records::OpenStore(path_, clock_);
    ASSERT_OK(store);
    store_ = *std::move(store);
  }
  void TearDown() override { store_.reset(); }

  // Starts `run_id` with a script (by default: post to "alice"), returning the run as stored:
  // paused for approval unless the script says otherwise.
  agentrt::Run Start(const std::string& run_id,
                     std::vector<Decision> script = {PostTo(R"("alice")")}, Limits limits = {},
                     std::string goal = "send it") {
    agent_ = std::make_unique<ScriptedAgent>(std::move(script));
    absl::StatusOr<std::unique_ptr<Driver>> driver =
        Driver::Create(*store_, clock_, entropy_, Options());
    EXPECT_OK(driver);
    absl::StatusOr<agentrt::Run> run = (*driver)->StartWithId(run_id, goal, limits);
    EXPECT_OK(run);
    return run.ok() ? *run : agentrt::Run{};
  }

  // Resumes `run_id` with a fresh driver whose agent then follows `script`.
  absl::StatusOr<agentrt::Run> Resume(const std::string& run_id, std::vector<Decision> script) {
    agent_ = std::make_unique<ScriptedAgent>(std::move(script));
    absl::StatusOr<std::unique_ptr<Driver>> driver =
        Driver::Create(*store_, clock_, entropy_, Options());
    if (!driver.ok()) return driver.status();
    return (*driver)->Resume(run_id);
  }

  DriverOptions Options() {
    DriverOptions options;
    options.agent = agent_.get();
    options.policy = policy_.get();
    options.tools = {&post_};
    options.scheduler = &clock_;
    return options;
  }

  // The run's only approval.
  Approval Only(const std::string& run_id) {
    std::vector<Approval> approvals = *ListApprovals(*store_, run_id);
    EXPECT_EQ(approvals.size(), 1u);
    return approvals.empty() ? Approval{} : approvals.back();
  }

  std::size_t EventCount() { return store_->ListEvents("")->size(); }

  // Rewrites the approval's request as someone with the database could. With `rehash`, hash and
  // all: the row is consistent, but it is no longer what was shown. Without, the stored hash
  // stays: a tampered row the hash check refuses.
  void RewriteRequest(const Approval& a, const std::string& from, const std::string& to,
                      bool rehash) {
    std::string request = a.request;
    std::size_t at = request.find(from);
    ASSERT_NE(at, std::string::npos) << request;
    request.replace(at, from.size(), to);
    std::string hash =
        rehash ? ApprovalHash(a.kind, a.capability, a.presentation, request) : a.hash;
    ASSERT_OK(test_support::Tamper(
        *store_, "the approval's request rewritten",
        "UPDATE approvals SET request_json = ?1, hash = ?2 WHERE id = ?3",
        {std::string_view(request), std::string_view(hash), std::string_view(a.id)}));
  }

  std::filesystem::path dir_;
  std::string path_;
  world::ManualClock clock_{kStart};
  world::SeededEntropy entropy_{7};
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<Policy> policy_ = DefaultPolicy();
  std::unique_ptr<ScriptedAgent> agent_;
  PostTool post_;
};

}  // namespace agentrt::testing
