// The child of the races over one database (tests/support/raced_children.h): opens the database,
// makes a driver, prints "ready", waits for one byte on standard input (the start line the
// parent gives every child at once), then does one thing and prints how it went.
//
//   race_child resume DB EFFECTS RUN_ID   resume the run (the "post" tool appends what it sent
//                                         to EFFECTS, synced): "resumed <status>" or
//                                         "refused <code>"
//   race_child start DB RUN_ID STEPS      start a run that reads STEPS times and completes:
//                                         "ran <status>" or "refused <code> <message>"
#include <fcntl.h>
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

class PostTool final : public agentrt::Tool {
 public:
  explicit PostTool(std::string effects) : effects_(std::move(effects)) {}
  agentrt::ToolSpec Spec() const override {
    return agentrt::ToolSpec{
        "post",
        "Send a message.",
        R"({"type":"object","properties":{"to":{"type":"string"}},"required":["to"]})",
        agentrt::SideEffect::kRemoteMutation,
        absl::Seconds(5),
        false};
  }
  absl::StatusOr<agentrt::ToolResult> Call(const agentrt::ToolCall& call) override {
    std::string line = std::to_string(::getpid()) + " " + call.args + "\n";
    int fd = ::open(effects_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0 || ::write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
      return absl::InternalError("cannot record the post");
    }
    ::fsync(fd);
    ::close(fd);
    return agentrt::ToolResult{R"({"sent":true})", "sent"};
  }

 private:
  std::string effects_;
};

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
  absl::StatusOr<agentrt::ToolResult> Call(const agentrt::ToolCall&) override {
    return agentrt::ToolResult{R"({"text":"contents"})", "read"};
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) return 2;
  const std::string mode = argv[1];
  if (mode != "resume" && mode != "start") return 2;
  agentrt::world::RealClock clock;
  agentrt::world::RealScheduler scheduler;
  agentrt::world::OsEntropy entropy;
  auto store = agentrt::records::OpenStore(argv[2], clock);
  if (!store.ok()) {
    std::printf("error %s\n", std::string(store.status().message()).c_str());
    return 1;
  }
  PostTool post(mode == "resume" ? argv[3] : "/dev/null");
  ReadTool read;
  std::vector<agentrt::Decision> script;
  if (mode == "start") {
    for (int i = 0, steps = std::atoi(argv[4]); i < steps; ++i) {
      script.push_back(
          agentrt::scripted::Call("read", "{\"path\":\"f" + std::to_string(i) + "\"}"));
    }
  }
  script.push_back(agentrt::scripted::Complete());
  agentrt::ScriptedAgent agent(std::move(script));
  auto policy = agentrt::DefaultPolicy();
  agentrt::DriverOptions options;
  options.agent = &agent;
  options.policy = policy.get();
  if (mode == "resume") {
    options.tools = {&post};
  } else {
    options.tools = {&read};
  }
  options.scheduler = &scheduler;
  options.lease_owner = mode == "resume" ? std::string("child") : std::string("child-") + argv[3];
  auto driver = agentrt::Driver::Create(**store, clock, entropy, options);
  if (!driver.ok()) return 1;
  std::printf("ready\n");
  std::fflush(stdout);
  char go;
  if (::read(STDIN_FILENO, &go, 1) != 1) return 1;
  if (mode == "resume") {
    absl::StatusOr<agentrt::Run> run = (*driver)->Resume(argv[4]);
    if (run.ok()) {
      std::printf("resumed %s\n", std::string(agentrt::ToString(run->status)).c_str());
    } else {
      std::printf("refused %s\n", absl::StatusCodeToString(run.status().code()).c_str());
    }
    return 0;
  }
  agentrt::Limits limits;
  limits.max_steps = 1000;
  absl::StatusOr<agentrt::Run> run = (*driver)->StartWithId(argv[3], "read files", limits);
  if (run.ok()) {
    std::printf("ran %s\n", std::string(agentrt::ToString(run->status)).c_str());
  } else {
    std::printf("refused %s %s\n", absl::StatusCodeToString(run.status().code()).c_str(),
                std::string(run.status().message()).c_str());
  }
  return 0;
}
