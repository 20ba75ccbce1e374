// tools/agentrt/cassette_command.h
//
// `agentrt cassette dump CASSETTE [--json]`: what a cassette holds, for a person or a script,
// with text the model or provider chose escaped before it reaches a terminal.
#pragma once

#include <span>
#include <string>

#include "tools/agentrt/io.h"

namespace agentrt::cli {

// RunCassetteCommand runs `agentrt cassette ARGS...` and returns the process exit code.
int RunCassetteCommand(std::span<const std::string> args, Io& io);

}  // namespace agentrt::cli
