#include "testkit/crash_harness.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <exception>
#include <fstream>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "runtime/approvals.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/base/write_all.h"
#include "runtime/events.h"
#include "runtime/json/intake.h"
#include "runtime/json/members.h"
#include "runtime/json/sanitize.h"
#include "runtime/operator/executions.h"
#include "runtime/records/event_payloads.h"
#include "runtime/records/rows.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/schema.h"
#include "runtime/records/stored_forms.h"
#include "runtime/tool_registry.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "testkit/internal/child.h"
#include "testkit/internal/drive.h"
#include "testkit/internal/world.h"

namespace agentrt::testkit {
namespace {

constexpr std::string_view kRunId = internal::kScenarioRun;

// The event whose commit is a crash point.
std::optional<CrashPoint> PointOf(std::string_view event_type) {
  if (event_type == event::kStepStarted) return CrashPoint::kAfterStepStarted;
  if (event_type == event::kStepDecided) return CrashPoint::kAfterStepDecided;
  if (event_type == event::kStepToolStarted) return CrashPoint::kAfterToolStarted;
  if (event_type == event::kStepToolFinished) return CrashPoint::kAfterToolFinished;
  if (event_type == event::kRunResumed) return CrashPoint::kAfterRunResumed;
  if (event_type == event::kStepInterrupted) return CrashPoint::kAfterStepInterrupted;
  if (event_type == event::kApprovalRequested) return CrashPoint::kAtPause;
  return std::nullopt;
}

std::string Label(const CrashAt& at) {
  return absl::StrCat(ToAbsl(ToString(at.point)), " #", at.occurrence);
}

std::string Label(const std::vector<CrashAt>& plan) {
  if (plan.empty()) return "no crash";
  std::vector<std::string> parts;
  for (const CrashAt& at : plan) parts.push_back(Label(at));
  return absl::StrJoin(parts, ", then ");
}

// Plays `script[i]` for a step with i steps before it, so a resumed run goes on from where
// its stored steps say.
class IndexedScript final : public Agent {
 public:
  explicit IndexedScript(const std::vector<Decision>& script) : script_(script) {}
  absl::StatusOr<Decision> Decide(const StepInput& input) override {
    std::size_t i = input.steps.size();
    if (i >= script_.size()) {
      return absl::FailedPreconditionError(
          absl::StrCat("the scenario's script has no decision for a step with ", i,
                       " steps before it (it has ", script_.size(), ")"));
    }
    return script_[i];
  }

 private:
  const std::vector<Decision>& script_;
};

// One process's part of a run: it opens the database, drives the run with fresh drivers
// (starting it, or resuming what a dead process left), answers pauses, and reports every
// crash point it reaches through `log`; at the planned one it stops dead.
class Process {
 public:
  Process(const Scenario& scenario, const RunOptions& options, std::string db, std::string effects,
          int index, std::optional<CrashAt> crash, std::function<void(std::string_view)> log)
      : s_(scenario),
        o_(options),
        db_(std::move(db)),
        effects_(std::move(effects)),
        index_(index),
        crash_(crash),
        log_(std::move(log)) {}

  // 0 when the process did its part; 2 after logging "error <why>".
  int Drive() {
    absl::Status s = DriveRun();
    if (!s.ok()) {
      log_(absl::StrCat("error ", json::Sanitize(ToStd(s.message()))));
      return 2;
    }
    return 0;
  }

  void Reach(CrashPoint point) {
    int n = ++reached_[point];
    log_(absl::StrCat("point ", static_cast<int>(point), " ", n));
    if (crash_ && crash_->point == point && crash_->occurrence == n) {
      log_("crash");
      ::_exit(internal::kCrashed);
    }
  }

  void LogEffect(std::string_view step_id) {
    std::string line = absl::StrCat(ToAbsl(step_id), "\n");
    int fd = ::open(effects_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd >= 0) {
      // A lost line shows as a missing effect, which the check reports.
      WriteAll(fd, line).IgnoreError();
      ::close(fd);
    }
  }

  bool gate() const { return static_cast<bool>(s_.loop); }

