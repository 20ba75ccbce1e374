#include "mcp/auth/authorizer.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "mcp/auth/client_assertion.h"
#include "mcp/auth/form.h"
#include "mcp/auth/internal/fetch.h"
#include "mcp/auth/metadata.h"
#include "mcp/auth/pkce.h"
#include "mcp/auth/token.h"
#include "mcp/internal/fields.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sanitize.h"
#include "runtime/world/url.h"

namespace agentrt::mcp::auth {
namespace {

// A token this close to its expiry is refreshed before it is sent.
constexpr absl::Duration kExpirySlack = absl::Seconds(30);
constexpr std::string_view kJwtBearer = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
constexpr std::string_view kJwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer";
constexpr std::string_view kTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange";
constexpr std::string_view kIdJag = "urn:ietf:params:oauth:token-type:id-jag";
constexpr std::string_view kIdTokenType = "urn:ietf:params:oauth:token-type:id_token";

bool Contains(const std::vector<std::string>& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

std::set<std::string> SplitScope(std::string_view scope) {
  std::set<std::string> out;
  for (absl::string_view part : absl::StrSplit(ToAbsl(scope), ' ', absl::SkipEmpty())) {
    out.emplace(part);
  }
  return out;
}

// How a client authenticates at the token endpoint, from what it has and what the server takes
// (RFC 8414: an absent list means client_secret_basic).
absl::StatusOr<std::string> ChooseMethod(const std::vector<std::string>& supported, bool has_secret,
                                         bool has_key) {
  if (has_key) return std::string("private_key_jwt");
  if (!has_secret) return std::string("none");
  if (supported.empty() || Contains(supported, "client_secret_basic")) {
    return std::string("client_secret_basic");
  }
  if (Contains(supported, "client_secret_post")) return std::string("client_secret_post");
  // A server that takes only public clients: the secret it may have handed out goes unused.
  if (Contains(supported, "none")) return std::string("none");
  return absl::FailedPreconditionError(absl::StrCat(
      "the authorization server takes a client secret by none of the methods this client speaks "
      "(it lists: ",
      json::Sanitize(absl::StrJoin(supported, ", ").substr(0, 200)), ")"));
}

absl::Status Prefixed(std::string_view what, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(ToAbsl(what), ": ", status.message()));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Authorizer>> Authorizer::Create(std::string server_url,
                                                               AuthSettings settings,
                                                               std::shared_ptr<TokenStore> store,
                                                               AuthorizerWorld world) {
  AGENTRT_ASSIGN_OR_RETURN(world::Url url, world::ParseUrl(server_url));
  if (url.scheme == "http" && !world::IsLoopbackHost(url.host)) {
    return absl::InvalidArgumentError(absl::StrCat("refusing to send a token over plain http to ",
                                                   json::Sanitize(url.host),
                                                   ", which is not this machine"));
  }
  if (settings.grant != Grant::kAuthorizationCode &&
      (settings.client_id.empty() ||
       (settings.client_secret.empty() && settings.private_key.empty()))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the ",
        settings.grant == Grant::kClientCredentials ? "client_credentials" : "identity_assertion",
        " grant needs a pre-registered client: client_id with client_secret or private_key"));
  }
  if (settings.grant == Grant::kIdentityAssertion) {
    if (settings.idp_token_endpoint.empty() || settings.idp_id_token.empty()) {
      return absl::InvalidArgumentError(
          "the identity_assertion grant needs the identity provider's token endpoint and the "
          "operator's ID token");
    }
    if (absl::Status usable = CheckEndpoint(settings.idp_token_endpoint); !usable.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the identity provider's token endpoint: ", usable.message()));
    }
  }
  if (!settings.client_metadata_url.empty()) {
    absl::StatusOr<world::Url> cimd = world::ParseUrl(settings.client_metadata_url);
    if (!cimd.ok() || cimd->scheme != "https" || cimd->path.size() <= 1) {
      return absl::InvalidArgumentError(
          "client_metadata_url must be an https URL with a path (the client's id)");
    }
  }
  if (world.network == nullptr || world.clock == nullptr || world.entropy == nullptr ||
      store == nullptr) {
    return absl::InternalError("an authorizer needs a network, a clock, entropy and a store");
  }
  return std::unique_ptr<Authorizer>(
      new Authorizer(std::move(server_url), std::move(settings), std::move(store), world));
}

Authorizer::Authorizer(std::string server_url, AuthSettings settings,
                       std::shared_ptr<TokenStore> store, AuthorizerWorld world)
    : server_url_(std::move(server_url)),
      settings_(std::move(settings)),
      store_(std::move(store)),
      world_(world) {}

std::optional<Credentials> Authorizer::current() const {
  absl::MutexLock lock(&mu_);
  return credentials_;
}

void Authorizer::ForgetTokens() {
  absl::MutexLock lock(&mu_);
  (void)Load();
  if (credentials_.has_value()) {
    credentials_->access_token = world::Secret();
    credentials_->refresh_token = world::Secret();
  }
}

absl::Status Authorizer::Load() {
  if (loaded_) return absl::OkStatus();
  AGENTRT_ASSIGN_OR_RETURN(std::optional<Credentials> saved, store_->Load());
  loaded_ = true;
  // Tokens issued for another server are never sent here.
  if (saved.has_value() && saved->Matches(server_url_)) {
    seen_token_ = saved->access_token.Reveal();
    credentials_ = std::move(saved);
    // What the saved tokens were asked for is what a step-up widens (not nothing: a new token
    // for the refusal's scope alone would lose what the session already held).
    requested_ = SplitScope(credentials_->scope);
  }
  return absl::OkStatus();
}

bool Authorizer::AdoptNewer() {
  absl::StatusOr<std::optional<Credentials>> saved = store_->Load();
  if (!saved.ok() || !saved->has_value() || !(*saved)->Matches(server_url_)) return false;
  const Credentials& theirs = **saved;
  // Written by someone else since this process last read or wrote the store, and alive.
  bool newer = !theirs.access_token.empty() && theirs.access_token.Reveal() != seen_token_ &&
               world_.clock->Now() + kExpirySlack < theirs.expires_at;
  seen_token_ = theirs.access_token.Reveal();
  if (!newer) return false;
  credentials_ = theirs;
  requested_ = SplitScope(credentials_->scope);
  return true;
}

absl::StatusOr<std::string> Authorizer::Header(absl::Time deadline) {
  absl::MutexLock lock(&mu_);
  AGENTRT_RETURN_IF_ERROR(Load());
  if (!credentials_.has_value() || credentials_->access_token.empty()) return std::string();
  absl::Time now = world_.clock->Now();
  // Refreshed a little before it expires, when it can be (unless another process sharing the
  // store already did); used until it expires when not. The store is looked at only when a
  // refresh token is about to be spent or the token is gone, not on every request of its last
  // seconds.
  if (now + kExpirySlack >= credentials_->expires_at) {
    bool can_refresh = !credentials_->refresh_token.empty();
    if ((can_refresh || now >= credentials_->expires_at) && !AdoptNewer() && can_refresh) {
      (void)Refresh(deadline);  // a failure leaves the token as it was (refused: no refresh token)
    }
  }
  if (now >= credentials_->expires_at) {
    credentials_->access_token = world::Secret();
    return std::string();  // the 401 will say how to authorize again
  }
  return absl::StrCat("Bearer ", credentials_->access_token.Reveal());
}

absl::Status Authorizer::Refused(int status, const world::HttpFields& headers,
                                 absl::Time deadline) {
  absl::MutexLock lock(&mu_);
  AGENTRT_RETURN_IF_ERROR(Load());
  BearerChallenge challenge = FindBearer(headers);
  if (status == 403) {
    if (challenge.error != "insufficient_scope") {
      return absl::PermissionDeniedError(absl::StrCat(
          "the server refused the request (HTTP 403",
          challenge.error.empty() ? "" : absl::StrCat(", ", json::Sanitize(challenge.error)), ")"));
    }
    std::set<std::string> wanted = requested_;
    for (const std::string& scope : SplitScope(challenge.scope)) wanted.insert(scope);
    if (wanted == requested_) {
      return absl::PermissionDeniedError(absl::StrCat("the server still needs scope ",
                                                      json::Quoted(challenge.scope.substr(0, 200)),
                                                      ", which was asked for and not granted"));
    }
    if (step_ups_ >= settings_.max_step_ups) {
      return absl::PermissionDeniedError(
          absl::StrCat("the server asked for wider scopes ", step_ups_ + 1, " times; at most ",
                       settings_.max_step_ups, " step-ups are made"));
    }
    ++step_ups_;
    return Authorize(challenge, std::move(wanted), deadline);
  }
  // Another process sharing the store may have a token already (it refreshed, or logged in).
  if (AdoptNewer()) return absl::OkStatus();
  if (credentials_.has_value() && !credentials_->refresh_token.empty() && !refreshed_) {
    if (Refresh(deadline).ok()) return absl::OkStatus();
  }
  return Authorize(challenge, SplitScope(challenge.scope), deadline);
}

absl::Status Authorizer::Authorize(const BearerChallenge& challenge, std::set<std::string> scopes,
                                   absl::Time deadline) {
  AGENTRT_ASSIGN_OR_RETURN(Discovery discovery, Discover(*world_.network, server_url_,
                                                         challenge.resource_metadata, deadline));
  if (scopes.empty()) {
    for (const std::string& scope : discovery.resource_scopes) scopes.insert(scope);
  }
  if (settings_.grant == Grant::kAuthorizationCode && !scopes.empty() &&
      Contains(discovery.server.scopes_supported, "offline_access")) {
    scopes.insert("offline_access");
  }
  requested_ = scopes;
  std::string scope = absl::StrJoin(scopes, " ");
  if (settings_.grant == Grant::kClientCredentials) {
    AGENTRT_ASSIGN_OR_RETURN(Client client, Identify(discovery, deadline));
    world::HttpFields form = {{"grant_type", "client_credentials"}};
    if (!scope.empty()) form.emplace_back("scope", scope);
    form.emplace_back("resource", discovery.resource);
    return Exchange(discovery, client, std::move(form), scope, deadline);
  }
  if (settings_.grant == Grant::kIdentityAssertion) {
    AGENTRT_ASSIGN_OR_RETURN(std::string assertion, IdentityAssertion(discovery, scope, deadline));
    AGENTRT_ASSIGN_OR_RETURN(Client client, Identify(discovery, deadline));
    world::HttpFields form = {{"grant_type", std::string(kJwtBearerGrant)},
                              {"assertion", std::move(assertion)}};
    if (!scope.empty()) form.emplace_back("scope", scope);
    form.emplace_back("resource", discovery.resource);
    return Exchange(discovery, client, std::move(form), scope, deadline);
  }
  return AuthorizationCode(discovery, scope, deadline);
}

absl::Status Authorizer::AuthorizationCode(const Discovery& discovery, const std::string& scope,
                                           absl::Time deadline) {
  if (world_.browser == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the server needs an operator's login; run `",
        settings_.login_command.empty() ? "agentrt mcp login --config <file> --server <name>"
                                        : settings_.login_command,
        "`"));
  }
  const ServerMetadata& server = discovery.server;
  if (server.authorization_endpoint.empty()) {
    return absl::FailedPreconditionError(absl::StrCat("the authorization server ",
                                                      json::Quoted(server.issuer),
                                                      " names no authorization_endpoint"));
  }
  if (!discovery.defaulted && !Contains(server.code_challenge_methods_supported, "S256")) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the authorization server ", json::Quoted(server.issuer),
        " does not list PKCE S256 in code_challenge_methods_supported; refusing to authorize "
        "without it"));
  }
  AGENTRT_RETURN_IF_ERROR(CheckEndpoint(server.authorization_endpoint));
  AGENTRT_ASSIGN_OR_RETURN(Client client, Identify(discovery, deadline));
  Pkce pkce = NewPkce(*world_.entropy);
  std::string state = NewState(*world_.entropy);
  std::string redirect_uri = world_.browser->redirect_uri();
  world::HttpFields query = {{"response_type", "code"},         {"client_id", client.id},
                             {"redirect_uri", redirect_uri},    {"code_challenge", pkce.challenge},
                             {"code_challenge_method", "S256"}, {"state", state}};
  if (!scope.empty()) query.emplace_back("scope", scope);
  query.emplace_back("resource", discovery.resource);
  absl::StatusOr<std::string> back =
      world_.browser->Visit(WithQuery(server.authorization_endpoint, query), deadline);
  if (!back.ok()) return Prefixed("the login", back.status());
  // The redirect must come back where it was sent, carrying this request's state.
  absl::StatusOr<world::Url> came = world::ParseUrl(*back);
  absl::StatusOr<world::Url> sent = world::ParseUrl(redirect_uri);
  if (!came.ok() || !sent.ok() || came->Origin() != sent->Origin() || came->path != sent->path) {
    return absl::PermissionDeniedError("the login's redirect did not come to the redirect URI");
  }
  absl::StatusOr<world::HttpFields> fields = FormDecode(came->query);
  if (!fields.ok()) return Prefixed("the login's redirect", fields.status());
  auto field = [&](std::string_view name) { return world::FindHeader(*fields, name); };
  if (field("state") != state) {
    return absl::PermissionDeniedError(
        "the login's redirect carries a state that does not match the request's; refused (a "
        "forged or replayed redirect)");
  }
  std::optional<std::string> iss = field("iss");
  if (!iss.has_value() && server.authorization_response_iss_parameter_supported) {
    return absl::PermissionDeniedError(
        "the login's redirect names no issuer, though the authorization server says it always "
        "does (RFC 9207); refused (a mix-up)");
  }
  if (iss.has_value() && *iss != server.issuer) {
    return absl::PermissionDeniedError(absl::StrCat("the login's redirect names issuer ",
                                                    json::Quoted(iss->substr(0, 200)), ", not ",
                                                    json::Quoted(server.issuer)));
  }
  if (std::optional<std::string> error = field("error")) {
    return absl::PermissionDeniedError(absl::StrCat(
        "the authorization server refused the login: ", json::Sanitize(error->substr(0, 200)),
        field("error_description")
            ? absl::StrCat(": ", json::Sanitize(field("error_description")->substr(0, 200)))
            : ""));
  }
  std::optional<std::string> code = field("code");
  if (!code.has_value() || code->empty()) {
    return absl::PermissionDeniedError("the login's redirect carries no code");
  }
  world::HttpFields form = {{"grant_type", "authorization_code"},
                            {"code", *code},
                            {"redirect_uri", redirect_uri},
                            {"code_verifier", pkce.verifier},
                            {"resource", discovery.resource}};
  return Exchange(discovery, client, std::move(form), scope, deadline);
}

