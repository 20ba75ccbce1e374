#include "sim/play.h"

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "mcp/auth/authorizer.h"
#include "mcp/class_policy.h"
#include "mcp/load.h"
#include "mcp/load_all.h"
#include "mcp/manifest.h"
#include "mcp/mcp_tool.h"
#include "mcp/pin.h"
#include "mcp/proxy/answers.h"
#include "mcp/proxy/open.h"
#include "mcp/proxy/proxy.h"
#include "mcp/rules.h"
#include "mcp/server.h"
#include "providers/create_model.h"
#include "runtime/approvals.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/cancellation.h"
#include "runtime/driver.h"
#include "runtime/events.h"
#include "runtime/json/intake.h"
#include "runtime/json/sanitize.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/schema.h"
#include "runtime/render/model_agent.h"
#include "runtime/row_audit.h"
#include "runtime/scripted_agent.h"
#include "runtime/tool_registry.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "runtime/world/world.h"
#include "sim/fake_auth_server.h"
#include "sim/fake_provider.h"
#include "sim/scenario_file.h"
#include "sim/scenario_limits.h"
#include "sim/scripted_model.h"
#include "sim/sim_launcher.h"
#include "sim/sim_network.h"
#include "sim/stoppable_scheduler.h"

namespace agentrt::sim {
namespace {

// Every simulation starts at the same instant: 2026-01-01T00:00:00Z.
constexpr std::int64_t kStartUnixSeconds = 1767225600;
constexpr absl::Duration kLeaseTtl = absl::Seconds(30);
constexpr char kDefaultOperator[] = "sim-operator";

// A play's database file is only ever a new one: scenarios are written by others, and a play
// must never replace (or open, and so change) a file it did not make, whether an earlier run's
// database, another file, or a symbolic link planted at the path; a stale `-wal` beside it
// would be replayed into the database by whoever opens it, so that is refused too.
absl::Status AlreadyThere(const std::string& what) {
  return absl::AlreadyExistsError(
      absl::StrCat(what,
                   " exists already; a play never replaces a file (remove it, or keep the "
                   "databases in a new folder)"));
}

absl::Status CheckNewDatabaseFile(world::Filesystem& files, const std::string& path) {
  if (files.Lstat(path).ok()) return AlreadyThere(absl::StrCat("database ", path));
  for (const std::string& sidecar : {path + "-wal", path + "-shm"}) {
    if (files.Lstat(sidecar).ok()) return AlreadyThere(sidecar);
  }
  return absl::OkStatus();
}

// Writes the play's database, as it is on the simulator's disk, to a new file at `path`. The
// names were checked before the play; they are checked again, since the play took a while and
// another process may have made one meanwhile (CreateAppendable alone would miss a sidecar).
absl::Status WriteDatabaseFile(world::Filesystem& files, const std::string& path,
                               const std::string& bytes) {
  AGENTRT_RETURN_IF_ERROR(CheckNewDatabaseFile(files, path));
  absl::Status written = files.WriteNew(path, bytes, "database");
  if (absl::IsAlreadyExists(written)) return AlreadyThere(absl::StrCat("database ", path));
  return written;
}

// The scenario's agent (a script, or the runtime's model-backed agent), which the simulator can
// kill with the runtime: once dead it decides nothing (an error, which the dead run's store
// keeps), so a crashed session consumes no more of the script or of the model's replies, and
// the restarted runtime goes on from the step after the interrupted one.
class SimAgent final : public Agent {
 public:
  explicit SimAgent(std::unique_ptr<Agent> inner) : inner_(std::move(inner)) {}
  absl::StatusOr<Decision> Decide(const StepInput& input) override {
    if (dead_) return absl::UnavailableError("the simulated runtime is dead");
    return inner_->Decide(input);
  }
  void set_dead(bool dead) { dead_ = dead; }

