// runtime/engine/lease_heartbeat.h
//
// The heartbeat that keeps a session's run lease alive (ADR 7).
#pragma once

#include <functional>
#include <string>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "runtime/base/status_macros.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/timestamp.h"

namespace agentrt {

namespace internal {

// Keeps a session's lease alive while its loop runs, including through long tool calls: every
// ttl/3 on the lease clock it extends the expiry, on the same store (writes are serialized),
// as one statement outside any event. A renewal that finds the lease gone stops; the loop
// notices at its next write, which requires the owner.
class LeaseHeartbeat {
 public:
  LeaseHeartbeat(store::Store& store, const world::Clock& clock, std::string run_id,
                 std::string owner, absl::Duration ttl, std::function<void()> on_renewed)
      : store_(store),
        clock_(clock),
        run_id_(std::move(run_id)),
        owner_(std::move(owner)),
        ttl_(ttl),
        on_renewed_(std::move(on_renewed)),
        start_(clock.Now()),
        thread_([this] { Beat(); }) {}
  ~LeaseHeartbeat() {
    done_.Notify();
    clock_.Wake();
    thread_.join();
  }

 private:
  // Beats are spaced from the start, not from whenever the thread got to wait: a clock moved
  // on before the wait began still ends it at once.
  void Beat() {
    absl::Time next = start_ + ttl_ / 3;
    for (; !clock_.WaitUntil(done_, next); next += ttl_ / 3) {
      std::string expiry = world::FormatTimestamp(clock_.Now() + ttl_);
      std::int64_t renewed = 0;
      absl::Status written = store_.Write([&](store::Transaction& tx) -> absl::Status {
        AGENTRT_ASSIGN_OR_RETURN(renewed,
                                 tx.Exec("UPDATE runs SET lease_expires_at = ?1 WHERE id = ?2 AND "
                                         "lease_owner = ?3 AND status = 'RUNNING'",
                                         {std::string_view(expiry), std::string_view(run_id_),
                                          std::string_view(owner_)}));
        return absl::OkStatus();
      });
      // A failed write is retried at the next beat; the lease simply expires if it keeps
      // failing. A lease that is gone is not ours to keep.
      if (written.ok() && renewed == 0) return;
      if (written.ok() && on_renewed_) on_renewed_();
    }
  }

  store::Store& store_;
  const world::Clock& clock_;
  std::string run_id_;
  std::string owner_;
  absl::Duration ttl_;
  std::function<void()> on_renewed_;
  absl::Time start_;
  absl::Notification done_;
  std::thread thread_;
};

}  // namespace internal

}  // namespace agentrt
