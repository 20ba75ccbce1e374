// The MCP demonstration end to end (docs/mcp.md, "The demonstration") against the real filesystem
// server: a driver over a real SQLite file runs the loaded tools under a policy that allows reads
// and pauses writes for an operator; the pending approval names the model-visible tool, and only
// once it is approved and the run resumed does the server write, exactly what was approved.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mcp/load.h"
#include "mcp/pin.h"
#include "runtime/approvals.h"
#include "runtime/base/string_view.h"
#include "runtime/driver.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/policy.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/store/store.h"
#include "runtime/world/entropy.h"
#include "runtime/world/real_scheduler.h"
#include "tests/mcp/real_servers.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"

namespace agentrt::mcp {
namespace {

// The example's policy: reads run, a write inside the sandbox waits for an operator, anything
// else is refused.
class SandboxPolicy final : public Policy {
 public:
  absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest& request, const RunView&) override {
    switch (request.spec.side_effect) {
      case SideEffect::kReadOnly:
        return Decide(PolicyOutcome::kAllow, "a read-only tool needs no authorization");
      case SideEffect::kLocalMutation: {
        std::string capability =
            json::JsonObject().Raw("args", request.args).String("tool", request.spec.name).Build();
        return NeedApproval("file_write", "a write inside the sandbox needs an operator",
                            capability, capability);
      }
      case SideEffect::kRemoteMutation:
      case SideEffect::kDestructive:
        break;
    }
    return Decide(PolicyOutcome::kDeny,
                  absl::StrCat("side effect ", ToAbsl(ToString(request.spec.side_effect)),
                               " is not allowed in this example"));
  }
  std::string Id() const override { return "mcp-example/1"; }

 private:
  static PolicyDecision Decide(PolicyOutcome outcome, std::string reason) {
    PolicyDecision d;
    d.outcome = outcome;
    d.outcome_text = std::string(ToString(outcome));
    d.reason = std::move(reason);
    return d;
  }
};

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string StringAt(const json::Value& object, std::string_view key) {
  std::optional<json::Value> value = object.Find(key);
  return value && value->is_string() ? std::string(value->string_value()) : "<absent>";
}

TEST(FilesystemDriverTest, ApprovalNamesThePrefixedToolAndTheServerWritesOnlyWhatWasApproved) {
  const std::filesystem::path sandbox = test_support::TestFolder() / "sandbox";
  std::filesystem::create_directories(sandbox);
  std::ofstream(sandbox / "question.txt") << "What is the answer?\n";
  const std::string answer = (sandbox / "answer.txt").string();

  real_servers::RealWorld real;
  Server server = real_servers::Filesystem(sandbox.string());
  Manifest manifest = real_servers::PinOrFail(server, real.world());
  Rules rules = real_servers::Classify({"read_text_file"}, SideEffect::kReadOnly);
  Rule write;
  write.side_effect = SideEffect::kLocalMutation;
  write.timeout = absl::Seconds(10);
  write.allow_hint_mismatch = true;
  rules.emplace("write_file", write);
  LoadResult loaded = Load(server, &manifest, rules, real.world());
  ASSERT_OK(loaded.status);

  absl::StatusOr<std::unique_ptr<store::Store>> store =
      records::OpenStore(test_support::TestFile("agentrt.db"), real.clock());
  ASSERT_OK(store);
  world::RealScheduler scheduler;
  world::SeededEntropy entropy(7);
  SandboxPolicy policy;
  const std::string write_args =
      json::JsonObject().String("content", "42\n").String("path", answer).Build();
  ScriptedAgent agent(
      {scripted::Call(
           "fs_read_text_file",
           json::JsonObject().String("path", (sandbox / "question.txt").string()).Build()),
       scripted::Call("fs_write_file", write_args), scripted::Complete()});
  DriverOptions options;
  options.agent = &agent;
  options.policy = &policy;
  for (const auto& tool : loaded.tools) options.tools.push_back(tool.get());
  options.scheduler = &scheduler;
  absl::StatusOr<std::unique_ptr<Driver>> driver =
      Driver::Create(**store, real.clock(), entropy, options);
  ASSERT_OK(driver);

  absl::StatusOr<agentrt::Run> run = (*driver)->Start("Answer the question in the sandbox");
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kWaitingForApproval);
  EXPECT_FALSE(std::filesystem::exists(answer));  // nothing written before the operator says so
  absl::StatusOr<std::vector<Step>> steps = ReadSteps(**store, run->id);
  ASSERT_OK(steps);
  ASSERT_EQ(steps->size(), 2u);
  EXPECT_EQ((*steps)[0].observation->content, R"({"content":"What is the answer?\n"})");

  absl::StatusOr<Approval> pending = PendingApproval(**store, run->id);
  ASSERT_OK(pending);
  EXPECT_EQ(pending->kind, "file_write");
  absl::StatusOr<json::Document> capability = json::Parse(pending->capability);
  ASSERT_OK(capability);
  EXPECT_EQ(StringAt(capability->root(), "tool"), "fs_write_file");
  EXPECT_EQ(pending->capability,
            absl::StrCat(R"({"args":)", write_args, R"(,"tool":"fs_write_file"})"));

  absl::StatusOr<Approval> approved =
      Approve(**store, real.clock(), run->id, pending->id, Decider{.by = "operator"});
  ASSERT_OK(approved);
  absl::StatusOr<agentrt::Run> resumed = (*driver)->Resume(run->id);
  ASSERT_OK(resumed);
  EXPECT_EQ(resumed->status, RunStatus::kCompleted);
  EXPECT_EQ(ReadFile(answer), "42\n");
  steps = ReadSteps(**store, run->id);
  ASSERT_OK(steps);
  ASSERT_EQ(steps->size(), 3u);
  EXPECT_EQ((*steps)[1].observation->content,
            json::JsonObject().String("content", "Successfully wrote to " + answer).Build());
  EXPECT_FALSE((*store)->VerifyEvents()->broken.has_value());
  loaded.connection->Close();
}

}  // namespace
}  // namespace agentrt::mcp
