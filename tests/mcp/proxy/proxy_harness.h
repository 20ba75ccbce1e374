// tests/mcp/proxy/proxy_harness.h
//
// The proxy's core in one process (mcp/proxy/proxy.h): a fake payment server's three tools as
// in-process Tools (balance read_only, pay remote_mutation with modes, refund destructive; every
// pay appends to `payments`, first, as the real server writes its ledger), a real SQLite file,
// a manual clock that jumps through waits (a 24 h TTL costs nothing), seeded entropy, and the
// operator's hints kept. Test-only.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mcp/proxy/proxy.h"
#include "mcp/proxy/proxy_policy.h"
#include "runtime/approvals.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/members.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/schema.h"
#include "runtime/tool.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "tests/support/test_folder.h"

namespace agentrt::proxy::testing {

// The matchers every proxy test uses (tests/support/status_matchers.h names the rest).
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::Not;
using ::testing::StartsWith;

// One of the fake server's tools. `payments` is shared by the three.
class BankTool final : public Tool {
 public:
  BankTool(std::string name, SideEffect side_effect, std::vector<std::string>* payments,
           const world::Clock* clock)
      : name_(std::move(name)), side_effect_(side_effect), payments_(payments), clock_(clock) {}

  ToolSpec Spec() const override {
    ToolSpec spec;
    spec.name = name_;
    spec.side_effect = side_effect_;
    spec.timeout = absl::Seconds(10);
    spec.terminal = false;  // as an MCP server's tools are: the proxy makes each call a run's end
    spec.description = description;
    if (name_ == "bank_balance") {
      spec.input_schema =
          R"({"type":"object","properties":{"account":{"type":"string"}},"required":["account"],"additionalProperties":false})";
    } else if (name_ == "bank_pay") {
      spec.input_schema =
          R"({"type":"object","properties":{"to":{"type":"string"},"amount":{"type":"number"},"mode":{"enum":["block","error","structured","deep","closed"]}},"required":["to","amount"],"additionalProperties":false})";
    } else {
      spec.input_schema =
          R"({"type":"object","properties":{"payment":{"type":"string"}},"required":["payment"],"additionalProperties":false})";
    }
    return spec;
  }

  absl::StatusOr<ToolResult> Call(const ToolCall& call) override {
    absl::StatusOr<json::Document> args = json::Parse(call.args);
    if (!args.ok()) return args.status();
    if (name_ == "bank_balance") {
      if (started != nullptr) started->Notify();
      if (never != nullptr) never->WaitForNotification();
      return ToolResult{
          json::JsonString(absl::StrCat("account ", json::MemberText(args->root(), "account"),
                                        " holds 120.00 EUR")),
          ""};
    }
    if (name_ == "bank_refund") return ToolResult{json::JsonString("refunded"), ""};
    payments_->push_back(call.args);
    if (started != nullptr) started->Notify();
    if (never != nullptr) never->WaitForNotification();
    std::string to = json::MemberText(args->root(), "to");
    std::string mode = json::MemberText(args->root(), "mode");
    double amount = 0;
    if (std::optional<json::Value> a = args->root().Find("amount"); a && a->is_number()) {
      amount = std::stod(std::string(a->number_literal()));
    }
    if (mode == "error") {
      std::string text = "card declined for " + to;
      return absl::FailedPreconditionError(
          absl::StrCat("bank/pay: ", json::JsonString(text).size(), " bytes, error: ", text));
    }
    if (mode == "structured") {
      return ToolResult{json::JsonObject()
                            .Raw("paid", std::string(args->root().Find("amount")->number_literal()))
                            .String("to", to)
                            .Build(),
                        ""};
    }
    if (mode == "deep") {
      std::string deep(300, '[');
      deep += "1";
      deep += std::string(300, ']');
      return ToolResult{"{\"nested\":" + deep + "}", ""};
    }
    if (mode == "block" && blocked) {
      return absl::DeadlineExceededError("mcp: server \"bank\": tool \"pay\": timed out");
    }
    if (mode == "closed") {
      return absl::UnavailableError("mcp: server \"bank\": tool \"pay\": connection closed");
    }
    char paid[64];
    std::snprintf(paid, sizeof paid, "paid %.2f to ", amount);
    return ToolResult{json::JsonString(paid + to), ""};
  }

  std::string description = "A tool of the fake bank.";
  // mode "block": the payment is made, and the call times out while this is set.
  bool blocked = true;
  // When set: notified once the call reached the server (a pay is recorded first); the call then
  // waits for `never` (a process that stops answering mid-call).
  absl::Notification* started = nullptr;
  absl::Notification* never = nullptr;

