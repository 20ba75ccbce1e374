// runtime/world/internal/look_path.h
//
// Finding the program a launch names. A name with a '/' is used as it is (relative to the
// child's folder, since the child changes folder before it execs). A name without one is looked
// up in the PATH of this process — not the child's environment, which may have no PATH at all —
// as Go's exec.LookPath does: the first folder in order holding a regular file with an execute
// bit. Folders that are not absolute (an empty entry means the current folder) are skipped:
// a program found relative to wherever this process happens to run is not one the operator
// named, which is why Go refuses it too.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace agentrt::world::internal {

// LookPath returns the path to exec for `program`, given this process's PATH value
// (`path_env`). Errors: NotFound naming the program when no folder holds it (or `program` is
// empty).
absl::StatusOr<std::string> LookPath(std::string_view program, std::string_view path_env);

}  // namespace agentrt::world::internal