absl::Status Authorizer::Refresh(absl::Time deadline) {
  refreshed_ = true;
  Credentials& saved = *credentials_;
  Discovery discovery;
  discovery.resource = saved.resource;
  discovery.server.issuer = saved.issuer;
  discovery.server.token_endpoint = saved.token_endpoint;
  Client client;
  if (!settings_.client_id.empty()) {
    AGENTRT_ASSIGN_OR_RETURN(client, PreRegistered(saved.token_endpoint_auth_method, {}));
  } else if (saved.client_id.empty() && !settings_.client_metadata_url.empty()) {
    // A client ID metadata document's client is not kept with the tokens (only a registered one
    // is): its id is the document's URL, and a public client must name it (OAuth 2.1 §4.3.1).
    client = {settings_.client_metadata_url, world::Secret(), "none"};
  } else {
    client = {saved.client_id, saved.client_secret, saved.token_endpoint_auth_method, true};
  }
  world::HttpFields form = {{"grant_type", "refresh_token"},
                            {"refresh_token", saved.refresh_token.Reveal()},
                            {"resource", saved.resource}};
  absl::Status refreshed = Exchange(discovery, client, std::move(form), saved.scope, deadline);
  // A refresh token the authorization server refused is dropped (the next step is a new
  // authorization); one that could not be sent (the network, a deadline) is kept for next time.
  if ((absl::IsPermissionDenied(refreshed) || absl::IsFailedPrecondition(refreshed)) &&
      credentials_.has_value()) {
    credentials_->refresh_token = world::Secret();
  }
  return refreshed;
}

