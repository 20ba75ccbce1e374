// mcp/proxy/proxy.h
//
// The governing proxy's core (docs/proxy.md): each tool call a host makes goes through the
// runtime's gate as its own run — recorded, validated against the tool's restricted schema,
// judged by the operator's policy, held or paused on a hash-bound approval, executed upstream by
// the proxy itself, and its outcome recorded in the hash-chained audit log — and comes back to
// the host as a result or as one of the prefixed answers of answers.h.
//
// Deciding one call, in order (docs/proxy.md, "Deciding one call"):
//  0. arguments canonical JSON refuses have no request key: a new run records them INVALID;
//  1-3. the key's open index row: a run never begun is begun under the row's id; a run waiting
//     for approval is held (pending), collected (approved: exactly the recorded request
//     executes, never this call's bytes), or expired; a run another owner executes is
//     IN_PROGRESS; a run whose owner died is taken over (a mutating call cut off while
//     executing waits for an operator: INTERRUPTED);
//  4-5. within the tool's repeat window, an identical request that was rejected, expired,
//     cancelled or executed is refused (REJECTED, EXPIRED, DUPLICATE with its outcome);
//  6. an earlier attempt of this request whose outcome is unknown makes this call a re-run an
//     operator must approve; a mutating tool with another request's outcome unknown is BLOCKED
//     until an operator decides (asked again in a fresh run when nothing is waiting); an
//     approval beyond max_pending is BLOCKED;
//  7. a new run: index row claimed, run begun, the call proposed and, when allowed, executed.
// A hold polls the approval until it is decided, the hold passes, the host gives up or the
// proxy stops. An unknown outcome of a mutating call is put to an operator in the same run.
//
// Threads: Call may be called from several threads; deciding and executing happen one call at
// a time under one lock, and a hold waits outside it. Nothing here starts a thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "mcp/proxy/answers.h"
#include "mcp/proxy/governed_tool.h"
#include "runtime/store/store.h"
#include "runtime/types.h"
#include "runtime/world/world.h"

namespace agentrt::proxy {

struct ProxySettings {
  std::string session;  // the first part of every run id
  std::map<SideEffect, PolicyOutcome> policy;
  std::string policy_id;  // PolicyId(config)
  absl::Duration hold = absl::Seconds(15);
  int max_pending = 5;
  absl::Duration approval_ttl = absl::Hours(24);
  absl::Duration grant_ttl = absl::Hours(24);
  absl::Duration lease_ttl = absl::Seconds(30);
  std::string status_tool = "gate_status";
  std::string database;                           // named in the operator's hint
  absl::Duration poll = absl::Milliseconds(200);  // how often a hold reads the approval
};

// What the host's side of one call offers while it is held.
struct HostCall {
  const absl::Notification* gone = nullptr;  // notified when the host cancelled the request
  // Called at most once a second while held: seconds waited, the hold in seconds.
  std::function<void(double waited, double total)> progress;
};

class Proxy {
 public:
  // Create builds the gate over `store` (the runtime's database, migrated) with `tools` (their
  // Tool pointers outlive the proxy). `log` gets every line for the operator (the approval
  // hints), unescaped: the caller escapes. The world's clock is the proxy's; its scheduler's
  // clock judges leases; its entropy names runs.
  static absl::StatusOr<std::unique_ptr<Proxy>> Create(store::Store& store,
                                                       const world::World& world,
                                                       ProxySettings settings,
                                                       std::vector<GovernedTool> tools,
                                                       std::function<void(std::string_view)> log);
  ~Proxy();

  // The tools the host sees: every governed tool (name, description, restricted schema), then
  // the status tool.
  std::vector<ToolSpec> Tools() const;

  // Call decides one call and answers it. `arguments` are the host's bytes (absent, blank or
  // null: {}). Never fails: what went wrong is an UNAVAILABLE answer.
  Answer Call(std::string_view name, std::string_view arguments, const HostCall& host = {});

  // Stop ends every hold at once (the holds answer PENDING); calls in flight finish.
  void Stop();

  class Impl;

 private:
  explicit Proxy(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace agentrt::proxy
