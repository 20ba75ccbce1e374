#include "providers/http_call.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "providers/endpoint.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"
#include "runtime/model.h"
#include "runtime/world/clock.h"
#include "runtime/world/url.h"

namespace agentrt::providers {
namespace {

std::string_view Trim(std::string_view text) {
  absl::string_view trimmed = absl::StripAsciiWhitespace(ToAbsl(text));
  return {trimmed.data(), trimmed.size()};
}

std::string Prefixed(std::string_view provider, std::string_view message) {
  return absl::StrCat(ToAbsl(provider), ": ", ToAbsl(message));
}

absl::Status PermanentFor(int status, std::string message) {
  switch (status) {
    case 400:
    case 413:
    case 422:
      return absl::InvalidArgumentError(message);
    case 401:
      return absl::UnauthenticatedError(message);
    case 403:
      return absl::PermissionDeniedError(message);
    case 404:
      return absl::NotFoundError(message);
    default:
      return absl::FailedPreconditionError(message);
  }
}

}  // namespace

bool IsTransientStatus(int status) {
  return status == 408 || status == 409 || status == 425 || status == 429 || status >= 500;
}

absl::Duration RetryAfter(std::optional<std::string_view> value, absl::Time now) {
  if (!value) return absl::ZeroDuration();
  std::string_view text = Trim(*value);
  if (text.empty()) return absl::ZeroDuration();
  std::int64_t seconds = 0;
  bool digits = text.find_first_not_of("-0123456789") == std::string_view::npos;
  if (digits) {
    if (!absl::SimpleAtoi(ToAbsl(text), &seconds) || seconds <= 0) return absl::ZeroDuration();
    absl::Duration wait = absl::Seconds(seconds);
    return wait > kMaxRetryAfter ? absl::ZeroDuration() : wait;
  }
  // An HTTP date (RFC 9110 IMF-fixdate): "Sun, 06 Nov 1994 08:49:37 GMT".
  absl::Time at;
  std::string error;
  if (!absl::ParseTime("%a, %d %b %Y %H:%M:%S GMT", ToAbsl(text), absl::UTCTimeZone(), &at,
                       &error)) {
    return absl::ZeroDuration();
  }
  absl::Duration wait = at - now;
  if (wait <= absl::ZeroDuration() || wait > kMaxRetryAfter) return absl::ZeroDuration();
  return wait;
}

std::string Truncate(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  std::size_t cut = max_bytes;
  // Back off over continuation bytes (10xxxxxx) to the start of the character that would split.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return absl::StrCat(ToAbsl(text.substr(0, cut)), "\xE2\x80\xA6");  // "…"
}

std::string Excerpt(std::string_view body) {
  return json::Sanitize(Truncate(Trim(body), kMaxExcerptBytes));
}

absl::Status ReplyError(std::string_view provider, const HttpReply& reply, absl::Time now) {
  if (reply.status >= 200 && reply.status < 300) return absl::OkStatus();
  if (reply.status >= 300 && reply.status < 400) {
    return absl::FailedPreconditionError(
        Prefixed(provider, absl::StrCat(reply.status, ": ", world::RedirectNote(reply.headers))));
  }
  std::string message = Prefixed(provider, absl::StrCat(reply.status, ": ", Excerpt(reply.body)));
  if (IsTransientStatus(reply.status)) {
    return TransientError(message,
                          RetryAfter(world::FindHeader(reply.headers, "Retry-After"), now));
  }
  return PermanentFor(reply.status, std::move(message));
}

absl::StatusOr<HttpReply> PostJson(world::Network& network, std::string_view provider,
                                   std::string url, world::HttpFields headers, std::string json,
                                   absl::Time deadline) {
  world::HttpRequest request;
  request.method = "POST";
  request.url = std::move(url);
  request.headers = std::move(headers);
  request.headers.emplace_back("Content-Type", "application/json");
  request.body = std::move(json);
  request.max_body_bytes = kMaxBodyBytes;
  absl::StatusOr<std::unique_ptr<world::HttpResponse>> response = network.Send(request, deadline);
  if (!response.ok()) {
    const absl::Status& s = response.status();
    std::string message = Prefixed(provider, std::string(s.message()));
    switch (s.code()) {
      case absl::StatusCode::kDeadlineExceeded:
        return absl::DeadlineExceededError(message);  // it may have been served: ambiguous
      case absl::StatusCode::kUnavailable:
        return TransientError(message);  // refused, or broke before any answer
      default:
        // Cancelled (the caller's), NotFound (no such host), FailedPrecondition (an untrusted
        // certificate), InvalidArgument, PermissionDenied, ResourceExhausted: permanent.
        return absl::Status(s.code(), message);
    }
  }
  HttpReply reply;
  reply.status = (*response)->status();
  reply.headers = (*response)->headers();
  absl::StatusOr<std::string> body = world::ReadBody(**response, deadline);
  if (!body.ok()) {
    const absl::Status& s = body.status();
    std::string message = Prefixed(provider, std::string(s.message()));
    switch (s.code()) {
      case absl::StatusCode::kDeadlineExceeded:
        return absl::DeadlineExceededError(message);
      case absl::StatusCode::kUnavailable:
        return AmbiguousError(message);  // the body was cut short: it may have been served
      default:
        return absl::Status(s.code(), message);  // over the bound, or cancelled: permanent
    }
  }
  reply.body = *std::move(body);
  return reply;
}

absl::StatusOr<HttpReply> CallProvider(const world::World& world, std::string_view provider,
                                       std::string url, world::HttpFields headers, std::string json,
                                       absl::Time deadline, absl::Duration timeout) {
  AGENTRT_ASSIGN_OR_RETURN(
      HttpReply reply, PostJson(*world.network, provider, std::move(url), std::move(headers),
                                std::move(json), std::min(deadline, world.clock->Now() + timeout)));
  AGENTRT_RETURN_IF_ERROR(ReplyError(provider, reply, world.clock->Now()));
  return reply;
}

}  // namespace agentrt::providers
