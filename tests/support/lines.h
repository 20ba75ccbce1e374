// tests/support/lines.h
//
// The lines of a program's text output, for tests that check it line by line.
#pragma once

#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace agentrt::test_support {

// Lines splits `text` at each newline. Every line of a program's output ends with one, so the
// text must end with a newline (a failure is recorded when it does not); the empty string after
// it is not a line.
inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  EXPECT_EQ(lines.back(), "") << "the output does not end with a newline";
  lines.pop_back();
  return lines;
}

}  // namespace agentrt::test_support
