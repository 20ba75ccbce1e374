// mcp/proxy/reach_check.h
//
// The reach check (docs/proxy.md, "Startup"): an upstream server started with an argument that
// names the proxy's own files — its configuration, its database, a manifest, or a folder holding
// one of them — could rewrite what the proxy's policy and approvals depend on, so it is refused.
// Best effort, not a boundary: it reads the arguments, not what the server does.
//
// Candidates of each argument after the program: the argument; the part after its first `=`;
// after its first `:`; a short flag's value (`-r/x`: `/x`); the path of a `file://` URL (scheme
// in any case); `~` and `~/...` are the home folder (never `~user`). A candidate that exists is
// compared by file identity (device and inode) with each protected file and every folder above
// it, both as written and as the folders really are (through `..`), so a symbolic link, a
// trailing slash, another spelling on a case-insensitive disk, `/` or a parent folder all match.
// A candidate that does not exist matches a protected file that does not exist yet (a new
// database) when both name the same entry of the same folder.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "mcp/config.h"
#include "runtime/world/environment.h"
#include "runtime/world/filesystem.h"

namespace agentrt::proxy {

// CheckReach refuses the first argument of a stdio server (without skip_path_check) that reaches
// a protected file: InvalidArgument `server "<s>": its argument "<arg>" reaches <path>, which the
// proxy's policy and approvals depend on: point the server elsewhere, or set skip_path_check on
// it if it cannot write there`. `home` may be null (then `~` is no path).
absl::Status CheckReach(const mcp::Config& config, world::Filesystem& files,
                        world::Environment* home);

// The candidate paths of one argument (tests).
std::vector<std::string> ReachCandidates(const std::string& arg, const std::string& home);

}  // namespace agentrt::proxy
