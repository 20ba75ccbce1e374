// tools/agentrt/replay_command.h
//
// `agentrt replay CASSETTE --db PATH`: re-runs the demonstration (or the `agentrt sim record`
// run) a cassette recorded, offline, with every exchange served from the cassette in exact order,
// into a new database, and checks the run wrote the recorded audit log (the same chain head).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "tools/agentrt/io.h"

namespace agentrt::cli {

int RunReplayCommand(std::span<const std::string> args, Io& io);

// ReplayCommand replays the cassette at `cassette` into the database at `db`, reporting
// failures as `command`. Returns the exit status.
int ReplayCommand(const std::string& cassette, const std::string& db, std::string_view command,
                  Io& io);

}  // namespace agentrt::cli
