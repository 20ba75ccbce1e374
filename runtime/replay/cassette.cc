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

absl::Status CheckModel(const v1::ModelExchange& m, const Numbering& numbering, Changes& changes) {
  AGENTRT_RETURN_IF_ERROR(CheckModelExchange(m));
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
  switch (e.kind_case()) {
    case v1::Exchange::kModel:
      return Op::kModel;
    case v1::Exchange::kClock:
      if (e.clock().kind_case() == v1::ClockExchange::kNow) return Op::kClockNow;
      if (e.clock().kind_case() == v1::ClockExchange::kWait) return Op::kClockWait;
      return Op::kUnknown;
    case v1::Exchange::kEntropy:
      return Op::kEntropy;
    case v1::Exchange::kEnvironment:
      return Op::kEnvironmentRead;
    case v1::Exchange::kLaunch:
      return Op::kLaunch;
    case v1::Exchange::kStdio:
      switch (e.stdio().op_case()) {
        case v1::StdioExchange::kWrite:
          return Op::kStdinWrite;
        case v1::StdioExchange::kCloseStdin:
          return Op::kStdinClose;
        case v1::StdioExchange::kRead:
          return Op::kStdoutRead;
        case v1::StdioExchange::kStderrTail:
          return Op::kStderrTail;
        case v1::StdioExchange::kStderrChunk:
          return Op::kStderrChunk;
        case v1::StdioExchange::OP_NOT_SET:
          return Op::kUnknown;
      }
      return Op::kUnknown;
    case v1::Exchange::kExit:
      switch (e.exit().op_case()) {
        case v1::ProcessExit::kSignal:
          return Op::kSignal;
        case v1::ProcessExit::kWait:
          return Op::kWait;
        case v1::ProcessExit::kClose:
          return Op::kClose;
        case v1::ProcessExit::OP_NOT_SET:
          return Op::kUnknown;
      }
      return Op::kUnknown;
    case v1::Exchange::kHttp:
      switch (e.http().op_case()) {
        case v1::HttpExchange::kSend:
          return Op::kHttpSend;
        case v1::HttpExchange::kRead:
          return Op::kHttpRead;
        case v1::HttpExchange::kClose:
          return Op::kHttpClose;
        case v1::HttpExchange::OP_NOT_SET:
          return Op::kUnknown;
      }
      return Op::kUnknown;
    case v1::Exchange::kScheduler:
      switch (e.scheduler().op_case()) {
        case v1::SchedulerExchange::kScheduled:
          return Op::kTaskScheduled;
        case v1::SchedulerExchange::kCancelled:
          return Op::kTaskCancelled;
        case v1::SchedulerExchange::kFiring:
          return Op::kTaskFiring;
        case v1::SchedulerExchange::OP_NOT_SET:
          return Op::kUnknown;
      }
      return Op::kUnknown;
    case v1::Exchange::KIND_NOT_SET:
      return Op::kUnknown;
  }
  return Op::kUnknown;
}

