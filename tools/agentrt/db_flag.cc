#include "tools/agentrt/db_flag.h"

#include <cstdlib>

#include "absl/status/status.h"

namespace agentrt::cli {

absl::StatusOr<std::string> DatabasePath(const std::string& db) {
  std::string path = db;
  if (path.empty()) {
    if (const char* env = std::getenv("AGENTRT_DB"); env != nullptr) path = env;
  }
  if (path.empty())
    return absl::InvalidArgumentError("no database: pass --db PATH or set AGENTRT_DB");
  return path;
}

}  // namespace agentrt::cli
