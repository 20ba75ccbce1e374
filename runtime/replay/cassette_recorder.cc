#include "runtime/replay/cassette_recorder.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/replay/cassette_file.h"
#include "runtime/replay/internal/convert.h"
#include "runtime/replay/model_key.h"
#include "runtime/replay/proto/cassette.pb.h"

namespace agentrt::replay {

CassetteRecorder::CassetteRecorder(CassetteHeader header) {
  absl::MutexLock lock(&mu_);
  memory_.emplace();
  memory_->StartSession(std::move(header));
}

CassetteRecorder::CassetteRecorder(std::string path, std::unique_ptr<world::AppendableFile> file)
    : path_(std::move(path)) {
  absl::MutexLock lock(&mu_);
  file_ = std::move(file);
}

CassetteRecorder::~CassetteRecorder() { Sync().IgnoreError(); }

absl::StatusOr<std::unique_ptr<CassetteRecorder>> CassetteRecorder::Create(world::Filesystem& files,
                                                                           const std::string& path,
                                                                           CassetteHeader header) {
  AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<world::AppendableFile> file,
                           files.CreateAppendable(path, "cassette"));
  AGENTRT_RETURN_IF_ERROR(file->Append(absl::StrCat(ToAbsl(kCassetteMagic), FrameHeader(header))));
  return std::unique_ptr<CassetteRecorder>(new CassetteRecorder(path, std::move(file)));
}

absl::StatusOr<std::unique_ptr<CassetteRecorder>> CassetteRecorder::Open(world::Filesystem& files,
                                                                         const std::string& path,
                                                                         CassetteHeader header) {
  absl::StatusOr<Cassette> existing = ReadCassette(files, path);
  if (absl::IsNotFound(existing.status())) return Create(files, path, std::move(header));
  if (!existing.ok()) return existing.status();
  if (!existing->torn().empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cassette ", path, ": its last record is torn (", existing->torn(),
                     "); recording after it would bury the cut"));
  }
  if (existing->from_newer_build()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cassette ", path,
        ": written by a newer build (it holds fields or kinds this build does not know); "
        "recording into it would mix formats"));
  }
  AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<world::AppendableFile> file,
                           files.OpenAppendable(path, "cassette"));
  AGENTRT_RETURN_IF_ERROR(file->Append(FrameHeader(header)));
  return std::unique_ptr<CassetteRecorder>(new CassetteRecorder(path, std::move(file)));
}

std::uint32_t CassetteRecorder::Next(Numbered what) {
  absl::MutexLock lock(&mu_);
  return ++numbered_[static_cast<int>(what)];
}

absl::Status CassetteRecorder::AppendLocked(const v1::Exchange& exchange) {
  if (!failed_.ok()) return failed_;
  auto runs = runs_.find(CurrentThread());
  if (runs != runs_.end() && !runs->second.empty()) {
    *runs->second.back()->add_nested() = exchange;
    return absl::OkStatus();
  }
  if (memory_.has_value()) return memory_->Add(exchange);
  if (exchange.has_model()) AGENTRT_RETURN_IF_ERROR(CheckModelExchange(exchange.model()));
  v1::Record record;
  *record.mutable_exchange() = exchange;
  if (absl::Status s = file_->Append(FrameRecord(record)); !s.ok()) {
    failed_ = s;
    return s;
  }
  return absl::OkStatus();
}

absl::Status CassetteRecorder::Record(const v1::Exchange& exchange) {
  absl::MutexLock lock(&mu_);
  return AppendLocked(exchange);
}

absl::StatusOr<v1::ModelExchange> CassetteRecorder::RecordModel(
    std::string_view model, const ModelRequest& request,
    const absl::StatusOr<ModelResponse>& response) {
  v1::Exchange exchange;
  v1::ModelExchange* m = exchange.mutable_model();
  m->set_model(std::string(model));
  m->set_request_json(ModelRequestJson(request));
  m->set_key(ModelKeyOfJson(model, m->request_json()));
  if (response.ok()) {
    m->set_response_json(ModelResponseJson(*response));
    m->set_raw(response->raw);
  } else {
    *m->mutable_error() = internal::OutcomeOf(response.status());
  }
  absl::MutexLock lock(&mu_);
  std::uint32_t* count = nullptr;
  if (response.ok()) {
    count = &ordinals_[m->key()];
    m->set_ordinal(*count + 1);
  }
  if (absl::Status s = AppendLocked(exchange); !s.ok()) {
    return absl::Status(
        s.code(), absl::StrCat("record the call of model \"", ToAbsl(model), "\": ", s.message()));
  }
  if (count != nullptr) ++*count;
  return *m;
}

void CassetteRecorder::BeginTask() {
  absl::MutexLock lock(&mu_);
  runs_[CurrentThread()].push_back(std::make_unique<v1::TaskFiring>());
}

absl::Status CassetteRecorder::EndTask(std::string_view scheduler, std::uint32_t task, bool again) {
  absl::MutexLock lock(&mu_);
  auto runs = runs_.find(CurrentThread());
  if (runs == runs_.end() || runs->second.empty()) {
    return absl::InternalError("a task run ended that never began on this thread");
  }
  std::size_t depth = runs->second.size();
  std::unique_ptr<v1::TaskFiring> run = std::move(runs->second.back());
  runs->second.pop_back();
  if (runs->second.empty()) runs_.erase(runs);
  // `depth` counts the run ending and the runs it is nested in.
  if (depth > static_cast<std::size_t>(kMaxTaskNesting) && failed_.ok()) {
    failed_ = absl::FailedPreconditionError(
        absl::StrCat("task runs nested more than ", kMaxTaskNesting,
                     " deep: a cassette cannot hold them (its reader refuses them)"));
  }
  v1::Exchange exchange;
  v1::SchedulerExchange* s = exchange.mutable_scheduler();
  s->set_scheduler(std::string(scheduler));
  run->set_task(task);
  run->set_again(again);
  s->set_allocated_firing(run.release());
  return AppendLocked(exchange);
}

absl::Status CassetteRecorder::SetChainHead(const ChainHead& head) {
  AGENTRT_RETURN_IF_ERROR(CheckChainHead(head));
  {
    absl::MutexLock lock(&mu_);
    if (!failed_.ok()) return failed_;
    if (memory_.has_value()) return memory_->SetChainHead(head);
    v1::Record record;
    record.mutable_chain_head()->set_seq(head.seq);
    record.mutable_chain_head()->set_hash(head.hash);
    if (absl::Status s = file_->Append(FrameRecord(record)); !s.ok()) {
      failed_ = s;
      return s;
    }
  }
  return Sync();
}

absl::Status CassetteRecorder::Sync() {
  absl::MutexLock lock(&mu_);
  if (file_ == nullptr) return absl::OkStatus();
  return file_->Sync();
}

absl::Status CassetteRecorder::status() const {
  absl::MutexLock lock(&mu_);
  return failed_;
}

Cassette CassetteRecorder::cassette() const {
  absl::MutexLock lock(&mu_);
  return memory_.has_value() ? *memory_ : Cassette();
}

}  // namespace agentrt::replay
