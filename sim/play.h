// sim/play.h
//
// Playing one scenario: the simulated world is built (a virtual clock that jumps to the next
// timer and is also the scheduler, seeded entropy, the simulated launcher and network with the
// scenario's fake servers), then the real parts run on top, unchanged: each server is pinned
// (mcp::Pin) while it presents its pin-time tools and loaded (mcp::Load) under the operator's
// rules while it presents its load-time ones; a Driver runs the scripted agent under the
// scenario's class policy over a real SQLite store, on the simulator's own disk (sim_disk.h);
// each pause for approval gets the scenario's next approval and the run is resumed; a crash
// kills the runtime right after the chosen call reached its server (the disk crashes with it:
// the runtime's database is what it had committed by then, the dead runtime's later writes are
// lost), and the runtime restarts from it after its lease expired and resumes the run. With a
// database file, the database as the play left it is written to the file when Play returns.
// With a host side instead of an agent (Scenario.host), the loaded tools are governed by the
// proxy's core (mcp/proxy/proxy.h) over the same store, and the host's calls go through it in
// order on the virtual clock, an operator deciding between them as the scenario says; every
// call is a run of its own, and the outcome holds every run's events.
// Everything happens on the calling thread; the same scenario always gives the same bytes, events
// and chain head.
//
// Play reports what happened (Outcome); verdict.h compares it with what the scenario expects
// and checks the invariants.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "mcp/report.h"
#include "mcp/rules.h"
#include "runtime/store/store.h"
#include "runtime/types.h"
#include "runtime/world/filesystem.h"
#include "sim/fake_server.h"
#include "sim/proto/scenario.pb.h"
#include "sim/sim_disk.h"

namespace agentrt::sim {

// A play's database on the simulator's disk: created and migrated once, emptied for each play.
class PlayDatabase {
 public:
  // The name of the database on its disk.
  static constexpr char kName[] = "play.db";

  // Create makes the disk and a migrated database on it. Errors: the store's.
  static absl::StatusOr<std::unique_ptr<PlayDatabase>> Create();

  store::Store& store() { return *store_; }
  SimDisk& disk() { return *disk_; }
  // Empty puts the database back as Create left it, keeping the store's connection and its
  // prepared statements (SimDisk::Restore). Errors: FailedPrecondition inside a transaction.
  absl::Status Empty() { return disk_->Restore(); }

 private:
  PlayDatabase() = default;
  std::unique_ptr<SimDisk> disk_;  // declared first: it outlives the store's connection
  std::unique_ptr<store::Store> store_;
};

struct PlayOptions {
  // Where the audit database is kept once the play ends: "" keeps it only in memory. The play
  // writes the file new, through `files`, which must then be set: a file (or symbolic link)
  // already at the path, or SQLite's `-wal` or `-shm` beside it, fails the play (AlreadyExists)
  // before it starts and is never opened, replaced or removed. No file is made when nothing
  // registers (there is no run).
  std::string db_path;
  world::Filesystem* files = nullptr;
  // Optional, not owned, one play at a time: a database (PlayDatabase::Create) that the play
  // empties and plays on instead of making its own, keeping its connection's prepared statements: a
  // thread playing many scenarios (a swarm's worker, a benchmark) gives each play the same one.
  PlayDatabase* reuse = nullptr;
  std::uint64_t seed = 1;  // the world's entropy (ids)
};

// What the scenario's play did.
struct Outcome {
  std::vector<std::string> pin_errors;   // "<server>: <error>", per server that failed to pin
  std::vector<std::string> load_errors;  // "<server>: <error>", per server that failed to load
  std::vector<mcp::Report> reports;      // per server loaded, in the scenario's order
  // What the runtime restarted after a crash loaded, per server: its own authority, which can
  // differ from the first load's (a server that failed to load then may load now).
  std::vector<mcp::Report> restart_reports;
  // What each server offered at load time, by server (its live tool names); for the report
  // invariant.
  std::vector<std::pair<std::string, std::vector<std::string>>> offered;
  std::vector<std::pair<std::string, std::vector<std::string>>> pinned;
  std::optional<Run> run;                 // none when nothing registered
  std::vector<store::Event> events;       // the run's, in order
  std::vector<std::string> observations;  // each step's, "<kind> <content>", in step order
  std::vector<Effect> effects;            // every tools/call that reached a server
  std::string chain_head;                 // the audit log's head hash ("" with no run)
  std::string chain_break;                // what verifying the chain found broken ("" none)
  std::string row_contradiction;          // the first row that contradicts the chain ("" none)
  // The first difference between what the provider's adapter sent and what the scenario's
  // exchanges expect ("" none; sim/fake_provider.h): judged with the expectations.
  std::string provider_difference;
  // A host scenario (Scenario.host): what each call answered ("(isError) " before an error's
  // text), and the first answer that did not hold what the call expected ("" none).
  std::vector<std::string> host_answers;
  std::string host_difference;
  bool crashed = false;  // the scenario's crash happened
  // How many runtimes followed a dead or stopped one (a restart, a stale owner's successor).
  int restarts = 0;
  std::uint32_t commits = 0;  // the runtime's write transactions (SimDisk::commits)
  int disk_faults = 0;        // the crash at a commit and storage faults that fired
  // Liveness: how long the run took to settle after its last fault (or its start), on the
  // virtual clock, and the most it may take (every step, restart and decision waiting the
  // longest a scenario can name).
  absl::Duration settled_after;
  absl::Duration settle_bound;
  // A stale owner (Crash.stale_owner): how the stopped runtime's session ended once it woke (a
  // run status, or its error), and what stopped the new owner from taking over ("" nothing).
  std::string stale_session;
  std::string takeover_error;
  // Events the stopped runtime appended once it woke, after another had taken its run over: a
  // late write the store should have refused (an invariant).
  std::int64_t stale_events = 0;
  // A restarted runtime's refusal to pick the run up with no fault to blame (the approved call's
  // tool did not load again, say): its answer, not the simulator's failure ("" none).
  std::string resume_refusal;
  // What an operator saw that must not be ("" nothing): a second grant of one approval taken.
  std::string operator_difference;
  // The operator's rules, by server name; every approval of the run.
  std::map<std::string, mcp::Rules> rules;
  std::vector<Approval> approvals;
  absl::Duration virtual_time;           // how far the virtual clock moved
  std::int64_t task_runs = 0;            // scheduled tasks the virtual clock ran (heartbeats)
  int max_steps = 0;                     // the run's step limit
  std::uint32_t answers = 0;             // how many answers the servers sent
  std::uint32_t answers_before_run = 0;  // of which before the run started (pin and load)
};

// Play plays `scenario` (already checked by scenario_file.h). Errors: only what stops the
// simulator itself (a database it cannot open); everything the scenario provokes is in the
// Outcome.
absl::StatusOr<Outcome> Play(const v1::Scenario& scenario, const PlayOptions& options = {});

}  // namespace agentrt::sim
