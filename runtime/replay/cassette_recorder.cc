#include "runtime/replay/cassette_recorder.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/base/atomic_file.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/utf8.h"
#include "runtime/replay/cassette_file.h"
#include "runtime/replay/internal/cassette_codec.h"
#include "runtime/replay/model_key.h"

namespace agentrt::replay {
namespace {

Cassette NewCassette() {
  Cassette cassette;
  cassette.created_by = "agentrt";
  return cassette;
}

CassetteExchange ModelEntry(ModelExchange exchange) {
  CassetteExchange e;
  e.model = std::move(exchange);
  return e;
}

}  // namespace

CassetteRecorder::CassetteRecorder() : CassetteRecorder("", NewCassette()) {}

CassetteRecorder::CassetteRecorder(std::string path, Cassette cassette)
    : path_(std::move(path)), cassette_(std::move(cassette)) {}

absl::StatusOr<std::unique_ptr<CassetteRecorder>> CassetteRecorder::Open(const std::string& path) {
  Cassette cassette = NewCassette();
  absl::StatusOr<Cassette> existing = ReadCassette(path);
  if (existing.ok()) {
    if (existing->from_newer_build) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cassette ", path,
          ": written by a newer build (it holds fields or exchange kinds this build does not "
          "know); recording into it would drop them"));
    }
    cassette = *std::move(existing);
  } else if (!absl::IsNotFound(existing.status())) {
    return existing.status();
  }
  std::unique_ptr<CassetteRecorder> recorder(new CassetteRecorder(path, std::move(cassette)));
  // A new file exists from now on; an existing one is written back unchanged.
  absl::MutexLock lock(&recorder->mu_);
  AGENTRT_RETURN_IF_ERROR(recorder->Persist(recorder->cassette_));
  return recorder;
}

absl::Status CassetteRecorder::Persist(const Cassette& cassette) const {
  if (path_.empty()) return absl::OkStatus();
  return WriteFileAtomically(path_, internal::EncodeCassette(cassette), "cassette");
}

absl::StatusOr<ModelExchange> CassetteRecorder::RecordModel(std::string_view model,
                                                            const ModelRequest& request,
                                                            const ModelResponse& response) {
  ModelExchange exchange;
  exchange.model = std::string(model);
  exchange.request_json = ModelRequestJson(request);
  exchange.key = ModelKeyOfJson(model, exchange.request_json);
  exchange.response_json = ModelResponseJson(response);
  exchange.raw = response.raw;

  absl::MutexLock lock(&mu_);
  auto seen = recorded_.find(exchange.key);
  bool first = seen == recorded_.end();
  exchange.ordinal = first ? 1 : seen->second + 1;
  if (absl::Status s = CheckModelExchange(exchange, exchange.ordinal); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("record the call of model \"", ToAbsl(model), "\": ", s.message()));
  }
  bool has_earlier = false;
  if (first) {
    for (const CassetteExchange& e : cassette_.exchanges) {
      if (e.model && e.model->key == exchange.key) has_earlier = true;
    }
  }
  if (has_earlier) {
    // Re-recording: the key's earlier sequence goes, this recorder's starts.
    Cassette next = cassette_;
    std::erase_if(next.exchanges, [&](const CassetteExchange& e) {
      return e.model && e.model->key == exchange.key;
    });
    next.exchanges.push_back(ModelEntry(exchange));
    AGENTRT_RETURN_IF_ERROR(Persist(next));
    cassette_ = std::move(next);
  } else {
    cassette_.exchanges.push_back(ModelEntry(exchange));
    if (absl::Status s = Persist(cassette_); !s.ok()) {
      cassette_.exchanges.pop_back();
      return s;
    }
  }
  recorded_[exchange.key] = exchange.ordinal;
  return exchange;
}

absl::Status CassetteRecorder::SetChainHead(const ChainHead& head) {
  AGENTRT_RETURN_IF_ERROR(CheckChainHead(head));
  absl::MutexLock lock(&mu_);
  ChainHead previous = std::exchange(cassette_.chain_head, head);
  if (absl::Status s = Persist(cassette_); !s.ok()) {
    cassette_.chain_head = std::move(previous);
    return s;
  }
  return absl::OkStatus();
}

absl::Status CassetteRecorder::SetNotes(std::string_view notes) {
  if (!json::IsValidUtf8(notes)) return absl::InvalidArgumentError("cassette notes: not UTF-8");
  absl::MutexLock lock(&mu_);
  std::string previous = std::exchange(cassette_.notes, std::string(notes));
  if (absl::Status s = Persist(cassette_); !s.ok()) {
    cassette_.notes = std::move(previous);
    return s;
  }
  return absl::OkStatus();
}

Cassette CassetteRecorder::cassette() const {
  absl::MutexLock lock(&mu_);
  return cassette_;
}

}  // namespace agentrt::replay
