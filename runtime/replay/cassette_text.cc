#include "runtime/replay/cassette_text.h"

#include <algorithm>
#include <limits>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"
#include "runtime/replay/internal/convert.h"
#include "runtime/replay/internal/exchange_kinds.h"
#include "runtime/replay/proto/cassette.pb.h"
#include "runtime/world/timestamp.h"

namespace agentrt::replay {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

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
  const internal::ExchangeKind* kind = internal::KindOf(e);
  if (kind == nullptr) return "an exchange of a kind this build does not know";
  return kind->describe(e, max_bytes);
}

std::string RequestDifference(const v1::Exchange& recorded, const v1::Exchange& requested) {
  return Difference(recorded, requested, "");
}

}  // namespace agentrt::replay
