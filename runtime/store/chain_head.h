// runtime/store/chain_head.h
//
// A point on the event chain: the seq of an event and its stored hash. What a store's newest
// event is (Store::Head), what a follower's cursor stands on (exporter::Follower::Head), what a
// cassette says its recorded run ended at, and what `agentrt verify --head SEQ:HASH` checks. A
// head kept outside the writer's reach proves the log intact up to it (docs/formats/events.md).
#pragma once

#include <cstdint>
#include <string>

namespace agentrt::store {

struct ChainHead {
  std::int64_t seq = 0;  // 0: no event
  std::string hash;      // lowercase hex SHA-256 of event `seq`; "" for seq 0

  bool operator==(const ChainHead&) const = default;
};

}  // namespace agentrt::store