 private:
  std::unique_ptr<Agent> inner_;
  bool dead_ = false;
};

// The model's replies as responses (and errors), in order.
std::unique_ptr<ScriptedModel> ModelOf(const v1::Agent& agent) {
  std::vector<ModelResponse> responses;
  std::vector<absl::Status> errors;
  for (int r = 0; r < agent.model_size(); ++r) {
    const v1::ModelReply& reply = agent.model(r);
    ModelResponse response;
    response.text = reply.text();
    for (int u = 0; u < reply.tool_uses_size(); ++u) {
      const v1::ModelToolUse& use = reply.tool_uses(u);
      response.tool_uses.push_back(
          ToolUse{use.id().empty() ? absl::StrCat("toolu_", r, "_", u) : use.id(), use.name(),
                  use.input_json().empty() ? "{}" : use.input_json()});
    }
    response.stop_reason = !reply.stop_reason().empty() ? reply.stop_reason()
                           : response.tool_uses.empty() ? std::string(stop_reason::kEndTurn)
                                                        : std::string(stop_reason::kToolUse);
    response.usage.input_tokens = reply.input_tokens();
    response.usage.output_tokens = reply.output_tokens();
    responses.push_back(std::move(response));
    errors.push_back(reply.error().empty() ? absl::OkStatus()
                                           : absl::UnavailableError(reply.error()));
  }
  return std::make_unique<ScriptedModel>(std::move(responses), std::move(errors), "sim-model");
}

std::unique_ptr<Agent> InnerAgent(const v1::Agent& agent);

std::vector<Decision> Script(const v1::Agent& agent) {
  std::vector<Decision> script;
  for (const v1::Step& step : agent.steps()) {
    switch (step.kind_case()) {
      case v1::Step::kCall:
        script.push_back(scripted::Call(
            step.call().tool(), step.call().args_json().empty() ? "{}" : step.call().args_json(),
            step.call().reason()));
        break;
      case v1::Step::kCompleteJson:
        script.push_back(scripted::Complete(step.complete_json()));
        break;
      case v1::Step::kFail:
        script.push_back(scripted::Fail(step.fail()));
        break;
      case v1::Step::KIND_NOT_SET:
        break;
    }
  }
  return script;
}

std::unique_ptr<Agent> InnerAgent(const v1::Agent& agent) {
  if (agent.model().empty() && !agent.has_provider()) {
    return std::make_unique<ScriptedAgent>(Script(agent));
  }
  render::ModelAgentOptions options;
  options.render.opening = [](const StepInput& in) {
    return absl::StrCat("Goal: ", in.run.goal, "\nUse the tools, one call at a time.");
  };
  options.system = agent.system();
  return std::make_unique<render::ModelAgent>(std::move(options));
}

// The adapter a scenario's provider is played through: its kind, the model (a default per kind),
// the fake endpoint, and a key for the kinds that send one (it never leaves the simulation).
// (The kind was checked when the scenario was read.)
providers::ModelChoice ProviderChoice(const v1::Provider& p, const FakeProvider& endpoint) {
  providers::ModelChoice choice{
      .provider = p.kind(),
      .model = p.model().empty() ? std::string(DefaultProviderModel(p.kind())) : p.model(),
      .base_url = endpoint.BaseUrl()};
  if (p.kind() != "ollama") choice.api_key = providers::ApiKey("sim-key");
  return choice;
}

std::optional<PolicyOutcome> OutcomeOf(v1::Outcome outcome) {
  switch (outcome) {
    case v1::ALLOW:
      return PolicyOutcome::kAllow;
    case v1::REQUIRE_APPROVAL:
      return PolicyOutcome::kRequireApproval;
    case v1::DENY:
      return PolicyOutcome::kDeny;
    default:
      return std::nullopt;
  }
}

// The scenario's policy: an outcome per class, and per model-visible tool name; with no policy
// at all: reads allowed, local and remote changes wait for an operator, destruction denied.
struct PolicyTables {
  std::map<SideEffect, PolicyOutcome> classes;
  std::map<std::string, PolicyOutcome> tools;
};

PolicyTables TablesOf(const v1::Scenario& scenario) {
  PolicyTables t;
  std::map<SideEffect, PolicyOutcome>& classes = t.classes;
  std::map<std::string, PolicyOutcome>& tools = t.tools;
  if (!scenario.has_policy()) {
    classes = {{SideEffect::kReadOnly, PolicyOutcome::kAllow},
               {SideEffect::kLocalMutation, PolicyOutcome::kRequireApproval},
               {SideEffect::kRemoteMutation, PolicyOutcome::kRequireApproval},
               {SideEffect::kDestructive, PolicyOutcome::kDeny}};
  } else {
    const v1::Policy& p = scenario.policy();
    std::pair<SideEffect, v1::Outcome> table[] = {
        {SideEffect::kReadOnly, p.read_only()},
        {SideEffect::kLocalMutation, p.local_mutation()},
        {SideEffect::kRemoteMutation, p.remote_mutation()},
        {SideEffect::kDestructive, p.destructive()}};
    for (const auto& [side_effect, outcome] : table) {
      if (std::optional<PolicyOutcome> o = OutcomeOf(outcome)) classes[side_effect] = *o;
    }
    for (const auto& [name, outcome] : p.tools()) {
      if (std::optional<PolicyOutcome> o = OutcomeOf(outcome)) tools[name] = *o;
    }
  }
  return t;
}

std::unique_ptr<mcp::ClassPolicy> PolicyOf(const v1::Scenario& scenario) {
  PolicyTables t = TablesOf(scenario);
  return std::make_unique<mcp::ClassPolicy>(std::move(t.classes), std::move(t.tools));
}

Limits LimitsOf(const v1::Limits& l) {
  Limits limits;
  limits.max_steps = l.max_steps() > 0 ? l.max_steps() : 20;
  if (l.max_consecutive_tool_failures() > 0) {
    limits.max_consecutive_tool_failures = l.max_consecutive_tool_failures();
  }
  if (l.loop_threshold() > 0) limits.loop_threshold = l.loop_threshold();
  limits.max_active_time = ScenarioDuration(l.max_active());
  limits.max_elapsed_time = ScenarioDuration(l.max_elapsed());
  limits.approval_ttl = ScenarioDuration(l.approval_ttl());
  return limits;
}

// The client's view of a scenario's server: its fake, reached by name through the simulated
// launcher or network.
mcp::Server ClientServer(const v1::Server& config) {
  mcp::Server server;
  server.name = config.name();
  if (config.transport() == v1::Server::HTTP && config.http().auth().required()) {
    server.endpoint = absl::StrCat("https://", config.name(), ".sim/mcp");
  } else if (config.transport() == v1::Server::HTTP) {
    server.endpoint = SimEndpoint(config.name());
  } else {
    server.command = {"sim-server", config.name()};
  }
  server.connect_timeout = ScenarioDuration(config.connect_timeout());
  server.default_timeout = ScenarioDuration(config.default_timeout());
  server.max_content_bytes = config.max_content_bytes();
  return server;
}

// The network of the runtime running now, for what outlives a runtime's crash (an
// authorizer holds its tokens as a credentials file would): each Connect points it anew.
class CurrentNetwork final : public world::Network {
 public:
  void set(world::Network* target) { target_ = target; }
  absl::StatusOr<std::unique_ptr<world::HttpResponse>> Send(const world::HttpRequest& request,
                                                            absl::Time deadline) override {
    if (target_ == nullptr) return absl::UnavailableError("no runtime is running");
    return target_->Send(request, deadline);
  }

