#include "tools/agentrt/shared_flags.h"

#include "absl/flags/flag.h"

ABSL_FLAG(bool, json, false, "machine output: JSON instead of text");
ABSL_FLAG(std::int64_t, limit, 1000, "page size for listings (each command sets its default)");
ABSL_FLAG(std::int64_t, offset, 0, "items to skip in listings");
