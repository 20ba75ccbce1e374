// mcp/auth/settings.h
//
// What the operator says about authorizing to one remote MCP server (the configuration's `auth`
// block, docs/mcp.md): which grant, which client identity, and where the secrets are. The
// server says the rest (discovery.h); it never chooses the client's identity or its secrets.
//
// Client identity, in the specification's order of preference: a pre-registered client
// (`client_id`, with `client_secret` or `private_key` when it is confidential); a client ID
// metadata document (`client_metadata_url`, an https URL that is the client's id, used when the
// authorization server says it supports them); dynamic client registration (RFC 7591) when the
// server offers it.
#pragma once

#include <string>

#include "runtime/world/secret.h"

namespace agentrt::mcp::auth {

enum class Grant {
  kAuthorizationCode,  // an operator logs in at a browser (`agentrt mcp login`)
  kClientCredentials,  // a machine with no operator (the client-credentials extension)
  // The enterprise-managed extension (cross-app access): the operator's identity provider
  // exchanges their ID token for an identity assertion (an ID-JAG, RFC 8693 token exchange) that
  // the authorization server takes for a token (RFC 7523's jwt-bearer grant). No browser.
  kIdentityAssertion,
};

struct AuthSettings {
  Grant grant = Grant::kAuthorizationCode;
  std::string client_id;              // pre-registered; "" for a metadata document or registration
  world::Secret client_secret;        // a confidential pre-registered client's secret
  world::Secret private_key;          // or its PEM private key (private_key_jwt)
  std::string signing_alg = "ES256";  // ES256 or RS256, for private_key_jwt
  // client_secret_basic, client_secret_post, none or private_key_jwt; "" chooses from what the
  // authorization server supports and what the client has.
  std::string token_endpoint_auth_method;
  std::string client_metadata_url;  // CIMD: the https URL that is the client's id
  std::string client_name = "agentrt";
  // How many times in one session a 403 insufficient_scope may send the operator back to log in
  // with wider scopes.
  int max_step_ups = 2;
  // kIdentityAssertion: the identity provider's token endpoint, this client's id there, and the
  // operator's ID token it issued.
  std::string idp_token_endpoint;
  std::string idp_client_id;
  world::Secret idp_id_token;
  // What an operator runs to log in, named when a login is needed and there is no browser
  // ("agentrt mcp login --config <file> --server <name>" when empty).
  std::string login_command;
};

// The configuration's `auth` block as read (config.h): the settings without their secrets, and
// where the secrets are, read only when the server is reached (configured.h).
struct AuthConfig {
  AuthSettings settings;  // client_secret and private_key still empty
  world::SecretSource client_secret;
  world::SecretSource private_key;
  world::SecretSource idp_id_token;
  std::string credentials;  // the credentials file (credentials.h), joined to the config's folder
  int redirect_port = 0;    // `agentrt mcp login`'s loopback listener; 0: any free port
};

}  // namespace agentrt::mcp::auth