 private:
  // The product's tool, with its executions logged and the after-effect crash point.
  class LoggedTool final : public Tool {
   public:
    LoggedTool(Tool& inner, Process& process) : inner_(inner), process_(process) {}
    ToolSpec Spec() const override { return inner_.Spec(); }
    absl::StatusOr<ToolResult> Call(const ToolCall& call) override {
      absl::StatusOr<ToolResult> result;
      try {
        result = inner_.Call(call);
      } catch (...) {
        process_.LogEffect(call.step_id);
        throw;
      }
      process_.LogEffect(call.step_id);
      process_.Reach(CrashPoint::kAfterEffect);
      return result;
    }

   private:
    Tool& inner_;
    Process& process_;
  };

  // The product's policy; an allow is the AfterAllowed crash point of a Driver.
  class WatchedPolicy final : public Policy {
   public:
    WatchedPolicy(Policy& inner, Process& process) : inner_(inner), process_(process) {}
    absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest& request,
                                            const RunView& view) override {
      absl::StatusOr<PolicyDecision> d = inner_.Evaluate(request, view);
      if (d.ok() && d->outcome == PolicyOutcome::kAllow && !process_.gate()) {
        process_.Reach(CrashPoint::kAfterAllowed);
      }
      return d;
    }
    std::string Id() const override { return inner_.Id(); }

   private:
    Policy& inner_;
    Process& process_;
  };

  class Loop final : public GateLoop {
   public:
    Loop(GateSession& session, Process& process) : session_(session), process_(process) {}
    absl::StatusOr<bool> Step() override { return session_.Step(); }
    StepInput Input() const override { return session_.Input(); }
    absl::StatusOr<GateVerdict> Propose(const Decision& decision) override {
      absl::StatusOr<GateVerdict> v = session_.Propose(decision);
      if (v.ok() && v->outcome == GateVerdict::Outcome::kAllowed) {
        process_.Reach(CrashPoint::kAfterAllowed);
      }
      return v;
    }
    absl::StatusOr<Observation> Execute() override { return session_.Execute(); }
    absl::Status Fail(const absl::Status& why) override { return session_.Fail(why); }

   private:
    GateSession& session_;
    Process& process_;
  };

  absl::StatusOr<std::unique_ptr<Driver>> NewDriver() {
    log_("driver");
    agent_ = s_.agent ? s_.agent() : std::make_unique<IndexedScript>(s_.script);
    DriverOptions options;
    options.agent = gate() ? nullptr : agent_.get();
    options.policy = policy_.get();
    for (auto& t : tools_) options.tools.push_back(t.get());
    options.lease_owner = absl::StrCat("testkit-", index_);
    options.lease_ttl = o_.lease_ttl;
    options.scheduler = lease_clock_.get();
    options.reconcile = s_.reconcile;
    return Driver::Create(*store_, *clock_, *entropy_, std::move(options));
  }

  // The product's loop over an open session.
  absl::Status RunLoop(GateSession& session) {
    Loop loop(session, *this);
    absl::Status s;
    try {
      s = s_.loop(loop);
    } catch (const std::exception& e) {
      s = absl::InternalError(absl::StrCat("the loop threw: ", e.what()));
    }
    return s;
  }

  // Starts the run (process 0) or takes over what the last process left.
  absl::StatusOr<agentrt::Run> Enter(Driver& driver, bool start) {
    if (!gate()) {
      return start ? driver.StartWithId(kRunId, s_.goal, s_.limits) : driver.Resume(kRunId);
    }
    if (start) {
      AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<GateSession> session,
                               driver.Begin(kRunId, s_.goal, s_.limits));
      AGENTRT_RETURN_IF_ERROR(RunLoop(*session));
      return ReadRun(*store_, kRunId);
    }
    AGENTRT_ASSIGN_OR_RETURN(auto attached, driver.Attach(kRunId));
    auto& [session, verdict] = attached;
    if (verdict.outcome == GateVerdict::Outcome::kAllowed) {
      Reach(CrashPoint::kAfterAttachAllowed);
      absl::Status executed = session->Execute().status();
      AGENTRT_ASSIGN_OR_RETURN(agentrt::Run run, ReadRun(*store_, kRunId));
      if (!executed.ok() && run.status == RunStatus::kRunning) return executed;
      if (run.status != RunStatus::kRunning) return run;
    } else if (verdict.outcome != GateVerdict::Outcome::kOpen) {
      return verdict.run;
    }
    AGENTRT_RETURN_IF_ERROR(RunLoop(*session));
    return ReadRun(*store_, kRunId);
  }