 private:
  const std::string name_;
  const SideEffect side_effect_;
  std::vector<std::string>* payments_;
  const world::Clock* clock_;
};

class ProxyHarness : public ::testing::Test {
 protected:
  ProxyHarness()
      : clock_(absl::FromUnixSeconds(1'800'000'000), {.waits = world::ManualClock::Waits::kJump}),
        balance_("bank_balance", SideEffect::kReadOnly, &payments_, &clock_),
        pay_("bank_pay", SideEffect::kRemoteMutation, &payments_, &clock_),
        refund_("bank_refund", SideEffect::kDestructive, &payments_, &clock_) {
    settings_.session = "test";
    settings_.policy = {{SideEffect::kReadOnly, PolicyOutcome::kAllow},
                        {SideEffect::kLocalMutation, PolicyOutcome::kAllow},
                        {SideEffect::kRemoteMutation, PolicyOutcome::kRequireApproval},
                        {SideEffect::kDestructive, PolicyOutcome::kDeny}};
    settings_.policy_id = "agentrt-proxy/sha256:test";
    settings_.hold = absl::ZeroDuration();
    settings_.database = db_;
    settings_.poll = absl::Milliseconds(20);
    tools_ = {Governed(&balance_, "balance", SideEffect::kReadOnly),
              Governed(&pay_, "pay", SideEffect::kRemoteMutation),
              Governed(&refund_, "refund", SideEffect::kDestructive)};
  }

  GovernedTool Governed(Tool* tool, std::string upstream, SideEffect side_effect) {
    GovernedTool g;
    g.tool = tool;
    g.server = "bank";
    g.upstream = std::move(upstream);
    g.name = "bank_" + g.upstream;
    g.side_effect = side_effect;
    g.repeat_window = absl::Minutes(10);
    return g;
  }
  GovernedTool& Configured(std::string_view name) {
    for (GovernedTool& t : tools_) {
      if (t.name == name) return t;
    }
    ADD_FAILURE() << "no tool " << name;
    return tools_[0];
  }

  // Opens (or opens again, as a new proxy process would) the proxy on the database.
  void Open() {
    proxy_.reset();
    if (store_ == nullptr) {
      absl::StatusOr<std::unique_ptr<store::Store>> store = records::OpenStore(db_, clock_);
      ASSERT_TRUE(store.ok()) << store.status();
      store_ = *std::move(store);
    }
    world::World world;
    world.clock = &clock_;
    world.scheduler = &clock_;
    world.entropy = &entropy_;
    absl::StatusOr<std::unique_ptr<Proxy>> proxy =
        Proxy::Create(*store_, world, settings_, tools_,
                      [this](std::string_view line) { log_.push_back(std::string(line)); });
    ASSERT_TRUE(proxy.ok()) << proxy.status();
    proxy_ = *std::move(proxy);
  }

  Answer Call(std::string_view name, std::string_view args, const HostCall& host = {}) {
    if (proxy_ == nullptr) Open();
    return proxy_->Call(name, args, host);
  }

  // The approval id an answer names, and the run it belongs to.
  static std::string ApprovalIn(const Answer& a) { return ApprovalNamedIn(a.text); }
  std::string RunOf(std::string_view approval_id) const {
    return RunOfApproval(*store_, approval_id).value_or("");
  }
  absl::StatusOr<Approval> Decide(std::string_view approval_id, bool approve,
                                  std::string note = "") {
    std::string run = RunOf(approval_id);
    Decider by{.by = "operator", .note = std::move(note), .shown_hash = ""};
    return approve ? Approve(*store_, clock_, run, approval_id, by)
                   : Reject(*store_, clock_, run, approval_id, by);
  }
  std::vector<std::string> EventTypes(std::string_view run_id) {
    std::vector<std::string> types;
    absl::StatusOr<std::vector<store::Event>> events = store_->ListEvents(run_id);
    if (events.ok()) {
      for (const store::Event& e : *events) types.push_back(e.type);
    }
    return types;
  }
  // Every run's id, in the order they were created.
  std::vector<std::string> RunIds() {
    std::vector<std::string> ids;
    absl::StatusOr<std::vector<store::Event>> events = store_->ListEvents("");
    if (events.ok()) {
      for (const store::Event& e : *events) {
        if (e.type == "run.created") ids.push_back(e.run_id);
      }
    }
    return ids;
  }

  std::string db_ = test_support::TestFile("proxy.db");
  world::ManualClock clock_;
  world::SeededEntropy entropy_{7};
  std::vector<std::string> payments_;
  BankTool balance_, pay_, refund_;
  ProxySettings settings_;
  std::vector<GovernedTool> tools_;
  std::vector<std::string> log_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<Proxy> proxy_;
};

}  // namespace agentrt::proxy::testing
