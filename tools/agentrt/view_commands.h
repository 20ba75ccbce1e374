// tools/agentrt/view_commands.h
//
// The operator's read commands (docs/operators.md), over a database opened existing-only
// and read-only, reading only the page they print:
//   agentrt runs [--db PATH] [--limit N] [--offset N] [--json]   the runs, newest first
//   agentrt show RUN [--db PATH] [--limit N] [--offset N] [--json]
//                                a run, every pending approval on the page, and its steps
#pragma once

#include <span>
#include <string>

#include "tools/agentrt/io.h"

namespace agentrt::cli {

int RunRunsCommand(std::span<const std::string> args, Io& io);
int RunShowCommand(std::span<const std::string> args, Io& io);

}  // namespace agentrt::cli
