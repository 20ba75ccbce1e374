// The child of ConcurrentResumeTest's appenders: opens the database, makes a driver with a
// read-only tool, prints "ready", waits for one byte on standard input (the start line the parent
// gives every child at once), then starts run RUN_ID, which reads STEPS times and completes, and
// prints "ran <status>" or "refused <code>".
//
//   drive_child DB RUN_ID STEPS
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/driver.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "runtime/world/real_scheduler.h"

namespace {

class ReadTool final : public agentrt::Tool {
 public:
  agentrt::ToolSpec Spec() const override {
    return agentrt::ToolSpec{
        "read",
        "Read a file.",
        R"({"type":"object","properties":{"path":{"type":"string"}},"required":["path"]})",
        agentrt::SideEffect::kReadOnly,
        absl::Seconds(5),
        false};
  }
  absl::StatusOr<agentrt::ToolResult> Call(const agentrt::ToolCall& call) override {
    return agentrt::ToolResult{R"({"text":"contents"})", "read"};
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  agentrt::world::RealClock clock;
  agentrt::world::RealScheduler scheduler;
  agentrt::world::OsEntropy entropy;
  auto store = agentrt::records::OpenStore(argv[1], clock);
  if (!store.ok()) {
    std::printf("error %s\n", std::string(store.status().message()).c_str());
    return 1;
  }
  ReadTool read;
  std::vector<agentrt::Decision> script;
  for (int i = 0, steps = std::atoi(argv[3]); i < steps; ++i) {
    script.push_back(agentrt::scripted::Call("read", "{\"path\":\"f" + std::to_string(i) + "\"}"));
  }
  script.push_back(agentrt::scripted::Complete());
  agentrt::ScriptedAgent agent(std::move(script));
  auto policy = agentrt::DefaultPolicy();
  agentrt::DriverOptions options;
  options.agent = &agent;
  options.policy = policy.get();
  options.tools = {&read};
  options.scheduler = &scheduler;
  options.lease_owner = std::string("child-") + argv[2];
  auto driver = agentrt::Driver::Create(**store, clock, entropy, options);
  if (!driver.ok()) return 1;
  std::printf("ready\n");
  std::fflush(stdout);
  char go;
  if (::read(STDIN_FILENO, &go, 1) != 1) return 1;
  agentrt::Limits limits;
  limits.max_steps = 1000;
  absl::StatusOr<agentrt::Run> run = (*driver)->StartWithId(argv[2], "read files", limits);
  if (run.ok()) {
    std::printf("ran %s\n", std::string(agentrt::ToString(run->status)).c_str());
  } else {
    std::printf("refused %s %s\n", absl::StatusCodeToString(run.status().code()).c_str(),
                std::string(run.status().message()).c_str());
  }
  return 0;
}
