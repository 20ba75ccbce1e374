// runtime/run_reader.h
//
// Reading back what the driver stored: a run and its steps, decoded into the engine's types.
#pragma once

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/store/store.h"
#include "runtime/types.h"

namespace agentrt {

// ReadRun: NotFound when there is no such run.
absl::StatusOr<Run> ReadRun(store::Store& store, std::string_view run_id);
// ReadSteps: the run's steps by index.
absl::StatusOr<std::vector<Step>> ReadSteps(store::Store& store, std::string_view run_id);

}  // namespace agentrt
