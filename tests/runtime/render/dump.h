// One line per message, so a test can state a whole conversation as the expected text:
//   assistant: text:look first | tool_use:step_0:read:{"path":"a"}
//   user: tool_result:step_1:error:{"reason":"destructive"}
#pragma once

#include <string>
#include <vector>

#include "runtime/model.h"

namespace agentrt::render {

inline std::string DumpBlock(const ContentBlock& b) {
  if (b.type == "text") return "text:" + b.text;
  if (b.type == "tool_use") return "tool_use:" + b.tool_use_id + ":" + b.name + ":" + b.input;
  if (b.type == "tool_result") {
    return "tool_result:" + b.tool_use_id + ":" + (b.is_error ? "error:" : "") + b.content;
  }
  return b.type + ":" + b.text;
}

inline std::vector<std::string> Dump(const std::vector<Message>& messages) {
  std::vector<std::string> lines;
  for (const Message& m : messages) {
    std::string line = m.role + ": ";
    for (std::size_t i = 0; i < m.content.size(); ++i) {
      if (i > 0) line += " | ";
      line += DumpBlock(m.content[i]);
    }
    lines.push_back(line);
  }
  return lines;
}

}  // namespace agentrt::render
