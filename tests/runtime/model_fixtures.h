// tests/runtime/model_fixtures.h
//
// What the sim tests share: requests and responses to record, and a fresh folder per test
// for real cassette files. Test-only.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/model.h"
#include "tests/support/test_folder.h"

namespace agentrt::model_fixtures {

inline ContentBlock TextBlock(const std::string& text) {
  ContentBlock block;
  block.type = "text";
  block.text = text;
  return block;
}

inline ContentBlock ToolUseBlock(const std::string& id, const std::string& name,
                                 const std::string& input) {
  ContentBlock block;
  block.type = "tool_use";
  block.tool_use_id = id;
  block.name = name;
  block.input = input;
  return block;
}

inline ContentBlock ToolResultBlock(const std::string& id, const std::string& content,
                                    bool is_error) {
  ContentBlock block;
  block.type = "tool_result";
  block.tool_use_id = id;
  block.content = content;
  block.is_error = is_error;
  return block;
}

// A one-message user request.
inline ModelRequest Ask(const std::string& text) {
  ModelRequest request;
  request.messages.push_back({"user", {TextBlock(text)}});
  return request;
}

inline ModelResponse Answer(const std::string& text, const std::string& raw = "") {
  ModelResponse response;
  response.text = text;
  response.stop_reason = "end_turn";
  response.usage = {10, 2, 0};
  response.raw = raw;
  return response;
}

// A folder of its own for each test, removed afterwards.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test_support::TestFolder(); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  // The names in the folder, to check no temporary file was left behind.
  std::vector<std::string> Files() const {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
      names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  std::filesystem::path dir_;
};

}  // namespace agentrt::model_fixtures
