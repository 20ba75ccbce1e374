#include "mcp/proxy/reach_check.h"

#include <optional>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"
#include "runtime/store/store.h"

namespace agentrt::proxy {
namespace {

// A protected entry: the file (or folder) itself, and its name inside its folder for one that
// does not exist yet.
struct Protected {
  std::string path;      // as the operator named it (shown in the refusal)
  world::FileInfo info;  // when it exists
  bool exists = false;
  world::FileInfo parent;  // the folder it is (or would be) in
  bool parent_exists = false;
  std::string base;  // its last name
};

std::string Dirname(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  std::size_t slash = p.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return p.substr(0, slash);
}

std::string Basename(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  std::size_t slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

std::optional<world::FileInfo> StatOf(world::Filesystem& files, const std::string& path) {
  absl::StatusOr<world::FileInfo> info = files.Stat(path);
  if (!info.ok()) return std::nullopt;
  return *info;
}

// Every folder above `path`: as written (dirname after dirname) and as they really are (`..`
// after `..`, which the system resolves through links), up to the root.
void Ancestors(world::Filesystem& files, const std::string& path, std::vector<Protected>& out) {
  auto add = [&](const std::string& dir) -> bool {
    std::optional<world::FileInfo> info = StatOf(files, dir);
    if (!info) return false;
    for (const Protected& p : out) {
      if (p.exists && p.info.SameFile(*info)) return false;  // seen: the chain joined
    }
    out.push_back(Protected{dir, *info, true, {}, false, ""});
    return true;
  };
  for (std::string dir = Dirname(path);; dir = Dirname(dir)) {
    add(dir);
    if (dir == "/" || dir == ".") break;
  }
  std::string up = Dirname(path);
  for (int i = 0; i < 64; ++i) {
    if (!add(up)) {
      // The root's parent is the root: once `..` adds nothing new the chain ended.
      std::optional<world::FileInfo> here = StatOf(files, up);
      std::optional<world::FileInfo> parent = StatOf(files, up + "/..");
      if (!here || !parent || here->SameFile(*parent)) break;
    }
    up += "/..";
  }
}

}  // namespace

std::vector<std::string> ReachCandidates(const std::string& arg, const std::string& home) {
  std::vector<std::string> raw = {arg};
  if (std::size_t eq = arg.find('='); eq != std::string::npos) raw.push_back(arg.substr(eq + 1));
  if (std::size_t colon = arg.find(':'); colon != std::string::npos) {
    raw.push_back(arg.substr(colon + 1));
  }
  if (arg.size() > 2 && arg[0] == '-' && arg[1] != '-') raw.push_back(arg.substr(2));
  std::vector<std::string> out;
  for (const std::string& c : raw) {
    out.push_back(c);
    if (absl::StartsWithIgnoreCase(ToAbsl(c), "file://")) out.push_back(c.substr(7));
  }
  std::vector<std::string> expanded;
  std::set<std::string> seen;
  for (std::string c : out) {
    if (!home.empty() && (c == "~" || c.starts_with("~/"))) c = home + c.substr(1);
    if (c.empty() || !seen.insert(c).second) continue;
    expanded.push_back(c);
  }
  return expanded;
}

absl::Status CheckReach(const mcp::Config& config, world::Filesystem& files,
                        world::Environment* env) {
  // A database on a server is no file a server's process could reach.
  std::vector<std::string> named = {config.path};
  if (!store::IsServerUrl(config.database)) named.push_back(config.database);
  for (const mcp::ServerConfig& s : config.servers) named.push_back(s.manifest);
  std::vector<Protected> protected_entries;
  for (const std::string& path : named) {
    Protected p;
    p.path = path;
    p.base = Basename(path);
    if (std::optional<world::FileInfo> info = StatOf(files, path)) {
      p.info = *info;
      p.exists = true;
    }
    if (std::optional<world::FileInfo> parent = StatOf(files, Dirname(path))) {
      p.parent = *parent;
      p.parent_exists = true;
    }
    protected_entries.push_back(p);
  }
  std::vector<Protected> folders;
  for (const std::string& path : named) Ancestors(files, path, folders);
  std::string home;
  if (env != nullptr) home = env->Get("HOME").value_or("");

  for (const mcp::ServerConfig& s : config.servers) {
    if (s.skip_path_check || s.command.size() < 2) continue;
    for (std::size_t i = 1; i < s.command.size(); ++i) {
      const std::string& arg = s.command[i];
      for (const std::string& candidate : ReachCandidates(arg, home)) {
        std::string reached;
        if (std::optional<world::FileInfo> info = StatOf(files, candidate)) {
          for (const Protected& p : protected_entries) {
            if (p.exists && p.info.SameFile(*info)) reached = p.path;
          }
          for (const Protected& f : folders) {
            if (reached.empty() && f.info.SameFile(*info)) reached = f.path;
          }
        } else if (std::optional<world::FileInfo> parent = StatOf(files, Dirname(candidate))) {
          for (const Protected& p : protected_entries) {
            if (!p.exists && p.parent_exists && p.parent.SameFile(*parent) &&
                p.base == Basename(candidate)) {
              reached = p.path;
            }
          }
        }
        if (!reached.empty()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "server \"", json::Sanitize(s.name), "\": its argument \"", json::Sanitize(arg),
              "\" reaches ", json::Sanitize(reached),
              ", which the proxy's policy and approvals depend on: point the server elsewhere, "
              "or set skip_path_check on it if it cannot write there"));
        }
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace agentrt::proxy