absl::StatusOr<std::string> Authorizer::IdentityAssertion(const Discovery& discovery,
                                                          const std::string& scope,
                                                          absl::Time deadline) {
  const std::string& endpoint = settings_.idp_token_endpoint;
  std::string where = absl::StrCat("identity provider ", world::ShownUrl(endpoint));
  world::HttpFields form = {{"grant_type", std::string(kTokenExchange)},
                            {"requested_token_type", std::string(kIdJag)},
                            {"audience", discovery.server.issuer},
                            {"resource", discovery.resource},
                            {"subject_token", settings_.idp_id_token.Reveal()},
                            {"subject_token_type", std::string(kIdTokenType)}};
  if (!scope.empty()) form.emplace_back("scope", scope);
  if (!settings_.idp_client_id.empty()) form.emplace_back("client_id", settings_.idp_client_id);
  absl::StatusOr<internal::Answer> answer =
      internal::Fetch(*world_.network, internal::PostForm(endpoint, form), deadline);
  if (!answer.ok()) return Prefixed(where, answer.status());
  if (answer->status != 200) {
    return absl::PermissionDeniedError(
        absl::StrCat(where, " refused the token exchange", internal::RefusalNote(*answer)));
  }
  absl::StatusOr<json::Document> doc = internal::ParseAnswer(answer->body, "answer");
  absl::StatusOr<std::optional<std::string>> assertion =
      doc.ok() ? mcp::internal::StringMember(doc->root(), "access_token")
               : absl::StatusOr<std::optional<std::string>>(std::nullopt);
  absl::StatusOr<std::optional<std::string>> type =
      doc.ok() ? mcp::internal::StringMember(doc->root(), "issued_token_type")
               : absl::StatusOr<std::optional<std::string>>(std::nullopt);
  if (!assertion.ok() || !assertion->has_value() || !IsTokenText(**assertion)) {
    return absl::FailedPreconditionError(
        absl::StrCat(where, ": the answer holds no usable identity assertion"));
  }
  if (!type.ok() || type->value_or("") != kIdJag) {
    return absl::FailedPreconditionError(
        absl::StrCat(where, ": the answer's issued_token_type is not ", ToAbsl(kIdJag)));
  }
  return **assertion;
}

