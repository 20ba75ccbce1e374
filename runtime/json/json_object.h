// runtime/json/json_object.h
//
// Building the engine's JSON (event payloads, stored columns) directly in canonical form:
// members are kept sorted by UTF-16 code units, strings escaped as canonical JSON escapes
// them, and raw values must already be canonical (from json::Canonicalize). So every payload
// the engine writes is canonical, and its hash is stable.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentrt::json {

class JsonObject {
 public:
  JsonObject& String(std::string_view key, std::string_view value);
  JsonObject& Int(std::string_view key, std::int64_t value);
  JsonObject& Bool(std::string_view key, bool value);
  // Raw inserts canonical JSON text as is.
  JsonObject& Raw(std::string_view key, std::string_view canonical_json);
  // Omit-empty variants, for optional fields.
  JsonObject& StringIfSet(std::string_view key, std::string_view value) {
    return value.empty() ? *this : String(key, value);
  }
  JsonObject& RawIfSet(std::string_view key, std::string_view canonical_json) {
    return canonical_json.empty() ? *this : Raw(key, canonical_json);
  }

  std::string Build() const;

 private:
  JsonObject& Add(std::string_view key, std::string value);

  std::vector<std::pair<std::string, std::string>> members_;
};

// JsonArray is the array of `canonical_items` (canonical JSON texts, inserted as they are), in
// their order: "[a,b]".
std::string JsonArray(const std::vector<std::string>& canonical_items);

// JsonString is the canonical JSON string literal of `text`; bytes that are not UTF-8 become
// U+FFFD, so the result is always valid JSON.
std::string JsonString(std::string_view text);

}  // namespace agentrt::json
