#include "runtime/replay/replaying_model.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/replay/cassette_file.h"
#include "runtime/replay/internal/convert.h"
#include "runtime/replay/model_key.h"
#include "runtime/replay/proto/cassette.pb.h"

namespace agentrt::replay {
namespace {

constexpr char kNotRecorded[] = "replay: no recorded response for this request (key ";

}  // namespace

ReplayingModel::ReplayingModel(std::string name, ReplayCursor& cursor)
    : name_(std::move(name)), cursor_(&cursor) {}

ReplayingModel::ReplayingModel(std::string name, const Cassette& cassette)
    : name_(std::move(name)), cursor_(nullptr) {
  // Each key's sequence is the latest session's that recorded it (re-recording replaces it).
  absl::flat_hash_map<std::string, std::size_t> session_of_key;
  for (std::size_t i = 0; i < cassette.size(); ++i) {
    const v1::Exchange& e = cassette.exchange(i);
    if (!e.has_model() || e.model().model() != name_ || e.model().has_error()) continue;
    const v1::ModelExchange& m = e.model();
    std::size_t session = cassette.session_of(i);
    auto [it, inserted] = session_of_key.try_emplace(m.key(), session);
    std::vector<Recorded>& sequence = by_key_[m.key()];
    if (!inserted && it->second != session) {
      it->second = session;
      sequence.clear();
    }
    sequence.push_back({m.key(), m.ordinal(), m.response_json(), m.raw()});
  }
}

absl::StatusOr<std::unique_ptr<ReplayingModel>> ReplayingModel::OpenKeyed(std::string name,
                                                                          world::Filesystem& files,
                                                                          const std::string& path) {
  absl::StatusOr<Cassette> cassette = ReadCassette(files, path);
  if (!cassette.ok()) return cassette.status();
  return std::make_unique<ReplayingModel>(std::move(name), *cassette);
}

absl::StatusOr<ModelResponse> ReplayingModel::Generate(const ModelRequest& request,
                                                       absl::Time deadline) {
  return cursor_ != nullptr ? GenerateStrict(request) : GenerateKeyed(request);
}

absl::StatusOr<ModelResponse> ReplayingModel::GenerateStrict(const ModelRequest& request) {
  v1::Exchange requested;
  requested.mutable_model()->set_model(name_);
  requested.mutable_model()->set_request_json(ModelRequestJson(request));
  absl::StatusOr<const v1::Exchange*> served = cursor_->Serve(requested, /*safe=*/true);
  if (!served.ok()) return served.status();
  {
    absl::MutexLock lock(&mu_);
    ++served_;
  }
  const v1::ModelExchange& m = (*served)->model();
  if (m.has_error()) return internal::StatusOf(m.error());
  absl::StatusOr<ModelResponse> response = Serve(m.key(), m.ordinal(), m.response_json(), m.raw());
  if (!response.ok()) return cursor_->Fail(response.status());
  return response;
}

absl::StatusOr<ModelResponse> ReplayingModel::GenerateKeyed(const ModelRequest& request) {
  std::string key = ModelKey(name_, request);
  const Recorded* recorded = nullptr;
  {
    absl::MutexLock lock(&mu_);
    auto sequence = by_key_.find(key);
    if (sequence == by_key_.end()) {
      return absl::NotFoundError(absl::StrCat(kNotRecorded, ToAbsl(KeyPrefix(key)), ")"));
    }
    std::size_t& asked = asked_[key];
    if (asked == sequence->second.size()) {
      return absl::NotFoundError(absl::StrCat(kNotRecorded, ToAbsl(KeyPrefix(key)), "): recorded ",
                                              asked, " times, requested ", asked + 1));
    }
    recorded = &sequence->second[asked];
    ++asked;
    ++served_;
  }
  return Serve(recorded->key, recorded->ordinal, recorded->response_json, recorded->raw);
}

absl::StatusOr<ModelResponse> ReplayingModel::Serve(const std::string& key, std::uint32_t ordinal,
                                                    const std::string& response_json,
                                                    const std::string& raw) const {
  absl::StatusOr<ModelResponse> response = ParseModelResponse(response_json);
  if (!response.ok()) {
    return absl::DataLossError(absl::StrCat("replay: the recorded response (key ",
                                            ToAbsl(KeyPrefix(key)), ", recording ", ordinal,
                                            ") does not read back: ", response.status().message()));
  }
  response->raw = raw;
  return response;
}

std::size_t ReplayingModel::served() const {
  absl::MutexLock lock(&mu_);
  return served_;
}

}  // namespace agentrt::replay