  absl::Status DriveRun() {
    clock_ = std::make_unique<world::ManualClock>(internal::RunTime());
    lease_clock_ = std::make_unique<world::ManualClock>(internal::LeaseTime(index_, o_.lease_ttl));
    entropy_ = std::make_unique<world::SeededEntropy>(s_.seed * 1'000'003 +
                                                      static_cast<std::uint64_t>(index_) * 7'919);
    AGENTRT_ASSIGN_OR_RETURN(store_, records::OpenStore(db_, *clock_));
    store_->AddObserver([this](const store::Event& e) {
      if (std::optional<CrashPoint> p = PointOf(e.type)) Reach(*p);
    });
    for (Tool* t : s_.tools) tools_.push_back(std::make_unique<LoggedTool>(*t, *this));
    policy_ = std::make_unique<WatchedPolicy>(*s_.policy, *this);

    absl::StatusOr<agentrt::Run> run;
    if (index_ == 0) {
      AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<Driver> driver, NewDriver());
      run = Enter(*driver, /*start=*/true);
    } else {
      run = ReadRun(*store_, kRunId);
      if (run.ok() && run->status != RunStatus::kWaitingForApproval && !IsTerminal(run->status)) {
        AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<Driver> driver, NewDriver());
        run = Enter(*driver, /*start=*/false);
      }
    }
    // Every pause is answered as the scenario says, and a granted one resumed by a fresh
    // driver: the runs a product's operator would make.
    for (int rounds = 0; run.ok() && run->status == RunStatus::kWaitingForApproval; ++rounds) {
      if (rounds > 100) return absl::InternalError("more than 100 pauses: the run never ends");
      AGENTRT_ASSIGN_OR_RETURN(std::vector<Approval> approvals, ListApprovals(*store_, kRunId));
      if (approvals.empty()) return absl::InternalError("the run waits with no approval");
      const Approval& latest = approvals.back();
      if (latest.status == ApprovalStatus::kPending) {
        bool yes = !s_.approve || s_.approve(latest);
        Decider decider{"testkit", yes ? "approved by the scenario" : "rejected by the scenario",
                        ""};
        if (!yes) {
          AGENTRT_RETURN_IF_ERROR(Reject(*store_, *clock_, kRunId, latest.id, decider).status());
          run = ReadRun(*store_, kRunId);
          break;
        }
        AGENTRT_RETURN_IF_ERROR(Approve(*store_, *clock_, kRunId, latest.id, decider).status());
      } else if (latest.status != ApprovalStatus::kApproved) {
        return absl::InternalError(absl::StrCat("the run waits on approval ", latest.id,
                                                ", which is ", ToAbsl(ToString(latest.status))));
      }
      AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<Driver> driver, NewDriver());
      run = Enter(*driver, /*start=*/false);
    }
    return run.status();
  }

  const Scenario& s_;
  const RunOptions& o_;
  std::string db_;
  std::string effects_;
  int index_;
  std::optional<CrashAt> crash_;
  std::function<void(std::string_view)> log_;
  std::map<CrashPoint, int> reached_;

  std::unique_ptr<world::ManualClock> clock_;
  std::unique_ptr<world::ManualClock> lease_clock_;
  std::unique_ptr<world::SeededEntropy> entropy_;
  std::vector<std::unique_ptr<Tool>> tools_;
  std::unique_ptr<Policy> policy_;
  std::unique_ptr<Agent> agent_;
  // Declared last, so closed first: no driver outlives DriveRun, and the observer above reads
  // only this object.
  std::unique_ptr<store::Store> store_;
};

std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// What the harness learned from one run.
struct Executed {
  CrashedRun run;
  std::vector<std::vector<CrashAt>> reached;  // per process
};

constexpr std::string_view kReached = "every crash point is reached";
constexpr std::string_view kDriven = "the run is driven to its end";

// Invariant names, as rows of a report.
constexpr std::string_view kNothingReruns = "nothing re-executes on its own";
constexpr std::string_view kApprovedOnce = "an approved request executes at most once";
constexpr std::string_view kStartRecorded = "every execution's start is recorded first";
constexpr std::string_view kStartsEnd = "every tool start is finished or interrupted";
constexpr std::string_view kOperatorDecides = "an interrupted side effect waits for an operator";
constexpr std::string_view kNothingInFlight = "no step or lease left in flight";
constexpr std::string_view kChainIntact = "the event chain is intact";

}  // namespace

