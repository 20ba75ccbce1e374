// runtime/world/internal/task_queue.h
//
// The bookkeeping every Scheduler shares (scheduler.h): tasks by due time and scheduling order,
// repetition, and cancellation of a task that is running. Not thread-safe: its owner holds its
// own mutex around every call and runs the task bodies outside it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <thread>
#include <tuple>
#include <utility>

#include "absl/functional/any_invocable.h"
#include "absl/time/time.h"

namespace agentrt::world::internal {

class TaskQueue {
 public:
  using TaskId = std::uint64_t;

  // A task taken off the queue to run: call Run() outside the owner's lock, then Finish().
  struct Ready {
    TaskId id = 0;
    absl::Time due;
    absl::AnyInvocable<bool()> body;  // true: run again (repeating tasks only)
  };

  TaskId Add(absl::Time first, absl::Duration period, absl::AnyInvocable<bool()> body) {
    TaskId id = next_id_++;
    Entry& entry = entries_[id];
    entry.period = period;
    entry.body = std::move(body);
    entry.due = first;
    entry.seq = next_seq_++;
    queue_.emplace(Key{first, entry.seq}, id);
    return id;
  }

  // The earliest due time, if any task is waiting.
  std::optional<absl::Time> NextDue() const {
    if (queue_.empty()) return std::nullopt;
    return queue_.begin()->first.due;
  }

  // Takes the earliest task due at or before `limit`, marking it running on `runner`. With
  // `latest_only`, a repeating task due several times by `limit` with no other task due in
  // between is taken once, at the last of those times (its runs in between are skipped), so
  // the tasks keep their order whatever is skipped.
  std::optional<Ready> TakeDue(absl::Time limit, std::thread::id runner, bool latest_only = false) {
    if (queue_.empty() || queue_.begin()->first.due > limit) return std::nullopt;
    auto it = queue_.begin();
    TaskId id = it->second;
    queue_.erase(it);
    Entry& entry = entries_.at(id);
    entry.running = true;
    entry.runner = runner;
    if (latest_only && entry.period > absl::ZeroDuration()) {
      entry.due += entry.period * Skippable(entry.due, entry.period, limit);
    }
    return Ready{id, entry.due, std::move(entry.body)};
  }

  // Puts a task back after its run: repeated at its next due time when it is a repeating task,
  // asked to go on, and was not cancelled meanwhile; otherwise forgotten.
  void Finish(Ready ready, bool again) {
    Entry& entry = entries_.at(ready.id);
    if (again && !entry.cancelled && entry.period > absl::ZeroDuration()) {
      entry.running = false;
      entry.body = std::move(ready.body);
      entry.due = ready.due + entry.period;
      entry.seq = next_seq_++;
      queue_.emplace(Key{entry.due, entry.seq}, ready.id);
      return;
    }
    entries_.erase(ready.id);
  }

  enum class Cancelled { kUnknown, kRemoved, kRunning };
  // Cancels a task: removed when it was waiting; kRunning when it is running now (it will not
  // be repeated; the caller waits for IsRunning to turn false, unless it is the task itself).
  Cancelled Cancel(TaskId id) {
    auto it = entries_.find(id);
    if (it == entries_.end()) return Cancelled::kUnknown;
    if (it->second.running) {
      it->second.cancelled = true;
      return Cancelled::kRunning;
    }
    queue_.erase(Key{it->second.due, it->second.seq});
    entries_.erase(it);
    return Cancelled::kRemoved;
  }

  bool IsRunning(TaskId id) const {
    auto it = entries_.find(id);
    return it != entries_.end() && it->second.running;
  }
  // The thread a running task runs on.
  std::thread::id Runner(TaskId id) const {
    auto it = entries_.find(id);
    return it == entries_.end() ? std::thread::id() : it->second.runner;
  }

  // Whether a task is running on a thread other than `self`.
  bool RunningElsewhere(std::thread::id self) const {
    for (const auto& [id, entry] : entries_) {
      if (entry.running && entry.runner != self) return true;
    }
    return false;
  }

  std::size_t size() const { return entries_.size(); }

 private:
  // How many periods a repeating task due at `due` can skip and still run before every other
  // task (which, at an equal time, was queued first and runs first) and by `limit`.
  std::int64_t Skippable(absl::Time due, absl::Duration period, absl::Time limit) const {
    absl::Time horizon = limit;
    bool before_other = false;
    if (!queue_.empty() && queue_.begin()->first.due <= limit) {
      horizon = queue_.begin()->first.due;
      before_other = true;
    }
    if (horizon <= due || horizon == absl::InfiniteFuture()) return 0;
    absl::Duration rest;
    std::int64_t periods = absl::IDivDuration(horizon - due, period, &rest);
    if (before_other && rest == absl::ZeroDuration() && periods > 0) --periods;
    return periods;
  }

  struct Key {
    absl::Time due;
    std::uint64_t seq;
    bool operator<(const Key& o) const { return std::tie(due, seq) < std::tie(o.due, o.seq); }
  };
  struct Entry {
    absl::Duration period = absl::ZeroDuration();  // zero: runs once
    absl::AnyInvocable<bool()> body;
    absl::Time due;
    std::uint64_t seq = 0;
    bool running = false;
    bool cancelled = false;
    std::thread::id runner;
  };

  std::map<Key, TaskId> queue_;
  std::map<TaskId, Entry> entries_;
  TaskId next_id_ = 1;
  std::uint64_t next_seq_ = 0;
};

}  // namespace agentrt::world::internal
