#include "runtime/replay/cassette_text.h"

#include <algorithm>
#include <limits>
#include <string_view>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"
#include "runtime/replay/cassette.h"
#include "runtime/replay/internal/convert.h"
#include "runtime/replay/model_key.h"
#include "runtime/replay/proto/cassette.pb.h"
#include "runtime/world/launcher.h"
#include "runtime/world/timestamp.h"

namespace agentrt::replay {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

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

// One difference of two byte strings: both whole when short, else a window around the first
// byte that differs.
std::string BytesDifference(const std::string& path, std::string_view a, std::string_view b) {
  constexpr std::size_t kWhole = 48;
  constexpr std::size_t kBefore = 16;
  constexpr std::size_t kAfter = 32;
  if (a.size() <= kWhole && b.size() <= kWhole) {
    return absl::StrCat(path, ": recorded ", json::QuoteBytes(a, kWhole), ", requested ",
                        json::QuoteBytes(b, kWhole));
  }
  std::size_t at = 0;
  while (at < a.size() && at < b.size() && a[at] == b[at]) ++at;
  std::size_t from = at > kBefore ? at - kBefore : 0;
  auto window = [&](std::string_view s) {
    std::string text = json::QuoteBytes(s.substr(std::min(from, s.size())), kBefore + kAfter);
    return absl::StrCat(from > 0 ? "…" : "", text);
  };
  return absl::StrCat(path, " at byte ", at, " (of ", a.size(), " recorded, ", b.size(),
                      " requested): recorded ", window(a), ", requested ", window(b));
}

bool IsTime(const FieldDescriptor* f) {
  return f->cpp_type() == FieldDescriptor::CPPTYPE_INT64 &&
         (f->name() == "deadline" || f->name() == "at" || f->name() == "now");
}

std::string ScalarText(const Message& m, const FieldDescriptor* f, int index) {
  const Reflection* r = m.GetReflection();
  bool repeated = f->is_repeated();
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return absl::StrCat(repeated ? r->GetRepeatedInt32(m, f, index) : r->GetInt32(m, f));
    case FieldDescriptor::CPPTYPE_INT64: {
      std::int64_t v = repeated ? r->GetRepeatedInt64(m, f, index) : r->GetInt64(m, f);
      return IsTime(f) ? TimeText(v) : absl::StrCat(v);
    }
    case FieldDescriptor::CPPTYPE_UINT32:
      return absl::StrCat(repeated ? r->GetRepeatedUInt32(m, f, index) : r->GetUInt32(m, f));
    case FieldDescriptor::CPPTYPE_UINT64:
      return absl::StrCat(repeated ? r->GetRepeatedUInt64(m, f, index) : r->GetUInt64(m, f));
    case FieldDescriptor::CPPTYPE_BOOL:
      return (repeated ? r->GetRepeatedBool(m, f, index) : r->GetBool(m, f)) ? "true" : "false";
    case FieldDescriptor::CPPTYPE_ENUM:
      return absl::StrCat(repeated ? r->GetRepeatedEnumValue(m, f, index) : r->GetEnumValue(m, f));
    case FieldDescriptor::CPPTYPE_DOUBLE:
    case FieldDescriptor::CPPTYPE_FLOAT:
    case FieldDescriptor::CPPTYPE_STRING:
    case FieldDescriptor::CPPTYPE_MESSAGE:
      break;
  }
  return "";
}

std::string Difference(const Message& a, const Message& b, const std::string& path);

// The difference of field `f` (element `index` when repeated) of `a` and `b`.
std::string FieldDifference(const Message& a, const Message& b, const FieldDescriptor* f, int index,
                            const std::string& path) {
  const Reflection* r = a.GetReflection();
  if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
    const Message& ma = f->is_repeated() ? r->GetRepeatedMessage(a, f, index) : r->GetMessage(a, f);
    const Message& mb = f->is_repeated() ? r->GetRepeatedMessage(b, f, index) : r->GetMessage(b, f);
    return Difference(ma, mb, path);
  }
  if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
    std::string sa = f->is_repeated() ? r->GetRepeatedString(a, f, index) : r->GetString(a, f);
    std::string sb = f->is_repeated() ? r->GetRepeatedString(b, f, index) : r->GetString(b, f);
    return sa == sb ? "" : BytesDifference(path, sa, sb);
  }
  std::string ta = ScalarText(a, f, index);
  std::string tb = ScalarText(b, f, index);
  return ta == tb ? "" : absl::StrCat(path, ": recorded ", ta, ", requested ", tb);
}

