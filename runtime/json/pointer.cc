#include "runtime/json/pointer.h"

namespace agentrt::json {

void AppendPointerToken(std::string_view token, std::string& out) {
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
}

}  // namespace agentrt::json
