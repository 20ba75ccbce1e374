#include "runtime/replay/replaying_scheduler.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/replay/internal/convert.h"
#include "runtime/replay/proto/cassette.pb.h"

namespace agentrt::replay {

ReplayingScheduler::ReplayingScheduler(ReplayCursor& cursor, std::string name)
    : cursor_(cursor), name_(name), clock_(cursor, name) {
  cursor_.SetTaskRunner([this](std::uint32_t task) { return Run(task); });
}

world::Scheduler::TaskId ReplayingScheduler::Schedule(absl::Time first, absl::Duration period,
                                                      absl::AnyInvocable<bool()> task) {
  v1::Exchange requested;
  requested.mutable_scheduler()->set_scheduler(name_);
  v1::TaskScheduled* scheduled = requested.mutable_scheduler()->mutable_scheduled();
  scheduled->set_at(internal::NanosOf(first));
  scheduled->set_period(absl::ToInt64Nanoseconds(period));
  absl::StatusOr<const v1::Exchange*> served = cursor_.Serve(requested, /*safe=*/false);
  TaskId id = served.ok() ? (*served)->scheduler().scheduled().task() : next_unrecorded_++;
  // A stopped replay never runs it; it is kept so Cancel finds it.
  tasks_[id] = std::move(task);
  return id;
}

world::Scheduler::TaskId ReplayingScheduler::RunAt(absl::Time at, absl::AnyInvocable<void()> task) {
  return Schedule(at, absl::ZeroDuration(), [task = std::move(task)]() mutable {
    task();
    return false;
  });
}

world::Scheduler::TaskId ReplayingScheduler::RunEvery(absl::Time first, absl::Duration period,
                                                      absl::AnyInvocable<bool()> task) {
  return Schedule(first, period, std::move(task));
}

bool ReplayingScheduler::Cancel(TaskId id) {
  if (!tasks_.contains(id)) return false;
  v1::Exchange requested;
  requested.mutable_scheduler()->set_scheduler(name_);
  requested.mutable_scheduler()->mutable_cancelled()->set_task(static_cast<std::uint32_t>(id));
  // Safe: a run recorded before the cancel is played before it.
  absl::StatusOr<const v1::Exchange*> served = cursor_.Serve(requested, /*safe=*/true);
  tasks_.erase(id);
  return served.ok() && (*served)->scheduler().cancelled().result();
}

absl::Status ReplayingScheduler::Run(std::uint32_t task) {
  auto it = tasks_.find(task);
  if (it == tasks_.end()) {
    return absl::FailedPreconditionError(
        absl::StrCat("replay: the recording runs task ", task, " of scheduler \"", name_,
                     "\", which the replayed run never scheduled or has cancelled"));
  }
  // What the task returns does not schedule anything: its next runs are in the cassette. It
  // runs out of the table, so it may cancel itself.
  absl::AnyInvocable<bool()> body = std::move(it->second);
  body();
  if (auto still = tasks_.find(task); still != tasks_.end()) still->second = std::move(body);
  return absl::OkStatus();
}

}  // namespace agentrt::replay
