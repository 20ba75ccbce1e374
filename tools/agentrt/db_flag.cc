#include "tools/agentrt/db_flag.h"

#include <cstdlib>

#include "absl/flags/flag.h"
#include "absl/status/status.h"

ABSL_FLAG(std::string, db, "", "the agentrt database file (default: $AGENTRT_DB)");

namespace agentrt::cli {

absl::StatusOr<std::string> DatabasePath() {
  std::string path = absl::GetFlag(FLAGS_db);
  if (path.empty()) {
    if (const char* env = std::getenv("AGENTRT_DB"); env != nullptr) path = env;
  }
  if (path.empty())
    return absl::InvalidArgumentError("no database: pass --db PATH or set AGENTRT_DB");
  return path;
}

}  // namespace agentrt::cli
