// runtime/observe/export/follower.h
//
// The Follower: a read-only reader that delivers a database's events, in commit order, to a
// sink — a log shipper, a SIEM feed, `agentrt export` (docs/operators.md, "export").
//
// What it promises:
//   - Order: events are delivered in seq order (commit order across runs), of one run or of
//     every run; the cursor is the seq of the last event delivered.
//   - Bounded reads: events are read a page at a time (page_size, at most 10000), and each
//     page is read whole before the sink sees any of it, so no read is open while the sink
//     works. Payloads over Store::kMaxPageText characters arrive capped (store.h).
//   - Never writes the database: give it a store opened with
//     records::OpenExistingStore(path, /*read_only=*/true).
//   - Delivery: the cursor is saved after every page that delivered something, when the sink
//     fails (up to the last event it took), and on a stop. So across stops that return,
//     every event is delivered exactly once; after a hard kill between the sink and the save,
//     at least once — at most one page is delivered again. A sink that must not act twice
//     keys on the seq.
//   - Waiting: between polls it waits `interval` on the injected Clock, and ends that wait at
//     once when the stop notification fires (after the notifier calls clock.Wake()).
//
// Not thread-safe: one Follow at a time per Follower.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "runtime/observe/export/cursor.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"

namespace agentrt::exporter {

inline constexpr absl::Duration kDefaultInterval = absl::Milliseconds(250);
inline constexpr absl::Duration kMaxInterval = absl::Minutes(1);
inline constexpr std::int64_t kDefaultPageSize = 500;
inline constexpr std::int64_t kMaxPageSize = store::Store::kMaxEventsAfter;

struct FollowerOptions {
  store::Store* store = nullptr;  // required; outlives the follower
  std::string run_id;             // "" follows every run
  Cursor* cursor = nullptr;       // nullptr: an in-memory cursor from 0; outlives the follower
  absl::Duration interval = absl::ZeroDuration();  // 0: 250 ms; capped at 1 min
  std::int64_t page_size = 0;                      // 0: 500; capped at 10000
  bool once = false;  // return once caught up instead of waiting for more
};

// A sink takes one event; an error stops the follower (the cursor keeps what it took before).
using Sink = absl::FunctionRef<absl::Status(const store::Event&)>;

class Follower {
 public:
  // Create checks the options. Errors: InvalidArgument for a missing store, a negative
  // interval or a negative page size.
  static absl::StatusOr<Follower> Create(FollowerOptions options, const world::Clock& clock);

  // Follow delivers events after the cursor to `sink` until caught up (once), the sink fails,
  // or `stop` is notified (then it returns OK, the cursor saved). `stop` may be null when the
  // follower runs once. Errors: the sink's error; the cursor's or the store's error.
  absl::Status Follow(Sink sink, absl::Notification* stop = nullptr);

  // Head is the anchor to keep for `agentrt verify --head SEQ:HASH`: the cursor's seq and the
  // stored hash of that event. The hash covers every run's events up to seq, even for a
  // one-run follower. Errors: NotFound when that event is no longer in the database.
  // The seq is 0 (and the hash "") when nothing was delivered; the hash is at most 128
  // characters of the stored one.
  absl::StatusOr<store::ChainHead> Head();

 private:
  Follower(FollowerOptions options, const world::Clock& clock)
      : options_(std::move(options)), clock_(&clock) {}

  FollowerOptions options_;
  const world::Clock* clock_;
  std::unique_ptr<MemCursor> own_cursor_;
};

}  // namespace agentrt::exporter
