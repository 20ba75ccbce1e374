// tools/agentrt/sim_record.h
//
// `agentrt sim record` and `agentrt sim replay`: an MCP configuration and a scripted agent
// (sim_script.h) run for real — real processes, real network, the real clock — with every
// exchange recorded into a cassette, and that cassette replayed offline through the same MCP
// client, driver and policy, ending at the recorded chain head.
//
// A recording keeps, in its cassette's header (docs/formats/cassette.md, "inputs"), every file
// the run depended on: the configuration, the script and each server's manifest. A replay reads
// them from there and reads nothing else from disk, so a cassette recorded on one machine
// replays on any other, with no server installed.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "runtime/replay/cassette.h"
#include "tools/agentrt/io.h"

namespace agentrt::cli {

// `agentrt sim record --config F --script S --out CASSETTE [--db PATH]`; `args` are the words
// after "sim record". Returns the exit status.
int RunSimRecord(std::span<const std::string> args, Io& io);

// `agentrt sim replay CASSETTE [--db PATH]`; `args` are the words after "sim replay".
int RunSimReplay(std::span<const std::string> args, Io& io);

// IsSimRecording: whether `header` is the header of a session `agentrt sim record` wrote.
bool IsSimRecording(const replay::CassetteHeader& header);

// SimReplay replays `cassette`, read from `path`, into the new database at `db` (in memory
// when empty), reporting failures as `command` (`agentrt replay` calls it too). Returns the
// exit status.
int SimReplay(replay::Cassette cassette, const std::string& path, const std::string& db,
              std::string_view command, Io& io);

}  // namespace agentrt::cli
