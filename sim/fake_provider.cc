#include "sim/fake_provider.h"

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"

namespace agentrt::sim {

std::string_view DefaultProviderModel(std::string_view kind) {
  if (kind == "anthropic") return "claude-sonnet-5";
  if (kind == "openai") return "gpt-sim";
  return "qwen-sim";
}

std::string FakeProvider::BaseUrl() const {
  if (config_.kind() == "ollama") return absl::StrCat("http://", ToAbsl(kProviderHost));
  if (config_.kind() == "openai") return absl::StrCat("https://", ToAbsl(kProviderHost), "/v1");
  return absl::StrCat("https://", ToAbsl(kProviderHost));
}

void FakeProvider::Differ(std::string what) {
  if (difference_.empty()) {
    difference_ = absl::StrCat("provider request ", requests_, ": ", what);
  }
}

std::optional<FakeProvider::Answer> FakeProvider::Next(const world::HttpRequest& request) {
  ++requests_;
  if (requests_ > config_.exchanges_size()) {
    Differ(absl::StrCat("the scenario has ", config_.exchanges_size(),
                        " exchanges and no answer for this one"));
    return std::nullopt;
  }
  const v1::ProviderExchange& e = config_.exchanges(requests_ - 1);
  for (const std::string& expected : e.expect()) {
    if (request.body.find(expected) == std::string::npos) {
      Differ(absl::StrCat("the request's body holds no ", json::Quoted(expected, 200)));
      break;
    }
  }
  return Answer{&e, perturber_ != nullptr ? perturber_->Next() : v1::Perturbation()};
}

}  // namespace agentrt::sim
