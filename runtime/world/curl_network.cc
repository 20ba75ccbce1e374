#include "runtime/world/curl_network.h"

#include <curl/curl.h>
#include <unistd.h>

#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/world/internal/curl_response.h"
#include "runtime/world/request_check.h"

namespace agentrt::world {

absl::StatusOr<std::unique_ptr<CurlNetwork>> CurlNetwork::Create(const Clock& clock,
                                                                 CurlNetworkOptions options) {
  if (options.connect_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("network: connect_timeout must be positive, not ",
                     absl::FormatDuration(options.connect_timeout)));
  }
  if (!options.ca_file.empty() && ::access(options.ca_file.c_str(), R_OK) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "network: ca_file \"", absl::CHexEscape(options.ca_file), "\" cannot be read"));
  }
  // Handles may only be made from several threads at once by a libcurl built thread-safe,
  // whose global initialization is thread-safe too (7.84 and later); it is never undone, since
  // another network of this process may still be using it.
  const curl_version_info_data* version = curl_version_info(CURLVERSION_NOW);
  if ((version->features & CURL_VERSION_THREADSAFE) == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "network: libcurl ", version->version, " is not thread-safe (7.84 or later is needed)"));
  }
  if (CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT); rc != CURLE_OK) {
    return absl::FailedPreconditionError(
        absl::StrCat("network: libcurl could not initialize: ", curl_easy_strerror(rc)));
  }
  return std::unique_ptr<CurlNetwork>(new CurlNetwork(clock, std::move(options)));
}

CurlNetwork::CurlNetwork(const Clock& clock, CurlNetworkOptions options)
    : clock_(clock), options_(std::move(options)) {}

absl::StatusOr<std::unique_ptr<HttpResponse>> CurlNetwork::Send(const HttpRequest& request,
                                                                absl::Time deadline) {
  AGENTRT_RETURN_IF_ERROR(CheckRequest(request));
  AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<internal::CurlResponse> response,
                           internal::CurlResponse::Start(clock_, request, options_));
  AGENTRT_RETURN_IF_ERROR(response->WaitForHead(deadline));
  return response;
}

}  // namespace agentrt::world
