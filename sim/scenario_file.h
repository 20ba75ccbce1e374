// sim/scenario_file.h
//
// Reading scenarios (sim/proto/scenario.proto, docs/formats/scenario.md) from Protobuf text
// format, strictly: a file that does not parse, names an unknown field, or holds a value the
// simulator cannot play (JSON that is not JSON, rules a rules file would refuse, a duration that
// is not one, two servers of one name, a call naming no tool, an agent with both a script and
// a model) is refused with `<file>:<line>:<column>: <field path>: <why>`. So a
// reviewer's typo is an error at the line, never a silently different scenario.
//
// A scenario is untrusted input (a reviewer plays scenarios others wrote): every size, count
// and duration it can name is bounded (scenario_limits.h), and its name, which names its
// database files, is one harmless path component (CheckScenarioName). A file past a bound is
// refused the same way, naming the field and the limit.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/world/filesystem.h"
#include "sim/proto/scenario.pb.h"

namespace agentrt::sim {

// ParseScenario parses `text`, read from `file` (the name errors give), and checks it. A
// scenario without a name gets the file's base name without its extension, checked as a
// written name is.
absl::StatusOr<v1::Scenario> ParseScenario(std::string_view text, std::string_view file);

// ReadScenario reads and parses one file, of at most kMaxScenarioFileBytes, and loads a
// provider's cassette into its exchanges (provider_cassette.h). Errors: NotFound / the read's,
// naming the file; InvalidArgument for a file past the limit; LoadProviderCassette's.
absl::StatusOr<v1::Scenario> ReadScenario(world::Filesystem& files, const std::string& path);

// CheckScenarioName: `name` can be the base of a file name in any folder, `<name>.db`, and
// nothing else: 1 to kMaxScenarioNameBytes bytes of UTF-8, with no '/', '\', "..", C0 or C1
// control character or DEL. Errors: InvalidArgument saying which rule it breaks.
absl::Status CheckScenarioName(std::string_view name);

// ScenarioFiles lists the scenarios PATHS name: a file as it is, a folder's `*.textproto`
// files (not recursively), sorted by path. Errors: NotFound for a path that does not exist,
// InvalidArgument for a folder without scenarios.
absl::StatusOr<std::vector<std::string>> ScenarioFiles(world::Filesystem& files,
                                                       const std::vector<std::string>& paths);

// ScenarioDuration is the value of a duration field ParseScenario accepted ("30s", "250ms": the
// syntax of the operator's files, mcp/duration.h); "" is zero.
absl::Duration ScenarioDuration(const std::string& text);

// ScenarioText is `scenario` in text format, as `sim shrink` writes it.
std::string ScenarioText(const v1::Scenario& scenario);

}  // namespace agentrt::sim
