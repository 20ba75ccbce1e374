// tools/agentrt/db_flag.h
//
// The database every operator command works on: --db, or the AGENTRT_DB environment variable.
#pragma once

#include <string>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"

ABSL_DECLARE_FLAG(std::string, db);

namespace agentrt::cli {

// DatabasePath returns --db, else $AGENTRT_DB; InvalidArgument when neither is set.
absl::StatusOr<std::string> DatabasePath();

}  // namespace agentrt::cli
