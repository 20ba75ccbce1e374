// tests/support/old_database.h
//
// A database as an older build left it: the released migrations up to `version` applied by
// hand (with their schema_migrations rows), then `sql` run in order, the file closed and made
// owner-only. What a newer build's Store::Open migrates and Store::OpenExisting refuses.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace agentrt::test_support {

absl::Status MakeDatabaseAtVersion(const std::string& path, int version,
                                   const std::vector<std::string>& sql);

}  // namespace agentrt::test_support