absl::StatusOr<Authorizer::Client> Authorizer::PreRegistered(
    std::string method, const std::vector<std::string>& supported) const {
  Client client{settings_.client_id, settings_.client_secret, std::move(method)};
  if (client.method.empty()) {
    AGENTRT_ASSIGN_OR_RETURN(client.method, ChooseMethod(supported, !client.secret.empty(),
                                                         !settings_.private_key.empty()));
  }
  return client;
}

absl::StatusOr<Authorizer::Client> Authorizer::Identify(const Discovery& discovery,
                                                        absl::Time deadline) {
  const ServerMetadata& server = discovery.server;
  if (!settings_.client_id.empty()) {
    return PreRegistered(settings_.token_endpoint_auth_method,
                         server.token_endpoint_auth_methods_supported);
  }
  std::string redirect_uri = world_.browser == nullptr ? "" : world_.browser->redirect_uri();
  if (credentials_.has_value() && !credentials_->client_id.empty() &&
      credentials_->issuer == server.issuer && credentials_->redirect_uri == redirect_uri) {
    return Client{credentials_->client_id, credentials_->client_secret,
                  credentials_->token_endpoint_auth_method, true};
  }
  if (server.client_id_metadata_document_supported && !settings_.client_metadata_url.empty()) {
    return Client{settings_.client_metadata_url, world::Secret(), "none"};
  }
  if (!server.registration_endpoint.empty()) return Register(discovery, deadline);
  return absl::FailedPreconditionError(absl::StrCat(
      "the authorization server ", json::Quoted(server.issuer),
      " offers no way for this client to identify itself (no client ID metadata documents this "
      "client can use, no dynamic registration): configure auth.client_id, a client registered "
      "with it"));
}

