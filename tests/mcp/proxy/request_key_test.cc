// What makes two host calls the same request (mcp/proxy/request_key.h), and the policy's
// identity (mcp/proxy/proxy_policy.h): reference/mcp.md §10.10 and §10.14.
#include "mcp/proxy/request_key.h"

#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mcp/config.h"
#include "mcp/proxy/proxy_policy.h"
#include "tests/support/status_matchers.h"

namespace agentrt::proxy {
namespace {

using ::testing::StartsWith;

TEST(RequestKeyTest, CanonicalByLiteral) {
  std::optional<std::string> key = RequestKey("bank_pay", R"({"to":"bob","amount":10})");
  ASSERT_TRUE(key.has_value());
  EXPECT_EQ(key->size(), 64u);
  // Canonical JSON writes a number a double holds exactly the ECMAScript way (DESIGN.md): 10,
  // 10.0 and 1e1 are one number, so one request.
  for (std::string_view same : {R"({"amount":10,"to":"bob"})", R"( {"to" : "bob" , "amount":10})",
                                R"({"to":"b\u006fb","amount":10})", R"({"to":"bob","amount":10.0})",
                                R"({"to":"bob","amount":1e1})"}) {
    EXPECT_EQ(RequestKey("bank_pay", same), key) << same;
  }
  for (std::string_view other : {R"({"to":"Bob","amount":10})", R"({"to":"bob ","amount":10})",
                                 R"({"to":"bob","amount":10.5})", R"({"to":"bob","amount":"10"})",
                                 R"({"to":"bob","amount":-10})"}) {
    EXPECT_NE(RequestKey("bank_pay", other), key) << other;
  }
  EXPECT_NE(RequestKey("bank_refund", R"({"to":"bob","amount":10})"), key);
  EXPECT_NE(RequestKey("a", R"({"x":[1,2]})"), RequestKey("a", R"({"x":[2,1]})"));
  EXPECT_EQ(RequestKey("a", R"({"x":1.5})"), RequestKey("a", R"({"x":1.50})"));
  // A literal no double holds exactly is kept, so two such numbers stay two requests.
  EXPECT_NE(RequestKey("a", R"({"x":12345678901234567890123})"),
            RequestKey("a", R"({"x":12345678901234567890124})"));
}

TEST(RequestKeyTest, AbsentBlankAndNullAreTheEmptyObject) {
  std::optional<std::string> empty = RequestKey("t", "{}");
  EXPECT_EQ(RequestKey("t", ""), empty);
  EXPECT_EQ(RequestKey("t", "  \n"), empty);
  EXPECT_EQ(RequestKey("t", "null"), empty);
  EXPECT_NE(RequestKey("t", R"({"x":null})"), empty);
}

TEST(RequestKeyTest, NoCollisionsAndRefusedArgumentsHaveNoKey) {
  // The name and the arguments cannot run into each other.
  EXPECT_NE(RequestKey("a", R"({"b":1})"), RequestKey("a{", R"("b":1})"));
  for (std::string_view refused :
       {R"({"x":1,"x":1})", R"({"x":"\ud800"})", R"({"x":"\udc00"})", "{\"x\":\"\xff\"}",
        R"({"x":1e9223372036854775807})", R"({"x":0.1e-9223372036854775808})",
        R"({"x":1e-10000000})", R"({"x":1}x)", R"({"x":00})"}) {
    EXPECT_EQ(RequestKey("t", refused), std::nullopt) << refused;
  }
}

mcp::Config BaseConfig() {
  mcp::Config c;
  c.database = "db";
  c.session = "s";
  c.policy = mcp::DefaultProxyPolicy();
  mcp::ServerConfig bank;
  bank.name = "bank";
  bank.command = {"bank"};
  bank.manifest = "bank.json";
  mcp::Rule pay;
  pay.side_effect = SideEffect::kRemoteMutation;
  pay.timeout = absl::Seconds(10);
  bank.rules["pay"] = pay;
  c.servers.push_back(bank);
  return c;
}

TEST(PolicyIdTest, CoversWhatThePolicyDecidesFrom) {
  std::string id = PolicyId(BaseConfig());
  EXPECT_THAT(id, StartsWith("agentrt-proxy/sha256:"));
  std::vector<std::function<void(mcp::Config&)>> unchanged = {
      [](mcp::Config& c) { c.servers[0].rules["pay"].description = "other"; },
      [](mcp::Config& c) { c.servers[0].rules["pay"].timeout = absl::Seconds(3); },
      [](mcp::Config& c) { c.hold = absl::Seconds(1); },
      [](mcp::Config& c) { c.session = "other"; },
      [](mcp::Config& c) { c.database = "elsewhere"; },
      [](mcp::Config& c) { c.servers[0].command = {"other"}; },
      [](mcp::Config& c) { c.servers[0].rules["pay"].deny = {"memo"}; },
      [](mcp::Config& c) { c.repeat_window = absl::Minutes(1); },
      [](mcp::Config& c) { c.max_pending = 9; },
      [](mcp::Config& c) { c.approval_ttl = absl::Hours(1); },
      [](mcp::Config& c) { c.policy[SideEffect::kReadOnly] = PolicyOutcome::kAllow; },
  };
  for (std::size_t i = 0; i < unchanged.size(); ++i) {
    mcp::Config c = BaseConfig();
    unchanged[i](c);
    EXPECT_EQ(PolicyId(c), id) << "unchanged #" << i;
  }
  std::vector<std::function<void(mcp::Config&)>> changed = {
      [](mcp::Config& c) { c.policy[SideEffect::kRemoteMutation] = PolicyOutcome::kDeny; },
      [](mcp::Config& c) { c.servers[0].rules["pay"].side_effect = SideEffect::kDestructive; },
      [](mcp::Config& c) { c.servers[0].rules["pay"].outcome = PolicyOutcome::kAllow; },
      [](mcp::Config& c) { c.servers[0].rules["pay"].rename = "pay_now"; },
      [](mcp::Config& c) {
        c.servers[0].rules["pay"].fixed = {{"currency", "\"EUR\""}};
      },
      [](mcp::Config& c) { c.servers[0].name = "bank2"; },
      [](mcp::Config& c) { c.servers[0].rules.clear(); },
  };
  std::set<std::string> ids = {id};
  for (std::size_t i = 0; i < changed.size(); ++i) {
    mcp::Config c = BaseConfig();
    changed[i](c);
    EXPECT_TRUE(ids.insert(PolicyId(c)).second) << "changed #" << i;
  }
}

}  // namespace
}  // namespace agentrt::proxy
