#include "testkit/recheck_check.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"
#include "runtime/operator/recheck.h"
#include "runtime/records/schema.h"
#include "testkit/internal/drive.h"
#include "testkit/internal/world.h"

namespace agentrt::testkit {
namespace {

std::string StepName(const RecheckedEvaluation& e) {
  return absl::StrCat(e.step_index, e.on_resume ? " (on resume)" : "");
}

absl::StatusOr<Report> Checked(store::Store& store, std::string_view run_id, Policy& policy,
                               bool partial) {
  AGENTRT_ASSIGN_OR_RETURN(RecheckReport rechecked, agentrt::Recheck(store, run_id, policy));
  Report report;
  report.title = absl::StrCat("re-check of run ", ToAbsl(run_id));
  report.header = {"step", "tool", "recorded", "re-checked", "detail"};
  int compared = 0;
  for (const RecheckedEvaluation& e : rechecked.evaluations) {
    ++report.checked;
    switch (e.result) {
      case RecheckResult::kSame:
        ++compared;
        break;
      case RecheckResult::kDifferent:
        ++compared;
        report.failures.push_back({StepName(e), e.tool, e.recorded, e.rechecked, e.detail});
        break;
      case RecheckResult::kNotRecheckable:
        if (partial) {
          report.notes.push_back(
              absl::StrCat("step ", StepName(e), " not re-checkable: ", e.detail));
        } else {
          report.failures.push_back(
              {StepName(e), e.tool, e.recorded, "not re-checkable", e.detail});
        }
        break;
      case RecheckResult::kNotAPolicyEvaluation:
        report.notes.push_back(
            absl::StrCat("step ", StepName(e), " not a policy evaluation: ", e.detail));
        break;
    }
  }
  if (compared == 0) {
    report.failures.push_back(
        {"-", "-", "-", "-",
         rechecked.evaluations.empty()
             ? "nothing was re-checked: the run recorded no policy evaluation"
             : "nothing was re-checked: no recorded evaluation can be asked again"});
  }
  for (const std::string& note : rechecked.notes) report.notes.push_back(note);
  return report;
}

}  // namespace

absl::StatusOr<Report> RecheckSame(store::Store& store, std::string_view run_id, Policy& policy) {
  return Checked(store, run_id, policy, /*partial=*/false);
}

absl::StatusOr<Report> RecheckSamePartial(store::Store& store, std::string_view run_id,
                                          Policy& policy) {
  return Checked(store, run_id, policy, /*partial=*/true);
}

absl::StatusOr<Report> RecheckSame(const Scenario& scenario) {
  AGENTRT_ASSIGN_OR_RETURN(TempDir dir, TempDir::Make("agentrt-recheck-"));
  std::string db = dir.File("run.db");
  AGENTRT_RETURN_IF_ERROR(internal::DriveOnce(scenario, db));
  world::ManualClock clock(internal::RunTime());
  AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<store::Store> store, records::OpenStore(db, clock));
  return RecheckSame(*store, internal::kScenarioRun, *scenario.policy);
}

std::string Changes::Text() const {
  std::string out;
  for (const std::string& line : lines) absl::StrAppend(&out, json::Sanitize(line), "\n");
  return out;
}

absl::StatusOr<Changes> RecheckDiffers(store::Store& store, std::string_view run_id,
                                       Policy& second) {
  AGENTRT_ASSIGN_OR_RETURN(RecheckReport rechecked, agentrt::Recheck(store, run_id, second));
  Changes changes;
  for (const RecheckedEvaluation& e : rechecked.evaluations) {
    if (e.result != RecheckResult::kDifferent) continue;
    if (std::find(changes.steps.begin(), changes.steps.end(), e.step_index) ==
        changes.steps.end()) {
      changes.steps.push_back(e.step_index);
    }
    // The detail adds only what the two outcomes do not already say.
    bool plain =
        e.detail.empty() || e.detail == absl::StrCat("was ", e.recorded, ", now ", e.rechecked);
    changes.lines.push_back(absl::StrCat("step ", StepName(e), " (", e.tool, "): ", e.recorded,
                                         " -> ", e.rechecked,
                                         plain ? "" : absl::StrCat(": ", e.detail)));
  }
  return changes;
}

absl::StatusOr<Changes> RecheckDiffers(const Scenario& scenario, Policy& second) {
  AGENTRT_ASSIGN_OR_RETURN(TempDir dir, TempDir::Make("agentrt-recheck-"));
  std::string db = dir.File("run.db");
  AGENTRT_RETURN_IF_ERROR(internal::DriveOnce(scenario, db));
  world::ManualClock clock(internal::RunTime());
  AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<store::Store> store, records::OpenStore(db, clock));
  return RecheckDiffers(*store, internal::kScenarioRun, second);
}

}  // namespace agentrt::testkit
