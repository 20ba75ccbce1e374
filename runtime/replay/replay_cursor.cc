#include "runtime/replay/replay_cursor.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/replay/cassette_text.h"
#include "runtime/replay/proto/cassette.pb.h"

namespace agentrt::replay {
namespace {

// How much of each side a mismatch shows.
constexpr std::size_t kShownBytes = 160;

}  // namespace

ReplayCursor::ReplayCursor(Cassette cassette) : cassette_(std::move(cassette)) {
  Begin(cassette_.sessions().empty() ? 0 : cassette_.sessions().size() - 1);
}

ReplayCursor::ReplayCursor(Cassette cassette, std::size_t session)
    : cassette_(std::move(cassette)) {
  Begin(session);
}

void ReplayCursor::Begin(std::size_t session) {
  Frame main;
  for (std::size_t i = 0; i < cassette_.size(); ++i) {
    if (cassette_.session_of(i) == session) main.exchanges.push_back(&cassette_.exchange(i));
  }
  frames_.push_back(std::move(main));
}

std::string ReplayCursor::Name(const Frame& frame, std::size_t index) const {
  return absl::StrCat(frame.where, "exchange ", index + 1);
}

absl::Status ReplayCursor::Stop(absl::Status error) {
  if (status_.ok()) status_ = std::move(error);
  return status_;
}

absl::Status ReplayCursor::Fail(absl::Status error) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  return Stop(std::move(error));
}

void ReplayCursor::SetStderrSink(std::uint32_t process,
                                 std::function<void(std::string_view)> sink) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  sinks_[process] = std::move(sink);
}

void ReplayCursor::SetTaskRunner(std::function<absl::Status(std::uint32_t task)> runner) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  runner_ = std::move(runner);
}

absl::Status ReplayCursor::PlayTask(const v1::Exchange& run, const std::string& name) {
  const v1::TaskFiring& firing = run.scheduler().firing();
  if (!runner_) {
    return Stop(absl::FailedPreconditionError(absl::StrCat(
        "replay: ", name, " runs task ", firing.task(), ", but the replay has no scheduler")));
  }
  Frame frame;
  for (const v1::Exchange& e : firing.nested()) frame.exchanges.push_back(&e);
  frame.where = absl::StrCat("task ", firing.task(), "'s run (", name, "), its ");
  std::size_t depth = frames_.size();
  frames_.push_back(std::move(frame));
  absl::Status ran = runner_(firing.task());
  // The task's own calls may have stopped the replay; its frame goes either way.
  Frame done = std::move(frames_.back());
  frames_.resize(depth);
  if (!ran.ok()) return Stop(ran);
  if (!status_.ok()) return status_;
  if (done.next < done.exchanges.size()) {
    return Stop(absl::FailedPreconditionError(absl::StrCat(
        "replay: ", Name(done, done.next), " differs from the recording: the task's run ended ",
        "without asking for it (", DescribeExchange(*done.exchanges[done.next], kShownBytes),
        ")")));
  }
  return absl::OkStatus();
}

absl::Status ReplayCursor::PlayHeldBack() {
  while (!held_back_.empty() && status_.ok()) {
    auto [run, name] = std::move(held_back_.front());
    held_back_.erase(held_back_.begin());
    if (absl::Status s = PlayTask(*run, name); !s.ok()) return s;
  }
  return status_;
}

absl::Status ReplayCursor::Deliver(const v1::Exchange& exchange, const std::string& name,
                                   bool safe) {
  if (OpOf(exchange) == Op::kStderrChunk) {
    auto sink = sinks_.find(exchange.stdio().process());
    if (sink == sinks_.end()) {
      return Stop(absl::FailedPreconditionError(
          absl::StrCat("replay: ", name, " hands process ", exchange.stdio().process(),
                       " stderr to a sink, but the replayed process has none")));
    }
    sink->second(exchange.stdio().stderr_chunk());
    return absl::OkStatus();
  }
  if (safe && frames_.size() == 1) return PlayTask(exchange, name);
  held_back_.emplace_back(&exchange, name);
  return absl::OkStatus();
}

