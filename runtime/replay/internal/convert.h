// runtime/replay/internal/convert.h
//
// The conversions every recorder and replayer shares: a status to its recorded outcome and back
// (code, message and payloads, so an error's kind survives a replay), a time to its recorded
// Unix nanoseconds and back (infinite times kept infinite), header fields and exit statuses, and
// the request side of the exchanges both write.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "runtime/replay/proto/cassette.pb.h"
#include "runtime/world/http_fields.h"
#include "runtime/world/launcher.h"
#include "runtime/world/network.h"

namespace agentrt::replay::internal {

v1::Outcome OutcomeOf(const absl::Status& status);
absl::Status StatusOf(const v1::Outcome& outcome);

// Unix nanoseconds; absl::InfiniteFuture() is INT64_MAX and absl::InfinitePast() INT64_MIN,
// other times saturate.
std::int64_t NanosOf(absl::Time t);
absl::Time TimeOf(std::int64_t unix_nanos);

void AddFields(const world::HttpFields& fields, google::protobuf::RepeatedPtrField<v1::Field>* out);
world::HttpFields FieldsOf(const google::protobuf::RepeatedPtrField<v1::Field>& fields);

v1::ExitStatus ExitOf(const world::ExitStatus& status);
world::ExitStatus ExitStatusOf(const v1::ExitStatus& status);

// Headers that carry a credential (an API key, a bearer token): a cassette holds their values as
// kRedacted, on the recording side and on the replaying side alike, so a replay matches the
// request it recorded without the secret ever being written.
inline constexpr std::string_view kCredentialHeaders[] = {"Authorization", "Proxy-Authorization",
                                                          "X-Api-Key", "Api-Key"};
inline constexpr std::string_view kRedacted = "[redacted]";
bool IsCredentialHeader(std::string_view name);

// The request side of exchanges, as a recorder writes it and a replayer asks for it: an HTTP
// send (method, URL, headers with every credential redacted, body (its secret form fields
// redacted when the request carries secrets), body cap, deadline; no outcome yet), and the empty
// stdio and exit exchanges of process `process`.
v1::Exchange HttpSendOf(const world::HttpRequest& request, absl::Time deadline);
v1::Exchange StdioExchange(std::uint32_t process);
v1::Exchange ExitExchange(std::uint32_t process);

}  // namespace agentrt::replay::internal
