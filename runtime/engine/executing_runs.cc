#include "runtime/engine/executing_runs.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"

namespace agentrt::internal {

void ExecutingRuns::Claim::Reset() {
  if (runs_ == nullptr) return;
  absl::MutexLock lock(&runs_->mu_);
  runs_->runs_.erase(run_id_);
  runs_ = nullptr;
}

absl::StatusOr<ExecutingRuns::Claim> ExecutingRuns::Take(std::string_view run_id,
                                                         std::string_view owner) {
  absl::MutexLock lock(&mu_);
  if (!runs_.emplace(run_id).second) {
    return absl::FailedPreconditionError(absl::StrCat(
        "run ", ToAbsl(json::Sanitize(run_id)), " is leased by ", ToAbsl(json::Sanitize(owner)),
        ", the driver asked, which is executing it in another session"));
  }
  return Claim(this, std::string(run_id));
}

}  // namespace agentrt::internal
