// tools/agentrt/demos/live_demo.h
//
// `agentrt demo live`: a model-backed agent driven by a real provider through its adapter
// (providers/create_model.h), against the scripted demonstration's tools: the model reads a file,
// its first remote mutation waits for an operator's approval, and after the approval a resume
// lets the exact approved call run and the model finish. With --record every exchange of the run,
// the provider's HTTP bytes included (its key redacted), goes to a cassette that `agentrt replay`
// plays offline to the same chain head. With --stand-in the demonstration starts its own
// OpenAI-compatible stand-in on loopback (stand_in_provider.h) and says so.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "providers/create_model.h"
#include "tools/agentrt/demos/demo_world.h"
#include "tools/agentrt/io.h"

namespace agentrt::cli {

int RunLiveDemo(std::span<const std::string> args, Io& io);

// The demonstration itself over the database at `db` with the model `choice` names, in `world`
// (agentrt replay calls it with a replaying world); `resume` names a run to resume, or "".
// A run that pauses for an approval prints `resume_command` followed by its id (nothing when
// it is ""). Returns the exit status.
int PlayLiveDemo(const std::string& db, const providers::ModelChoice& choice,
                 const std::string& resume, std::string_view resume_command, DemoWorld& world,
                 Io& io);

// The program a recording's header names, for agentrt replay: {"demo", "live", "--model", M,
// "--base-url", U, "--key", "redacted" or "none"} (never the key: whether there was one).
// ParseLiveProgram reads it back (nullopt when `program` is not one).
std::vector<std::string> LiveProgram(const std::string& model, const std::string& base_url,
                                     bool with_key);
std::optional<providers::ModelChoice> ParseLiveProgram(const std::vector<std::string>& program);

}  // namespace agentrt::cli