// The first difference of two messages of one type, in field order; fields marked served are
// not compared.
std::string Difference(const Message& a, const Message& b, const std::string& path) {
  const google::protobuf::Descriptor* d = a.GetDescriptor();
  const Reflection* r = a.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->options().GetExtension(v1::served)) continue;
    std::string name = path.empty() ? f->name() : absl::StrCat(path, ".", f->name());
    if (f->is_repeated()) {
      int na = r->FieldSize(a, f);
      int nb = r->FieldSize(b, f);
      for (int k = 0; k < std::min(na, nb); ++k) {
        std::string diff = FieldDifference(a, b, f, k, absl::StrCat(name, "[", k, "]"));
        if (!diff.empty()) return diff;
      }
      if (na != nb) {
        return absl::StrCat(name, ": recorded ", na, " entries, requested ", nb);
      }
      continue;
    }
    bool has_a = r->HasField(a, f);
    bool has_b = r->HasField(b, f);
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE || f->containing_oneof() != nullptr) {
      if (has_a != has_b) {
        return absl::StrCat(name, ": recorded ", has_a ? "set" : "unset", ", requested ",
                            has_b ? "set" : "unset");
      }
      if (!has_a) continue;
    }
    std::string diff = FieldDifference(a, b, f, 0, name);
    if (!diff.empty()) return diff;
  }
  return "";
}

std::string Model(const v1::ModelExchange& m, std::size_t max_bytes) {
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

std::string Http(const v1::HttpExchange& h, std::size_t max_bytes) {
  switch (h.op_case()) {
    case v1::HttpExchange::kSend: {
      const v1::HttpSend& s = h.send();
      std::string out =
          absl::StrCat("HTTP ", Bytes(s.method(), max_bytes), " ", Bytes(s.url(), max_bytes), ", ",
                       s.headers_size(), " headers, body ", Sized(s.body(), max_bytes));
      if (s.has_error()) return absl::StrCat(out, " failed: ", DescribeOutcome(s.error()));
      return absl::StrCat(out, " -> response ", s.response(), ": ", s.status(), ", ",
                          s.response_headers_size(), " headers");
    }
    case v1::HttpExchange::kRead:
      return Read(absl::StrCat("response ", h.read().response(), " body"), h.read().data(),
                  h.read().has_error(), h.read().error(), max_bytes);
    case v1::HttpExchange::kClose:
      return absl::StrCat("response ", h.close().response(), " closed");
    case v1::HttpExchange::OP_NOT_SET:
      break;
  }
  return "HTTP exchange of a kind this build does not know";
}

std::string Scheduler(const v1::SchedulerExchange& s) {
  std::string who = absl::StrCat("scheduler ", json::QuoteBytes(s.scheduler(), 64), " task ");
  switch (s.op_case()) {
    case v1::SchedulerExchange::kScheduled: {
      const v1::TaskScheduled& t = s.scheduled();
      std::string out = absl::StrCat(who, t.task(), " scheduled at ", TimeText(t.at()));
      if (t.period() > 0) {
        absl::StrAppend(&out, ", every ", absl::FormatDuration(absl::Nanoseconds(t.period())));
      }
      return out;
    }
    case v1::SchedulerExchange::kCancelled:
      return absl::StrCat(who, s.cancelled().task(), " cancelled (",
                          s.cancelled().result() ? "it was still scheduled" : "it was over", ")");
    case v1::SchedulerExchange::kFiring:
      return absl::StrCat(who, s.firing().task(), " ran (",
                          s.firing().again() ? "to run again" : "not to run again", ") with ",
                          s.firing().nested_size(), " exchanges inside");
    case v1::SchedulerExchange::OP_NOT_SET:
      break;
  }
  return "scheduler exchange of a kind this build does not know";
}

}  // namespace

std::string TimeText(std::int64_t unix_nanos) {
  if (unix_nanos == std::numeric_limits<std::int64_t>::max()) return "never";
  if (unix_nanos == std::numeric_limits<std::int64_t>::min()) return "the beginning of time";
  return world::FormatTimestamp(internal::TimeOf(unix_nanos));
}

std::string DescribeOutcome(const v1::Outcome& outcome) {
  if (outcome.code() == 0) return "OK";
  return absl::StrCat(absl::StatusCodeToString(static_cast<absl::StatusCode>(outcome.code())), ": ",
                      json::Sanitize(outcome.message()));
}

