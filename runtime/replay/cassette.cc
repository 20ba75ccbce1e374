#include "runtime/replay/cassette.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/sanitize.h"
#include "runtime/json/utf8.h"
#include "runtime/model.h"
#include "runtime/replay/internal/exchange_kinds.h"
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

absl::Status Rule(std::string_view what) { return absl::InvalidArgumentError(ToAbsl(what)); }

// An error outcome must name an error: a status code other than OK that absl knows.
absl::Status CheckError(const v1::Outcome& outcome, std::string_view field) {
  if (outcome.code() <= 0 || outcome.code() > 16) {
    return Rule(
        absl::StrCat(ToAbsl(field), " has status code ", outcome.code(), ", not an error code"));
  }
  return absl::OkStatus();
}

// A result outcome may be OK (code 0) or an error.
absl::Status CheckResult(const v1::Outcome& outcome, std::string_view field) {
  if (outcome.code() < 0 || outcome.code() > 16) {
    return Rule(absl::StrCat(ToAbsl(field), " has status code ", outcome.code()));
  }
  return absl::OkStatus();
}

// What checking one exchange would add to a session's numbering, applied only once the whole
// exchange (a task's run with everything it nested included) passed.
struct Numbering {
  absl::flat_hash_map<std::string, std::uint32_t> ordinals;  // each key's ordinals so far
  absl::flat_hash_set<std::uint32_t> processes;
  absl::flat_hash_set<std::uint32_t> responses;
  absl::flat_hash_set<std::uint32_t> tasks;
};

struct Changes {
  std::vector<std::string> keys;  // one more ordinal each
  std::vector<std::pair<absl::flat_hash_set<std::uint32_t>*, std::uint32_t>> numbered;

  std::uint32_t Ordinals(const Numbering& n, const std::string& key) const {
    auto it = n.ordinals.find(key);
    std::uint32_t count = it == n.ordinals.end() ? 0 : it->second;
    for (const std::string& k : keys) count += k == key ? 1 : 0;
    return count;
  }
  bool Has(const absl::flat_hash_set<std::uint32_t>& set, std::uint32_t number) const {
    if (set.contains(number)) return true;
    for (const auto& [s, n] : numbered) {
      if (s == &set && n == number) return true;
    }
    return false;
  }
  void Apply(Numbering& n) {
    for (std::string& key : keys) ++n.ordinals[std::move(key)];
    for (const auto& [set, number] : numbered) set->insert(number);
  }
};

