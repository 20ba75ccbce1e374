#include "runtime/driver.h"

#include "absl/strings/str_cat.h"
#include "runtime/approvals.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/engine/executing_runs.h"
#include "runtime/engine/session.h"
#include "runtime/events.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sanitize.h"
#include "runtime/records/rows.h"
#include "runtime/records/run_reader.h"
#include "runtime/world/timestamp.h"

namespace agentrt {

using store::Transaction;
using world::FormatTimestamp;

Driver::Driver(store::Store& store, const world::Clock& clock, world::Entropy& entropy,
               DriverOptions options, std::unique_ptr<ToolRegistry> registry)
    : store_(store),
      clock_(clock),
      entropy_(entropy),
      options_(std::move(options)),
      registry_(std::move(registry)),
      policy_id_(options_.policy->Id()),
      executing_(std::make_unique<internal::ExecutingRuns>()) {}

Driver::~Driver() = default;

absl::StatusOr<std::unique_ptr<Driver>> Driver::Create(store::Store& store,
                                                       const world::Clock& clock,
                                                       world::Entropy& entropy,
                                                       DriverOptions options) {
  if (options.policy == nullptr) return absl::InvalidArgumentError("driver: a policy is required");
  // The policy's identity is read once, here (every evaluation records this one); one that
  // could not be recorded is refused before any run.
  if (absl::Status id = rows::CheckPolicyId(options.policy->Id()); !id.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("driver: ", id.message()));
  }
  if (options.scheduler == nullptr) {
    return absl::InvalidArgumentError(
        "driver: a scheduler is required (it runs the lease heartbeat and its clock judges "
        "leases: world::RealScheduler in production, a world::ManualClock in tests)");
  }
  AGENTRT_ASSIGN_OR_RETURN(ToolRegistry registry,
                           ToolRegistry::Create(options.tools, options.specs));
  // Two drivers never share an owner, even with the same name: a restarted process is a new
  // owner and must wait for (or take over) its predecessor's lease.
  options.lease_owner = options.lease_owner.empty()
                            ? entropy.NewId()
                            : absl::StrCat(options.lease_owner, "/", entropy.NewId().substr(0, 12));
  if (options.lease_ttl <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("driver: lease_ttl must be positive");
  }
  return std::unique_ptr<Driver>(new Driver(store, clock, entropy, std::move(options),
                                            std::make_unique<ToolRegistry>(std::move(registry))));
}

