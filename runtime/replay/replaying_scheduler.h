// runtime/replay/replaying_scheduler.h
//
// A Scheduler that runs nothing by time: tasks run exactly where the cassette recorded their
// runs, played by the replay's cursor on the replaying thread (replay_cursor.h). Scheduling and
// cancelling are served from the cassette too, under this scheduler's name, and a task's id is
// its recorded number. Its clock() is a ReplayingClock of the same name (the recording
// scheduler's clock was recorded under it). Starts no thread.
#pragma once

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/any_invocable.h"
#include "absl/time/time.h"
#include "runtime/replay/replay_cursor.h"
#include "runtime/replay/replaying_clock.h"
#include "runtime/world/scheduler.h"

namespace agentrt::replay {

class ReplayingScheduler final : public world::Scheduler {
 public:
  // Registers itself as `cursor`'s task runner; `cursor` must outlive this. One replaying
  // scheduler per cursor.
  ReplayingScheduler(ReplayCursor& cursor, std::string name);

  const world::Clock& clock() const override { return clock_; }
  TaskId RunAt(absl::Time at, absl::AnyInvocable<void()> task) override;
  TaskId RunEvery(absl::Time first, absl::Duration period,
                  absl::AnyInvocable<bool()> task) override;
  bool Cancel(TaskId id) override;

  // Tasks scheduled and not cancelled.
  std::size_t pending_tasks() const { return tasks_.size(); }

 private:
  TaskId Schedule(absl::Time first, absl::Duration period, absl::AnyInvocable<bool()> task);
  absl::Status Run(std::uint32_t task);

  ReplayCursor& cursor_;
  const std::string name_;
  ReplayingClock clock_;
  absl::flat_hash_map<TaskId, absl::AnyInvocable<bool()>> tasks_;
  TaskId next_unrecorded_ = 1u << 31;  // ids for tasks scheduled after the replay stopped
};

}  // namespace agentrt::replay