// A successful model call's ordinal is the next of its key's sequence in the session.
absl::Status CheckOrdinal(const v1::ModelExchange& m, const Numbering& numbering,
                          Changes& changes) {
  if (m.has_error()) return absl::OkStatus();
  std::uint32_t count = changes.Ordinals(numbering, m.key());
  if (m.ordinal() != count + 1) {
    return Rule(absl::StrCat("key ", ToAbsl(KeyPrefix(m.key())), " has ordinal ", m.ordinal(),
                             " where its sequence needs ", count + 1));
  }
  changes.keys.push_back(m.key());
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckModelExchange(const v1::ModelExchange& m) {
  if (m.model().empty()) return Rule("no model name");
  if (!json::IsValidUtf8(m.model())) return Rule("the model name is not UTF-8");
  if (!IsLowerHex64(m.key())) return Rule("the key is not 64 lowercase hex digits");
  absl::StatusOr<std::string> canonical = json::Canonicalize(m.request_json());
  if (!canonical.ok()) {
    return Rule(absl::StrCat("request_json is not JSON: ", canonical.status().message()));
  }
  if (*canonical != m.request_json()) return Rule("request_json is not in canonical form");
  if (canonical->front() != '{') return Rule("request_json is not a JSON object");
  std::string key = ModelKeyOfJson(m.model(), m.request_json());
  if (key != m.key()) {
    return Rule(absl::StrCat("key ", ToAbsl(KeyPrefix(m.key())), " is not the key of its request (",
                             ToAbsl(KeyPrefix(key)), ")"));
  }
  if (m.has_error()) {
    AGENTRT_RETURN_IF_ERROR(CheckError(m.error(), "error"));
    if (m.ordinal() != 0 || !m.response_json().empty() || !m.raw().empty()) {
      return Rule("a failed call has an ordinal, a response or raw bytes");
    }
    return absl::OkStatus();
  }
  if (absl::StatusOr<ModelResponse> r = ParseModelResponse(m.response_json()); !r.ok()) {
    return Rule(absl::StrCat("response_json does not read back: ", r.status().message()));
  }
  return absl::OkStatus();
}

Op OpOf(const v1::Exchange& e) {
  const internal::ExchangeKind* kind = internal::KindOf(e);
  return kind == nullptr ? Op::kUnknown : kind->op;
}

std::string_view OpName(Op op) {
  const internal::ExchangeKind* kind = internal::KindOf(op);
  return kind == nullptr ? "a kind this build does not know" : kind->name;
}

bool IsDelivery(Op op) {
  const internal::ExchangeKind* kind = internal::KindOf(op);
  return kind != nullptr && kind->delivery;
}

struct Cassette::Data {
  std::vector<CassetteHeader> sessions;
  std::vector<v1::Exchange> exchanges;
  std::vector<std::size_t> session_of;
  ChainHead chain_head;
  std::string torn;
  bool from_newer_build = false;

  // What the next exchange is checked against: the latest session's numbering.
  Numbering numbering;
};

namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using internal::ExchangeKind;
using internal::FieldKind;
using internal::FieldRule;

// A field of an exchange by its dotted path: the message that holds it, and the field.
struct FieldRef {
  const Message* message;
  const FieldDescriptor* field;
};
FieldRef FieldAt(const v1::Exchange& e, std::string_view path) {
  const Message* message = &e;
  for (;;) {
    std::size_t dot = path.find('.');
    const FieldDescriptor* f =
        message->GetDescriptor()->FindFieldByName(std::string(path.substr(0, dot)));
    if (dot == std::string_view::npos) return {message, f};
    message = &message->GetReflection()->GetMessage(*message, f);
    path.remove_prefix(dot + 1);
  }
}

absl::flat_hash_set<std::uint32_t>& SetOf(Numbering& numbering, internal::Numbered numbered) {
  switch (numbered) {
    case internal::Numbered::kProcess:
      return numbering.processes;
    case internal::Numbered::kResponse:
      return numbering.responses;
    case internal::Numbered::kTask:
    case internal::Numbered::kNone:
      break;
  }
  return numbering.tasks;
}

bool Failed(const v1::Exchange& e, const ExchangeKind& kind) {
  for (const FieldRule& rule : kind.fields) {
    if (rule.kind != FieldKind::kError) continue;
    FieldRef ref = FieldAt(e, rule.path);
    return ref.message->GetReflection()->HasField(*ref.message, ref.field);
  }
  return false;
}

absl::Status Check(const v1::Exchange& e, Numbering& numbering, Changes& changes, int runs = 0);

// CheckField applies one rule of `kind`'s table row to `e`.
absl::Status CheckField(const v1::Exchange& e, const FieldRule& rule, bool failed,
                        Numbering& numbering, Changes& changes, int runs) {
  FieldRef ref = FieldAt(e, rule.path);
  const Message& m = *ref.message;
  const google::protobuf::Reflection* r = m.GetReflection();
  std::string_view what = rule.what;
  switch (rule.kind) {
    case FieldKind::kNone:
      return absl::OkStatus();
    case FieldKind::kName:
      if (r->GetString(m, ref.field).empty()) return Rule(rule.rule);
      return absl::OkStatus();
    case FieldKind::kRequired:
      if (r->FieldSize(m, ref.field) == 0) return Rule(rule.rule);
      return absl::OkStatus();
    case FieldKind::kError:
      if (!r->HasField(m, ref.field)) return absl::OkStatus();
      return CheckError(static_cast<const v1::Outcome&>(r->GetMessage(m, ref.field)), what);
    case FieldKind::kResult:
      return CheckResult(static_cast<const v1::Outcome&>(r->GetMessage(m, ref.field)), what);
    case FieldKind::kAnswer:
      if (failed && !r->GetString(m, ref.field).empty()) return Rule(rule.rule);
      return absl::OkStatus();
    case FieldKind::kNumbers: {
      std::uint32_t number = r->GetUInt32(m, ref.field);
      if (failed) return number == 0 ? absl::OkStatus() : Rule(rule.rule);
      absl::flat_hash_set<std::uint32_t>& set = SetOf(numbering, rule.numbered);
      if (number == 0) return Rule(absl::StrCat(ToAbsl(what), " number 0"));
      if (changes.Has(set, number)) {
        return Rule(absl::StrCat(ToAbsl(what), " ", number, " is numbered twice"));
      }
      changes.numbered.emplace_back(&set, number);
      return absl::OkStatus();
    }
    case FieldKind::kRefersTo: {
      std::uint32_t number = r->GetUInt32(m, ref.field);
      if (!changes.Has(SetOf(numbering, rule.numbered), number)) {
        return Rule(absl::StrCat(ToAbsl(what), " ", number, " was never started"));
      }
      return absl::OkStatus();
    }
    case FieldKind::kNested: {
      if (runs == kMaxTaskNesting) {
        return Rule(
            absl::StrCat("task runs nested more than ", kMaxTaskNesting, " deep (the limit)"));
      }
      int n = r->FieldSize(m, ref.field);
      for (int i = 0; i < n; ++i) {
        const auto& nested =
            static_cast<const v1::Exchange&>(r->GetRepeatedMessage(m, ref.field, i));
        if (absl::Status s = Check(nested, numbering, changes, runs + 1); !s.ok()) {
          return Rule(absl::StrCat("its exchange ", i + 1, ": ", s.message()));
        }
      }
      return absl::OkStatus();
    }
  }
  return absl::OkStatus();
}

bool Numbers(FieldKind kind) {
  return kind == FieldKind::kNumbers || kind == FieldKind::kRefersTo || kind == FieldKind::kNested;
}

// Check applies the rules of one exchange to a session numbered as `numbering` plus `changes`,
// and adds its own numbering to `changes`. `runs` counts the task runs it is nested in. The
// rules are its kind's row (internal/exchange_kinds.h): the field rules that do not number, the
// row's own, then those that number; a model call's ordinal in its key's sequence is the
// session's rule, kept here.
absl::Status Check(const v1::Exchange& e, Numbering& numbering, Changes& changes, int runs) {
  const ExchangeKind* kind = internal::KindOf(e);
  if (kind == nullptr) {
    // A newer build's kind is kept as it is; a kind with nothing set is not one.
    if (!e.GetReflection()->GetUnknownFields(e).empty()) return absl::OkStatus();
    return Rule("no kind is set");
  }
  bool failed = Failed(e, *kind);
  for (const FieldRule& rule : kind->fields) {
    if (Numbers(rule.kind)) continue;
    AGENTRT_RETURN_IF_ERROR(CheckField(e, rule, failed, numbering, changes, runs));
  }
  if (kind->check != nullptr) AGENTRT_RETURN_IF_ERROR(kind->check(e));
  if (kind->op == Op::kModel) AGENTRT_RETURN_IF_ERROR(CheckOrdinal(e.model(), numbering, changes));
  for (const FieldRule& rule : kind->fields) {
    if (!Numbers(rule.kind)) continue;
    AGENTRT_RETURN_IF_ERROR(CheckField(e, rule, failed, numbering, changes, runs));
  }
  return absl::OkStatus();
}

}  // namespace

