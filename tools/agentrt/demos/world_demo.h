// tools/agentrt/demos/world_demo.h
//
// `agentrt demo world`: an agent whose tools touch the real world (a child process, an HTTP
// server on loopback that the command starts), as it is, recorded into a cassette, or replayed
// from one with none of it present.
#pragma once

#include <span>
#include <string>

#include "tools/agentrt/demos/demo_world.h"
#include "tools/agentrt/io.h"

namespace agentrt::cli {

int RunWorldDemo(std::span<const std::string> args, Io& io);

// The demonstration itself over the database at `db`, in `world`, its fetch tool asking the
// server at `base_url` (agentrt replay calls it with a replaying world). Returns the exit status.
int PlayWorldDemo(const std::string& db, const std::string& base_url, DemoWorld& world, Io& io);

}  // namespace agentrt::cli