 private:
  world::Network* target_ = nullptr;
};

// The disk faults a scenario schedules: its crash at a commit and its storage faults.
std::vector<SimDisk::Fault> DiskFaults(const v1::Scenario& scenario) {
  using Kind = SimDisk::Fault::Kind;
  std::vector<SimDisk::Fault> faults;
  if (scenario.crash().at_commit() > 0) {
    faults.push_back({Kind::kCrash, scenario.crash().at_commit()});
  }
  for (const v1::StorageFault& f : scenario.storage_faults()) {
    Kind kind = f.kind() == v1::StorageFault::SYNC_FAILS  ? Kind::kSyncFails
                : f.kind() == v1::StorageFault::DISK_FULL ? Kind::kDiskFull
                : f.kind() == v1::StorageFault::POWER_CUT ? Kind::kPowerCut
                                                          : Kind::kWriteFails;
    faults.push_back({kind, f.at_commit()});
  }
  return faults;
}

// A run that needs nothing more of its runtime for now: ended, or waiting for an operator.
bool Settled(const Run& run) {
  return IsTerminal(run.status) || run.status == RunStatus::kWaitingForApproval;
}

// How many times one session may restart the runtime: each crash and fault at most once, and
// once more for the liveness phase.
constexpr int kMaxRestarts = 8;

// One server of the scenario as the runtime knows it.
struct Configured {
  const v1::Server* config;
  std::unique_ptr<FakeServer> fake;
  std::unique_ptr<FakeAuthServer> auth;  // its authorization server, when it requires one
  mcp::Server server;
  mcp::Rules rules;
  std::optional<mcp::Manifest> manifest;
};

// The simulated world's parts that a crash replaces: the processes and connections die with
// the runtime; the servers, the clock and the entropy live on.
struct ProcessesAndConnections {
  std::unique_ptr<SimLauncher> launcher;
  std::unique_ptr<SimNetwork> network;
  std::vector<std::unique_ptr<mcp::McpTool>> tools;
  std::vector<std::shared_ptr<mcp::Connection>> connections;
};

class Player {
 public:
  Player(const v1::Scenario& scenario, const PlayOptions& options)
      : scenario_(scenario),
        options_(options),
        // A wait jumps the clock to its deadline; the lease's heartbeat, due every 10 s on the
        // way, runs once, at its last beat: a call hanging for a day costs one renewal.
        clock_(absl::FromUnixSeconds(kStartUnixSeconds),
               world::ManualClock::Options{.waits = world::ManualClock::Waits::kJump,
                                           .tick = absl::Milliseconds(1),
                                           .repeats = world::ManualClock::Repeats::kLatest}),
        entropy_(options.seed),
        perturber_(scenario.perturbations()) {}

  absl::StatusOr<Outcome> Play();

 private:
  std::unique_ptr<ProcessesAndConnections> Connect() {
    auto connected = std::make_unique<ProcessesAndConnections>();
    connected->launcher = std::make_unique<SimLauncher>(clock_, stdio_);
    connected->network = std::make_unique<SimNetwork>(clock_, http_, provider_.get(), auth_);
    current_network_.set(connected->network.get());
    return connected;
  }
  world::World WorldOf(ProcessesAndConnections& connected) {
    return world::World{
        &clock_, &clock_, &entropy_, connected.launcher.get(), connected.network.get(), nullptr};
  }
  // Loads every pinned server into `connected`; the outcome keeps the first load's reports.
  void LoadAll(ProcessesAndConnections& connected, bool report);
  absl::StatusOr<std::unique_ptr<Driver>> MakeDriver(store::Store& store,
                                                     ProcessesAndConnections& connected);
  // Gives the scenario's approvals while the run waits for one, resuming (through `resume`)
  // after each. `store` is the running runtime's, which a crash inside `resume` replaces.
  absl::Status Approvals(store::Store* const& store, Run& run,
                         const std::function<absl::StatusOr<Run>()>& resume);

  // The host side (Scenario.host): the host's calls through the proxy over the play's database;
  // a crash (Scenario.crash) kills the proxy, and a new one, over what the disk kept and newly
  // loaded servers, serves the calls after it.
  absl::Status PlayHost(PlayDatabase& db, std::unique_ptr<ProcessesAndConnections>& connected);
  // What the audit log says once the play is over: the chain, the rows, the head.
  absl::Status Audit(store::Store& store);

  void Finish(absl::Time start) {
    outcome_.effects = ledger_.effects;
    outcome_.answers = perturber_.answers();
    absl::Time end = clock_.Now();
    outcome_.virtual_time = end - start;
    outcome_.task_runs = clock_.task_runs();
    if (outcome_.run) outcome_.settled_after = end - last_fault_;
  }
  // Moves the clock past the dead or stopped runtime's lease, for the next one. Reads the clock
  // once, as it always has: a play's readings are part of its chain head.
  void AfterTheLease() {
    last_fault_ = clock_.Now() + kLeaseTtl + absl::Seconds(1);
    MoveClockTo(clock_, last_fault_);
  }
  // The processes and connections of a runtime that follows a dead or stopped one, once its
  // lease has expired: the servers (which live on) loaded again under its own authority.
  std::unique_ptr<ProcessesAndConnections> Reconnect() {
    AfterTheLease();
    std::unique_ptr<ProcessesAndConnections> connected = Connect();
    LoadAll(*connected, /*report=*/false);
    return connected;
  }

