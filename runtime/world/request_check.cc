#include "runtime/world/request_check.h"

#include <algorithm>
#include <string>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/world/internal/request_text.h"

namespace agentrt::world {
namespace {

// RFC 9110 §5.6.2: tchar.
bool IsTokenChar(char c) {
  return absl::ascii_isalnum(c) ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool IsToken(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), IsTokenChar);
}

// A name that is not a token is shown only up to its first wrong byte: a caller that put a
// whole header line in the name ("Authorization: Bearer ...") must not see its secret printed.
std::string BadName(std::string_view name) {
  std::size_t bad = 0;
  while (bad < name.size() && IsTokenChar(name[bad])) ++bad;
  if (name.empty()) return "an empty header name";
  return absl::StrCat("header name \"", ToAbsl(name.substr(0, bad)), "...\" is not a token (byte ",
                      bad, " is ", absl::CHexEscape(ToAbsl(name.substr(bad, 1))), ")");
}

bool IsHttpUrl(std::string_view url) {
  std::size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return false;
  std::string scheme = absl::AsciiStrToLower(ToAbsl(url.substr(0, scheme_end)));
  if (scheme != "http" && scheme != "https") return false;
  std::string_view rest = url.substr(scheme_end + 3);
  std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  std::string_view host = authority.substr(
      authority.rfind('@') == std::string_view::npos ? 0 : authority.rfind('@') + 1);
  if (host.empty() || host.front() == ':') return false;
  for (char c : url) {
    if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
      return false;
    }
  }
  return true;
}

bool HasControlCharacter(std::string_view value) {
  for (char c : value) {
    unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7f) return true;
  }
  return false;
}

}  // namespace

absl::Status CheckRequest(const HttpRequest& request) {
  auto refuse = [&](std::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat(internal::RequestText(request), ": ", ToAbsl(why)));
  };
  if (!IsToken(request.method)) return refuse("the method is not an HTTP token");
  if (!IsHttpUrl(request.url)) {
    return refuse("the URL is not an absolute http(s) URL with a host in printable ASCII");
  }
  for (const auto& [name, value] : request.headers) {
    if (!IsToken(name)) return refuse(BadName(name));
    if (HasControlCharacter(value)) {
      return refuse(
          absl::StrCat("header ", name, " has a control character (a line break?) in its value"));
    }
    if (absl::EqualsIgnoreCase(name, "Content-Length") ||
        absl::EqualsIgnoreCase(name, "Transfer-Encoding")) {
      return refuse(absl::StrCat("header ", name, " is the network's to set, from the body"));
    }
  }
  return absl::OkStatus();
}

}  // namespace agentrt::world
