#include "providers/endpoint.h"

#include <arpa/inet.h>

#include <array>
#include <cstdint>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"

namespace agentrt::providers {
namespace {

// Literal addresses only: inet_pton parses text, it asks no resolver. It takes the strict forms
// (four decimal parts without leading zeros; IPv6 without a zone), so "127.1" and "0177.0.0.1"
// are not addresses at all.
bool LoopbackV4(const std::array<std::uint8_t, 4>& a) { return a[0] == 127; }

// `url` as an error may show it: without anything up to its last '@', which may be a password.
std::string_view Shown(std::string_view url) {
  std::size_t at = url.rfind('@');
  return at == std::string_view::npos ? url : url.substr(at + 1);
}

// An absolute URL cut at its parts, without judging what an endpoint may not have.
struct UrlParts {
  std::string scheme;      // lowercased
  bool user_info = false;  // something@ before the host
  std::string host;        // an IPv6 literal without its brackets
  std::string port;
  std::string_view tail;  // from the first '/', '?' or '#' after the authority
};

// Split cuts `url` ("scheme://[user@]host[:port][tail]"); `why` says what is wrong when it is not
// an http(s) URL with a host and a numeric port.
std::optional<UrlParts> Split(std::string_view url, std::string_view* why) {
  UrlParts out;
  std::size_t colon = url.find("://");
  *why = "is not an http or https URL";
  if (colon == std::string_view::npos) return std::nullopt;
  out.scheme = absl::AsciiStrToLower(ToAbsl(url.substr(0, colon)));
  if (out.scheme != "http" && out.scheme != "https") return std::nullopt;
  std::string_view rest = url.substr(colon + 3);
  std::size_t authority_end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, authority_end);
  out.tail =
      authority_end == std::string_view::npos ? std::string_view() : rest.substr(authority_end);
  if (std::size_t at = authority.rfind('@'); at != std::string_view::npos) {
    out.user_info = true;
    authority.remove_prefix(at + 1);
  }
  *why = "has no host";
  if (!authority.empty() && authority.front() == '[') {
    std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    out.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return std::nullopt;
      out.port = std::string(after.substr(1));
    }
  } else {
    std::size_t port = authority.rfind(':');
    out.host = std::string(authority.substr(0, port));
    if (port != std::string_view::npos) out.port = std::string(authority.substr(port + 1));
  }
  if (out.host.empty()) return std::nullopt;
  *why = "has a port that is not a number";
  if (!out.port.empty() && out.port.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return out;
}

}  // namespace

absl::StatusOr<BaseUrl> ParseBaseUrl(std::string_view url) {
  auto refuse = [&](std::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", json::Sanitize(Shown(url)), "\" ", ToAbsl(why)));
  };
  std::string_view why;
  std::optional<UrlParts> parts = Split(url, &why);
  if (!parts) return refuse(why);
  if (parts->user_info) return refuse("carries user information");
  std::string_view tail = parts->tail;
  if (tail.find_first_of("?#") != std::string_view::npos) {
    return refuse("has a query or a fragment");
  }
  while (!tail.empty() && tail.back() == '/') tail.remove_suffix(1);
  while (!url.empty() && url.back() == '/') url.remove_suffix(1);
  return BaseUrl{.scheme = std::move(parts->scheme),
                 .host = std::move(parts->host),
                 .port = std::move(parts->port),
                 .path = std::string(tail),
                 .text = std::string(url)};
}

std::optional<std::string> UrlHost(std::string_view url) {
  std::string_view why;
  std::optional<UrlParts> parts = Split(url, &why);
  if (!parts) return std::nullopt;
  return std::move(parts->host);
}

bool IsLoopbackHost(std::string_view host) {
  if (host == "localhost") return true;
  std::string text(host);
  std::array<std::uint8_t, 4> v4{};
  if (inet_pton(AF_INET, text.c_str(), v4.data()) == 1) return LoopbackV4(v4);
  std::array<std::uint8_t, 16> v6{};
  if (inet_pton(AF_INET6, text.c_str(), v6.data()) != 1) return false;
  bool zero_prefix = true;
  for (int i = 0; i < 10; ++i) zero_prefix = zero_prefix && v6[i] == 0;
  if (zero_prefix && v6[10] == 0 && v6[11] == 0) {
    bool one = v6[15] == 1;
    for (int i = 12; i < 15; ++i) one = one && v6[i] == 0;
    return one;  // ::1
  }
  if (zero_prefix && v6[10] == 0xff && v6[11] == 0xff) {  // ::ffff:a.b.c.d
    return LoopbackV4({v6[12], v6[13], v6[14], v6[15]});
  }
  return false;
}

absl::StatusOr<BaseUrl> CheckEndpoint(std::string_view provider, std::string_view base,
                                      bool has_key) {
  std::string_view why;
  std::optional<UrlParts> parts = Split(base, &why);
  if (parts && parts->user_info) {
    // Name the host only: the user information may be a password.
    return absl::InvalidArgumentError(absl::StrCat(ToAbsl(provider), ": base URL for ",
                                                   json::Sanitize(parts->host),
                                                   " carries user information"));
  }
  absl::StatusOr<BaseUrl> url = ParseBaseUrl(base);
  if (!url.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(ToAbsl(provider), ": base URL \"",
                                                   json::Sanitize(Shown(base)),
                                                   "\" is not an http or https URL"));
  }
  if (has_key && url->scheme == "http" && !IsLoopbackHost(url->host)) {
    return absl::InvalidArgumentError(absl::StrCat(ToAbsl(provider),
                                                   ": refusing to send an API key over plain "
                                                   "http to ",
                                                   json::Sanitize(url->host)));
  }
  return url;
}

}  // namespace agentrt::providers
