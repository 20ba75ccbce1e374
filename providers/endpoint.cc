#include "providers/endpoint.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"

namespace agentrt::providers {

absl::StatusOr<BaseUrl> CheckEndpoint(std::string_view provider, std::string_view base,
                                      bool has_key) {
  absl::StatusOr<world::Url> parts = world::ParseUrl(base);
  if (parts.ok() && parts->user_info) {
    // Name the host only: the user information may be a password.
    return absl::InvalidArgumentError(absl::StrCat(ToAbsl(provider), ": base URL for ",
                                                   json::Sanitize(parts->host),
                                                   " carries user information"));
  }
  absl::StatusOr<BaseUrl> url = ParseBaseUrl(base);
  if (!url.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(ToAbsl(provider), ": base URL \"",
                                                   world::ShownUrl(base),
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
