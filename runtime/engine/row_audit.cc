#include "runtime/row_audit.h"

#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/base/status_macros.h"
#include "runtime/engine/chain_check.h"
#include "runtime/json/sanitize.h"
#include "runtime/records/rows.h"

namespace agentrt {
namespace {

// Runs read per statement: a page bounds memory, one transaction keeps the whole audit one
// snapshot.
constexpr std::int64_t kRunsPerPage = 100;

class Auditor {
 public:
  Auditor(store::Transaction& tx, std::size_t keep) : tx_(tx), keep_(keep) {}

  absl::Status AuditRun(const rows::RunRow& run) {
    ++audit_.runs;
    AGENTRT_ASSIGN_OR_RETURN(std::vector<rows::ChainEvent> events,
                             rows::ReadChainEvents(tx_, run.id, chain::ChainTypes()));
    chain::RunChain recorded = chain::Fold(events);
    if (!recorded.unreadable.empty()) {
      Report(
          run.id, "events",
          {absl::StrCat("payloads that are not JSON: ", absl::StrJoin(recorded.unreadable, ", "))});
    }
    Report(run.id, "run", chain::RunDisagreements(run, recorded));
    AGENTRT_ASSIGN_OR_RETURN(std::vector<rows::StepRow> steps, rows::ReadStepRows(tx_, run.id));
    std::set<std::string> step_ids;
    for (const rows::StepRow& step : steps) {
      ++audit_.steps;
      step_ids.insert(step.id);
      Report(run.id, absl::StrCat("step ", step.index, " (", json::Sanitize(step.id), ")"),
             chain::StepDisagreements(step, recorded));
    }
    for (const auto& [id, step] : recorded.steps) {
      if (step.started > 0 && !step_ids.contains(id)) {
        Report(run.id, absl::StrCat("step ", json::Sanitize(id)),
               {"the chain recorded step.started for it, but it has no row"});
      }
    }
    AGENTRT_ASSIGN_OR_RETURN(std::vector<Approval> approvals, rows::ReadApprovals(tx_, run.id));
    std::set<std::string> approval_ids;
    for (const Approval& a : approvals) {
      ++audit_.approvals;
      approval_ids.insert(a.id);
      Report(run.id, absl::StrCat("approval ", json::Sanitize(a.id)),
             chain::ApprovalDisagreements(a, recorded));
    }
    for (const auto& [id, approval] : recorded.approvals) {
      if (approval.requested > 0 && !approval_ids.contains(id)) {
        Report(run.id, absl::StrCat("approval ", json::Sanitize(id)),
               {"the chain recorded approval.requested for it, but it has no row"});
      }
    }
    return absl::OkStatus();
  }

  void Report(const std::string& run_id, std::string row, const std::vector<std::string>& what) {
    if (what.empty()) return;
    ++audit_.contradictions;
    if (audit_.first.size() < keep_) {
      audit_.first.push_back({run_id, std::move(row), absl::StrJoin(what, "; ")});
    }
  }

  RowAudit& audit() { return audit_; }

 private:
  store::Transaction& tx_;
  std::size_t keep_;
  RowAudit audit_;
};

}  // namespace

absl::StatusOr<RowAudit> AuditRows(store::Store& store, std::size_t keep) {
  RowAudit audit;
  AGENTRT_RETURN_IF_ERROR(store.Read([&](store::Transaction& tx) -> absl::Status {
    Auditor auditor(tx, keep);
    std::string after;
    for (;;) {
      AGENTRT_ASSIGN_OR_RETURN(std::vector<rows::RunRow> runs,
                               rows::ReadRunRows(tx, after, kRunsPerPage));
      for (const rows::RunRow& run : runs) AGENTRT_RETURN_IF_ERROR(auditor.AuditRun(run));
      if (static_cast<std::int64_t>(runs.size()) < kRunsPerPage) break;
      after = runs.back().id;
    }
    AGENTRT_ASSIGN_OR_RETURN(std::vector<std::string> orphans,
                             rows::ReadRunsOnlyInEvents(tx, static_cast<std::int64_t>(keep) + 1));
    for (const std::string& id : orphans) {
      auditor.Report(id, "run", {"the chain recorded events of it, but it has no row"});
    }
    audit = std::move(auditor.audit());
    return absl::OkStatus();
  }));
  return audit;
}

}  // namespace agentrt
