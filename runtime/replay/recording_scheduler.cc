#include "runtime/replay/recording_scheduler.h"

#include <utility>

#include "runtime/replay/internal/convert.h"
#include "runtime/replay/proto/cassette.pb.h"

namespace agentrt::replay {

RecordingScheduler::RecordingScheduler(world::Scheduler& inner, CassetteRecorder& recorder,
                                       std::string name)
    : SchedulerWrapper(inner),
      recorder_(recorder),
      name_(name),
      clock_(inner.clock(), recorder, name) {}

world::Scheduler::TaskId RecordingScheduler::Schedule(absl::Time first, absl::Duration period,
                                                      absl::AnyInvocable<bool()> task) {
  TaskId number = recorder_.Next(CassetteRecorder::Numbered::kTask);
  v1::Exchange exchange;
  exchange.mutable_scheduler()->set_scheduler(name_);
  v1::TaskScheduled* scheduled = exchange.mutable_scheduler()->mutable_scheduled();
  scheduled->set_task(static_cast<std::uint32_t>(number));
  scheduled->set_at(internal::NanosOf(first));
  scheduled->set_period(absl::ToInt64Nanoseconds(period));
  // Recorded before the inner scheduler may run it, so its runs always come after.
  recorder_.Record(exchange).IgnoreError();  // kept by the recorder
  auto run = [this, number, task = std::move(task)]() mutable {
    recorder_.BeginTask();
    bool again = task();
    recorder_.EndTask(name_, static_cast<std::uint32_t>(number), again).IgnoreError();
    return again;
  };
  TaskId inner_id =
      period > absl::ZeroDuration()
          ? SchedulerWrapper::RunEvery(first, period, std::move(run))
          : SchedulerWrapper::RunAt(first, [run = std::move(run)]() mutable { run(); });
  absl::MutexLock lock(&mu_);
  inner_ids_[number] = inner_id;
  return number;
}

world::Scheduler::TaskId RecordingScheduler::RunAt(absl::Time at, absl::AnyInvocable<void()> task) {
  return Schedule(at, absl::ZeroDuration(), [task = std::move(task)]() mutable {
    task();
    return false;
  });
}

world::Scheduler::TaskId RecordingScheduler::RunEvery(absl::Time first, absl::Duration period,
                                                      absl::AnyInvocable<bool()> task) {
  return Schedule(first, period, std::move(task));
}

bool RecordingScheduler::Cancel(TaskId id) {
  TaskId inner_id;
  {
    absl::MutexLock lock(&mu_);
    auto it = inner_ids_.find(id);
    if (it == inner_ids_.end()) return false;
    inner_id = it->second;
    inner_ids_.erase(it);
  }
  bool cancelled = SchedulerWrapper::Cancel(inner_id);
  v1::Exchange exchange;
  exchange.mutable_scheduler()->set_scheduler(name_);
  exchange.mutable_scheduler()->mutable_cancelled()->set_task(static_cast<std::uint32_t>(id));
  exchange.mutable_scheduler()->mutable_cancelled()->set_result(cancelled);
  recorder_.Record(exchange).IgnoreError();  // kept by the recorder
  return cancelled;
}

}  // namespace agentrt::replay
