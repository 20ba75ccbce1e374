#include "runtime/engine/stored_steps.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/records/rows.h"

namespace agentrt::internal {

absl::Status StoredSteps::Read(std::size_t first, std::size_t last, StepDetail detail,
                               absl::FunctionRef<absl::Status(const Step&)> fn) const {
  while (first < last) {
    store::Store* store = store_.load();
    if (store == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("step ", first, " of run ", run_id_,
                       " is no longer held, and the driver that could read it is gone"));
    }
    const std::size_t to = std::min(last, first + kPage);
    std::vector<Step> page;
    AGENTRT_RETURN_IF_ERROR(store->Read([&](store::Transaction& tx) -> absl::Status {
      AGENTRT_ASSIGN_OR_RETURN(
          page, rows::ReadStepRange(tx, run_id_, static_cast<std::int64_t>(first),
                                    static_cast<std::int64_t>(to), detail == StepDetail::kWhole));
      return absl::OkStatus();
    }));
    // The run's steps are numbered from 0 without a gap; a missing one is damage, not the end.
    if (page.size() != to - first) {
      return absl::DataLossError(absl::StrCat("run ", run_id_, ": steps ", first, "..", to - 1,
                                              " should be stored, ", page.size(), " are"));
    }
    for (const Step& step : page) AGENTRT_RETURN_IF_ERROR(fn(step));
    first = to;
  }
  return absl::OkStatus();
}

}  // namespace agentrt::internal