  const v1::Scenario& scenario_;
  const PlayOptions& options_;
  // The tools' recorded specs, for every load and driver of the play: recording is a pure
  // function of a spec, so a restarted runtime finding them compiled changes only the time a
  // play takes.
  SpecCache specs_;
  world::ManualClock clock_;
  world::SeededEntropy entropy_;
  Ledger ledger_;
  Perturber perturber_;
  std::vector<Configured> servers_;
  std::map<std::string, FakeServer*> stdio_;
  std::map<std::string, FakeServer*> http_;
  std::map<std::string, FakeAuthServer*> auth_;
  CurrentNetwork current_network_;
  std::unique_ptr<SimAgent> agent_;
  // The model-backed agent's model, when it has one: the scenario's replies, or a provider's
  // adapter over the running runtime's network (made anew by each MakeDriver).
  std::unique_ptr<Model> model_;
  std::vector<std::unique_ptr<Model>> retired_models_;
  // Each runtime's scheduler, in the order they started; kept for the play, as a stopped
  // runtime's tasks may still be on the clock.
  std::vector<std::unique_ptr<StoppableScheduler>> schedulers_;
  std::unique_ptr<FakeProvider> provider_;  // the scenario's provider endpoint, when it has one
  PlayDatabase* db_ = nullptr;              // the play's, once it has one
  // An operator's process beside the runtime (Approval.from_second_process), opened on first
  // use; closed before the play's database.
  std::unique_ptr<store::Store> second_process_;
  // When the runtime last restarted (or the play started): liveness is measured from it. Kept
  // without reading the clock, whose readings are part of the chain.
  absl::Time last_fault_;
  std::unique_ptr<mcp::ClassPolicy> policy_;
  int next_approval_ = 0;
  Outcome outcome_;
};

void Player::LoadAll(ProcessesAndConnections& connected, bool report) {
  std::vector<mcp::ServerToLoad> pinned;
  for (Configured& c : servers_) {
    if (!c.manifest) continue;
    // Set before any load starts: a server is asked nothing while another one loads.
    c.fake->set_phase(ServerPhase::kLoad);
    if (report) {
      std::optional<std::vector<std::string>> offered = c.fake->OfferedNames();
      if (offered) outcome_.offered.emplace_back(c.server.name, *offered);
    }
    pinned.push_back({c.server, &*c.manifest, &c.rules});
  }
  std::vector<mcp::LoadResult> results = mcp::LoadAll(pinned, WorldOf(connected), &specs_);
  for (std::size_t i = 0; i < results.size(); ++i) {
    mcp::LoadResult& loaded = results[i];
    if (loaded.report) {
      (report ? outcome_.reports : outcome_.restart_reports).push_back(*loaded.report);
    }
    if (report && !loaded.status.ok()) {
      outcome_.load_errors.push_back(
          absl::StrCat(pinned[i].server.name, ": ", loaded.status.message()));
    }
    for (auto& tool : loaded.tools) connected.tools.push_back(std::move(tool));
    if (loaded.connection) connected.connections.push_back(loaded.connection);
  }
}

absl::StatusOr<std::unique_ptr<Driver>> Player::MakeDriver(store::Store& store,
                                                           ProcessesAndConnections& connected) {
  DriverOptions options;
  options.agent = agent_.get();
  options.policy = policy_.get();
  for (auto& tool : connected.tools) options.tools.push_back(tool.get());
  schedulers_.push_back(std::make_unique<StoppableScheduler>(clock_));
  options.scheduler = schedulers_.back().get();
  options.lease_ttl = kLeaseTtl;
  options.lease_owner = "sim";
  options.specs = &specs_;
  if (provider_ != nullptr) {
    const v1::Provider& p = scenario_.agent().provider();
    providers::ModelChoice choice = ProviderChoice(p, *provider_);
    // A stopped runtime's driver may still hold the one before.
    if (model_ != nullptr) retired_models_.push_back(std::move(model_));
    AGENTRT_ASSIGN_OR_RETURN(model_, providers::CreateModel(choice, WorldOf(connected)));
    options.model.prices = providers::PricesFor(choice, *model_);
    options.model.max_retries = p.max_retries();
    if (!p.call_timeout().empty()) options.model.call_timeout = ScenarioDuration(p.call_timeout());
    if (!p.backoff().empty()) options.model.backoff = ScenarioDuration(p.backoff());
  }
  options.model.model = model_.get();
  return Driver::Create(store, clock_, entropy_, std::move(options));
}

absl::Status Player::Approvals(store::Store* const& store, Run& run,
                               const std::function<absl::StatusOr<Run>()>& resume) {
  while (run.status == RunStatus::kWaitingForApproval &&
         next_approval_ < scenario_.approvals_size()) {
    const v1::Approval& approval = scenario_.approvals(next_approval_++);
    if (!approval.after().empty()) {
      MoveClockTo(clock_, clock_.Now() + ScenarioDuration(approval.after()));
    }
    store::Store* deciding = store;
    if (approval.from_second_process()) {
      if (second_process_ == nullptr) {
        // Opened as a process of its own would: the schema is there, so nothing is written,
        // and its clock is not the play's (the play's readings stay the same).
        world::ManualClock opening(absl::FromUnixSeconds(kStartUnixSeconds));
        AGENTRT_ASSIGN_OR_RETURN(
            second_process_, records::OpenStore(PlayDatabase::kName, opening,
                                                {.vfs = db_->disk().name(), .files_on_vfs = true}));
      }
      deciding = second_process_.get();
    }
    absl::StatusOr<Approval> asked = PendingApproval(*deciding, run.id);
    if (!asked.ok() && !outcome_.resume_refusal.empty()) {
      break;  // granted already, and the runtime refused to go on with it: nothing to decide
    }
    AGENTRT_ASSIGN_OR_RETURN(Approval pending, std::move(asked));
    Decider decider;
    decider.by = approval.by().empty() ? kDefaultOperator : approval.by();
    decider.note = approval.reason();
    if (approval.cancel() || approval.reject()) {
      // Either ends the run: nothing to resume.
      AGENTRT_RETURN_IF_ERROR(
          approval.cancel() ? Cancel(*deciding, clock_, run.id, decider)
                            : Reject(*deciding, clock_, run.id, pending.id, decider).status());
      AGENTRT_ASSIGN_OR_RETURN(run, ReadRun(*store, run.id));
      break;
    }
    absl::Status granted = Approve(*deciding, clock_, run.id, pending.id, decider).status();
    if (IsApprovalExpiredError(granted)) {
      // Too late: the approval expired, and its run was cancelled by the refusal.
      AGENTRT_ASSIGN_OR_RETURN(run, ReadRun(*store, run.id));
      break;
    }
    AGENTRT_RETURN_IF_ERROR(granted);
    if (approval.twice()) {
      absl::Status again = Approve(*deciding, clock_, run.id, pending.id, decider).status();
      if (again.ok()) {
        outcome_.operator_difference =
            absl::StrCat("approval ", pending.id, " was granted a second time");
      }
    }
    AGENTRT_ASSIGN_OR_RETURN(run, resume());
  }
  return absl::OkStatus();
}

absl::Status Player::Audit(store::Store& store) {
  AGENTRT_ASSIGN_OR_RETURN(store::ChainReport chain, store.VerifyEvents());
  if (chain.broken) {
    outcome_.chain_break = absl::StrCat("event ", chain.broken->seq, ": ", chain.broken->detail);
  }
  // The rows must say what the chain says (runtime/row_audit.h): a disagreement the engine
  // wrote itself would be refused as tampering at the next decision or resume.
  AGENTRT_ASSIGN_OR_RETURN(RowAudit rows, AuditRows(store, 1));
  if (!rows.first.empty()) {
    const RowContradiction& c = rows.first[0];
    outcome_.row_contradiction = absl::StrCat(c.row, ": ", c.detail);
  }
  AGENTRT_ASSIGN_OR_RETURN(store::ChainHead head, store.Head());
  outcome_.chain_head = head.hash;
  return absl::OkStatus();
}

absl::Status Player::PlayHost(PlayDatabase& db,
                              std::unique_ptr<ProcessesAndConnections>& connected) {
  store::Store& store = db.store();
  const v1::Host& host = scenario_.host();
  PolicyTables tables = TablesOf(scenario_);
  proxy::ProxySettings settings;
  settings.session = "sim";
  settings.policy = tables.classes;
  settings.policy_id = "sim-proxy";
  settings.hold = ScenarioDuration(host.hold());
  settings.max_pending = host.max_pending() > 0 ? host.max_pending() : 5;
  settings.approval_ttl =
      host.approval_ttl().empty() ? absl::Hours(24) : ScenarioDuration(host.approval_ttl());
  settings.grant_ttl =
      host.grant_ttl().empty() ? absl::Hours(24) : ScenarioDuration(host.grant_ttl());
  settings.lease_ttl = kLeaseTtl;
  settings.database = PlayDatabase::kName;
  absl::Duration window =
      host.repeat_window().empty() ? absl::Minutes(10) : ScenarioDuration(host.repeat_window());
  std::vector<std::string> hints;
  // The proxy over the servers `connected` loaded (made again after a crash).
  auto make_gate = [&]() -> absl::StatusOr<std::unique_ptr<proxy::Proxy>> {
    std::vector<proxy::GovernedTool> governed;
    for (const std::unique_ptr<mcp::McpTool>& tool : connected->tools) {
      const mcp::Rules* rules = nullptr;
      for (const Configured& c : servers_) {
        if (c.server.name == tool->connection()->server()) rules = &c.rules;
      }
      proxy::GovernedTool g =
          proxy::Govern(*tool, rules != nullptr ? *rules : mcp::Rules{}, window);
      // The scenario's policy names per-tool outcomes by model-visible name.
      if (auto outcome = tables.tools.find(g.name); outcome != tables.tools.end()) {
        g.outcome = outcome->second;
      }
      governed.push_back(std::move(g));
    }
    return proxy::Proxy::Create(store, WorldOf(*connected), settings, std::move(governed),
                                [&hints](std::string_view line) { hints.emplace_back(line); });
  };
  AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<proxy::Proxy> gate, make_gate());
  // The approval the proxy asked for last.
  auto latest_asked = [&hints]() -> std::string {
    for (auto it = hints.rbegin(); it != hints.rend(); ++it) {
      std::size_t at = it->find("--approval ");
      if (at == std::string::npos) continue;
      std::size_t begin = at + 11;
      return it->substr(begin, it->find(' ', begin) - begin);
    }
    return "";
  };
  auto decide = [&](int index, const v1::OperatorDecision& d) {
    std::string approval =
        d.call() > 0 && d.call() <= static_cast<int>(outcome_.host_answers.size())
            ? proxy::ApprovalNamedIn(outcome_.host_answers[d.call() - 1])
        : d.call() == 0 ? latest_asked()
                        : "";
    absl::StatusOr<std::string> run = approval.empty()
                                          ? absl::NotFoundError("no approval was named")
                                          : RunOfApproval(store, approval);
    Decider decider;
    decider.by = kDefaultOperator;
    decider.note = d.note();
    absl::Status decided = !run.ok()    ? run.status()
                           : d.reject() ? Reject(store, clock_, *run, approval, decider).status()
                                        : Approve(store, clock_, *run, approval, decider).status();
    if (!decided.ok() && outcome_.host_difference.empty()) {
      outcome_.host_difference =
          absl::StrCat("call ", index + 1, ": the operator could not decide: ", decided.message());
    }
  };
  std::uint32_t crash_at = scenario_.crash().after_call();
  ledger_.on_call = [&](std::size_t call) {
    if (crash_at == 0 || call != crash_at || outcome_.crashed) return;
    outcome_.crashed = true;
    db.disk().Crash();
    connected->launcher->Kill();
    connected->network->Kill();
  };
  bool restarted = false;
  for (int i = 0; i < host.calls_size(); ++i) {
    const v1::HostCall& call = host.calls(i);
    if (!call.after().empty()) MoveClockTo(clock_, clock_.Now() + ScenarioDuration(call.after()));
    const v1::OperatorDecision& d = call.decide();
    std::optional<world::Scheduler::TaskId> during;
    if (!d.during().empty()) {
      // The decision comes while the call waits (its hold's waits move the virtual clock).
      during = clock_.RunAt(clock_.Now() + ScenarioDuration(d.during()),
                            [&decide, i, d] { decide(i, d); });
    } else if (d.call() > 0) {
      decide(i, d);
    }
    proxy::Answer answer = gate->Call(call.tool(), call.arguments_json());
    if (during) clock_.Cancel(*during);  // a decision the call did not wait for never comes
    if (outcome_.crashed && !restarted) {
      // The dead proxy's answer never reached the host. A new proxy starts from what the disk
      // kept, with the servers loaded again, once the dead one's lease has expired.
      restarted = true;
      outcome_.host_answers.push_back("(no answer: the proxy died)");
      ledger_.on_call = nullptr;
      ledger_.restarted = true;
      gate.reset();
      connected.reset();
      db.disk().Recover();
      connected = Reconnect();
      AGENTRT_ASSIGN_OR_RETURN(gate, make_gate());
      continue;
    }
    outcome_.host_answers.push_back(absl::StrCat(answer.is_error ? "(isError) " : "", answer.text));
    if (!call.expect().empty() && outcome_.host_difference.empty() &&
        (answer.text.find(call.expect()) == std::string::npos ||
         answer.is_error != call.expect_error())) {
      outcome_.host_difference =
          absl::StrCat("call ", i + 1, " to ", call.tool(), ": expected ",
                       call.expect_error() ? "an error holding " : "an answer holding ",
                       json::Quoted(call.expect(), 100), ", got ",
                       json::Quoted(outcome_.host_answers.back(), 300));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Outcome> Player::Play() {
  absl::Time start = clock_.Now();
  last_fault_ = start;
  if (scenario_.agent().has_provider()) {
    provider_ = std::make_unique<FakeProvider>(scenario_.agent().provider(), &perturber_);
  }
  for (const v1::Server& config : scenario_.servers()) {
    Configured c;
    c.config = &config;
    c.fake = std::make_unique<FakeServer>(config, &ledger_, &perturber_);
    c.server = ClientServer(config);
    if (config.transport() == v1::Server::HTTP && config.http().auth().required()) {
      // The simulated operator's registered client, through the real Authorizer.
      c.auth = std::make_unique<FakeAuthServer>(config.name(), config.http().auth());
      auth_[config.name()] = c.auth.get();
      mcp::auth::AuthSettings settings;
      settings.grant = mcp::auth::Grant::kClientCredentials;
      settings.client_id = std::string(kSimClientId);
      settings.client_secret = world::Secret(std::string(kSimClientSecret));
      AGENTRT_ASSIGN_OR_RETURN(
          std::unique_ptr<mcp::auth::Authorizer> authorizer,
          mcp::auth::Authorizer::Create(
              c.server.endpoint, std::move(settings),
              std::make_shared<mcp::auth::MemoryTokenStore>(),
              {.network = &current_network_, .clock = &clock_, .entropy = &entropy_}));
      c.server.authorization = std::move(authorizer);
    }
    if (!config.rules_json().empty()) {
      AGENTRT_ASSIGN_OR_RETURN(json::Document rules, json::Parse(config.rules_json()));
      AGENTRT_ASSIGN_OR_RETURN(c.rules, mcp::ParseRules(rules.root(), "rules"));
    }
    outcome_.rules[config.name()] = c.rules;
    (config.transport() == v1::Server::HTTP ? http_ : stdio_)[config.name()] = c.fake.get();
    servers_.push_back(std::move(c));
  }
  std::unique_ptr<ProcessesAndConnections> connected = Connect();
  {
    world::World w = WorldOf(*connected);
    for (Configured& c : servers_) {
      c.fake->set_phase(ServerPhase::kPin);
      absl::StatusOr<mcp::Manifest> manifest = mcp::Pin(c.server, w);
      if (!manifest.ok()) {
        outcome_.pin_errors.push_back(
            absl::StrCat(c.server.name, ": ", manifest.status().message()));
        continue;
      }
      std::vector<std::string> names;
      for (const auto& [name, tool] : manifest->tools) names.push_back(name);
      outcome_.pinned.emplace_back(c.server.name, std::move(names));
      c.manifest = *std::move(manifest);
    }
  }
  LoadAll(*connected, /*report=*/true);
  outcome_.answers_before_run = perturber_.answers();
  if (connected->tools.empty()) {
    Finish(start);
    return std::move(outcome_);
  }

  // The running runtime's database, on the simulator's disk: borrowed (PlayOptions::reuse) and
  // emptied, or owned. Its migrations are stamped by a clock of their own, so a fresh database
  // and a reused one leave the run's clock at the same reading: one scenario, one chain head.
  if (!options_.db_path.empty()) {
    if (options_.files == nullptr) {
      return absl::InvalidArgumentError("a play's database file needs PlayOptions::files");
    }
    AGENTRT_RETURN_IF_ERROR(CheckNewDatabaseFile(*options_.files, options_.db_path));
  }
  std::unique_ptr<PlayDatabase> owned;
  PlayDatabase* db = options_.reuse;
  if (db != nullptr) {
    AGENTRT_RETURN_IF_ERROR(db->Empty());
  } else {
    AGENTRT_ASSIGN_OR_RETURN(owned, PlayDatabase::Create());
    db = owned.get();
  }
  store::Store* const store = &db->store();
  db_ = db;
  // However the play ends, a crash does not outlive it: a reused database serves the worker's
  // next play; an operator's second process is gone before the database is.
  absl::Cleanup recover = [this, db] {
    second_process_.reset();
    db->disk().Recover();
    db->disk().SetFaults({}, {});
    db->disk().Arm(false);
  };
  if (scenario_.has_host()) {
    AGENTRT_RETURN_IF_ERROR(PlayHost(*db, connected));
    AGENTRT_ASSIGN_OR_RETURN(outcome_.events, store->ListEvents(""));
    std::set<std::string> runs;
    for (const store::Event& event : outcome_.events) runs.insert(event.run_id);
    for (const std::string& run : runs) {
      AGENTRT_ASSIGN_OR_RETURN(std::vector<Approval> approvals, ListApprovals(*store, run));
      for (Approval& a : approvals) outcome_.approvals.push_back(std::move(a));
    }
    AGENTRT_RETURN_IF_ERROR(Audit(*store));
    if (!options_.db_path.empty()) {
      AGENTRT_RETURN_IF_ERROR(WriteDatabaseFile(*options_.files, options_.db_path,
                                                db->disk().Contents(PlayDatabase::kName)));
    }
    Finish(start);
    return std::move(outcome_);
  }
  agent_ = std::make_unique<SimAgent>(InnerAgent(scenario_.agent()));
  if (!scenario_.agent().model().empty()) model_ = ModelOf(scenario_.agent());
  policy_ = PolicyOf(scenario_);
  AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<Driver> driver, MakeDriver(*store, *connected));
  Limits limits = LimitsOf(scenario_.limits());
  outcome_.max_steps = limits.max_steps;
  std::string run_id = entropy_.NewId();

  std::string goal = scenario_.goal().empty() ? "simulated run" : scenario_.goal();

  // The running runtime's: the crash cancels the dead one's session, the restart makes anew.
  // From the crash on, the disk refuses every write (SimDisk::Crash): the database stays
  // exactly what the crash left, whatever the dead runtime still tries on its way out.
  auto cancellation = std::make_unique<Cancellation>();
  bool crash_pending = false;  // the runtime died; it restarts once its session has unwound
  auto kill = [&] {
    crash_pending = true;
    connected->launcher->Kill();
    connected->network->Kill();
    agent_->set_dead(true);
    cancellation->Cancel();
  };
  db->disk().SetFaults(DiskFaults(scenario_), [&] {
    outcome_.crashed = true;
    kill();
  });
  // A stale owner: the runtime that took the run over while the first one was stopped.
  struct Runtime {
    std::unique_ptr<ProcessesAndConnections> connected;
    std::unique_ptr<Driver> driver;
    std::unique_ptr<Cancellation> cancellation;
  };
  std::optional<Runtime> new_owner;
  std::int64_t stale_from = 0;  // the log's last seq when the stopped runtime woke
  bool took_over = false;       // the new owner's lease.taken_over committed
  std::uint32_t crash_at = scenario_.crash().after_call();
  // Where a restarted runtime picks the run up: a run its predecessor never recorded starts
  // again; one that needs nothing of it (ended, or waiting for a decision not yet given) is as
  // stored; any other is resumed.
  auto pick_up = [&](Driver& d, const Cancellation* c) -> absl::StatusOr<Run> {
    absl::StatusOr<Run> stored = ReadRun(*store, run_id);
    if (absl::IsNotFound(stored.status())) return d.StartWithId(run_id, goal, limits, c);
    if (!stored.ok()) return stored.status();
    if (IsTerminal(stored->status)) return stored;
    if (stored->status == RunStatus::kWaitingForApproval && PendingApproval(*store, run_id).ok()) {
      return stored;
    }
    return d.Resume(run_id, c);
  };
  ledger_.on_call = [&](std::size_t call) {
    if (crash_at == 0 || call != crash_at || outcome_.crashed) return;
    outcome_.crashed = true;
    if (!scenario_.crash().stale_owner()) {
      db->disk().Crash();
      kill();
      return;
    }
    // The runtime stops here, mid-call. Once its lease has expired a new one takes the run
    // over and plays it on as far as it goes; then the stopped one wakes, with its call's
    // answer on the way.
    StoppableScheduler& stopped = *schedulers_.back();
    stopped.Stop();
    Runtime next{.connected = Reconnect(), .cancellation = std::make_unique<Cancellation>()};
    ++outcome_.restarts;
    ledger_.restarted = true;
    absl::StatusOr<store::ChainHead> before = store->Head();
    absl::StatusOr<std::unique_ptr<Driver>> made = MakeDriver(*store, *next.connected);
    if (made.ok()) {
      next.driver = *std::move(made);
      absl::StatusOr<Run> taken = pick_up(*next.driver, next.cancellation.get());
      if (!taken.ok()) outcome_.takeover_error = std::string(ToStd(taken.status().message()));
    } else {
      outcome_.takeover_error = std::string(ToStd(made.status().message()));
    }
    new_owner = std::move(next);
    // Stale only if the new owner did take the run over: when its takeover failed (a storage
    // fault, say), the stopped runtime still holds its run, and may go on writing it.
    absl::StatusOr<std::vector<store::Event>> events = store->ListEvents(run_id);
    if (before.ok() && events.ok()) {
      for (const store::Event& e : *events) {
        if (e.seq > before->seq && e.type == event::kLeaseTakenOver) took_over = true;
      }
    }
    absl::StatusOr<store::ChainHead> head = store->Head();
    stale_from = head.ok() ? head->seq : 0;
    current_network_.set(connected->network.get());  // the stopped runtime's, until it ends
    stopped.Wake();
  };
  // After a session in which the runtime stopped and a new owner took the run over: the stopped
  // one's session ended however it ended (refused, as it must be, once it wrote); the new owner
  // is the runtime from now on, and the run is as the store holds it.
  auto hand_over = [&](absl::StatusOr<Run>& run) -> absl::Status {
    if (!new_owner) return absl::OkStatus();
    outcome_.stale_session =
        run.ok() ? std::string(ToString(run->status)) : std::string(ToStd(run.status().message()));
    AGENTRT_ASSIGN_OR_RETURN(store::ChainHead head, store->Head());
    outcome_.stale_events = took_over ? head.seq - stale_from : 0;
    driver.reset();
    connected = std::move(new_owner->connected);
    driver = std::move(new_owner->driver);
    cancellation = std::move(new_owner->cancellation);
    new_owner.reset();
    current_network_.set(connected->network.get());
    if (driver == nullptr) return absl::InternalError(outcome_.takeover_error);
    run = ReadRun(*store, run_id);
    return absl::OkStatus();
  };
  // A resume the runtime refused with no fault to blame (the approved call's tool did not load
  // again after a restart, say): that is its answer, and the run is judged as the store holds
  // it. Any other error is the simulator's.
  auto refused = [&](absl::StatusOr<Run>& run, int faults_before) {
    if (run.ok() || crash_pending || db->disk().faults_fired() != faults_before ||
        !absl::IsFailedPrecondition(run.status())) {
      return false;
    }
    outcome_.resume_refusal = std::string(ToStd(run.status().message()));
    run = ReadRun(*store, run_id);
    return true;
  };
  // Runs one session of the run (its start, or a resume after an approval), counting its
  // write transactions for the disk's faults. When the runtime died in it (a crash, a power
  // cut), or a storage fault broke it, the runtime restarts from what the disk holds once its
  // lease has expired, and picks the run up; after the last fault, the run must settle (the
  // liveness phase). A stale owner's session ends however it ends; the runtime that took over
  // goes on.
  auto drive = [&](const std::function<absl::StatusOr<Run>()>& session) -> absl::StatusOr<Run> {
    int faults_before = db->disk().faults_fired();
    db->disk().Arm(true);
    absl::StatusOr<Run> run = session();
    db->disk().Arm(false);
    AGENTRT_RETURN_IF_ERROR(hand_over(run));
    if (refused(run, faults_before)) return run;
    for (int restarts = 0; restarts < kMaxRestarts; ++restarts) {
      bool faulted = db->disk().faults_fired() > faults_before && (!run.ok() || !Settled(*run));
      if (!crash_pending && !faulted) break;
      crash_pending = false;
      faults_before = db->disk().faults_fired();
      ++outcome_.restarts;
      ledger_.restarted = true;
      // The dead runtime's session and connections are gone; the servers are not, and the
      // database holds what the crash left.
      driver.reset();
      connected.reset();
      db->disk().Recover();
      connected = Reconnect();
      agent_->set_dead(false);
      cancellation = std::make_unique<Cancellation>();
      AGENTRT_ASSIGN_OR_RETURN(driver, MakeDriver(*store, *connected));
      db->disk().Arm(true);
      run = pick_up(*driver, cancellation.get());
      db->disk().Arm(false);
      AGENTRT_RETURN_IF_ERROR(hand_over(run));
      if (refused(run, faults_before)) break;
    }
    return run;
  };
  AGENTRT_ASSIGN_OR_RETURN(Run run, drive([&] {
                             return driver->StartWithId(run_id, goal, limits, cancellation.get());
                           }));
  AGENTRT_RETURN_IF_ERROR(Approvals(store, run, [&] {
    return drive([&] { return driver->Resume(run_id, cancellation.get()); });
  }));
  // Liveness: after its last fault the run settled (Finish), within what its steps, restarts
  // and the operator's decisions may each wait at the most (the longest deadline a scenario can
  // name, and a lease).
  outcome_.settle_bound = (kMaxDuration + kLeaseTtl + absl::Seconds(1)) *
                          (limits.max_steps + outcome_.restarts + next_approval_ + 2);
  outcome_.commits = db->disk().commits();
  outcome_.disk_faults = db->disk().faults_fired();
  db->disk().SetFaults({}, {});

  AGENTRT_ASSIGN_OR_RETURN(outcome_.run, ReadRun(*store, run_id));
  AGENTRT_ASSIGN_OR_RETURN(outcome_.events, store->ListEvents(run_id));
  AGENTRT_ASSIGN_OR_RETURN(RunHistory history, ReadHistory(*store, run_id));
  outcome_.approvals = std::move(history.approvals);
  for (const Step& step : history.steps) {
    if (step.observation) {
      outcome_.observations.push_back(
          absl::StrCat(ToAbsl(ToString(step.observation->kind)), " ", step.observation->content));
    }
  }
  AGENTRT_RETURN_IF_ERROR(Audit(*store));
  if (provider_ != nullptr) outcome_.provider_difference = provider_->difference();
  if (!options_.db_path.empty()) {
    AGENTRT_RETURN_IF_ERROR(WriteDatabaseFile(*options_.files, options_.db_path,
                                              db->disk().Contents(PlayDatabase::kName)));
  }
  Finish(start);
  return std::move(outcome_);
}

}  // namespace

absl::StatusOr<std::unique_ptr<PlayDatabase>> PlayDatabase::Create() {
  std::unique_ptr<PlayDatabase> db(new PlayDatabase());
  AGENTRT_ASSIGN_OR_RETURN(db->disk_, SimDisk::Create());
  world::ManualClock migrations(absl::FromUnixSeconds(kStartUnixSeconds));
  AGENTRT_ASSIGN_OR_RETURN(
      db->store_,
      records::OpenStore(kName, migrations, {.vfs = db->disk_->name(), .files_on_vfs = true}));
  db->disk_->Snapshot();
  return db;
}

absl::StatusOr<Outcome> Play(const v1::Scenario& scenario, const PlayOptions& options) {
  Player player(scenario, options);
  return player.Play();
}

}  // namespace agentrt::sim