std::string DescribeExchange(const v1::Exchange& e, std::size_t max_bytes) {
  switch (OpOf(e)) {
    case Op::kUnknown:
      return "an exchange of a kind this build does not know";
    case Op::kModel:
      return Model(e.model(), max_bytes);
    case Op::kClockNow:
      return absl::StrCat("clock ", json::QuoteBytes(e.clock().clock(), 64), " now ",
                          TimeText(e.clock().now()));
    case Op::kClockWait:
      return absl::StrCat("clock ", json::QuoteBytes(e.clock().clock(), 64), " wait until ",
                          TimeText(e.clock().wait().deadline()), ": ",
                          e.clock().wait().notified() ? "notified" : "the deadline came");
    case Op::kEntropy: {
      // Hex, as ids are written: what an investigator matches against the audit log.
      constexpr std::size_t kShownHex = 32;
      const std::string& data = e.entropy().data();
      std::string hex = absl::BytesToHexString(data.substr(0, kShownHex));
      return absl::StrCat("entropy ", json::QuoteBytes(e.entropy().source(), 64), " ",
                          e.entropy().size(), " bytes ", hex, data.size() > kShownHex ? "…" : "");
    }
    case Op::kEnvironmentRead:
      return absl::StrCat(
          "environment ", Bytes(e.environment().name(), max_bytes), ": ",
          e.environment().set() ? Bytes(e.environment().value(), max_bytes) : "not set");
    case Op::kLaunch: {
      const v1::ProcessLaunch& l = e.launch();
      std::string out = absl::StrCat("process start ", Argv(l.argv(), max_bytes), ", ",
                                     l.env_size(), " environment variables");
      if (!l.dir().empty()) absl::StrAppend(&out, ", in ", Bytes(l.dir(), max_bytes));
      if (l.stderr_sink()) absl::StrAppend(&out, ", stderr to a sink");
      if (l.has_error()) return absl::StrCat(out, " failed: ", DescribeOutcome(l.error()));
      return absl::StrCat(out, " -> ", Process(l.process()), " (pid ", l.pid(), ")");
    }
    case Op::kStdinWrite: {
      std::string out = absl::StrCat(Process(e.stdio().process()), " stdin write ",
                                     Sized(e.stdio().write().data(), max_bytes));
      if (e.stdio().write().result().code() != 0) {
        absl::StrAppend(&out, " failed: ", DescribeOutcome(e.stdio().write().result()));
      }
      return out;
    }
    case Op::kStdinClose:
      return absl::StrCat(Process(e.stdio().process()),
                          " stdin closed: ", DescribeOutcome(e.stdio().close_stdin()));
    case Op::kStdoutRead:
      return Read(absl::StrCat(Process(e.stdio().process()), " stdout read"),
                  e.stdio().read().data(), e.stdio().read().has_error(), e.stdio().read().error(),
                  max_bytes);
    case Op::kStderrTail:
      return absl::StrCat(Process(e.stdio().process()), " stderr tail ",
                          Sized(e.stdio().stderr_tail().tail(), max_bytes));
    case Op::kStderrChunk:
      return absl::StrCat(Process(e.stdio().process()), " stderr ",
                          Sized(e.stdio().stderr_chunk(), max_bytes));
    case Op::kSignal:
      return absl::StrCat(
          Process(e.exit().process()), " sent ",
          world::ToString(world::ExitStatus{.code = -1, .signal = e.exit().signal().signal()}),
          ": ", DescribeOutcome(e.exit().signal().result()));
    case Op::kWait:
      if (e.exit().wait().has_error()) {
        return absl::StrCat(Process(e.exit().process()),
                            " wait failed: ", DescribeOutcome(e.exit().wait().error()));
      }
      return absl::StrCat(Process(e.exit().process()), " ended: ",
                          world::ToString(internal::ExitStatusOf(e.exit().wait().status())));
    case Op::kClose:
      return absl::StrCat(Process(e.exit().process()),
                          " closed: ", world::ToString(internal::ExitStatusOf(e.exit().close())));
    case Op::kHttpSend:
    case Op::kHttpRead:
    case Op::kHttpClose:
      return Http(e.http(), max_bytes);
    case Op::kTaskScheduled:
    case Op::kTaskCancelled:
    case Op::kTaskFiring:
      return Scheduler(e.scheduler());
  }
  return "";
}

std::string RequestDifference(const v1::Exchange& recorded, const v1::Exchange& requested) {
  return Difference(recorded, requested, "");
}

}  // namespace agentrt::replay
