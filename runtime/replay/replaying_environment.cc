#include "runtime/replay/replaying_environment.h"

#include "runtime/replay/proto/cassette.pb.h"

namespace agentrt::replay {

std::optional<std::string> ReplayingEnvironment::Get(std::string_view name) {
  v1::Exchange requested;
  requested.mutable_environment()->set_name(std::string(name));
  // Not a safe point: reading a variable never plays a task first.
  absl::StatusOr<const v1::Exchange*> served = cursor_.Serve(requested, /*safe=*/false);
  if (!served.ok() || !(*served)->environment().set()) return std::nullopt;
  return (*served)->environment().value();
}

}  // namespace agentrt::replay
