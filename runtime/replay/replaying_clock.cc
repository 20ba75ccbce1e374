#include "runtime/replay/replaying_clock.h"

#include "runtime/replay/internal/convert.h"
#include "runtime/replay/proto/cassette.pb.h"

namespace agentrt::replay {

absl::Time ReplayingClock::Now() const {
  v1::Exchange requested;
  requested.mutable_clock()->set_clock(name_);
  requested.mutable_clock()->set_now(0);
  absl::StatusOr<const v1::Exchange*> served = cursor_.Serve(requested, /*safe=*/false);
  if (served.ok()) last_ = internal::TimeOf((*served)->clock().now());
  return last_;
}

bool ReplayingClock::WaitUntil(absl::Notification& done, absl::Time deadline) const {
  v1::Exchange requested;
  requested.mutable_clock()->set_clock(name_);
  requested.mutable_clock()->mutable_wait()->set_deadline(internal::NanosOf(deadline));
  absl::StatusOr<const v1::Exchange*> served = cursor_.Serve(requested, /*safe=*/true);
  // A stopped replay ends waits at once, as a notification would.
  return served.ok() ? (*served)->clock().wait().notified() : true;
}

}  // namespace agentrt::replay