absl::StatusOr<Authorizer::Client> Authorizer::Register(const Discovery& discovery,
                                                        absl::Time deadline) {
  const ServerMetadata& server = discovery.server;
  AGENTRT_RETURN_IF_ERROR(CheckEndpoint(server.registration_endpoint));
  const std::vector<std::string>& supported = server.token_endpoint_auth_methods_supported;
  // What the client asks to be registered for: a secret, sent as the server takes one.
  std::string wanted =
      ChooseMethod(supported, /*has_secret=*/true, /*has_key=*/false).value_or("none");
  std::string redirect_uri = world_.browser == nullptr ? "" : world_.browser->redirect_uri();
  std::string body = json::JsonObject()
                         .String("client_name", settings_.client_name)
                         .Raw("redirect_uris", json::JsonArray({json::JsonString(redirect_uri)}))
                         .Raw("grant_types", R"(["authorization_code","refresh_token"])")
                         .Raw("response_types", R"(["code"])")
                         .String("token_endpoint_auth_method", wanted)
                         .Build();
  std::string where =
      absl::StrCat("client registration at ", world::ShownUrl(server.registration_endpoint));
  absl::StatusOr<internal::Answer> answer = internal::Fetch(
      *world_.network, internal::PostJson(server.registration_endpoint, body), deadline);
  if (!answer.ok()) return Prefixed(where, answer.status());
  if (answer->status != 200 && answer->status != 201) {
    return absl::FailedPreconditionError(
        absl::StrCat(where, ": refused", internal::RefusalNote(*answer)));
  }
  absl::StatusOr<json::Document> doc = internal::ParseAnswer(answer->body, "answer");
  if (!doc.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(where, ": ", doc.status().message()));
  }
  json::Value root = doc->root();
  absl::StatusOr<std::optional<std::string>> id = mcp::internal::StringMember(root, "client_id");
  absl::StatusOr<std::optional<std::string>> secret =
      mcp::internal::StringMember(root, "client_secret");
  absl::StatusOr<std::optional<std::string>> method =
      mcp::internal::StringMember(root, "token_endpoint_auth_method");
  if (!id.ok() || !id->has_value() || !IsTokenText(**id) || !secret.ok() || !method.ok() ||
      (secret->has_value() && !IsTokenText(**secret))) {
    return absl::FailedPreconditionError(
        absl::StrCat(where,
                     ": the answer has no usable client_id (or a client_secret that is "
                     "not one line of visible text)"));
  }
  Client client{**id, world::Secret(secret->value_or("")), "", true};
  if (method->has_value() && (supported.empty() || Contains(supported, **method))) {
    client.method = **method;
  } else {
    AGENTRT_ASSIGN_OR_RETURN(client.method, ChooseMethod(supported, !client.secret.empty(), false));
  }
  if (client.method == "private_key_jwt") {
    return absl::FailedPreconditionError(
        absl::StrCat(where, ": it registered the client for private_key_jwt, with no key"));
  }
  return client;
}