std::string_view ToString(CrashPoint point) {
  switch (point) {
    case CrashPoint::kAfterStepStarted:
      return "after step.started";
    case CrashPoint::kAfterStepDecided:
      return "after step.decided";
    case CrashPoint::kAfterToolStarted:
      return "after step.tool_started";
    case CrashPoint::kAfterEffect:
      return "after the tool's effect";
    case CrashPoint::kAfterToolFinished:
      return "after step.tool_finished";
    case CrashPoint::kAfterRunResumed:
      return "after run.resumed";
    case CrashPoint::kAfterStepInterrupted:
      return "after step.interrupted";
    case CrashPoint::kAtPause:
      return "at a pause";
    case CrashPoint::kAfterAllowed:
      return "after allowed";
    case CrashPoint::kAfterAttachAllowed:
      return "after attach allowed";
  }
  return "";
}

absl::StatusOr<Report> CheckInvariants(store::Store& store, std::string_view run_id,
                                       const std::vector<std::string>& executions) {
  AGENTRT_ASSIGN_OR_RETURN(agentrt::Run run, ReadRun(store, run_id));
  AGENTRT_ASSIGN_OR_RETURN(std::vector<Step> steps, ReadSteps(store, run_id));
  AGENTRT_ASSIGN_OR_RETURN(std::vector<Approval> approvals, ListApprovals(store, run_id));
  AGENTRT_ASSIGN_OR_RETURN(std::vector<store::Event> events, store.ListEvents(run_id));
  AGENTRT_ASSIGN_OR_RETURN(RunLease lease, ReadLease(store, run_id));
  const std::string& lease_owner = lease.owner;
  std::map<std::string, std::string> side_effects;  // spec hash -> side effect
  AGENTRT_RETURN_IF_ERROR(store.Read([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(auto specs, rows::ReadToolSpecs(tx));
    for (const auto& [hash, spec_json] : specs) {
      absl::StatusOr<json::Document> spec = json::Parse(spec_json);
      if (spec.ok()) side_effects[hash] = json::MemberText(spec->root(), "side_effect");
    }
    return absl::OkStatus();
  }));

  Report report;
  report.title = absl::StrCat("run ", ToAbsl(run_id));
  report.header = {"invariant", "detail"};
  report.checked = 7;
  auto broken = [&](std::string_view invariant, std::string detail) {
    report.failures.push_back({std::string(invariant), std::move(detail)});
  };
  std::map<std::string, const Step*> by_id;
  for (const Step& s : steps) by_id[s.id] = &s;
  auto name = [&](const std::string& step_id) {
    auto it = by_id.find(step_id);
    if (it == by_id.end()) return absl::StrCat("step ", step_id);
    const Step& s = *it->second;
    return absl::StrCat("step ", s.index,
                        s.decision ? absl::StrCat(" (", s.decision->tool, ")") : "");
  };

  std::map<std::string, int> ran;
  for (const std::string& step_id : executions) ++ran[step_id];
  Executions log = ReadExecutions(events);
  for (const ToolStart& start : log.starts) {
    if (start.while_open) {
      broken(kStartsEnd, absl::StrCat(name(start.step_id), " started its tool again (event ",
                                      start.seq, ") before the last start ended"));
    }
  }
  for (const std::string& step_id : log.never_ended) {
    broken(kStartsEnd,
           absl::StrCat(name(step_id), ": its last tool start was never finished or interrupted"));
  }
  std::map<std::string, int>& starts = log.starts_by_step;
  const std::map<std::string, std::int64_t>& requested = log.requested_at;
  const std::map<std::string, std::int64_t>& interrupted_at = log.interrupted_at;

  // Re-executions need a grant given after the interruption, one each.
  std::map<std::string, int> regrants;
  std::map<std::string, bool> operator_asked;
  for (const Approval& a : approvals) {
    auto it = interrupted_at.find(a.step_id);
    if (it == interrupted_at.end()) continue;
    auto req = requested.find(a.id);
    if (req == requested.end() || req->second < it->second) continue;
    operator_asked[a.step_id] = true;
    if (a.status == ApprovalStatus::kApproved) ++regrants[a.step_id];
  }
  for (const auto& [step_id, n] : ran) {
    if (n > 1 + regrants[step_id]) {
      broken(kNothingReruns,
             absl::StrCat(name(step_id), " ran ", n, " times with ", regrants[step_id],
                          " operator grant(s) after an interruption"));
    }
    if (n > starts[step_id]) {
      broken(kStartRecorded,
             absl::StrCat(name(step_id), " ran ", n, " times; its start was recorded ",
                          starts[step_id], " times"));
    }
  }
  for (const auto& [approval_id, n] : log.starts_by_grant) {
    if (n > 1) {
      broken(kApprovedOnce,
             absl::StrCat("approval ", approval_id, " started its tool ", n, " times"));
    }
  }
  for (const std::string& step_id : log.interrupted_executing) {
    auto it = by_id.find(step_id);
    bool read_only = it != by_id.end() && side_effects[it->second->spec_hash] == "read_only";
    if (!read_only && !operator_asked[step_id]) {
      broken(kOperatorDecides, absl::StrCat(name(step_id),
                                            " was interrupted while executing a side effect, "
                                            "and no operator was asked"));
    }
  }

  if (!IsTerminal(run.status)) {
    broken(kNothingInFlight, absl::StrCat("the run was left ", ToAbsl(ToString(run.status))));
  }
  for (const Step& s : steps) {
    bool waiting =
        s.status == StepStatus::kAwaitingApproval && run.status == RunStatus::kWaitingForApproval;
    if ((s.status == StepStatus::kDeciding || s.status == StepStatus::kExecuting ||
         s.status == StepStatus::kAwaitingApproval) &&
        !waiting) {
      broken(kNothingInFlight, absl::StrCat(name(s.id), " was left ", ToAbsl(ToString(s.status))));
    }
  }
  if (!lease_owner.empty() && run.status != RunStatus::kRunning) {
    broken(kNothingInFlight, absl::StrCat("the lease is still held by ", lease_owner, " on a ",
                                          ToAbsl(ToString(run.status)), " run"));
  }
  AGENTRT_ASSIGN_OR_RETURN(store::ChainReport chain, store.VerifyEvents());
  if (chain.broken) {
    broken(kChainIntact, absl::StrCat("event ", chain.broken->seq, ": ", chain.broken->detail));
  }
  return report;
}

