// runtime/engine/lease_heartbeat.h
//
// The heartbeat that keeps a session's run lease alive (ADR 7), as a repeating task on the
// injected Scheduler: the engine starts no thread of its own. With the real scheduler it beats
// on the scheduler's thread; with the manual world it beats when the lease clock is moved, on
// the thread that moves it.
#pragma once

#include <functional>
#include <string>

#include "absl/time/time.h"
#include "runtime/base/status_macros.h"
#include "runtime/records/rows.h"
#include "runtime/store/store.h"
#include "runtime/world/scheduler.h"
#include "runtime/world/timestamp.h"

namespace agentrt {

namespace internal {

// Keeps a session's lease alive while its loop runs, including through long tool calls: every
// ttl/3 on the scheduler's clock (spaced from the start) it extends the expiry, on the same
// store (writes are serialized), as one statement outside any event. A renewal that finds the
// lease gone stops the heartbeat; the loop notices at its next write, which requires the owner.
// A failed write is retried at the next beat; the lease simply expires if it keeps failing.
// Destroying the heartbeat stops it, waiting for a beat in progress.
class LeaseHeartbeat {
 public:
  LeaseHeartbeat(store::Store& store, world::Scheduler& scheduler, std::string run_id,
                 std::string owner, absl::Duration ttl, std::function<void()> on_renewed)
      : store_(store),
        scheduler_(scheduler),
        run_id_(std::move(run_id)),
        owner_(std::move(owner)),
        ttl_(ttl),
        on_renewed_(std::move(on_renewed)),
        task_(scheduler.RunEvery(scheduler.clock().Now() + ttl / 3, ttl / 3,
                                 [this] { return Beat(); })) {}
  ~LeaseHeartbeat() { scheduler_.Cancel(task_); }
  LeaseHeartbeat(const LeaseHeartbeat&) = delete;
  LeaseHeartbeat& operator=(const LeaseHeartbeat&) = delete;

 private:
  // One renewal; false when the lease is no longer ours to keep.
  bool Beat() {
    std::string expiry = world::FormatTimestamp(scheduler_.clock().Now() + ttl_);
    bool renewed = false;
    absl::Status written = store_.Write([&](store::Transaction& tx) -> absl::Status {
      AGENTRT_ASSIGN_OR_RETURN(renewed, rows::RenewLease(tx, run_id_, owner_, expiry));
      return absl::OkStatus();
    });
    if (written.ok() && !renewed) return false;
    if (written.ok() && on_renewed_) on_renewed_();
    return true;
  }

  store::Store& store_;
  world::Scheduler& scheduler_;
  std::string run_id_;
  std::string owner_;
  absl::Duration ttl_;
  std::function<void()> on_renewed_;
  world::Scheduler::TaskId task_;
};

}  // namespace internal

}  // namespace agentrt
