// tools/agentrt/db_flag.h
//
// The database every operator command works on: its --db, or the AGENTRT_DB environment
// variable.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace agentrt::cli {

// DatabasePath returns `db` (the command's --db), else $AGENTRT_DB; InvalidArgument when neither
// is set.
absl::StatusOr<std::string> DatabasePath(const std::string& db);

}  // namespace agentrt::cli
