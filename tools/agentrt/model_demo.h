// tools/agentrt/model_demo.h
//
// `agentrt demo model`: a model-backed run recorded to a cassette, or replayed from one.
#pragma once

#include <span>
#include <string>

namespace agentrt::cli {

// Runs the demonstration with the words after "demo model"; returns the exit status.
int RunModelDemo(std::span<const std::string> args);

}  // namespace agentrt::cli
