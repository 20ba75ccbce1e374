#include "runtime/json/json_object.h"

#include <algorithm>

#include "runtime/json/canonical_json.h"
#include "runtime/json/document.h"

namespace agentrt::json {

std::string JsonString(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);  // all it takes unless something needs escaping
  AppendJsonString(text, out);
  return out;
}

JsonObject& JsonObject::String(std::string_view key, std::string_view value) {
  return Add(key, JsonString(value));
}

JsonObject& JsonObject::Int(std::string_view key, std::int64_t value) {
  return Add(key, std::to_string(value));
}

JsonObject& JsonObject::Bool(std::string_view key, bool value) {
  return Add(key, value ? "true" : "false");
}

JsonObject& JsonObject::Raw(std::string_view key, std::string_view canonical_json) {
  return Add(key, std::string(canonical_json));
}

JsonObject& JsonObject::Add(std::string_view key, std::string value) {
  members_.emplace_back(std::string(key), std::move(value));
  return *this;
}

std::string JsonObject::Build() const {
  std::vector<const std::pair<std::string, std::string>*> sorted;
  sorted.reserve(members_.size());
  std::size_t size = 2;  // what the object takes unless a key needs escaping
  for (const auto& m : members_) {
    sorted.push_back(&m);
    size += m.first.size() + m.second.size() + 4;
  }
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) {
    return CompareUtf16(a->first, b->first) < 0;
  });
  std::string out;
  out.reserve(size);
  out += '{';
  for (const auto* m : sorted) {
    if (out.size() > 1) out += ",";
    AppendCanonicalString(m->first, out);
    out += ":";
    out += m->second;
  }
  out += "}";
  return out;
}

std::string JsonArray(const std::vector<std::string>& canonical_items) {
  std::size_t size = 2;
  for (const std::string& item : canonical_items) size += item.size() + 1;
  std::string out;
  out.reserve(size);
  out += '[';
  for (std::size_t i = 0; i < canonical_items.size(); ++i) {
    if (i > 0) out += ',';
    out += canonical_items[i];
  }
  out += ']';
  return out;
}

}  // namespace agentrt::json
