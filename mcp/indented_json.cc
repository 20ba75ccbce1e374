#include "mcp/indented_json.h"

namespace agentrt::mcp {

std::string IndentCanonical(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 2);
  int depth = 0;
  auto new_line = [&] {
    out.push_back('\n');
    out.append(static_cast<std::size_t>(depth) * 2, ' ');
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    switch (c) {
      case '"': {
        // Copy the string whole; inside it only an escaped quote does not end it.
        std::size_t end = i + 1;
        while (end < text.size() && text[end] != '"') end += text[end] == '\\' ? 2 : 1;
        out.append(text.substr(i, end + 1 - i));
        i = end;
        break;
      }
      case '{':
      case '[':
        out.push_back(c);
        if (i + 1 < text.size() && (text[i + 1] == '}' || text[i + 1] == ']')) {
          out.push_back(text[++i]);
        } else {
          ++depth;
          new_line();
        }
        break;
      case '}':
      case ']':
        if (depth > 0) --depth;  // only text that is not canonical JSON gets here at 0
        new_line();
        out.push_back(c);
        break;
      case ',':
        out.push_back(',');
        new_line();
        break;
      case ':':
        out.append(": ");
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

}  // namespace agentrt::mcp
