#include "runtime/world/internal/request_text.h"

#include <string_view>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"

namespace agentrt::world::internal {

std::string UrlText(std::string_view url) {
  std::string shown;
  if (std::size_t scheme_end = url.find("://"); scheme_end != std::string_view::npos) {
    std::size_t authority = scheme_end + 3;
    std::size_t authority_end = url.find_first_of("/?#", authority);
    std::size_t at = url.substr(0, authority_end).rfind('@');
    if (at != std::string_view::npos && at >= authority) {
      shown = absl::StrCat(ToAbsl(url.substr(0, authority)), ToAbsl(url.substr(at + 1)));
      url = shown;
    }
  }
  return absl::CHexEscape(ToAbsl(url));
}

std::string RequestText(const HttpRequest& request) {
  return absl::StrCat(absl::CHexEscape(request.method), " ", UrlText(request.url));
}

}  // namespace agentrt::world::internal
