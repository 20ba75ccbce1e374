#include "runtime/replay/recording_clock.h"

#include "runtime/replay/internal/convert.h"
#include "runtime/replay/proto/cassette.pb.h"

namespace agentrt::replay {

absl::Time RecordingClock::Now() const {
  absl::Time now = ClockWrapper::Now();
  v1::Exchange exchange;
  exchange.mutable_clock()->set_clock(name_);
  exchange.mutable_clock()->set_now(internal::NanosOf(now));
  recorder_.Record(exchange).IgnoreError();  // kept by the recorder
  return now;
}

bool RecordingClock::WaitUntil(absl::Notification& done, absl::Time deadline) const {
  bool notified = ClockWrapper::WaitUntil(done, deadline);
  v1::Exchange exchange;
  exchange.mutable_clock()->set_clock(name_);
  v1::ClockWait* wait = exchange.mutable_clock()->mutable_wait();
  wait->set_deadline(internal::NanosOf(deadline));
  wait->set_notified(notified);
  recorder_.Record(exchange).IgnoreError();  // kept by the recorder
  return notified;
}

}  // namespace agentrt::replay
