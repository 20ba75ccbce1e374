// Every way our code prints a value, for the tests that a key never shows: absl::StrFormat's %s
// (this Abseil has no %v and no StrCat of a custom type), a stream, and gtest's printer, of a
// config and of the model that holds it.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"

namespace agentrt::test_support {

template <typename Config, typename Model>
std::vector<std::string> EveryPrinting(const Config& config, const Model& model) {
  std::ostringstream config_stream;
  config_stream << config;
  std::ostringstream model_stream;
  model_stream << model;
  return {absl::StrFormat("%s", config),
          config_stream.str(),
          ::testing::PrintToString(config),
          absl::StrFormat("%s", model),
          model_stream.str(),
          ::testing::PrintToString(model),
          absl::StrFormat("%10s|%-5s", config, model)};
}

}  // namespace agentrt::test_support
