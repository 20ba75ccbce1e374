// runtime/replay/recording_scheduler.h
//
// A Scheduler that schedules on another and records, under its name, every task scheduled and
// cancelled and every run of a task, with what the task recorded while it ran (cassette_
// recorder.h), so a replay runs each task exactly where the recording did. Its clock() is a
// RecordingClock over the inner scheduler's clock under the same name: readings of the
// scheduler's clock (the lease's) are recorded too.
//
// Task ids are the tasks' numbers in the cassette. Thread-safe; must outlive its tasks (destroy
// the inner scheduler, or cancel them, first).
#pragma once

#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/functional/any_invocable.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "runtime/replay/cassette_recorder.h"
#include "runtime/replay/recording_clock.h"
#include "runtime/world/scheduler.h"

namespace agentrt::replay {

class RecordingScheduler final : public world::SchedulerWrapper {
 public:
  // `inner` and `recorder` must outlive this.
  RecordingScheduler(world::Scheduler& inner, CassetteRecorder& recorder, std::string name);

  const world::Clock& clock() const override { return clock_; }
  TaskId RunAt(absl::Time at, absl::AnyInvocable<void()> task) override;
  TaskId RunEvery(absl::Time first, absl::Duration period,
                  absl::AnyInvocable<bool()> task) override;
  bool Cancel(TaskId id) override;

 private:
  TaskId Schedule(absl::Time first, absl::Duration period, absl::AnyInvocable<bool()> task);

  CassetteRecorder& recorder_;
  const std::string name_;
  RecordingClock clock_;
  absl::Mutex mu_;
  absl::flat_hash_map<TaskId, TaskId> inner_ids_ ABSL_GUARDED_BY(mu_);  // ours -> inner's
};

}  // namespace agentrt::replay
