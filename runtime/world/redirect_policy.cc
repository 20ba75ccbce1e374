#include "runtime/world/redirect_policy.h"

#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/world/internal/request_text.h"

namespace agentrt::world {
namespace {

// A URI reference split as RFC 3986 appendix B does; a component absent is nullopt (an empty
// query "?" is present and empty). The fragment is not kept: it never goes on the wire.
struct Reference {
  std::optional<std::string> scheme;
  std::optional<std::string> authority;
  std::string path;
  std::optional<std::string> query;
};

Reference Split(std::string_view s) {
  Reference r;
  if (std::size_t hash = s.find('#'); hash != std::string_view::npos) s = s.substr(0, hash);
  std::size_t colon = s.find(':');
  if (colon != std::string_view::npos && colon > 0 && absl::ascii_isalpha(s[0]) &&
      s.substr(0, colon).find_first_of("/?") == std::string_view::npos) {
    bool scheme_chars = true;
    for (char c : s.substr(0, colon)) {
      scheme_chars &= absl::ascii_isalnum(c) || c == '+' || c == '-' || c == '.';
    }
    if (scheme_chars) {
      r.scheme = absl::AsciiStrToLower(ToAbsl(s.substr(0, colon)));
      s.remove_prefix(colon + 1);
    }
  }
  if (s.substr(0, 2) == "//") {
    s.remove_prefix(2);
    std::size_t end = s.find_first_of("/?");
    r.authority = std::string(s.substr(0, end));
    s = end == std::string_view::npos ? std::string_view() : s.substr(end);
  }
  std::size_t question = s.find('?');
  r.path = std::string(s.substr(0, question));
  if (question != std::string_view::npos) r.query = std::string(s.substr(question + 1));
  return r;
}

// RFC 3986 §5.2.4: "." and ".." segments removed, never climbing above the root.
std::string RemoveDotSegments(std::string_view in) {
  std::vector<std::string_view> out;
  bool absolute = !in.empty() && in.front() == '/';
  if (absolute) in.remove_prefix(1);
  bool trailing_slash = false;
  while (true) {
    std::size_t slash = in.find('/');
    std::string_view segment = in.substr(0, slash);
    bool last = slash == std::string_view::npos;
    if (segment == ".") {
      trailing_slash = last;
    } else if (segment == "..") {
      if (!out.empty()) out.pop_back();
      trailing_slash = last;
    } else {
      out.push_back(segment);
      trailing_slash = false;
    }
    if (last) break;
    in.remove_prefix(slash + 1);
  }
  std::string path = absolute ? "/" : "";
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (i > 0) path += '/';
    path.append(out[i]);
  }
  if (trailing_slash && !path.empty() && path.back() != '/') path += '/';
  return path;
}

// RFC 3986 §5.2.3: a relative path goes beside the base's last segment.
std::string Merge(const Reference& base, std::string_view path) {
  if (base.authority.has_value() && base.path.empty()) return absl::StrCat("/", ToAbsl(path));
  std::size_t slash = base.path.rfind('/');
  std::string merged = slash == std::string::npos ? "" : base.path.substr(0, slash + 1);
  merged.append(path);
  return merged;
}

bool IsRedirect(int status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

}  // namespace

absl::StatusOr<std::string> ResolveLocation(std::string_view base_url, std::string_view location) {
  for (char c : location) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      return absl::InvalidArgumentError(absl::StrCat("Location \"",
                                                     absl::CHexEscape(ToAbsl(location)),
                                                     "\" holds a space or a control character"));
    }
  }
  Reference base = Split(base_url);
  Reference ref = Split(location);
  Reference target;
  if (ref.scheme.has_value()) {
    target = ref;
    target.path = RemoveDotSegments(ref.path);
  } else {
    target.scheme = base.scheme;
    if (ref.authority.has_value()) {
      target.authority = ref.authority;
      target.path = RemoveDotSegments(ref.path);
      target.query = ref.query;
    } else {
      target.authority = base.authority;
      if (ref.path.empty()) {
        target.path = base.path;
        target.query = ref.query.has_value() ? ref.query : base.query;
      } else {
        target.path = RemoveDotSegments(ref.path.front() == '/' ? ref.path : Merge(base, ref.path));
        target.query = ref.query;
      }
    }
  }
  if ((target.scheme != "http" && target.scheme != "https") || !target.authority.has_value() ||
      target.authority->empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Location \"", absl::CHexEscape(ToAbsl(location)), "\" against \"",
                     absl::CHexEscape(ToAbsl(base_url)), "\" is not an absolute http(s) URL"));
  }
  std::string url = absl::StrCat(*target.scheme, "://", *target.authority, target.path);
  if (target.query.has_value()) absl::StrAppend(&url, "?", *target.query);
  return url;
}

RedirectingNetwork::RedirectingNetwork(Network& inner, RedirectPolicy policy, int max_redirects)
    : inner_(inner), policy_(std::move(policy)), max_redirects_(max_redirects) {}

absl::StatusOr<std::unique_ptr<HttpResponse>> RedirectingNetwork::Send(const HttpRequest& request,
                                                                       absl::Time deadline) {
  HttpRequest current = request;
  for (int followed = 0;; ++followed) {
    absl::StatusOr<std::unique_ptr<HttpResponse>> response = inner_.Send(current, deadline);
    if (!response.ok() || !IsRedirect((*response)->status())) return response;
    std::optional<std::string> location = FindHeader((*response)->headers(), "Location");
    if (!location.has_value()) return response;
    absl::StatusOr<std::string> target = ResolveLocation(current.url, *location);
    if (!target.ok()) return response;  // nowhere this network may go: the 3xx as it is
    std::optional<HttpRequest> next = policy_(current, (*response)->status(), *target);
    if (!next.has_value()) return response;
    (*response)->Close();
    if (followed >= max_redirects_) {
      return absl::FailedPreconditionError(
          absl::StrCat(internal::RequestText(request), ": more than ", max_redirects_,
                       " redirects (the last to ", internal::UrlText(*target), ")"));
    }
    current = *std::move(next);
  }
}

}  // namespace agentrt::world
