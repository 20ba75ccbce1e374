// mcp/auth/pkce.h
//
// Proof Key for Code Exchange (RFC 7636), S256 only, as MCP's authorization requires: a
// verifier of 32 random bytes (43 base64url characters, inside RFC 7636's 43..128), and its
// challenge BASE64URL(SHA256(verifier)). The random bytes come from the injected Entropy, so a
// recorded login replays; the verifier is worth nothing once its code has been exchanged (a
// code is good once). The `state` of an authorization request is drawn the same way.
#pragma once

#include <string>
#include <string_view>

#include "runtime/world/entropy.h"

namespace agentrt::mcp::auth {

struct Pkce {
  std::string verifier;
  std::string challenge;  // S256
};

Pkce NewPkce(world::Entropy& entropy);

// S256Challenge is BASE64URL(SHA256(verifier)) without padding.
std::string S256Challenge(std::string_view verifier);

// NewState is 16 random bytes, base64url: an authorization request's `state`.
std::string NewState(world::Entropy& entropy);

}  // namespace agentrt::mcp::auth
