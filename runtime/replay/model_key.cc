#include "runtime/replay/model_key.h"

#include "runtime/json/json_object.h"
#include "runtime/json/sha256.h"

namespace agentrt::replay {

std::string ModelKey(std::string_view model_name, const ModelRequest& request) {
  return ModelKeyOfJson(model_name, ModelRequestJson(request));
}

std::string ModelKeyOfJson(std::string_view model_name, std::string_view request_json) {
  return json::Sha256Hex(
      json::JsonObject().String("model", model_name).Raw("request", request_json).Build());
}

std::string_view KeyPrefix(std::string_view key) { return key.substr(0, 12); }

}  // namespace agentrt::replay
