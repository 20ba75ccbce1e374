// tools/agentrt/event_commands.h
//
// The commands over a database's event log (docs/formats/events.md):
//   agentrt events RUN [--limit N] [--offset N] [--json]
//       a run's events as aligned trace lines, or as JSON Lines records
//   agentrt verify [--from N] [--to N] [--head SEQ:HASH] [--json]
//       walk the hash chain, report the first break, and check a head kept elsewhere
//   agentrt export [--run RUN] [--cursor FILE] [--once] [--interval D]
//       follow the log read-only and write every event as a JSON Lines record
// Each opens the database (--db or $AGENTRT_DB) existing-only and read-only, after checking
// its arguments.
#pragma once

#include <span>
#include <string>

#include "tools/agentrt/io.h"

namespace agentrt::cli {

int RunEventsCommand(std::span<const std::string> args, Io& io);
int RunVerifyCommand(std::span<const std::string> args, Io& io);
int RunExportCommand(std::span<const std::string> args, Io& io);

}  // namespace agentrt::cli
