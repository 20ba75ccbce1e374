#include "testkit/same_renders.h"

#include <unistd.h>

#include <functional>
#include <memory>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "runtime/approvals.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/base/write_all.h"
#include "runtime/driver.h"
#include "runtime/events.h"
#include "runtime/reasons.h"
#include "runtime/records/schema.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "testkit/internal/child.h"
#include "testkit/internal/world.h"

namespace agentrt::testkit {
namespace {

constexpr std::string_view kRunId = "same-renders";

// Plays the scenario's calls: the number of assistant turns in a request is the number of
// calls already made. Every request is handed to `sink` as its canonical JSON.
class ScriptModel final : public Model {
 public:
  ScriptModel(const std::vector<ToolUse>& calls, std::function<void(std::string)> sink)
      : calls_(calls), sink_(std::move(sink)) {}
  std::string Name() const override { return "testkit-script"; }
  absl::StatusOr<ModelResponse> Generate(const ModelRequest& request, absl::Time) override {
    sink_(ModelRequestJson(request));
    std::size_t turns = 0;
    for (const Message& m : request.messages) turns += m.role == "assistant";
    ModelResponse response;
    response.usage = Usage{10, 5, 0};
    if (turns >= calls_.size()) {
      response.stop_reason = std::string(stop_reason::kRefusal);
      response.text = "the scenario has no call left";
      return response;
    }
    ToolUse use = calls_[turns];
    if (use.id.empty()) use.id = absl::StrCat("call_", turns);
    if (use.args.empty()) use.args = "{}";
    response.stop_reason = std::string(stop_reason::kToolUse);
    response.tool_uses.push_back(std::move(use));
    return response;
  }

 private:
  const std::vector<ToolUse>& calls_;
  std::function<void(std::string)> sink_;
};

// One process's part of a run: fresh agents and drivers on one store, pauses approved and
// resumed, until the run ends (or the process is stopped under it).
absl::StatusOr<Run> Drive(store::Store& store, const RenderScenario& scenario, Policy& policy,
                          Model& model, int process, bool start) {
  world::ManualClock clock(internal::RunTime());
  world::ManualClock lease_clock(internal::LeaseTime(process, absl::Seconds(30)));
  world::SeededEntropy entropy(scenario.seed * 1'000'003 + static_cast<std::uint64_t>(process));
  auto driver =
      [&]() -> absl::StatusOr<std::pair<std::unique_ptr<Agent>, std::unique_ptr<Driver>>> {
    auto agent = std::make_unique<render::ModelAgent>(scenario.agent);
    DriverOptions options;
    options.agent = agent.get();
    options.policy = &policy;
    options.tools = scenario.tools;
    options.lease_owner = absl::StrCat("testkit-", process);
    options.scheduler = &lease_clock;
    options.model.model = &model;
    AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<Driver> d,
                             Driver::Create(store, clock, entropy, std::move(options)));
    return std::pair<std::unique_ptr<Agent>, std::unique_ptr<Driver>>(std::move(agent),
                                                                      std::move(d));
  };
  AGENTRT_ASSIGN_OR_RETURN(auto first, driver());
  AGENTRT_ASSIGN_OR_RETURN(Run run,
                           start ? first.second->StartWithId(kRunId, scenario.goal, scenario.limits)
                                 : first.second->Resume(kRunId));
  while (run.status == RunStatus::kWaitingForApproval) {
    AGENTRT_ASSIGN_OR_RETURN(Approval pending, PendingApproval(store, kRunId));
    AGENTRT_RETURN_IF_ERROR(
        Approve(store, clock, kRunId, pending.id, Decider{"testkit", "same renders", ""}).status());
    AGENTRT_ASSIGN_OR_RETURN(auto next, driver());
    AGENTRT_ASSIGN_OR_RETURN(run, next.second->Resume(kRunId));
  }
  return run;
}

// "<length>\n<bytes>" records, as a crashed child hands its requests over.
std::string Frame(std::string_view bytes) {
  return absl::StrCat(bytes.size(), "\n", ToAbsl(bytes));
}

std::vector<std::string> Unframe(std::string_view data) {
  std::vector<std::string> out;
  while (!data.empty()) {
    std::size_t nl = data.find('\n');
    std::size_t n = 0;
    if (nl == std::string_view::npos || !absl::SimpleAtoi(ToAbsl(data.substr(0, nl)), &n) ||
        data.size() - nl - 1 < n) {
      break;  // a record cut by the crash is not a request the model got whole
    }
    out.emplace_back(data.substr(nl + 1, n));
    data.remove_prefix(nl + 1 + n);
  }
  return out;
}

// The bytes around the first difference, on one side.
std::string Around(std::string_view s, std::size_t at) {
  std::size_t from = at < 24 ? 0 : at - 24;
  return absl::StrCat(from > 0 ? "…" : "", ToAbsl(s.substr(from, 48)),
                      from + 48 < s.size() ? "…" : "");
}

// Adds a failure row for each request of `got` that is not the straight run's.
void Compare(const std::vector<std::string>& straight, const std::vector<std::string>& got,
             const std::string& variant, Report& report) {
  for (std::size_t i = 0; i < std::min(straight.size(), got.size()); ++i) {
    ++report.checked;
    const std::string& a = straight[i];
    const std::string& b = got[i];
    if (a == b) continue;
    std::size_t at = 0;
    while (at < a.size() && at < b.size() && a[at] == b[at]) ++at;
    report.failures.push_back(
        {variant, absl::StrCat("request ", i), absl::StrCat(at), Around(a, at), Around(b, at)});
  }
  if (straight.size() != got.size()) {
    report.failures.push_back({variant, "-", "-", absl::StrCat(straight.size(), " requests"),
                               absl::StrCat(got.size(), " requests")});
  }
}

}  // namespace

