#include "runtime/store/event_chain.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sha256.h"

namespace agentrt::store {
namespace {

void AppendNetstring(std::string_view bytes, std::string& out) {
  absl::StrAppend(&out, bytes.size(), ":", ToAbsl(bytes), ",");
}

}  // namespace

std::string EventHash(std::string_view previous_hash, const EventFields& event) {
  std::string message;
  message.reserve(64 + event.payload_json.size() + 128);
  AppendNetstring(previous_hash, message);
  AppendNetstring(std::to_string(event.seq), message);
  AppendNetstring(event.run_id, message);
  AppendNetstring(event.step_id, message);
  AppendNetstring(event.at, message);
  AppendNetstring(event.type, message);
  AppendNetstring(event.payload_json, message);
  return json::Sha256Hex(message);
}

}  // namespace agentrt::store
