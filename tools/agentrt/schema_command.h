// tools/agentrt/schema_command.h
//
// `agentrt schema validate SCHEMA INSTANCE` and `agentrt schema check SCHEMA`: the validator
// the runtime applies to every tool call, on files or standard input.
#pragma once

#include <span>
#include <string>

#include "tools/agentrt/io.h"

namespace agentrt::cli {

// RunSchemaCommand runs `agentrt schema ARGS...` and returns the process exit code.
int RunSchemaCommand(std::span<const std::string> args, Io& io);

}  // namespace agentrt::cli
