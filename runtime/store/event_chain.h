// runtime/store/event_chain.h
//
// The audit log's hash chain. Each event's hash is the lowercase hex SHA-256 of seven
// netstrings (`<byte length>:<bytes>,`): the previous event's hash ("" for the first), this
// event's seq in decimal, run_id, step_id, at, type and payload_json, each exactly as stored.
// "Previous" is the event with the next lower seq across all runs: one chain for the whole
// database, in commit order. Changing, removing or reordering any stored event breaks the
// chain at that event; only a head kept outside the database proves its end was not cut.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace agentrt::store {

struct EventFields {
  std::int64_t seq = 0;
  std::string_view run_id;
  std::string_view step_id;
  std::string_view at;
  std::string_view type;
  std::string_view payload_json;
};

std::string EventHash(std::string_view previous_hash, const EventFields& event);

}  // namespace agentrt::store