absl::Status Authorizer::Exchange(const Discovery& discovery, const Client& client,
                                  world::HttpFields form, const std::string& scope,
                                  absl::Time deadline) {
  const bool refresh = world::FindHeader(form, "grant_type") == "refresh_token";
  const std::string& endpoint = discovery.server.token_endpoint;
  std::string where = absl::StrCat("token endpoint ", world::ShownUrl(endpoint));
  AGENTRT_RETURN_IF_ERROR(Prefixed(where, CheckEndpoint(endpoint)));
  world::HttpRequest request;
  if (client.method == "client_secret_basic") {
    request = internal::PostForm(endpoint, form);
    std::string pair = absl::StrCat(FormEscape(client.id), ":", FormEscape(client.secret.Reveal()));
    request.headers.emplace_back("Authorization", absl::StrCat("Basic ", absl::Base64Escape(pair)));
  } else {
    form.emplace_back("client_id", client.id);
    if (client.method == "client_secret_post") {
      form.emplace_back("client_secret", client.secret.Reveal());
    } else if (client.method == "private_key_jwt") {
      AGENTRT_ASSIGN_OR_RETURN(std::string assertion,
                               SignClientAssertion(settings_.private_key, settings_.signing_alg,
                                                   {.client_id = client.id,
                                                    .audience = discovery.server.issuer,
                                                    .now = world_.clock->Now()},
                                                   *world_.entropy));
      form.emplace_back("client_assertion_type", kJwtBearer);
      form.emplace_back("client_assertion", std::move(assertion));
    } else if (client.method != "none") {
      return absl::FailedPreconditionError(absl::StrCat("token endpoint authentication \"",
                                                        json::Sanitize(client.method.substr(0, 64)),
                                                        "\" is not one this client speaks"));
    }
    request = internal::PostForm(endpoint, form);
  }
  absl::StatusOr<internal::Answer> answer = internal::Fetch(*world_.network, request, deadline);
  if (!answer.ok()) return Prefixed(where, answer.status());
  if (answer->status != 200) {
    return absl::PermissionDeniedError(
        absl::StrCat(where, " refused", internal::RefusalNote(*answer)));
  }
  absl::StatusOr<TokenResponse> token = ParseTokenResponse(answer->body);
  if (!token.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(where, ": ", token.status().message()));
  }
  Credentials next;
  next.server = server_url_;
  next.resource = discovery.resource;
  next.issuer = discovery.server.issuer;
  next.token_endpoint = endpoint;
  if (client.registered) {
    next.client_id = client.id;
    next.client_secret = client.secret;
    // The redirect URI it was registered for: a refresh has none of its own.
    next.redirect_uri = refresh && credentials_.has_value() ? credentials_->redirect_uri
                        : world_.browser == nullptr         ? ""
                                                            : world_.browser->redirect_uri();
  }
  next.token_endpoint_auth_method = client.method;
  next.access_token = world::Secret(token->access_token);
  next.refresh_token = world::Secret(token->refresh_token);
  if (token->refresh_token.empty() && credentials_.has_value() && refresh) {
    next.refresh_token = credentials_->refresh_token;  // kept when a refresh issued no new one
  }
  if (token->expires_in.has_value()) {
    next.expires_at = world_.clock->Now() + absl::Seconds(*token->expires_in);
  }
  next.scope = token->scope.value_or(scope);
  credentials_ = next;
  refreshed_ = refresh;
  AGENTRT_RETURN_IF_ERROR(store_->Save(next));
  seen_token_ = next.access_token.Reveal();
  return absl::OkStatus();
}

}  // namespace agentrt::mcp::auth