absl::StatusOr<const v1::Exchange*> ReplayCursor::Serve(const v1::Exchange& requested, bool safe) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (!status_.ok()) return status_;
  if (safe && frames_.size() == 1) {
    if (absl::Status s = PlayHeldBack(); !s.ok()) return s;
  }
  Op op = OpOf(requested);
  for (;;) {
    Frame& frame = frames_.back();
    if (frame.next == frame.exchanges.size()) {
      std::string what = DescribeExchange(requested, kShownBytes);
      if (frames_.size() > 1) {
        return Stop(absl::FailedPreconditionError(absl::StrCat(
            "replay: ", Name(frame, frame.next), " differs from the recording: the task's run ",
            "recorded ", frame.exchanges.size(),
            " exchanges, and it asks for one more: ", ToAbsl(OpName(op)), " (", what, ")")));
      }
      std::string cut = cassette_.torn().empty()
                            ? ""
                            : absl::StrCat(" (the recording was cut: ", cassette_.torn(), ")");
      return Stop(absl::OutOfRangeError(
          absl::StrCat("replay: the recording has no ", Name(frame, frame.next), cut,
                       "; the run asks for ", ToAbsl(OpName(op)), " (", what, ")")));
    }
    std::size_t index = frame.next;
    const v1::Exchange& recorded = *frame.exchanges[index];
    Op recorded_op = OpOf(recorded);
    if (IsDelivery(recorded_op)) {
      ++frame.next;
      ++served_;
      // Delivering may play a task, which uses this cursor (and may grow frames_).
      if (absl::Status s = Deliver(recorded, Name(frame, index), safe); !s.ok()) return s;
      continue;
    }
    std::string name = Name(frame, index);
    if (recorded_op == Op::kUnknown) {
      return Stop(absl::FailedPreconditionError(
          absl::StrCat("replay: ", name,
                       " is of a kind this build does not know (a newer build recorded "
                       "it); the run asks for ",
                       ToAbsl(OpName(op)))));
    }
    if (recorded_op != op) {
      return Stop(absl::FailedPreconditionError(absl::StrCat(
          "replay: ", name, " differs from the recording: recorded ", ToAbsl(OpName(recorded_op)),
          " (", DescribeExchange(recorded, kShownBytes), "), requested ", ToAbsl(OpName(op)), " (",
          DescribeExchange(requested, kShownBytes), ")")));
    }
    std::string difference = RequestDifference(recorded, requested);
    if (!difference.empty()) {
      return Stop(absl::FailedPreconditionError(
          absl::StrCat("replay: ", name, " (", ToAbsl(OpName(op)),
                       ") differs from the recording: ", difference)));
    }
    ++frame.next;
    ++served_;
    return &recorded;
  }
}

absl::Status ReplayCursor::Finish() {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (!status_.ok()) return status_;
  if (absl::Status s = PlayHeldBack(); !s.ok()) return s;
  // Playing a task grows frames_: the session's frame is looked up again each time.
  while (frames_.front().next < frames_.front().exchanges.size() &&
         IsDelivery(OpOf(*frames_.front().exchanges[frames_.front().next]))) {
    std::size_t index = frames_.front().next++;
    ++served_;
    const v1::Exchange& delivery = *frames_.front().exchanges[index];
    if (absl::Status s = Deliver(delivery, Name(frames_.front(), index), true); !s.ok()) {
      return s;
    }
  }
  const Frame& main = frames_.front();
  if (main.next < main.exchanges.size()) {
    return Stop(absl::FailedPreconditionError(
        absl::StrCat("replay: the run ended with ", main.exchanges.size() - main.next,
                     " recorded exchanges it never asked for, from ", Name(main, main.next), " (",
                     DescribeExchange(*main.exchanges[main.next], kShownBytes), ")")));
  }
  return absl::OkStatus();
}

absl::Status ReplayCursor::status() const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  return status_;
}

std::size_t ReplayCursor::served() const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  return served_;
}

}  // namespace agentrt::replay
