#include "mcp/auth/internal/fetch.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "mcp/auth/form.h"
#include "mcp/auth/metadata.h"
#include "mcp/auth/token.h"
#include "runtime/base/string_view.h"
#include "runtime/json/intake.h"
#include "runtime/world/url.h"

namespace agentrt::mcp::auth::internal {

absl::StatusOr<Answer> Fetch(world::Network& network, world::HttpRequest request,
                             absl::Time deadline) {
  request.max_body_bytes = kMaxMetadataBytes;
  absl::StatusOr<std::unique_ptr<world::HttpResponse>> response = network.Send(request, deadline);
  if (!response.ok()) return response.status();
  Answer out;
  out.status = (*response)->status();
  out.headers = (*response)->headers();
  if (out.status >= 300 && out.status < 400) {
    (*response)->Close();
    return absl::FailedPreconditionError(
        absl::StrCat("answered HTTP ", out.status, "; ", world::RedirectNote(out.headers)));
  }
  absl::StatusOr<std::string> body = world::ReadBody(**response, deadline);
  if (!body.ok()) return body.status();
  out.body = *std::move(body);
  return out;
}

absl::StatusOr<json::Document> ParseAnswer(std::string_view body, std::string_view what) {
  if (body.size() > kMaxMetadataBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("the ", ToAbsl(what), " is over ", kMaxMetadataBytes, " bytes"));
  }
  absl::StatusOr<json::Document> doc = json::Parse(body, {.max_depth = 32});
  if (!doc.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("not usable JSON: ", doc.status().message()));
  }
  if (!doc->root().is_object()) return absl::InvalidArgumentError("not a JSON object");
  return doc;
}

std::string RefusalNote(const Answer& answer) {
  std::string note = absl::StrCat(" (HTTP ", answer.status, ")");
  if (std::optional<TokenError> error = ParseTokenError(answer.body)) {
    absl::StrAppend(&note, ": ", error->error);
    if (!error->description.empty()) absl::StrAppend(&note, ": ", error->description);
  }
  return note;
}

world::HttpRequest GetJson(std::string url) {
  world::HttpRequest request;
  request.method = "GET";
  request.url = std::move(url);
  request.headers.emplace_back("Accept", "application/json");
  return request;
}

world::HttpRequest PostForm(std::string url, const world::HttpFields& form) {
  world::HttpRequest request;
  request.method = "POST";
  request.url = std::move(url);
  request.headers.emplace_back("Content-Type", "application/x-www-form-urlencoded");
  request.headers.emplace_back("Accept", "application/json");
  request.body = FormEncode(form);
  request.carries_secrets = true;
  return request;
}

world::HttpRequest PostJson(std::string url, std::string json) {
  world::HttpRequest request;
  request.method = "POST";
  request.url = std::move(url);
  request.headers.emplace_back("Content-Type", "application/json");
  request.headers.emplace_back("Accept", "application/json");
  request.body = std::move(json);
  request.carries_secrets = true;
  return request;
}

}  // namespace agentrt::mcp::auth::internal
