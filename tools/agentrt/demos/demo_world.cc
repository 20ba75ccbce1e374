#include "tools/agentrt/demos/demo_world.h"

#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/db_flag.h"

namespace agentrt::cli {

std::unique_ptr<DemoWorld> DemoWorld::AsBuilt(const world::World& inner) {
  std::unique_ptr<DemoWorld> w(new DemoWorld());
  w->world_ = inner;
  return w;
}

absl::StatusOr<std::unique_ptr<DemoWorld>> DemoWorld::Recording(const world::World& inner,
                                                                const std::string& path,
                                                                std::vector<std::string> program) {
  std::unique_ptr<DemoWorld> w(new DemoWorld());
  AGENTRT_ASSIGN_OR_RETURN(
      w->recorder_,
      replay::CassetteRecorder::Create(
          *inner.filesystem, path, {.created_by = "agentrt 0.1.0", .program = std::move(program)}));
  w->recording_ = std::make_unique<replay::RecordingWorld>(inner, *w->recorder_);
  w->world_ = w->recording_->world();
  return w;
}

std::unique_ptr<DemoWorld> DemoWorld::Replaying(replay::Cassette cassette) {
  std::unique_ptr<DemoWorld> w(new DemoWorld());
  w->replaying_ = std::make_unique<replay::ReplayingWorld>(std::move(cassette));
  w->world_ = w->replaying_->world();
  return w;
}

agentrt::Model& DemoWorld::ModelFor(agentrt::Model& inner) {
  if (recording_ != nullptr) return recording_->Record(inner);
  if (replaying_ != nullptr) return replaying_->ReplayModel(inner.Name());
  return inner;
}

absl::Status DemoWorld::Begin(store::Store& store) const {
  if (recorder_ == nullptr && replaying_ == nullptr) return absl::OkStatus();
  AGENTRT_ASSIGN_OR_RETURN(store::ChainHead head, store.Head());
  if (head.seq != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the database already holds ", head.seq, " events; ",
        recorder_ != nullptr ? "record" : "replay",
        " into a new one (the chain head a cassette keeps covers the whole audit log)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> DemoWorld::Finish(store::Store& store) {
  AGENTRT_ASSIGN_OR_RETURN(store::ChainHead head, store.Head());
  if (recorder_ != nullptr) {
    AGENTRT_RETURN_IF_ERROR(recorder_->status());
    AGENTRT_RETURN_IF_ERROR(recorder_->SetChainHead(head));
    return absl::StrCat("recorded every exchange with the world to ",
                        json::Sanitize(recorder_->path()), ", with chain head seq ", head.seq, " ",
                        head.hash);
  }
  if (replaying_ != nullptr) {
    AGENTRT_RETURN_IF_ERROR(replaying_->Finish(head));
    return absl::StrCat("replayed ", replaying_->cursor().served(),
                        " exchanges in recorded order; chain head seq ", head.seq, " ", head.hash,
                        ": the audit log is the recorded one, byte for byte");
  }
  return absl::StrCat("chain head seq ", head.seq, " ", head.hash);
}

std::size_t EventCount(store::Store& store, const std::string& run_id) {
  if (run_id.empty()) return 0;
  absl::StatusOr<store::Store::EventPage> page = store.ListEventsPage(run_id, 1, 0);
  return page.ok() ? static_cast<std::size_t>(page->total) : 0;
}

std::optional<RecordReplayFlags> ParseRecordReplay(Io& io, const std::string& command,
                                                   std::span<const std::string> args,
                                                   std::string_view help, bool one_required,
                                                   int* exit) {
  RecordReplayFlags o;
  std::optional<ParsedArgs> parsed = ParseFlags(
      io, command, args,
      FlagSet().Add("db", &o.db).Add("record", &o.record).Add("replay", &o.replay), help, exit);
  if (!parsed) return std::nullopt;
  std::optional<std::string> refused;
  if (one_required && o.record.empty() == o.replay.empty()) {
    refused = "give exactly one of --record CASSETTE or --replay CASSETTE";
  } else if (!o.record.empty() && !o.replay.empty()) {
    refused = "--record and --replay are two separate runs";
  } else if (!o.record.empty() && std::filesystem::exists(o.record)) {
    refused = "cassette " + json::Sanitize(o.record) +
              " exists; record to a new file (recording never mixes runs)";
  } else if (absl::StatusOr<std::string> path = DatabasePath(o.db); !path.ok()) {
    refused = std::string(ToStd(path.status().message()));
  } else {
    o.db = *std::move(path);
  }
  if (refused) {
    *exit = UsageError(io, command, *refused);
    return std::nullopt;
  }
  return o;
}

}  // namespace agentrt::cli
