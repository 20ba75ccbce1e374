#include "runtime/world/url.h"

#include <arpa/inet.h>

#include <array>
#include <cstdint>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"

namespace agentrt::world {
namespace {

// How much of a URL a message shows.
constexpr std::size_t kShownBytes = 512;

// Literal addresses only: inet_pton parses text, it asks no resolver. It takes the strict forms
// (four decimal parts without leading zeros; IPv6 without a zone), so "127.1" and "0177.0.0.1"
// are not addresses at all.
bool LoopbackV4(const std::array<std::uint8_t, 4>& a) { return a[0] == 127; }

// Everything after the last '@' of `url`: what a message may show.
std::string_view AfterUserInfo(std::string_view url) {
  std::size_t at = url.rfind('@');
  return at == std::string_view::npos ? url : url.substr(at + 1);
}

}  // namespace

std::string ShownUrl(std::string_view url) {
  return json::Sanitize(AfterUserInfo(url).substr(0, kShownBytes));
}

absl::StatusOr<Url> ParseUrl(std::string_view url) {
  auto refuse = [&](std::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("\"", ShownUrl(url), "\" ", ToAbsl(why)));
  };
  Url out;
  std::size_t colon = url.find("://");
  if (colon == std::string_view::npos) return refuse("is not an http or https URL");
  out.scheme = absl::AsciiStrToLower(ToAbsl(url.substr(0, colon)));
  if (out.scheme != "http" && out.scheme != "https") return refuse("is not an http or https URL");
  std::string_view rest = url.substr(colon + 3);
  std::size_t authority_end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, authority_end);
  std::string_view tail =
      authority_end == std::string_view::npos ? std::string_view() : rest.substr(authority_end);
  if (std::size_t at = authority.rfind('@'); at != std::string_view::npos) {
    out.user_info = true;
    authority.remove_prefix(at + 1);
  }
  if (!authority.empty() && authority.front() == '[') {
    std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return refuse("has no host");
    out.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return refuse("has no host");
      out.port = std::string(after.substr(1));
    }
  } else {
    std::size_t port = authority.rfind(':');
    out.host = std::string(authority.substr(0, port));
    if (port != std::string_view::npos) out.port = std::string(authority.substr(port + 1));
  }
  if (out.host.empty()) return refuse("has no host");
  if (!out.port.empty() && (out.port.find_first_not_of("0123456789") != std::string::npos ||
                            out.port.size() > 5 || std::stoi(out.port) > 65535)) {
    return refuse("has a port that is not a number from 0 to 65535");
  }
  if (!authority.empty() && authority.front() != '[' && out.host.find(':') != std::string::npos) {
    return refuse("has a host with a ':' outside brackets");
  }
  if (std::size_t hash = tail.find('#'); hash != std::string_view::npos) {
    out.has_fragment = true;
    out.fragment = std::string(tail.substr(hash + 1));
    tail = tail.substr(0, hash);
  }
  if (std::size_t question = tail.find('?'); question != std::string_view::npos) {
    out.has_query = true;
    out.query = std::string(tail.substr(question + 1));
    tail = tail.substr(0, question);
  }
  out.path = std::string(tail);
  return out;
}

std::string Url::Origin() const {
  std::string h = absl::AsciiStrToLower(host);
  if (h.find(':') != std::string::npos) h = absl::StrCat("[", h, "]");
  bool default_port =
      port.empty() || (scheme == "http" && port == "80") || (scheme == "https" && port == "443");
  return default_port ? absl::StrCat(scheme, "://", h) : absl::StrCat(scheme, "://", h, ":", port);
}

std::string Url::Text() const {
  std::string text = absl::StrCat(Origin(), path);
  if (has_query) absl::StrAppend(&text, "?", query);
  if (has_fragment) absl::StrAppend(&text, "#", fragment);
  return text;
}

absl::StatusOr<BaseUrl> ParseBaseUrl(std::string_view url) {
  absl::StatusOr<Url> parts = ParseUrl(url);
  if (!parts.ok()) return parts.status();
  auto refuse = [&](std::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("\"", ShownUrl(url), "\" ", ToAbsl(why)));
  };
  if (parts->user_info) return refuse("carries user information");
  if (parts->has_query || parts->has_fragment) return refuse("has a query or a fragment");
  std::string_view path = parts->path;
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  while (!url.empty() && url.back() == '/') url.remove_suffix(1);
  return BaseUrl{.scheme = std::move(parts->scheme),
                 .host = std::move(parts->host),
                 .port = std::move(parts->port),
                 .path = std::string(path),
                 .text = std::string(url)};
}

std::optional<std::string> UrlHost(std::string_view url) {
  absl::StatusOr<Url> parts = ParseUrl(url);
  if (!parts.ok()) return std::nullopt;
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

// What a redirect's error says of where it pointed: the Location's host only, never its path or
// query (which may carry a token).
std::string RedirectNote(const HttpFields& headers) {
  std::optional<std::string> location = FindHeader(headers, "Location");
  if (!location) return "redirects are not followed";
  absl::string_view trimmed = absl::StripAsciiWhitespace(ToAbsl(*location));
  std::string_view value(trimmed.data(), trimmed.size());
  if (!value.empty() && value.front() == '/' && !(value.size() > 1 && value[1] == '/')) {
    return "redirects are not followed; the response pointed elsewhere on the same host";
  }
  // Only the host is ever named: the user information, path and query may carry a secret.
  std::optional<std::string> host =
      UrlHost(value.starts_with("//") ? absl::StrCat("http:", ToAbsl(value)) : std::string(value));
  if (host) {
    return absl::StrCat("redirects are not followed; the response pointed to host \"",
                        json::Sanitize(*host), "\"");
  }
  // A relative path without a leading '/' stays on the host too; anything else is unreadable.
  if (value.find("://") == std::string_view::npos && !value.empty()) {
    return "redirects are not followed; the response pointed elsewhere on the same host";
  }
  return "redirects are not followed; the Location header does not parse";
}

}  // namespace agentrt::world
