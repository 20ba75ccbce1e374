// runtime/world/child_env.h
//
// The environment an MCP stdio server gets: the minimal one (docs/mcp.md, "The configuration").
// Only the base names of the operating system (Unix: PATH, HOME, TMPDIR),
// then the names the operator lists to inherit, then the entries the operator writes — nothing
// else of this process's environment, so proxy settings and every credential variable reach a
// server only when named. (Files under HOME stay reachable: nothing is sandboxed.)
//
// The host's environment and operating system come in as arguments, so every case of the
// reference is testable on any machine; an Environment (environment.h) and HostEnvFlavour are what
// the real composition root passes.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace agentrt::world {

// Whose naming rules apply: on Windows, names match without regard to case.
enum class EnvFlavour { kUnix, kWindows };

// Looks a variable up in the host's environment: nullopt when unset ("" when set but empty,
// which counts as set).
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

// MinimalChildEnv returns the child's environment, "NAME=value" each, in order:
//  1. the base names of `flavour`, each that `host` has (Unix PATH, HOME, TMPDIR; Windows
//     PATH, PATHEXT, SystemRoot, SystemDrive, ComSpec, TEMP, TMP, USERPROFILE, APPDATA,
//     LOCALAPPDATA, HOME), with the host's value;
//  2. each name of `inherit`, in order, that `host` has (unset ones are skipped silently);
//  3. each entry of `env` as written (name before the first '=', value after it, maybe "").
// A name already present is replaced in its place (the first position stays, the new spelling
// and value win); on Windows names compare upper-cased, so "Path=D:\bin" replaces PATH in slot
// 0 and is written "Path=D:\bin". The result may be empty: the child then gets an empty
// environment (a Launcher never reads an empty env as "inherit").
// Entries are not checked here: CheckInheritName and CheckEnvEntry are, and a launcher refuses
// an env entry that is not NAME=value anyway.
std::vector<std::string> MinimalChildEnv(EnvFlavour flavour, const EnvLookup& host,
                                         const std::vector<std::string>& inherit,
                                         const std::vector<std::string>& env);

// The flavour of the system this program was built for.
EnvFlavour HostEnvFlavour();

// The checks of an operator's entries, in their order, without the server's
// prefix, which the MCP layer adds. InvalidArgument:
//   InheritEnv entry "<entry>" is not a variable name   (empty, or contains '=')
//   Env entry "<entry>" is not NAME=value               (no '=', or nothing before it)
// The entry is quoted with '"' and '\' escaped and control bytes as \n, \t, \x1b; other bytes
// pass as they are (the MCP layer escapes what it prints).
absl::Status CheckInheritName(std::string_view name);
absl::Status CheckEnvEntry(std::string_view entry);

}  // namespace agentrt::world
