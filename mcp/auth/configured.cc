#include "mcp/auth/configured.h"

#include <utility>

#include "runtime/base/status_macros.h"
#include "runtime/world/secret.h"

namespace agentrt::mcp::auth {

absl::StatusOr<std::shared_ptr<Authorizer>> ConfiguredAuthorizer(const std::string& endpoint,
                                                                 const AuthConfig& config,
                                                                 const world::World& world,
                                                                 Browser* browser) {
  if (world.filesystem == nullptr || world.environment == nullptr || world.network == nullptr ||
      world.entropy == nullptr || world.clock == nullptr) {
    return absl::FailedPreconditionError(
        "authorization needs the world's files, environment, network, clock and entropy");
  }
  AuthSettings settings = config.settings;
  AGENTRT_ASSIGN_OR_RETURN(settings.client_secret,
                           world::ReadSecret(config.client_secret, *world.environment,
                                             *world.filesystem, "client secret"));
  AGENTRT_ASSIGN_OR_RETURN(
      settings.private_key,
      world::ReadSecret(config.private_key, *world.environment, *world.filesystem, "private key",
                        world::SecretForm::kPem));
  AGENTRT_ASSIGN_OR_RETURN(
      settings.idp_id_token,
      world::ReadSecret(config.idp_id_token, *world.environment, *world.filesystem, "ID token"));
  auto store = std::make_shared<FileTokenStore>(*world.filesystem, config.credentials);
  AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<Authorizer> authorizer,
                           Authorizer::Create(endpoint, std::move(settings), std::move(store),
                                              {.network = world.network,
                                               .clock = world.clock,
                                               .entropy = world.entropy,
                                               .browser = browser}));
  return std::shared_ptr<Authorizer>(std::move(authorizer));
}

}  // namespace agentrt::mcp::auth
