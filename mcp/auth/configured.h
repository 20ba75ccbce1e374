// mcp/auth/configured.h
//
// The Authorizer for a server the operator configured with an `auth` block: its secrets read
// where the operator keeps them (the environment variable or the owner-only file the block
// names, through the world), its tokens in the block's credentials file.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "mcp/auth/authorizer.h"
#include "mcp/auth/browser.h"
#include "mcp/auth/settings.h"
#include "runtime/world/world.h"

namespace agentrt::mcp::auth {

// ConfiguredAuthorizer builds it for the server at `endpoint`. `browser` may be null (no login
// here). Errors: the secrets' (world/secret.h, naming the variable or file), Authorizer::Create's,
// FailedPrecondition when the world has no filesystem, environment, network or entropy.
absl::StatusOr<std::shared_ptr<Authorizer>> ConfiguredAuthorizer(const std::string& endpoint,
                                                                 const AuthConfig& config,
                                                                 const world::World& world,
                                                                 Browser* browser);

}  // namespace agentrt::mcp::auth
