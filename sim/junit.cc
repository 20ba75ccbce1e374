#include "sim/junit.h"

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"

namespace agentrt::sim {

std::string XmlText(std::string_view text) {
  std::string out;
  for (char c : json::Sanitize(text)) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string JunitXml(std::string_view suite, const std::vector<JunitCase>& cases, double seconds) {
  std::size_t failures = 0;
  for (const JunitCase& c : cases) failures += c.failure.empty() ? 0 : 1;
  std::string xml = absl::StrCat("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"",
                                 XmlText(suite), "\" tests=\"", cases.size(), "\" failures=\"",
                                 failures, "\" time=\"", seconds, "\">\n");
  for (const JunitCase& c : cases) {
    absl::StrAppend(&xml, "  <testcase classname=\"", XmlText(c.classname), "\" name=\"",
                    XmlText(c.name), "\"");
    if (!c.file.empty()) absl::StrAppend(&xml, " file=\"", XmlText(c.file), "\"");
    absl::StrAppend(&xml, " time=\"", c.seconds, "\">");
    if (!c.failure.empty()) {
      absl::StrAppend(&xml, "\n    <failure message=\"", XmlText(c.failure), "\"/>");
    }
    if (!c.text.empty()) {
      absl::StrAppend(&xml, "\n    <system-out>", XmlText(c.text), "</system-out>");
    }
    if (!c.failure.empty() || !c.text.empty()) xml += "\n  ";
    xml += "</testcase>\n";
  }
  xml += "</testsuite>\n";
  return xml;
}

}  // namespace agentrt::sim
