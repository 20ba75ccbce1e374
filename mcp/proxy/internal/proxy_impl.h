// mcp/proxy/internal/proxy_impl.h
//
// The proxy's inside (proxy.h): the deciding of one call (proxy.cc) and the status tool
// (status_tool.cc) share it. Private to mcp/proxy.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "mcp/proxy/answers.h"
#include "mcp/proxy/classify.h"
#include "mcp/proxy/proxy.h"
#include "mcp/proxy/proxy_policy.h"
#include "runtime/driver.h"
#include "runtime/records/proxy_calls.h"

namespace agentrt::proxy {

// MemberOf is the text of member `key` of the JSON object `content` ("" when it is not one or
// has no such string member).
std::string MemberOf(std::string_view content, std::string_view key);

class Proxy::Impl {
 public:
  Impl(store::Store& store, const world::World& world, ProxySettings settings,
       std::vector<GovernedTool> tools, std::function<void(std::string_view)> log);
  absl::Status Init();

  std::vector<ToolSpec> Tools() const;
  Answer Call(std::string_view name, std::string_view arguments, const HostCall& host);
  void Stop() {
    absl::MutexLock lock(&stop_mu_);
    if (!stopping_.HasBeenNotified()) stopping_.Notify();
  }

  // The status tool (status_tool.cc).
  Answer Status(std::string_view arguments);
  static ToolSpec StatusSpec(std::string_view name);

 private:
  // What deciding a call came to.
  struct Step {
    enum class Kind { kAnswer, kHold, kRetry } kind = Kind::kRetry;
    Answer answer;
    std::string run_id;       // kHold, or an answer about a run waiting for an operator
    std::string approval_id;  // the approval it waits on
  };
  static Step Say(Answer a) { return Step{Step::Kind::kAnswer, std::move(a), "", ""}; }
  static Step Retry() { return Step{}; }

  Step Decide(const GovernedTool* tool, std::string_view name, std::string_view args,
              const std::optional<std::string>& key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Rules 1-3 for the key's open row; nullopt: go on with the rules after them.
  std::optional<Step> OpenRow(const GovernedTool& tool, const rows::ProxyCall& row,
                              std::string* reuse) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::optional<Step> Collect(const GovernedTool& tool, const std::string& run_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::optional<Step> Recover(const GovernedTool& tool, const std::string& run_id, bool* pending)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Rules 4-5.
  std::optional<Step> Window(const GovernedTool& tool, const std::vector<rows::ProxyCall>& rows)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Rule 6 and the session's rules; `prior` is set when this call re-runs an unknown attempt.
  std::optional<Step> Unresolved(const GovernedTool& tool, std::string_view key,
                                 PolicyOutcome outcome, std::optional<Attempt>* prior)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Rule 7: a new run (or the open row's, never begun) for this call.
  Step Fresh(const GovernedTool* tool, std::string_view name, std::string_view args,
             std::string_view key, const std::string& reuse, std::int64_t seen_open,
             const std::optional<Attempt>& prior, bool operator_asks)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Executes the allowed call of `session` and answers it.
  Step Execute(const GovernedTool& tool, GateSession& session) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The unknown outcome of `attempt`, put to an operator in the same run (or a fresh one).
  Step ReRun(const GovernedTool& tool, GateSession& session, const Attempt& attempt,
             std::string_view error) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Asks again, in a fresh run of the request of `row`, about its unknown outcome: the new
  // approval's id, or empty when it could not be asked.
  std::string Reopen(const GovernedTool& tool, const rows::ProxyCall& row, const Attempt& attempt)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // What a refused Attach or Execute of run `run_id` answers: decide again when the run moved,
  // IN_PROGRESS while someone holds its lease, else UNAVAILABLE saying `what`.
  Step Refused(const std::string& run_id, const absl::Status& status, std::string_view what);
  // Ends the run of `session` with the proxy's closing decision.
  void Close(GateSession& session, std::string_view why);
  // The run paused: the operator's hint, then hold on its approval.
  Step Pending(const Run& run);

  // Reads.
  absl::StatusOr<std::optional<Run>> RunOf(const std::string& run_id);
  absl::StatusOr<std::vector<Approval>> ApprovalsOf(const std::string& run_id);
  absl::StatusOr<bool> LeaseLive(const std::string& run_id);
  // A pending approval past its expiry; an approval still able to let its call run (pending and
  // unexpired, or approved within the grant TTL).
  bool PastExpiry(const Approval& a, absl::Time now) const;
  bool StillLive(const Approval& a, absl::Time now) const;
  // The last attempt of a finished or waiting run.
  absl::StatusOr<LastAttempt> LastOf(const std::string& run_id, std::vector<agentrt::Step>* steps,
                                     std::vector<Approval>* approvals);
  // What one index row's run says, read once: the run (none when it never began), and, once it
  // finished, its steps, approvals and last attempt; the outcome is cached on the row (settled)
  // as it is read. Move-only: `last.step` points into `steps`.
  struct Examined {
    std::optional<Run> run;
    std::vector<agentrt::Step> steps;
    std::vector<Approval> approvals;
    LastAttempt last;
    std::optional<rows::CallOutcome> outcome;  // nullopt while the run has not finished
    Examined() = default;
    Examined(Examined&&) = default;
    Examined& operator=(Examined&&) = default;
    Examined(const Examined&) = delete;
    Examined& operator=(const Examined&) = delete;
  };
  absl::StatusOr<Examined> Examine(const rows::ProxyCall& row);
  // Settle is the row's outcome: cached on it, else examined (and cached).
  absl::StatusOr<std::optional<rows::CallOutcome>> Settle(const rows::ProxyCall& row);
  // The text a known step's outcome shows in a DUPLICATE answer.
  static std::string OutcomeText(const agentrt::Step& step);
  // An approval's description for the status tool.
  std::string Describe(const Run& run, const std::string& request_key, const Approval& approval,
                       const std::vector<Approval>& approvals);
  // The live interruption approval a newer run of the request waits on ("" when none).
  std::string AskedAgain(const std::string& request_key, const std::string& run_id);

  void Hint(const Run& run, const Approval& approval);
  std::string NewRunId();
  Limits RunLimits() const;
  const GovernedTool* Find(std::string_view name) const;
  absl::Time Now() const;

  store::Store& store_;
  const world::World world_;
  const ProxySettings settings_;
  const std::vector<GovernedTool> tools_;
  const std::function<void(std::string_view)> log_;
  std::vector<std::unique_ptr<Tool>> terminal_;  // the tools as the gate sees them
  std::unique_ptr<ProxyPolicy> policy_;
  std::unique_ptr<Driver> driver_;
  absl::Mutex stop_mu_;  // Stop may be called more than once, from several threads
  absl::Notification stopping_;
  absl::Mutex mu_;
};

}  // namespace agentrt::proxy