absl::StatusOr<Report> SameRenders(const RenderScenario& scenario) {
  AGENTRT_ASSIGN_OR_RETURN(TempDir dir, TempDir::Make("agentrt-renders-"));
  std::unique_ptr<Policy> allow = internal::AllowEverything();
  world::ManualClock store_clock(internal::RunTime());
  Report report;
  report.title = "same renders";
  report.header = {"variant", "request", "first differing byte", "straight run", "this run"};

  // The straight run.
  std::vector<std::string> straight;
  int tool_steps = 0;
  {
    ScriptModel model(scenario.calls, [&](std::string r) { straight.push_back(std::move(r)); });
    AGENTRT_ASSIGN_OR_RETURN(auto store, records::OpenStore(dir.File("straight.db"), store_clock));
    AGENTRT_ASSIGN_OR_RETURN(Run run, Drive(*store, scenario, *allow, model, 0, true));
    AGENTRT_ASSIGN_OR_RETURN(std::vector<store::Event> events, store->ListEvents(kRunId));
    for (const store::Event& e : events) tool_steps += e.type == event::kStepToolFinished;
    report.notes.push_back(absl::StrCat(
        "straight run: ", straight.size(), " requests, ", tool_steps, " tool steps, ended ",
        ToAbsl(ToString(run.status)), " (", ToAbsl(run.reason), ")"));
  }
  if (straight.empty()) {
    return absl::FailedPreconditionError(
        "same renders: the straight run made no model request (is an opening set?)");
  }

  // Paused before every call, approved, resumed by a fresh driver and agent.
  {
    std::vector<std::string> paused;
    ScriptModel model(scenario.calls, [&](std::string r) { paused.push_back(std::move(r)); });
    std::unique_ptr<Policy> approve = internal::ApproveEverything();
    AGENTRT_ASSIGN_OR_RETURN(auto store, records::OpenStore(dir.File("paused.db"), store_clock));
    AGENTRT_RETURN_IF_ERROR(Drive(*store, scenario, *approve, model, 0, true).status());
    Compare(straight, paused, "paused and resumed", report);
  }

  // Crashed after tool step k in a child, resumed here in a fresh driver.
  int crashes = std::min(scenario.max_crashes, tool_steps);
  for (int k = 0; k < crashes; ++k) {
    std::string variant = absl::StrCat("crashed after tool step ", k, " and resumed");
    std::string db = dir.File(absl::StrCat("crash-", k, ".db"));
    AGENTRT_ASSIGN_OR_RETURN(internal::ChildEnd child, internal::RunChild([&](int fd) {
                               ScriptModel model(scenario.calls, [&](std::string r) {
                                 WriteAll(fd, Frame(r)).IgnoreError();
                               });
                               auto store = records::OpenStore(db, store_clock);
                               if (!store.ok()) return 1;
                               int finished = 0;
                               (*store)->AddObserver([&](const store::Event& e) {
                                 if (e.type == event::kStepToolFinished && finished++ == k)
                                   ::_exit(internal::kCrashed);
                               });
                               return Drive(**store, scenario, *allow, model, 0, true).ok() ? 0 : 1;
                             }));
    if (!child.exited || child.code != internal::kCrashed) {
      report.failures.push_back(
          {variant, "-", "-", "-",
           absl::StrCat("the crash point was not reached: the child ", child.Describe())});
      continue;
    }
    std::vector<std::string> crashed = Unframe(child.output);
    ScriptModel model(scenario.calls, [&](std::string r) { crashed.push_back(std::move(r)); });
    AGENTRT_ASSIGN_OR_RETURN(auto store, records::OpenStore(db, store_clock));
    absl::StatusOr<Run> resumed = Drive(*store, scenario, *allow, model, 1, false);
    if (!resumed.ok()) {
      report.failures.push_back(
          {variant, "-", "-", "-", absl::StrCat("resume failed: ", resumed.status().message())});
      continue;
    }
    Compare(straight, crashed, variant, report);
  }
  return report;
}

}  // namespace agentrt::testkit
