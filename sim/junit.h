// sim/junit.h
//
// JUnit XML, the report a CI shows as tests (`agentrt sim run --junit`, `sim swarm --junit`,
// `sim merge --junit`). Every text is sanitized (json/sanitize.h: no control characters, valid
// UTF-8) and escaped, so what a hostile server chose cannot break the document or a log viewer.
// Pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace agentrt::sim {

struct JunitCase {
  std::string classname;
  std::string name;
  std::string file;     // "" leaves the attribute out
  std::string text;     // shown as the case's output (<system-out>); "" for none
  std::string failure;  // the failure's message; "" when the case passed
  double seconds = 0;
};

// XmlText is `text` sanitized and escaped for an attribute or element of XML.
std::string XmlText(std::string_view text);

// JunitXml is one <testsuite> named `suite` holding `cases`, its time `seconds`.
std::string JunitXml(std::string_view suite, const std::vector<JunitCase>& cases, double seconds);

}  // namespace agentrt::sim
