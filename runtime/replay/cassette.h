// runtime/replay/cassette.h
//
// A cassette in memory (format: runtime/replay/proto/cassette.proto, docs/formats/cassette.md): the
// exchanges a run had with the world, in order, and the chain head of the audit log it wrote.
// ParseCassette and SerializeCassette convert it to and from the binary form of the file.
//
// What ParseCassette accepts is what a replay can trust, so a bad cassette is refused before
// the first request rather than in the middle of a run:
//  - the bytes parse as agentrt.replay.v1.Cassette at format version kCassetteFormatVersion;
//  - every model exchange names its model, its request is canonical JSON, its key is the
//    request's key (model_key.h), its response reads back (ParseModelResponse), and its
//    ordinal continues its key's sequence 1, 2, ... in cassette order;
//  - the chain head is (0, "") or a positive seq with a 64-hex-digit hash.
// SerializeCassette checks the same rules, so whatever it writes reads back.
//
// A cassette from a newer build may hold fields or exchange kinds this build does not know
// (the format only ever adds them). It still reads, dumps and replays what this build knows,
// but it is never written back: that would silently drop what it does not know.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/store/chain_head.h"

namespace agentrt::replay {

using store::ChainHead;

inline constexpr std::uint32_t kCassetteFormatVersion = 1;

// One successful model call (proto ModelExchange).
struct ModelExchange {
  std::string model;          // Model::Name()
  std::string key;            // ModelKeyOfJson(model, request_json)
  std::uint32_t ordinal = 0;  // 1 for the key's first recording, n for its n-th
  std::string request_json;   // ModelRequestJson: canonical
  std::string response_json;  // ModelResponseJson: canonical, without raw
  std::string raw;            // the provider's bytes, exactly
};

// One exchange with the world: a model call, or a kind this build does not know.
struct CassetteExchange {
  std::optional<ModelExchange> model;
  int unknown_kind = 0;  // the field number of a kind this build does not know, else 0
};

struct Cassette {
  std::string created_by;
  std::string notes;
  std::vector<CassetteExchange> exchanges;
  ChainHead chain_head;
  // Read from a newer build's file that holds fields or exchange kinds this build does not
  // know; such a cassette is not written back.
  bool from_newer_build = false;
};

// ParseCassette decodes a cassette file's bytes; every error starts "cassette <name>: ".
// Errors: DataLoss when the bytes are not a cassette; FailedPrecondition for a format version
// this build does not read; InvalidArgument naming the exchange (1-based) or the chain head
// that breaks a rule above.
absl::StatusOr<Cassette> ParseCassette(std::string_view bytes, std::string_view name);

// SerializeCassette encodes `cassette` at kCassetteFormatVersion. Errors: InvalidArgument as
// ParseCassette would report it; FailedPrecondition for a cassette from a newer build.
absl::StatusOr<std::string> SerializeCassette(const Cassette& cassette);

// CheckChainHead applies the chain head's rule. Errors: InvalidArgument naming the rule.
absl::Status CheckChainHead(const ChainHead& head);

// CheckModelExchange applies the rules for one model exchange, `ordinal` being the one its
// key's sequence needs next. Errors: InvalidArgument naming the rule.
absl::Status CheckModelExchange(const ModelExchange& exchange, std::uint32_t ordinal);

}  // namespace agentrt::replay
