// runtime/replay/model_key.h
//
// The key a recorded model exchange is filed under: the lowercase hex SHA-256 of the canonical
// JSON {"model": <name>, "request": <ModelRequestJson(request)>}. Two requests share a key
// exactly when the same model was asked the same thing: member order, whitespace and number
// spelling in tool input do not matter (1.0 and 1 are one number), while every digit of a
// number a double cannot hold does (9007199254740993 is not 9007199254740992).
//
// Thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "runtime/model.h"

namespace agentrt::replay {

std::string ModelKey(std::string_view model_name, const ModelRequest& request);

// ModelKeyOfJson is ModelKey for a request already in canonical form (`request_json` as
// ModelRequestJson writes it). Bytes that are not canonical give a key no request has.
std::string ModelKeyOfJson(std::string_view model_name, std::string_view request_json);

// KeyPrefix is the 12 hex digits errors and listings show of a key.
std::string_view KeyPrefix(std::string_view key);

}  // namespace agentrt::replay
