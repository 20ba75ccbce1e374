#include "runtime/replay/cassette.h"

#include <climits>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/sanitize.h"
#include "runtime/json/utf8.h"
#include "runtime/model.h"
#include "runtime/replay/internal/cassette_codec.h"
#include "runtime/replay/model_key.h"
#include "runtime/replay/proto/cassette.pb.h"

namespace agentrt::replay {
namespace {

bool IsLowerHex64(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

template <typename Message>
bool HasUnknownFields(const Message& message) {
  return !message.GetReflection()->GetUnknownFields(message).empty();
}

// CheckCassette applies the rules of the header to the whole cassette. Errors name the
// exchange, counting from 1.
absl::Status CheckCassette(const Cassette& cassette) {
  if (!json::IsValidUtf8(cassette.created_by)) {
    return absl::InvalidArgumentError("created_by is not UTF-8");
  }
  if (!json::IsValidUtf8(cassette.notes)) return absl::InvalidArgumentError("notes is not UTF-8");
  absl::flat_hash_map<std::string, std::uint32_t> recorded;  // key -> exchanges so far
  for (std::size_t i = 0; i < cassette.exchanges.size(); ++i) {
    const CassetteExchange& exchange = cassette.exchanges[i];
    if (!exchange.model) {
      if (exchange.unknown_kind > 0) continue;
      return absl::InvalidArgumentError(absl::StrCat("exchange ", i + 1, ": no kind is set"));
    }
    const ModelExchange& model = *exchange.model;
    std::uint32_t& count = recorded[model.key];
    if (absl::Status s = CheckModelExchange(model, count + 1); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "exchange ", i + 1, " (model \"", json::Sanitize(model.model), "\"): ", s.message()));
    }
    ++count;
  }
  return CheckChainHead(cassette.chain_head);
}

void ToProto(const ModelExchange& in, v1::ModelExchange& out) {
  out.set_model(in.model);
  out.set_key(in.key);
  out.set_ordinal(in.ordinal);
  out.set_request_json(in.request_json);
  out.set_response_json(in.response_json);
  out.set_raw(in.raw);
}

ModelExchange FromProto(const v1::ModelExchange& in) {
  return {in.model(), in.key(), in.ordinal(), in.request_json(), in.response_json(), in.raw()};
}

}  // namespace

absl::Status CheckChainHead(const ChainHead& head) {
  if (head.seq < 0) {
    return absl::InvalidArgumentError(absl::StrCat("chain head: negative seq ", head.seq));
  }
  if (head.seq == 0 && !head.hash.empty()) {
    return absl::InvalidArgumentError("chain head: a hash without a seq");
  }
  if (head.seq > 0 && !IsLowerHex64(head.hash)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "chain head: seq ", head.seq, " has a hash that is not 64 lowercase hex digits"));
  }
  return absl::OkStatus();
}

absl::Status CheckModelExchange(const ModelExchange& exchange, std::uint32_t ordinal) {
  if (exchange.model.empty()) return absl::InvalidArgumentError("no model name");
  if (!json::IsValidUtf8(exchange.model)) {
    return absl::InvalidArgumentError("the model name is not UTF-8");
  }
  if (!IsLowerHex64(exchange.key)) {
    return absl::InvalidArgumentError("the key is not 64 lowercase hex digits");
  }
  absl::StatusOr<std::string> canonical = json::Canonicalize(exchange.request_json);
  if (!canonical.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("request_json is not JSON: ", canonical.status().message()));
  }
  if (*canonical != exchange.request_json) {
    return absl::InvalidArgumentError("request_json is not in canonical form");
  }
  if (canonical->front() != '{') {
    return absl::InvalidArgumentError("request_json is not a JSON object");
  }
  std::string key = ModelKeyOfJson(exchange.model, exchange.request_json);
  if (key != exchange.key) {
    return absl::InvalidArgumentError(absl::StrCat("key ", ToAbsl(KeyPrefix(exchange.key)),
                                                   " is not the key of its request (",
                                                   ToAbsl(KeyPrefix(key)), ")"));
  }
  if (absl::StatusOr<ModelResponse> r = ParseModelResponse(exchange.response_json); !r.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("response_json does not read back: ", r.status().message()));
  }
  if (exchange.ordinal != ordinal) {
    return absl::InvalidArgumentError(absl::StrCat("key ", ToAbsl(KeyPrefix(exchange.key)),
                                                   " has ordinal ", exchange.ordinal,
                                                   " where its sequence needs ", ordinal));
  }
  return absl::OkStatus();
}

absl::StatusOr<Cassette> ParseCassette(std::string_view bytes, std::string_view name) {
  std::string where = absl::StrCat("cassette ", ToAbsl(name), ": ");
  v1::Cassette proto;
  if (bytes.size() > INT_MAX ||
      !proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::DataLossError(absl::StrCat(where, "not a cassette (the ", bytes.size(),
                                            " bytes do not parse as agentrt.replay.v1.Cassette)"));
  }
  if (proto.format_version() != kCassetteFormatVersion) {
    return absl::FailedPreconditionError(
        absl::StrCat(where, "format version ", proto.format_version(),
                     " is not one this build reads (", kCassetteFormatVersion, ")"));
  }
  Cassette cassette;
  cassette.created_by = proto.created_by();
  cassette.notes = proto.notes();
  cassette.chain_head = {proto.chain_head().seq(), proto.chain_head().hash()};
  cassette.from_newer_build = HasUnknownFields(proto) || HasUnknownFields(proto.chain_head());
  cassette.exchanges.reserve(proto.exchanges_size());
  for (const v1::Exchange& in : proto.exchanges()) {
    CassetteExchange& out = cassette.exchanges.emplace_back();
    if (HasUnknownFields(in)) cassette.from_newer_build = true;
    if (in.has_model()) {
      out.model = FromProto(in.model());
      if (HasUnknownFields(in.model())) cassette.from_newer_build = true;
    } else if (HasUnknownFields(in)) {
      out.unknown_kind = in.GetReflection()->GetUnknownFields(in).field(0).number();
    }
  }
  if (absl::Status s = CheckCassette(cassette); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(where, s.message()));
  }
  return cassette;
}

absl::StatusOr<std::string> SerializeCassette(const Cassette& cassette) {
  if (cassette.from_newer_build) {
    return absl::FailedPreconditionError(
        "the cassette holds fields or exchange kinds this build does not know; writing it "
        "would drop them");
  }
  AGENTRT_RETURN_IF_ERROR(CheckCassette(cassette));
  return internal::EncodeCassette(cassette);
}

namespace internal {

std::string EncodeCassette(const Cassette& cassette) {
  v1::Cassette proto;
  proto.set_format_version(kCassetteFormatVersion);
  proto.set_created_by(cassette.created_by);
  proto.set_notes(cassette.notes);
  for (const CassetteExchange& exchange : cassette.exchanges) {
    if (exchange.model) ToProto(*exchange.model, *proto.add_exchanges()->mutable_model());
  }
  if (cassette.chain_head.seq != 0 || !cassette.chain_head.hash.empty()) {
    proto.mutable_chain_head()->set_seq(cassette.chain_head.seq);
    proto.mutable_chain_head()->set_hash(cassette.chain_head.hash);
  }
  return proto.SerializeAsString();
}

}  // namespace internal
}  // namespace agentrt::replay
