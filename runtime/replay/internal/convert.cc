#include "runtime/replay/internal/convert.h"

#include <limits>

#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "runtime/base/string_view.h"
#include "runtime/replay/internal/secret_redactor.h"

namespace agentrt::replay::internal {

v1::Outcome OutcomeOf(const absl::Status& status) {
  v1::Outcome outcome;
  outcome.set_code(static_cast<int>(status.code()));
  outcome.set_message(std::string(status.message()));
  status.ForEachPayload([&](absl::string_view type_url, const absl::Cord& value) {
    v1::Payload* payload = outcome.add_payloads();
    payload->set_type_url(std::string(type_url));
    payload->set_value(std::string(value));
  });
  return outcome;
}

absl::Status StatusOf(const v1::Outcome& outcome) {
  absl::Status status(static_cast<absl::StatusCode>(outcome.code()), outcome.message());
  if (status.ok()) return status;
  for (const v1::Payload& payload : outcome.payloads()) {
    status.SetPayload(payload.type_url(), absl::Cord(payload.value()));
  }
  return status;
}

std::int64_t NanosOf(absl::Time t) {
  if (t == absl::InfiniteFuture()) return std::numeric_limits<std::int64_t>::max();
  if (t == absl::InfinitePast()) return std::numeric_limits<std::int64_t>::min();
  return absl::ToUnixNanos(t);
}

absl::Time TimeOf(std::int64_t unix_nanos) {
  if (unix_nanos == std::numeric_limits<std::int64_t>::max()) return absl::InfiniteFuture();
  if (unix_nanos == std::numeric_limits<std::int64_t>::min()) return absl::InfinitePast();
  return absl::FromUnixNanos(unix_nanos);
}

void AddFields(const world::HttpFields& fields,
               google::protobuf::RepeatedPtrField<v1::Field>* out) {
  for (const auto& [name, value] : fields) {
    v1::Field* field = out->Add();
    field->set_name(name);
    field->set_value(value);
  }
}

world::HttpFields FieldsOf(const google::protobuf::RepeatedPtrField<v1::Field>& fields) {
  world::HttpFields out;
  out.reserve(fields.size());
  for (const v1::Field& field : fields) out.emplace_back(field.name(), field.value());
  return out;
}

v1::ExitStatus ExitOf(const world::ExitStatus& status) {
  v1::ExitStatus out;
  out.set_code(status.code);
  out.set_signal(status.signal);
  return out;
}

world::ExitStatus ExitStatusOf(const v1::ExitStatus& status) {
  return {status.code(), status.signal()};
}

bool IsCredentialHeader(std::string_view name) {
  for (std::string_view credential : kCredentialHeaders) {
    if (absl::EqualsIgnoreCase(ToAbsl(name), ToAbsl(credential))) return true;
  }
  return false;
}

v1::Exchange HttpSendOf(const world::HttpRequest& request, absl::Time deadline) {
  v1::Exchange e;
  v1::HttpSend* send = e.mutable_http()->mutable_send();
  send->set_method(request.method);
  send->set_url(request.url);
  for (const auto& [name, value] : request.headers) {
    v1::Field* field = send->add_headers();
    field->set_name(name);
    field->set_value(IsCredentialHeader(name) ? std::string(kRedacted) : value);
  }
  bool form = false;
  if (request.carries_secrets) {  // only the OAuth flow's requests: nothing else looks
    std::optional<std::string> type = world::FindHeader(request.headers, "Content-Type");
    form =
        type.has_value() && absl::StartsWithIgnoreCase(*type, "application/x-www-form-urlencoded");
  }
  send->set_body(form ? RedactForm(request.body) : request.body);
  send->set_max_body_bytes(request.max_body_bytes);
  send->set_deadline(NanosOf(deadline));
  return e;
}

v1::Exchange StdioExchange(std::uint32_t process) {
  v1::Exchange e;
  e.mutable_stdio()->set_process(process);
  return e;
}

v1::Exchange ExitExchange(std::uint32_t process) {
  v1::Exchange e;
  e.mutable_exit()->set_process(process);
  return e;
}

}  // namespace agentrt::replay::internal
