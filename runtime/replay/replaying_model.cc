#include "runtime/replay/replaying_model.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/replay/cassette_file.h"
#include "runtime/replay/model_key.h"

namespace agentrt::replay {
namespace {

constexpr char kNotRecorded[] = "replay: no recorded response for this request (key ";

}  // namespace

ReplayingModel::ReplayingModel(std::string name, const Cassette& cassette, ReplayOrder order)
    : name_(std::move(name)), order_(order) {
  for (const CassetteExchange& e : cassette.exchanges) {
    if (!e.model || e.model->model != name_) continue;
    by_key_[e.model->key].push_back(exchanges_.size());
    exchanges_.push_back(*e.model);
  }
}

absl::StatusOr<std::unique_ptr<ReplayingModel>> ReplayingModel::Open(std::string name,
                                                                     const std::string& path,
                                                                     ReplayOrder order) {
  absl::StatusOr<Cassette> cassette = ReadCassette(path);
  if (!cassette.ok()) return cassette.status();
  return std::make_unique<ReplayingModel>(std::move(name), *cassette, order);
}

absl::StatusOr<ModelResponse> ReplayingModel::Generate(const ModelRequest& request,
                                                       absl::Time deadline) {
  std::string key = ModelKey(name_, request);
  const ModelExchange* exchange = nullptr;
  {
    absl::MutexLock lock(&mu_);
    if (order_ == ReplayOrder::kStrict) {
      if (!stopped_.ok()) return stopped_;
      if (next_ == exchanges_.size()) {
        return absl::NotFoundError(absl::StrCat(kNotRecorded, ToAbsl(KeyPrefix(key)), "): all ",
                                                exchanges_.size(),
                                                " recorded exchanges were served"));
      }
      const ModelExchange& expected = exchanges_[next_];
      if (expected.key != key) {
        stopped_ = absl::FailedPreconditionError(absl::StrCat(
            "replay: request ", next_ + 1, " differs from the recording: recorded key ",
            ToAbsl(KeyPrefix(expected.key)), ", requested key ", ToAbsl(KeyPrefix(key))));
        return stopped_;
      }
      exchange = &expected;
      ++next_;
    } else {
      auto recorded = by_key_.find(key);
      if (recorded == by_key_.end()) {
        return absl::NotFoundError(absl::StrCat(kNotRecorded, ToAbsl(KeyPrefix(key)), ")"));
      }
      std::size_t& asked = asked_[key];
      if (asked == recorded->second.size()) {
        return absl::NotFoundError(absl::StrCat(kNotRecorded, ToAbsl(KeyPrefix(key)),
                                                "): recorded ", asked, " times, requested ",
                                                asked + 1));
      }
      exchange = &exchanges_[recorded->second[asked]];
      ++asked;
    }
    ++served_;
  }
  return Serve(*exchange);
}

absl::StatusOr<ModelResponse> ReplayingModel::Serve(const ModelExchange& exchange) const {
  absl::StatusOr<ModelResponse> response = ParseModelResponse(exchange.response_json);
  if (!response.ok()) {
    return absl::DataLossError(absl::StrCat(
        "replay: the recorded response (key ", ToAbsl(KeyPrefix(exchange.key)), ", recording ",
        exchange.ordinal, ") does not read back: ", response.status().message()));
  }
  response->raw = exchange.raw;
  return response;
}

std::size_t ReplayingModel::served() const {
  absl::MutexLock lock(&mu_);
  return served_;
}

}  // namespace agentrt::replay
