// The child of ConcurrentResumeTest: opens the database, makes a driver with the post tool
// (which appends what it sent to the effects file, synced), prints "ready", waits for one byte
// on standard input — the start line the parent gives both children at once — then resumes
// the run and prints how that went: "resumed <status>" or "refused <code>".
//
//   resume_child DB EFFECTS RUN_ID
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <string>

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
  PostTool post(argv[2]);
  agentrt::ScriptedAgent agent({agentrt::scripted::Complete()});
  auto policy = agentrt::DefaultPolicy();
  agentrt::DriverOptions options;
  options.agent = &agent;
  options.policy = policy.get();
  options.tools = {&post};
  options.scheduler = &scheduler;
  options.lease_owner = "child";
  auto driver = agentrt::Driver::Create(**store, clock, entropy, options);
  if (!driver.ok()) return 1;
  std::printf("ready\n");
  std::fflush(stdout);
  char go;
  if (::read(STDIN_FILENO, &go, 1) != 1) return 1;
  absl::StatusOr<agentrt::Run> run = (*driver)->Resume(argv[3]);
  if (run.ok()) {
    std::printf("resumed %s\n", std::string(agentrt::ToString(run->status)).c_str());
  } else {
    std::printf("refused %s\n", absl::StatusCodeToString(run.status().code()).c_str());
  }
  return 0;
}