absl::Status Driver::RefuseLiveForeignLease(std::string_view run_id, std::string_view owner,
                                            std::string_view expires_at) const {
  if (owner.empty() || owner == options_.lease_owner) return absl::OkStatus();
  absl::StatusOr<absl::Time> expiry = world::ParseTimestamp(expires_at);
  if (expiry.ok() && *expiry > lease_clock().Now()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "run ", ToAbsl(json::Sanitize(run_id)), " is leased by ", ToAbsl(json::Sanitize(owner)),
        " until ", ToAbsl(expires_at), "; it may still be running"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Run> Driver::Resume(std::string_view run_id, const Cancellation* cancellation) {
  if (options_.agent == nullptr) {
    return absl::FailedPreconditionError("driver: Resume needs an agent");
  }
  AGENTRT_ASSIGN_OR_RETURN(auto session, ResumeSession(run_id, /*attaching=*/false, cancellation));
  return session.second;
}

absl::StatusOr<std::pair<std::unique_ptr<GateSession>, GateVerdict>> Driver::Attach(
    std::string_view run_id, const Cancellation* cancellation) {
  AGENTRT_ASSIGN_OR_RETURN(auto resumed, ResumeSession(run_id, /*attaching=*/true, cancellation));
  auto& [session, run] = resumed;
  GateVerdict verdict;
  verdict.run = run;
  bool allowed = session->has_allowed_call();
  if (allowed) {
    verdict.outcome = GateVerdict::Outcome::kAllowed;
  } else if (run.status == RunStatus::kWaitingForApproval) {
    verdict.outcome = GateVerdict::Outcome::kPending;
  } else if (IsTerminal(run.status)) {
    verdict.outcome = GateVerdict::Outcome::kEnded;
  } else {
    verdict.outcome = GateVerdict::Outcome::kOpen;
  }
  // The session knows the run as stored (a pause or an ending writes it, not the session's
  // copy), so run() is right and only a session that goes on keeps the lease.
  session->set_run(run);
  auto gate = std::unique_ptr<GateSession>(new GateSession(std::move(session)));
  if (allowed) gate->step_open_ = gate->proposed_ = true;
  return std::pair<std::unique_ptr<GateSession>, GateVerdict>(std::move(gate), verdict);
}

absl::StatusOr<std::pair<std::unique_ptr<Driver::Session>, Run>> Driver::ResumeSession(
    std::string_view run_id, bool attaching, const Cancellation* cancellation) {
  AGENTRT_ASSIGN_OR_RETURN(internal::ExecutingRuns::Claim claim,
                           executing_->Take(run_id, options_.lease_owner));
  AGENTRT_ASSIGN_OR_RETURN(Run run, ReadRun(store_, run_id));
  if (IsTerminal(run.status)) {
    return absl::FailedPreconditionError(absl::StrCat("run ", ToAbsl(json::Sanitize(run_id)),
                                                      " is ", ToAbsl(ToString(run.status)),
                                                      " and cannot be resumed"));
  }
  auto session = std::make_unique<Session>(
      *this, run, cancellation,
      attaching ? Session::AfterResume::kHandBack : Session::AfterResume::kLoop);
  session->Hold(std::move(claim));
  absl::StatusOr<Run> resumed;
  if (run.status == RunStatus::kWaitingForApproval) {
    resumed = session->ResumeApproved();
  } else {
    // A live lease of another owner is refused before anything else, the run's clock included.
    AGENTRT_ASSIGN_OR_RETURN(RunLease lease, agentrt::ReadLease(store_, run_id));
    AGENTRT_RETURN_IF_ERROR(RefuseLiveForeignLease(run_id, lease.owner, lease.expires_at));
    resumed = session->ResumeInterrupted();
  }
  if (!resumed.ok()) return resumed.status();
  return std::pair<std::unique_ptr<Session>, Run>(std::move(session), *std::move(resumed));
}

absl::StatusOr<Run> Driver::Start(std::string_view goal, const Limits& limits,
                                  const Cancellation* cancellation) {
  return StartWithId(entropy_.NewId(), goal, limits, cancellation);
}

absl::StatusOr<Run> Driver::StartWithId(std::string_view run_id, std::string_view goal,
                                        const Limits& limits, const Cancellation* cancellation) {
  if (options_.agent == nullptr) {
    return absl::FailedPreconditionError(
        "driver: Start needs an agent (use Begin for a loop you own)");
  }
  AGENTRT_ASSIGN_OR_RETURN(internal::ExecutingRuns::Claim claim,
                           executing_->Take(run_id, options_.lease_owner));
  AGENTRT_ASSIGN_OR_RETURN(Run run, CreateRun(run_id, goal, limits));
  Session session(*this, run, cancellation);
  session.Hold(std::move(claim));
  return session.Loop();
}

absl::StatusOr<std::unique_ptr<GateSession>> Driver::Begin(std::string_view run_id,
                                                           std::string_view goal,
                                                           const Limits& limits,
                                                           const Cancellation* cancellation) {
  AGENTRT_ASSIGN_OR_RETURN(internal::ExecutingRuns::Claim claim,
                           executing_->Take(run_id, options_.lease_owner));
  AGENTRT_ASSIGN_OR_RETURN(Run run, CreateRun(run_id, goal, limits));
  auto session = std::make_unique<Session>(*this, run, cancellation);
  session->Hold(std::move(claim));
  return std::unique_ptr<GateSession>(new GateSession(std::move(session)));
}

absl::StatusOr<Run> Driver::CreateRun(std::string_view run_id, std::string_view goal,
                                      const Limits& limits) {
  AGENTRT_RETURN_IF_ERROR(limits.Validate());
  if (run_id.empty()) return absl::InvalidArgumentError("run id is required");
  Run run;
  run.id = std::string(run_id);
  run.goal = std::string(goal);
  run.limits = limits;
  run.created_at = clock_.Now();
  std::string created = world::FormatTimestamp(run.created_at);
  std::string expiry = world::FormatTimestamp(lease_clock().Now() + options_.lease_ttl);
  std::string limits_json = limits.ToJson();
  std::string tools = "[";
  for (const RecordedSpec& s : registry_->specs()) {
    if (tools.size() > 1) tools += ",";
    tools += json::JsonString(s.hash);
  }
  tools += "]";
  AGENTRT_RETURN_IF_ERROR(store_.Write([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_RETURN_IF_ERROR(rows::InsertRun(tx, {.id = run.id,
                                                 .goal = run.goal,
                                                 .limits_json = limits_json,
                                                 .created_at = created,
                                                 .lease_owner = options_.lease_owner,
                                                 .lease_expires_at = expiry}));
    for (const RecordedSpec& s : registry_->specs()) {
      AGENTRT_RETURN_IF_ERROR(rows::InsertToolSpec(tx, s.hash, s.json));
    }
    AGENTRT_RETURN_IF_ERROR(tx.AppendEvent(run.id, "", run.created_at, event::kRunCreated,
                                           json::JsonObject()
                                               .String("goal", run.goal)
                                               .Raw("limits", limits_json)
                                               .Raw("tools", tools)
                                               .Build())
                                .status());
    return tx.AppendEvent(run.id, "", run.created_at, event::kRunStarted, "{}").status();
  }));
  // The run as stored (its timestamps and limits as they read back): the loop refreshes only
  // what changes from here on (RefreshRun).
  return ReadRun(store_, run.id);
}

}  // namespace agentrt
