// The operator's policy by side-effect class (docs/mcp.md, "The configuration"): each class gets
// its outcome, a tool's rule overrides its class, an unknown class is denied, an approval binds the
// tool and its arguments, and the identity changes with the table.
#include "mcp/class_policy.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.h"

namespace agentrt::mcp {
namespace {

ToolRequest Request(const std::string& name, SideEffect effect) {
  ToolRequest request;
  request.spec.name = name;
  request.spec.side_effect = effect;
  request.args = R"({"path":"a.txt"})";
  return request;
}

TEST(ClassPolicyTest, ClassesDecideAndAToolsRuleOverridesItsClass) {
  ClassPolicy policy({{SideEffect::kReadOnly, PolicyOutcome::kAllow},
                      {SideEffect::kLocalMutation, PolicyOutcome::kRequireApproval}},
                     {{"fs_delete", PolicyOutcome::kAllow}});
  RunView view;
  EXPECT_EQ(policy.Evaluate(Request("fs_read", SideEffect::kReadOnly), view)->outcome,
            PolicyOutcome::kAllow);
  absl::StatusOr<PolicyDecision> write =
      policy.Evaluate(Request("fs_write", SideEffect::kLocalMutation), view);
  ASSERT_OK(write);
  EXPECT_EQ(write->outcome, PolicyOutcome::kRequireApproval);
  EXPECT_EQ(write->capability, R"({"args":{"path":"a.txt"},"tool":"fs_write"})");
  EXPECT_THAT(write->presentation, HasSubstr(R"("question":"Allow fs_write (local_mutation)?")"));
  absl::StatusOr<PolicyDecision> remote =
      policy.Evaluate(Request("fs_post", SideEffect::kRemoteMutation), view);
  EXPECT_EQ(remote->outcome, PolicyOutcome::kDeny);
  EXPECT_EQ(remote->reason, "side effect remote_mutation has no outcome in the policy");
  EXPECT_EQ(policy.Evaluate(Request("fs_delete", SideEffect::kDestructive), view)->outcome,
            PolicyOutcome::kAllow);
}

TEST(ClassPolicyTest, TheIdentityNamesTheTable) {
  ClassPolicy a({{SideEffect::kReadOnly, PolicyOutcome::kAllow}});
  ClassPolicy b({{SideEffect::kReadOnly, PolicyOutcome::kDeny}});
  EXPECT_THAT(a.Id(), ::testing::StartsWith("mcp-class-policy/1:"));
  EXPECT_NE(a.Id(), b.Id());
  EXPECT_EQ(a.Id(), ClassPolicy({{SideEffect::kReadOnly, PolicyOutcome::kAllow}}).Id());
}

}  // namespace
}  // namespace agentrt::mcp
