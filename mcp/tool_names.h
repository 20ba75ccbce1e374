// mcp/tool_names.h
//
// The model-visible names held by the tools of servers loaded together. A name is the server's
// name, "_" and the tool's, or the rule's `rename`, so two servers can make the same one: server
// `a_b` with tool `c` and server `a` with tool `b_c` both make `a_b_c`. The model must never see
// two tools under one name, so the tool of the later server (in configuration order) is refused,
// with a reason naming the server and tool that hold the name, as a later tool of one server is.
// Load and Classify (load.h) consult and fill it; give the same ToolNames to every load of one
// set of servers (a driver's tools, a proxy's, one `mcp check`). Not thread-safe.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace agentrt::mcp {

class ToolNames {
 public:
  struct Holder {
    std::string server;
    std::string tool;  // the server's name for it
  };

  // The holder of `name`; nullptr when it is free.
  const Holder* Find(std::string_view name) const;
  // Hold records `name` as `holder`'s; a name already held keeps its first holder.
  void Hold(std::string name, Holder holder);

 private:
  std::map<std::string, Holder, std::less<>> held_;
};

}  // namespace agentrt::mcp
