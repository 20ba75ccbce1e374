#include "runtime/replay/internal/exchange_kinds.h"

#include <limits>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"
#include "runtime/replay/cassette_text.h"
#include "runtime/replay/internal/convert.h"
#include "runtime/replay/model_key.h"
#include "runtime/world/launcher.h"

namespace agentrt::replay::internal {
namespace {

using F = FieldKind;

absl::Status Rule(std::string_view what) { return absl::InvalidArgumentError(ToAbsl(what)); }

// How bytes print: escaped and bounded (cassette_text.h).
std::string Bytes(std::string_view bytes, std::size_t max_bytes) {
  return json::QuoteBytes(bytes,
                          max_bytes == 0 ? std::numeric_limits<std::size_t>::max() : max_bytes);
}

std::string Sized(std::string_view bytes, std::size_t max_bytes) {
  return absl::StrCat(bytes.size(), " B ", Bytes(bytes, max_bytes));
}

std::string Argv(const google::protobuf::RepeatedPtrField<std::string>& argv,
                 std::size_t max_bytes) {
  std::vector<std::string> parts;
  for (const std::string& a : argv) parts.push_back(Bytes(a, max_bytes));
  return absl::StrCat("[", absl::StrJoin(parts, " "), "]");
}

std::string Process(std::uint32_t number) { return absl::StrCat("process ", number); }

std::string Read(const std::string& what, const std::string& data, bool failed,
                 const v1::Outcome& error, std::size_t max_bytes) {
  if (failed) return absl::StrCat(what, " failed: ", DescribeOutcome(error));
  if (data.empty()) return absl::StrCat(what, ": end");
  return absl::StrCat(what, " ", Sized(data, max_bytes));
}

// ---- Model::Generate

absl::Status CheckModel(const v1::Exchange& e) { return CheckModelExchange(e.model()); }

std::string DescribeModel(const v1::Exchange& e, std::size_t max_bytes) {
  const v1::ModelExchange& m = e.model();
  std::string out =
      absl::StrCat("model ", Bytes(m.model(), max_bytes), " key ", ToAbsl(KeyPrefix(m.key())),
                   " request ", m.request_json().size(), " B");
  if (m.has_error()) {
    absl::StrAppend(&out, " failed: ", DescribeOutcome(m.error()));
  } else {
    absl::StrAppend(&out, " ordinal ", m.ordinal(), " response ", m.response_json().size(),
                    " B raw ", Sized(m.raw(), max_bytes));
  }
  return out;
}

// The model's table: its sequence rule (each key's ordinals count up within a session) is the
// cassette's, which sees the exchanges before (cassette.cc).
// A row: its kind's header line, its field rules, its own check, its text.
// clang-format off
constexpr ExchangeKind kModel[] = {
    {Op::kModel, "model call", "model", "", false, {}, &CheckModel, &DescribeModel},
};
// clang-format on

// ---- Clock::Now and Clock::WaitUntil

std::string ClockName(const v1::Exchange& e) {
  return absl::StrCat("clock ", json::QuoteBytes(e.clock().clock(), 64));
}

constexpr FieldRule kClockName = {"clock.clock", F::kName, "", "the clock has no name"};

// A row: its kind's header line, its field rules, its own check, its text.
// clang-format off
constexpr ExchangeKind kClock[] = {
    {Op::kClockNow, "clock reading", "clock", "now", false,
     {kClockName},
     nullptr,
     [](const v1::Exchange& e, std::size_t) {
       return absl::StrCat(ClockName(e), " now ", TimeText(e.clock().now()));
     }},
    {Op::kClockWait, "clock wait", "clock", "wait", false,
     {kClockName},
     nullptr,
     [](const v1::Exchange& e, std::size_t) {
       return absl::StrCat(ClockName(e), " wait until ", TimeText(e.clock().wait().deadline()),
                           ": ", e.clock().wait().notified() ? "notified" : "the deadline came");
     }},
};
// clang-format on

// ---- Entropy::Fill

// A row: its kind's header line, its field rules, its own check, its text.
// clang-format off
constexpr ExchangeKind kEntropy[] = {
    {Op::kEntropy, "entropy draw", "entropy", "", false,
     {{{"entropy.source", F::kName, "", "the entropy source has no name"}}},
     [](const v1::Exchange& e) {
       if (e.entropy().data().size() != e.entropy().size()) {
         return Rule(absl::StrCat("the draw asked for ", e.entropy().size(), " bytes but holds ",
                                  e.entropy().data().size()));
       }
       return absl::OkStatus();
     },
     [](const v1::Exchange& e, std::size_t) {
       // Hex, as ids are written: what an investigator matches against the audit log.
       constexpr std::size_t kShownHex = 32;
       const std::string& data = e.entropy().data();
       std::string hex = absl::BytesToHexString(data.substr(0, kShownHex));
       return absl::StrCat("entropy ", json::QuoteBytes(e.entropy().source(), 64), " ",
                           e.entropy().size(), " bytes ", hex, data.size() > kShownHex ? "…" : "");
     }},
};
// clang-format on

// ---- Environment::Get

// A row: its kind's header line, its field rules, its own check, its text.
// clang-format off
constexpr ExchangeKind kEnvironment[] = {
    {Op::kEnvironmentRead, "environment read", "environment", "", false,
     {},
     [](const v1::Exchange& e) {
       if (!e.environment().set() && !e.environment().value().empty()) {
         return Rule("an unset variable with a value");
       }
       return absl::OkStatus();
     },
     [](const v1::Exchange& e, std::size_t max_bytes) {
       return absl::StrCat(
           "environment ", Bytes(e.environment().name(), max_bytes), ": ",
           e.environment().set() ? Bytes(e.environment().value(), max_bytes) : "not set");
     }},
};
// clang-format on

// ---- Launcher::Start and the Process it gives

constexpr FieldRule kStdioProcess = {"stdio.process", F::kRefersTo, "process", "",
                                     Numbered::kProcess};
constexpr FieldRule kExitProcess = {"exit.process", F::kRefersTo, "process", "",
                                    Numbered::kProcess};

std::string DescribeLaunch(const v1::Exchange& e, std::size_t max_bytes) {
  const v1::ProcessLaunch& l = e.launch();
  std::string out = absl::StrCat("process start ", Argv(l.argv(), max_bytes), ", ", l.env_size(),
                                 " environment variables");
  if (!l.dir().empty()) absl::StrAppend(&out, ", in ", Bytes(l.dir(), max_bytes));
  if (l.stderr_sink()) absl::StrAppend(&out, ", stderr to a sink");
  if (l.has_error()) return absl::StrCat(out, " failed: ", DescribeOutcome(l.error()));
  return absl::StrCat(out, " -> ", Process(l.process()), " (pid ", l.pid(), ")");
}

std::string DescribeStdinWrite(const v1::Exchange& e, std::size_t max_bytes) {
  std::string out = absl::StrCat(Process(e.stdio().process()), " stdin write ",
                                 Sized(e.stdio().write().data(), max_bytes));
  if (e.stdio().write().result().code() != 0) {
    absl::StrAppend(&out, " failed: ", DescribeOutcome(e.stdio().write().result()));
  }
  return out;
}

std::string DescribeWait(const v1::Exchange& e, std::size_t) {
  if (e.exit().wait().has_error()) {
    return absl::StrCat(Process(e.exit().process()),
                        " wait failed: ", DescribeOutcome(e.exit().wait().error()));
  }
  return absl::StrCat(Process(e.exit().process()),
                      " ended: ", world::ToString(ExitStatusOf(e.exit().wait().status())));
}

// A row: its kind's header line, its field rules, its own check, its text.
// clang-format off
constexpr ExchangeKind kLauncher[] = {
    {Op::kLaunch, "process start", "launch", "", false,
     {{{"launch.argv", F::kRequired, "", "the process start has no argv"},
       {"launch.error", F::kError, "error"},
       {"launch.process", F::kNumbers, "process", "a failed process start has a number",
        Numbered::kProcess}}},
     nullptr, &DescribeLaunch},
    {Op::kStdinWrite, "stdin write", "stdio", "write", false,
     {{{"stdio.write.result", F::kResult, "result"}, kStdioProcess}},
     nullptr, &DescribeStdinWrite},
    {Op::kStdinClose, "stdin close", "stdio", "close_stdin", false,
     {{{"stdio.close_stdin", F::kResult, "result"}, kStdioProcess}},
     nullptr,
     [](const v1::Exchange& e, std::size_t) {
       return absl::StrCat(Process(e.stdio().process()),
                           " stdin closed: ", DescribeOutcome(e.stdio().close_stdin()));
     }},
    {Op::kStdoutRead, "stdout read", "stdio", "read", false,
     {{{"stdio.read.error", F::kError, "error"},
       {"stdio.read.data", F::kAnswer, "", "a failed read holds bytes"},
       kStdioProcess}},
     [](const v1::Exchange& e) {
       const v1::StdoutRead& read = e.stdio().read();
       if (!read.has_error() && read.data().size() > read.max_bytes()) {
         return Rule("a read holds more bytes than it asked for");
       }
       return absl::OkStatus();
     },
     [](const v1::Exchange& e, std::size_t max_bytes) {
       return Read(absl::StrCat(Process(e.stdio().process()), " stdout read"),
                   e.stdio().read().data(), e.stdio().read().has_error(), e.stdio().read().error(),
                   max_bytes);
     }},
    {Op::kStderrTail, "stderr tail", "stdio", "stderr_tail", false,
     {{kStdioProcess}},
     nullptr,
     [](const v1::Exchange& e, std::size_t max_bytes) {
       return absl::StrCat(Process(e.stdio().process()), " stderr tail ",
                           Sized(e.stdio().stderr_tail().tail(), max_bytes));
     }},
    {Op::kStderrChunk, "stderr chunk", "stdio", "stderr_chunk", true,
     {{kStdioProcess}},
     nullptr,
     [](const v1::Exchange& e, std::size_t max_bytes) {
       return absl::StrCat(Process(e.stdio().process()), " stderr ",
                           Sized(e.stdio().stderr_chunk(), max_bytes));
     }},
    {Op::kSignal, "signal", "exit", "signal", false,
     {{{"exit.signal.result", F::kResult, "result"}, kExitProcess}},
     nullptr,
     [](const v1::Exchange& e, std::size_t) {
       return absl::StrCat(
           Process(e.exit().process()), " sent ",
           world::ToString(world::ExitStatus{.code = -1, .signal = e.exit().signal().signal()}),
           ": ", DescribeOutcome(e.exit().signal().result()));
     }},
    {Op::kWait, "process wait", "exit", "wait", false,
     {{{"exit.wait.error", F::kError, "error"}, kExitProcess}},
     nullptr, &DescribeWait},
    {Op::kClose, "process close", "exit", "close", false,
     {{kExitProcess}},
     nullptr,
     [](const v1::Exchange& e, std::size_t) {
       return absl::StrCat(Process(e.exit().process()),
                           " closed: ", world::ToString(ExitStatusOf(e.exit().close())));
     }},
};
// clang-format on

// ---- Network::Send and the HttpResponse it gives

std::string DescribeSend(const v1::Exchange& e, std::size_t max_bytes) {
  const v1::HttpSend& s = e.http().send();
  std::string out =
      absl::StrCat("HTTP ", Bytes(s.method(), max_bytes), " ", Bytes(s.url(), max_bytes), ", ",
                   s.headers_size(), " headers, body ", Sized(s.body(), max_bytes));
  if (s.has_error()) return absl::StrCat(out, " failed: ", DescribeOutcome(s.error()));
  return absl::StrCat(out, " -> response ", s.response(), ": ", s.status(), ", ",
                      s.response_headers_size(), " headers");
}

// A row: its kind's header line, its field rules, its own check, its text.
// clang-format off
constexpr ExchangeKind kNetwork[] = {
    {Op::kHttpSend, "HTTP request", "http", "send", false,
     {{{"http.send.error", F::kError, "error"},
       {"http.send.response", F::kNumbers, "response", "a failed request has a response number",
        Numbered::kResponse}}},
     nullptr, &DescribeSend},
    {Op::kHttpRead, "HTTP body read", "http", "read", false,
     {{{"http.read.error", F::kError, "error"},
       {"http.read.data", F::kAnswer, "", "a failed read holds bytes"},
       {"http.read.response", F::kRefersTo, "response", "", Numbered::kResponse}}},
     nullptr,
     [](const v1::Exchange& e, std::size_t max_bytes) {
       const v1::HttpRead& read = e.http().read();
       return Read(absl::StrCat("response ", read.response(), " body"), read.data(),
                   read.has_error(), read.error(), max_bytes);
     }},
    {Op::kHttpClose, "HTTP close", "http", "close", false,
     {{{"http.close.response", F::kRefersTo, "response", "", Numbered::kResponse}}},
     nullptr,
     [](const v1::Exchange& e, std::size_t) {
       return absl::StrCat("response ", e.http().close().response(), " closed");
     }},
};
// clang-format on

// ---- Scheduler::RunAt, RunEvery and Cancel, and the runs of their tasks

std::string Task(const v1::Exchange& e, std::uint32_t task) {
  return absl::StrCat("scheduler ", json::QuoteBytes(e.scheduler().scheduler(), 64), " task ",
                      task);
}

constexpr FieldRule kSchedulerName = {"scheduler.scheduler", F::kName, "",
                                      "the scheduler has no name"};

// A row: its kind's header line, its field rules, its own check, its text.
// clang-format off
constexpr ExchangeKind kScheduler[] = {
    {Op::kTaskScheduled, "task scheduled", "scheduler", "scheduled", false,
     {{kSchedulerName, {"scheduler.scheduled.task", F::kNumbers, "task", "", Numbered::kTask}}},
     [](const v1::Exchange& e) {
       if (e.scheduler().scheduled().period() < 0) return Rule("a negative period");
       return absl::OkStatus();
     },
     [](const v1::Exchange& e, std::size_t) {
       const v1::TaskScheduled& t = e.scheduler().scheduled();
       std::string out = absl::StrCat(Task(e, t.task()), " scheduled at ", TimeText(t.at()));
       if (t.period() > 0) {
         absl::StrAppend(&out, ", every ", absl::FormatDuration(absl::Nanoseconds(t.period())));
       }
       return out;
     }},
    {Op::kTaskCancelled, "task cancelled", "scheduler", "cancelled", false,
     {{{"scheduler.cancelled.task", F::kRefersTo, "task", "", Numbered::kTask}}},
     nullptr,
     [](const v1::Exchange& e, std::size_t) {
       const v1::TaskCancelled& c = e.scheduler().cancelled();
       return absl::StrCat(Task(e, c.task()), " cancelled (",
                           c.result() ? "it was still scheduled" : "it was over", ")");
     }},
    {Op::kTaskFiring, "task run", "scheduler", "firing", true,
     {{{"scheduler.firing.task", F::kRefersTo, "task", "", Numbered::kTask},
       {"scheduler.firing.nested", F::kNested}}},
     nullptr,
     [](const v1::Exchange& e, std::size_t) {
       const v1::TaskFiring& f = e.scheduler().firing();
       return absl::StrCat(Task(e, f.task()), " ran (",
                           f.again() ? "to run again" : "not to run again", ") with ",
                           f.nested_size(), " exchanges inside");
     }},
};
// clang-format on

constexpr std::span<const ExchangeKind> kAll[] = {kModel,    kClock,   kEntropy,  kEnvironment,
                                                  kLauncher, kNetwork, kScheduler};

}  // namespace

std::span<const std::span<const ExchangeKind>> AllExchanges() { return kAll; }

const ExchangeKind* KindOf(Op op) {
  for (std::span<const ExchangeKind> table : kAll) {
    for (const ExchangeKind& row : table) {
      if (row.op == op) return &row;
    }
  }
  return nullptr;
}

const ExchangeKind* KindOf(const v1::Exchange& e) {
  const google::protobuf::Reflection* r = e.GetReflection();
  const google::protobuf::FieldDescriptor* kind =
      r->GetOneofFieldDescriptor(e, e.GetDescriptor()->oneof_decl(0));
  if (kind == nullptr) return nullptr;
  const google::protobuf::Message& inner = r->GetMessage(e, kind);
  const google::protobuf::FieldDescriptor* call = nullptr;
  if (inner.GetDescriptor()->oneof_decl_count() > 0) {
    call =
        inner.GetReflection()->GetOneofFieldDescriptor(inner, inner.GetDescriptor()->oneof_decl(0));
  }
  for (std::span<const ExchangeKind> table : kAll) {
    for (const ExchangeKind& row : table) {
      if (row.kind != std::string_view(kind->name())) continue;
      if (row.call.empty()) return &row;
      if (call != nullptr && row.call == std::string_view(call->name())) return &row;
    }
  }
  return nullptr;
}

}  // namespace agentrt::replay::internal