Cassette::Cassette() : data_(std::make_unique<Data>()) {}
Cassette::~Cassette() = default;
Cassette::Cassette(const Cassette& other) : data_(std::make_unique<Data>(*other.data_)) {}
Cassette& Cassette::operator=(const Cassette& other) {
  if (this != &other) data_ = std::make_unique<Data>(*other.data_);
  return *this;
}
Cassette::Cassette(Cassette&& other) noexcept : data_(std::move(other.data_)) {
  other.data_ = std::make_unique<Data>();
}
Cassette& Cassette::operator=(Cassette&& other) noexcept {
  std::swap(data_, other.data_);
  return *this;
}

const std::vector<CassetteHeader>& Cassette::sessions() const { return data_->sessions; }
const CassetteHeader& Cassette::header() const {
  static const CassetteHeader* const kNone = new CassetteHeader();
  return data_->sessions.empty() ? *kNone : data_->sessions.front();
}
std::size_t Cassette::size() const { return data_->exchanges.size(); }
const v1::Exchange& Cassette::exchange(std::size_t i) const { return data_->exchanges.at(i); }
std::size_t Cassette::session_of(std::size_t i) const { return data_->session_of.at(i); }
const ChainHead& Cassette::chain_head() const { return data_->chain_head; }
const std::string& Cassette::torn() const { return data_->torn; }
bool Cassette::from_newer_build() const { return data_->from_newer_build; }

void Cassette::StartSession(CassetteHeader header) {
  data_->sessions.push_back(std::move(header));
  data_->numbering = Numbering();
}

absl::Status Cassette::Add(v1::Exchange exchange) {
  if (data_->sessions.empty()) StartSession({});
  // The numbering changes only once the whole exchange passed: a refused one changes nothing.
  Changes changes;
  if (absl::Status s = Check(exchange, data_->numbering, changes); !s.ok()) {
    std::string what(OpName(OpOf(exchange)));
    if (exchange.has_model())
      absl::StrAppend(&what, " \"", json::Sanitize(exchange.model().model()), "\"");
    return absl::InvalidArgumentError(
        absl::StrCat("exchange ", data_->exchanges.size() + 1, " (", what, "): ", s.message()));
  }
  changes.Apply(data_->numbering);
  if (!exchange.GetReflection()->GetUnknownFields(exchange).empty()) {
    data_->from_newer_build = true;
  }
  data_->exchanges.push_back(std::move(exchange));
  data_->session_of.push_back(data_->sessions.size() - 1);
  return absl::OkStatus();
}

absl::Status Cassette::SetChainHead(const ChainHead& head) {
  AGENTRT_RETURN_IF_ERROR(CheckChainHead(head));
  data_->chain_head = head;
  return absl::OkStatus();
}

void Cassette::SetTorn(std::string why) { data_->torn = std::move(why); }
void Cassette::SetFromNewerBuild() { data_->from_newer_build = true; }

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

}  // namespace agentrt::replay