std::string_view OpName(Op op) {
  switch (op) {
    case Op::kUnknown:
      return "a kind this build does not know";
    case Op::kModel:
      return "model call";
    case Op::kClockNow:
      return "clock reading";
    case Op::kClockWait:
      return "clock wait";
    case Op::kEntropy:
      return "entropy draw";
    case Op::kEnvironmentRead:
      return "environment read";
    case Op::kLaunch:
      return "process start";
    case Op::kStdinWrite:
      return "stdin write";
    case Op::kStdinClose:
      return "stdin close";
    case Op::kStdoutRead:
      return "stdout read";
    case Op::kStderrTail:
      return "stderr tail";
    case Op::kStderrChunk:
      return "stderr chunk";
    case Op::kSignal:
      return "signal";
    case Op::kWait:
      return "process wait";
    case Op::kClose:
      return "process close";
    case Op::kHttpSend:
      return "HTTP request";
    case Op::kHttpRead:
      return "HTTP body read";
    case Op::kHttpClose:
      return "HTTP close";
    case Op::kTaskScheduled:
      return "task scheduled";
    case Op::kTaskCancelled:
      return "task cancelled";
    case Op::kTaskFiring:
      return "task run";
  }
  return "";
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

// Check applies the rules of one exchange to a session numbered as `numbering` plus `changes`,
// and adds its own numbering to `changes`. `runs` counts the task runs it is nested in.
absl::Status Check(const v1::Exchange& e, Numbering& numbering, Changes& changes, int runs = 0) {
  auto known = [&](absl::flat_hash_set<std::uint32_t>& set, std::uint32_t number,
                   std::string_view what) {
    if (!changes.Has(set, number)) {
      return Rule(absl::StrCat(ToAbsl(what), " ", number, " was never started"));
    }
    return absl::OkStatus();
  };
  auto fresh = [&](absl::flat_hash_set<std::uint32_t>& set, std::uint32_t number,
                   std::string_view what) {
    if (number == 0) return Rule(absl::StrCat(ToAbsl(what), " number 0"));
    if (changes.Has(set, number)) {
      return Rule(absl::StrCat(ToAbsl(what), " ", number, " is numbered twice"));
    }
    changes.numbered.emplace_back(&set, number);
    return absl::OkStatus();
  };
  auto& processes = numbering.processes;
  auto& responses = numbering.responses;
  auto& tasks = numbering.tasks;
  switch (OpOf(e)) {
    case Op::kUnknown:
      // A newer build's kind is kept as it is; a kind with nothing set is not one.
      if (!e.GetReflection()->GetUnknownFields(e).empty()) return absl::OkStatus();
      return Rule("no kind is set");
    case Op::kModel:
      return CheckModel(e.model(), numbering, changes);
    case Op::kClockNow:
    case Op::kClockWait:
      if (e.clock().clock().empty()) return Rule("the clock has no name");
      return absl::OkStatus();
    case Op::kEntropy:
      if (e.entropy().source().empty()) return Rule("the entropy source has no name");
      if (e.entropy().data().size() != e.entropy().size()) {
        return Rule(absl::StrCat("the draw asked for ", e.entropy().size(), " bytes but holds ",
                                 e.entropy().data().size()));
      }
      return absl::OkStatus();
    case Op::kEnvironmentRead:
      if (!e.environment().set() && !e.environment().value().empty()) {
        return Rule("an unset variable with a value");
      }
      return absl::OkStatus();
    case Op::kLaunch:
      if (e.launch().argv().empty()) return Rule("the process start has no argv");
      if (e.launch().has_error()) {
        AGENTRT_RETURN_IF_ERROR(CheckError(e.launch().error(), "error"));
        if (e.launch().process() != 0) return Rule("a failed process start has a number");
        return absl::OkStatus();
      }
      return fresh(processes, e.launch().process(), "process");
    case Op::kStdinWrite:
      AGENTRT_RETURN_IF_ERROR(CheckResult(e.stdio().write().result(), "result"));
      return known(processes, e.stdio().process(), "process");
    case Op::kStdinClose:
      AGENTRT_RETURN_IF_ERROR(CheckResult(e.stdio().close_stdin(), "result"));
      return known(processes, e.stdio().process(), "process");
    case Op::kStdoutRead:
      if (e.stdio().read().has_error()) {
        AGENTRT_RETURN_IF_ERROR(CheckError(e.stdio().read().error(), "error"));
        if (!e.stdio().read().data().empty()) return Rule("a failed read holds bytes");
      } else if (e.stdio().read().data().size() > e.stdio().read().max_bytes()) {
        return Rule("a read holds more bytes than it asked for");
      }
      return known(processes, e.stdio().process(), "process");
    case Op::kStderrTail:
    case Op::kStderrChunk:
      return known(processes, e.stdio().process(), "process");
    case Op::kSignal:
      AGENTRT_RETURN_IF_ERROR(CheckResult(e.exit().signal().result(), "result"));
      return known(processes, e.exit().process(), "process");
    case Op::kWait:
      if (e.exit().wait().has_error()) {
        AGENTRT_RETURN_IF_ERROR(CheckError(e.exit().wait().error(), "error"));
      }
      return known(processes, e.exit().process(), "process");
    case Op::kClose:
      return known(processes, e.exit().process(), "process");
    case Op::kHttpSend:
      if (e.http().send().has_error()) {
        AGENTRT_RETURN_IF_ERROR(CheckError(e.http().send().error(), "error"));
        if (e.http().send().response() != 0) return Rule("a failed request has a response number");
        return absl::OkStatus();
      }
      return fresh(responses, e.http().send().response(), "response");
    case Op::kHttpRead:
      if (e.http().read().has_error()) {
        AGENTRT_RETURN_IF_ERROR(CheckError(e.http().read().error(), "error"));
        if (!e.http().read().data().empty()) return Rule("a failed read holds bytes");
      }
      return known(responses, e.http().read().response(), "response");
    case Op::kHttpClose:
      return known(responses, e.http().close().response(), "response");
    case Op::kTaskScheduled:
      if (e.scheduler().scheduler().empty()) return Rule("the scheduler has no name");
      if (e.scheduler().scheduled().period() < 0) return Rule("a negative period");
      return fresh(tasks, e.scheduler().scheduled().task(), "task");
    case Op::kTaskCancelled:
      return known(tasks, e.scheduler().cancelled().task(), "task");
    case Op::kTaskFiring: {
      if (runs == kMaxTaskNesting) {
        return Rule(
            absl::StrCat("task runs nested more than ", kMaxTaskNesting, " deep (the limit)"));
      }
      AGENTRT_RETURN_IF_ERROR(known(tasks, e.scheduler().firing().task(), "task"));
      const auto& nested = e.scheduler().firing().nested();
      for (int i = 0; i < nested.size(); ++i) {
        if (absl::Status s = Check(nested[i], numbering, changes, runs + 1); !s.ok()) {
          return Rule(absl::StrCat("its exchange ", i + 1, ": ", s.message()));
        }
      }
      return absl::OkStatus();
    }
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
