// A hostile MCP host, as the governing proxy reads it: the input is the host's side of the
// conversation, one JSON-RPC message a line, handed to the proxy's stdio front (HostFront) over
// a fresh in-memory audit database, with two in-process upstream tools (a read and a payment,
// both allowed by policy, so every call the runtime accepts reaches its tool, and a repeated
// payment meets the duplicate rule). Every call task runs before the next line.
//
// Never crashes or hangs; everything the proxy writes back is one JSON-RPC message that parses;
// and no call reaches an upstream tool with arguments its schema refuses: each tool checks what
// it received against its own schema and traps otherwise (the proxy must never hand bytes the
// host chose to a server unvalidated).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "mcp/jsonrpc.h"
#include "mcp/proxy/host_front.h"
#include "mcp/proxy/proxy.h"
#include "runtime/json/intake.h"
#include "runtime/records/schema.h"
#include "runtime/schema/schema.h"
#include "runtime/tool.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"

namespace {

using agentrt::SideEffect;
using agentrt::ToolCall;
using agentrt::ToolResult;
using agentrt::ToolSpec;

class CheckedTool final : public agentrt::Tool {
 public:
  CheckedTool(std::string name, SideEffect side_effect, std::string schema)
      : name_(std::move(name)), side_effect_(side_effect), schema_text_(std::move(schema)) {
    absl::StatusOr<agentrt::schema::Schema> compiled =
        agentrt::schema::Schema::Compile(schema_text_);
    if (!compiled.ok()) __builtin_trap();
    schema_ = std::make_unique<agentrt::schema::Schema>(*std::move(compiled));
  }
  ToolSpec Spec() const override {
    ToolSpec spec;
    spec.name = name_;
    spec.description = "a tool";
    spec.input_schema = schema_text_;
    spec.side_effect = side_effect_;
    spec.timeout = absl::Seconds(5);
    spec.terminal = true;
    return spec;
  }
  absl::StatusOr<ToolResult> Call(const ToolCall& call) override {
    absl::StatusOr<agentrt::json::Document> args = agentrt::json::Parse(call.args);
    if (!args.ok() || !schema_->Validate(args->root()).valid) __builtin_trap();
    return ToolResult{"\"done\"", ""};
  }

 private:
  const std::string name_;
  const SideEffect side_effect_;
  const std::string schema_text_;
  std::unique_ptr<agentrt::schema::Schema> schema_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 1 << 16) return 0;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  // One database for the process (making one costs more than a run of inputs); each input is a
  // session of its own, so no input's calls meet another's.
  static agentrt::world::ManualClock clock(absl::FromUnixSeconds(1'800'000'000),
                                           {.waits = agentrt::world::ManualClock::Waits::kJump});
  static agentrt::world::SeededEntropy entropy(1);
  static absl::StatusOr<std::unique_ptr<agentrt::store::Store>> store =
      agentrt::records::OpenStoreInMemory(clock);
  static std::int64_t inputs = 0;
  if (!store.ok()) __builtin_trap();
  CheckedTool read("bank_balance", SideEffect::kReadOnly,
                   R"({"type":"object","properties":{"account":{"type":"string","maxLength":8}},)"
                   R"("required":["account"],"additionalProperties":false})");
  CheckedTool pay("bank_pay", SideEffect::kRemoteMutation,
                  R"({"type":"object","properties":{"to":{"type":"string"},"amount":)"
                  R"({"type":"number","minimum":0}},"required":["to","amount"],)"
                  R"("additionalProperties":false})");
  std::vector<agentrt::proxy::GovernedTool> tools(2);
  tools[0].tool = &read;
  tools[0].server = "bank";
  tools[0].upstream = "balance";
  tools[0].name = "bank_balance";
  tools[0].repeat_window = absl::Minutes(10);
  tools[1].tool = &pay;
  tools[1].server = "bank";
  tools[1].upstream = "pay";
  tools[1].name = "bank_pay";
  tools[1].side_effect = SideEffect::kRemoteMutation;
  tools[1].repeat_window = absl::Minutes(10);
  agentrt::proxy::ProxySettings settings;
  settings.session = "fuzz" + std::to_string(++inputs);
  settings.policy = {{SideEffect::kReadOnly, agentrt::PolicyOutcome::kAllow},
                     {SideEffect::kRemoteMutation, agentrt::PolicyOutcome::kAllow}};
  settings.hold = absl::ZeroDuration();
  agentrt::world::World world;
  world.clock = &clock;
  world.scheduler = &clock;
  world.entropy = &entropy;
  absl::StatusOr<std::unique_ptr<agentrt::proxy::Proxy>> proxy =
      agentrt::proxy::Proxy::Create(**store, world, settings, tools, [](std::string_view) {});
  if (!proxy.ok()) __builtin_trap();
  agentrt::proxy::HostFront front(**proxy);
  agentrt::proxy::Send send = [](std::string line) {
    if (line.find('\n') != std::string::npos) __builtin_trap();
    if (!agentrt::mcp::ParseMessage(line).ok()) __builtin_trap();
  };
  int messages = 0;
  for (absl::string_view line :
       absl::StrSplit(absl::string_view(input.data(), input.size()), '\n')) {
    if (++messages > 64) break;
    if (std::optional<std::function<void()>> task =
            front.Receive(std::string_view(line.data(), line.size()), send)) {
      (*task)();
    }
  }
  front.Shutdown();
  return 0;
}
