// mcp/auth/credentials.h
//
// What an authorization leaves behind for one server, and where it is kept: the client identity
// the authorization server knows (a registered client's id and secret), and the tokens it issued
// with what they are for. Every secret is a world::Secret, so no printer shows it.
//
// A credentials file (`auth.credentials` of the configuration, docs/mcp.md) is the operator's:
// read only when its owner alone may read or write it (mode 0600, owned by this user), written
// atomically with mode 0600, never printed, never written to the audit database. Its JSON is
// strict: an unknown member is refused by name. Tokens are kept with the server URL they were
// issued for, and are sent to that server only (Matches).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "runtime/world/filesystem.h"
#include "runtime/world/secret.h"

namespace agentrt::mcp::auth {

struct Credentials {
  std::string server;    // the MCP server's URL the tokens are for
  std::string resource;  // the resource indicator they were asked for
  std::string issuer;    // the authorization server that issued them
  std::string token_endpoint;
  // The client the authorization server knows: registered dynamically (with its secret and the
  // redirect URI it was registered for), or the operator's pre-registered one (no secret here).
  std::string client_id;
  world::Secret client_secret;
  std::string token_endpoint_auth_method;
  std::string redirect_uri;
  world::Secret access_token;
  world::Secret refresh_token;
  absl::Time expires_at = absl::InfiniteFuture();  // InfiniteFuture when the server said not
  std::string scope;  // the scope asked for (or granted, when the server said)

  // Matches: these tokens were issued for the server at `server_url` (its URL as configured,
  // exactly).
  bool Matches(std::string_view server_url) const { return server == server_url; }
};

// The JSON a credentials file holds, and back. Parse errors: InvalidArgument `not usable JSON:
// ...`, `unknown field "<f>"`, `"<f>" is not a string`, ...
std::string CredentialsJson(const Credentials& credentials);
absl::StatusOr<Credentials> ParseCredentials(std::string_view json);

class TokenStore {
 public:
  virtual ~TokenStore() = default;
  // Load returns what was saved, nullopt when nothing was.
  virtual absl::StatusOr<std::optional<Credentials>> Load() = 0;
  virtual absl::Status Save(const Credentials& credentials) = 0;
};

// MemoryTokenStore keeps credentials for this process only (the conformance client, tests).
class MemoryTokenStore final : public TokenStore {
 public:
  absl::StatusOr<std::optional<Credentials>> Load() override;
  absl::Status Save(const Credentials& credentials) override;

 private:
  absl::Mutex mu_;
  std::optional<Credentials> saved_ ABSL_GUARDED_BY(mu_);
};

// FileTokenStore keeps them in the credentials file at `path`, through `files`. Errors name the
// file: `credentials file "<path>": <why>`; a file its group or others may read is refused
// (FailedPrecondition, `chmod 600`), as is one another user owns.
class FileTokenStore final : public TokenStore {
 public:
  FileTokenStore(world::Filesystem& files, std::string path)
      : files_(files), path_(std::move(path)) {}
  absl::StatusOr<std::optional<Credentials>> Load() override;
  absl::Status Save(const Credentials& credentials) override;

 private:
  world::Filesystem& files_;
  const std::string path_;
};

}  // namespace agentrt::mcp::auth
