#include "runtime/observe/export/follower.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"

namespace agentrt::exporter {
namespace {

// When a sink fails, its error is the one to report; a cursor that could not be saved as
// well is said in the same message, since events will then be delivered again.
absl::Status SinkFailed(absl::Status sink, const absl::Status& save) {
  if (save.ok()) return sink;
  return absl::Status(
      sink.code(),
      absl::StrCat(sink.message(), " (and saving the cursor failed: ", save.message(), ")"));
}

}  // namespace

absl::StatusOr<Follower> Follower::Create(FollowerOptions options, const world::Clock& clock) {
  if (options.store == nullptr) {
    return absl::InvalidArgumentError("follower: no store given");
  }
  if (options.interval < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "follower: interval ", absl::FormatDuration(options.interval), " is negative"));
  }
  if (options.page_size < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("follower: page size ", options.page_size, " is negative"));
  }
  if (options.interval == absl::ZeroDuration()) options.interval = kDefaultInterval;
  options.interval = std::min(options.interval, kMaxInterval);
  if (options.page_size == 0) options.page_size = kDefaultPageSize;
  options.page_size = std::min(options.page_size, kMaxPageSize);
  Follower follower(std::move(options), clock);
  if (follower.options_.cursor == nullptr) {
    follower.own_cursor_ = std::make_unique<MemCursor>();
    follower.options_.cursor = follower.own_cursor_.get();
  }
  return follower;
}

absl::Status Follower::Follow(Sink sink, absl::Notification* stop) {
  absl::Notification never;
  absl::Notification& stopped = stop != nullptr ? *stop : never;
  Cursor& cursor = *options_.cursor;
  AGENTRT_ASSIGN_OR_RETURN(std::int64_t seq, cursor.Load());
  if (seq < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("follower: the cursor holds ", seq, ", and a seq is never negative"));
  }
  for (;;) {
    if (stopped.HasBeenNotified()) return absl::OkStatus();
    // The page is read whole before the sink sees any of it: no read stays open meanwhile.
    AGENTRT_ASSIGN_OR_RETURN(
        std::vector<store::Event> page,
        options_.store->ListEventsAfter(options_.run_id, seq, options_.page_size));
    std::int64_t saved = seq;
    for (const store::Event& event : page) {
      if (stopped.HasBeenNotified()) {
        return seq == saved ? absl::OkStatus() : cursor.Save(seq);
      }
      if (absl::Status delivered = sink(event); !delivered.ok()) {
        return SinkFailed(std::move(delivered), seq == saved ? absl::OkStatus() : cursor.Save(seq));
      }
      seq = event.seq;
    }
    if (seq != saved) AGENTRT_RETURN_IF_ERROR(cursor.Save(seq));
    // A full page means more may be waiting: read again at once.
    if (static_cast<std::int64_t>(page.size()) == options_.page_size) continue;
    if (options_.once) return absl::OkStatus();
    if (clock_->WaitUntil(stopped, clock_->Now() + options_.interval)) return absl::OkStatus();
  }
}

absl::StatusOr<store::ChainHead> Follower::Head() {
  AGENTRT_ASSIGN_OR_RETURN(std::int64_t seq, options_.cursor->Load());
  store::ChainHead head;
  if (seq <= 0) return head;
  head.seq = seq;
  AGENTRT_ASSIGN_OR_RETURN(head.hash, options_.store->StoredHash(seq));
  return head;
}

}  // namespace agentrt::exporter
