#include "mcp/tool_names.h"

#include <utility>

namespace agentrt::mcp {

const ToolNames::Holder* ToolNames::Find(std::string_view name) const {
  auto held = held_.find(name);
  return held == held_.end() ? nullptr : &held->second;
}

void ToolNames::Hold(std::string name, Holder holder) {
  held_.emplace(std::move(name), std::move(holder));
}

}  // namespace agentrt::mcp
