// tools/agentrt/demos/model_demo.h
//
// `agentrt demo model`: a model-backed agent under model accounting, in a world that is
// deterministic (a clock that moves a millisecond per reading, seeded ids), recorded into a
// cassette or replayed from one.
#pragma once

#include <span>
#include <string>

#include "tools/agentrt/demos/demo_world.h"
#include "tools/agentrt/io.h"

namespace agentrt::cli {

int RunModelDemo(std::span<const std::string> args, Io& io);

// The demonstration itself over the database at `db`, in `world` (agentrt replay calls it with a
// replaying world). Returns the exit status.
int PlayModelDemo(const std::string& db, DemoWorld& world, Io& io);

}  // namespace agentrt::cli