namespace internal {

absl::Status DriveOnce(const Scenario& scenario, const std::string& db) {
  if (scenario.policy == nullptr)
    return absl::InvalidArgumentError("scenario: a policy is required");
  RunOptions options;
  std::string error;
  Process p(scenario, options, db, db + ".effects", 0, std::nullopt, [&](std::string_view line) {
    if (line.starts_with("error ")) error = std::string(line.substr(6));
  });
  if (p.Drive() != 0) return absl::InternalError(absl::StrCat("scenario: ", error));
  return absl::OkStatus();
}

}  // namespace internal

absl::StatusOr<RunResult> CrashAndResume(const Scenario& scenario, const RunOptions& options) {
  if (scenario.policy == nullptr)
    return absl::InvalidArgumentError("scenario: a policy is required");
  if (!scenario.loop && !scenario.agent && scenario.script.empty()) {
    return absl::InvalidArgumentError("scenario: a script, an agent or a loop is required");
  }
  // The tools must register before anything forks: a refused one is the caller's error.
  AGENTRT_RETURN_IF_ERROR(ToolRegistry::Create(scenario.tools).status());
  AGENTRT_ASSIGN_OR_RETURN(TempDir dir, TempDir::Make("agentrt-crash-"));
  RunResult result;
  result.report.title = "crash and resume";
  result.report.header = {"run", "invariant", "detail"};
  int next_id = 0;

  auto execute = [&](const std::vector<CrashAt>& plan) -> absl::StatusOr<Executed> {
    int id = next_id++;
    std::string db = dir.File(absl::StrCat("run-", id, ".db"));
    std::string effects = dir.File(absl::StrCat("effects-", id, ".txt"));
    Executed out;
    out.run.plan = plan;
    out.run.label = Label(plan);
    auto broken = [&](std::string_view invariant, std::string detail) {
      result.report.failures.push_back({out.run.label, std::string(invariant), std::move(detail)});
    };
    int drivers = 0;
    for (std::size_t process = 0; process <= plan.size(); ++process) {
      std::optional<CrashAt> crash;
      if (process < plan.size()) crash = plan[process];
      std::string output;
      bool crashed = false, ok = false;
      std::string how;
      if (crash) {
        // The planned crash happens in a child: a real process stopping dead.
        AGENTRT_ASSIGN_OR_RETURN(
            internal::ChildEnd end, internal::RunChild([&](int fd) {
              Process p(scenario, options, db, effects, static_cast<int>(process), crash,
                        [fd](std::string_view line) {
                          WriteAll(fd, absl::StrCat(ToAbsl(line), "\n")).IgnoreError();
                        });
              return p.Drive();
            }));
        output = end.output;
        crashed = end.exited && end.code == internal::kCrashed;
        how = end.Describe();
      } else {
        // The last process resumes here, in a fresh driver.
        Process p(scenario, options, db, effects, static_cast<int>(process), std::nullopt,
                  [&](std::string_view line) { absl::StrAppend(&output, ToAbsl(line), "\n"); });
        ok = p.Drive() == 0;
      }
      std::vector<CrashAt> reached;
      std::string error;
      for (absl::string_view line : absl::StrSplit(output, '\n', absl::SkipEmpty())) {
        std::vector<absl::string_view> words = absl::StrSplit(line, absl::MaxSplits(' ', 2));
        int point = 0, n = 0;
        if (words[0] == "driver") {
          ++drivers;
        } else if (words[0] == "point" && words.size() == 3 && absl::SimpleAtoi(words[1], &point) &&
                   absl::SimpleAtoi(words[2], &n)) {
          reached.push_back({static_cast<CrashPoint>(point), n});
          out.run.points.push_back(absl::StrCat("process ", process, ": ", Label(reached.back())));
        } else if (words[0] == "error") {
          error = std::string(line.substr(6));
        }
      }
      out.reached.push_back(std::move(reached));
      if (crash && !crashed) {
        broken(kReached,
               absl::StrCat("process ", process, " never reached ", Label(*crash), ": it ", how,
                            error.empty() ? "" : absl::StrCat(" (", error, ")")));
        break;
      }
      if (!crash && !ok) {
        broken(kDriven, absl::StrCat("process ", process, ": ", error));
        break;
      }
    }
    out.run.resumes = std::max(0, drivers - 1);
    std::vector<std::string> ran = ReadLines(effects);
    out.run.executions = static_cast<int>(ran.size());
    world::ManualClock clock(internal::RunTime());
    AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<store::Store> store, records::OpenStore(db, clock));
    absl::StatusOr<agentrt::Run> run = ReadRun(*store, kRunId);
    if (!run.ok()) {
      broken(kDriven, absl::StrCat("the run was never stored: ", run.status().message()));
      return out;
    }
    out.run.status = run->status;
    out.run.reason = run->reason;
    AGENTRT_ASSIGN_OR_RETURN(std::vector<Approval> approvals, ListApprovals(*store, kRunId));
    for (const Approval& a : approvals) {
      out.run.approvals.push_back(absl::StrCat(ToAbsl(a.kind), " ", ToAbsl(ToString(a.status))));
    }
    AGENTRT_ASSIGN_OR_RETURN(Report invariants, CheckInvariants(*store, kRunId, ran));
    for (auto& row : invariants.failures) {
      if (row[0] == kOperatorDecides && scenario.reconcile) continue;  // the product decides
      broken(row[0], row[1]);
    }
    return out;
  };

  auto wanted = [&](CrashPoint p) {
    return options.points.empty() ||
           std::find(options.points.begin(), options.points.end(), p) != options.points.end();
  };
  AGENTRT_ASSIGN_OR_RETURN(Executed clean, execute({}));
  result.runs.push_back(clean.run);
  int budget = options.max_runs;
  for (const CrashAt& at : clean.reached[0]) {
    if (!wanted(at.point)) continue;
    if (budget-- <= 0) break;
    AGENTRT_ASSIGN_OR_RETURN(Executed single, execute({at}));
    result.runs.push_back(single.run);
    if (!options.crash_the_recovery || single.reached.size() < 2) continue;
    // The recovery crashes too, where only a recovery goes.
    for (CrashPoint p : {CrashPoint::kAfterStepInterrupted, CrashPoint::kAfterRunResumed}) {
      const std::vector<CrashAt>& recovery = single.reached[1];
      bool there = std::any_of(recovery.begin(), recovery.end(),
                               [&](const CrashAt& r) { return r.point == p; });
      if (!there || !wanted(p) || budget-- <= 0) continue;
      AGENTRT_ASSIGN_OR_RETURN(Executed twice, execute({at, CrashAt{p, 1}}));
      result.runs.push_back(twice.run);
    }
  }
  result.report.checked = static_cast<int>(result.runs.size());
  return result;
}

}  // namespace agentrt::testkit
