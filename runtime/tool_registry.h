// runtime/tool_registry.h
//
// The tools a driver may call, checked at registration: a usable, unique name (1 to 128 of
// A-Z a-z 0-9 _ - .), a side-effect class, a positive timeout and an input schema that
// compiles under agentrt::schema's self-contained rules. Each spec is recorded by the hash of
// its canonical JSON, so a tool whose description, schema, class, timeout or terminal flag
// changes is a different spec (and any approval granted for the old one no longer applies).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "runtime/schema/schema.h"
#include "runtime/tool.h"

namespace agentrt {

struct RecordedSpec {
  ToolSpec spec;     // as the tool gave it, but for input_schema, which is canonical JSON
  std::string json;  // canonical JSON of the spec (stored in tool_specs)
  std::string hash;  // lowercase hex SHA-256 of json
  std::shared_ptr<const schema::Schema> schema;
};

// SpecJson is the spec's canonical JSON: what is stored, hashed and shown to a model. Errors
// when the schema is not JSON.
absl::StatusOr<std::string> SpecJson(const ToolSpec& spec);

// RecordSpec checks `spec` (name, schema, timeout) and compiles its schema. Errors:
// InvalidArgument naming the tool and what is wrong.
absl::StatusOr<RecordedSpec> RecordSpec(const ToolSpec& spec);

// CheckArgs is the driver's acceptance of a tool call's arguments, exactly: blank arguments are
// checked as {}, then strict JSON intake, then the spec's compiled schema. OK when the driver
// would accept them; otherwise InvalidArgument whose message is the text the agent is shown
// ("arguments are not usable JSON: ..." or "arguments do not match schema: ...").
absl::Status CheckArgs(const RecordedSpec& spec, std::string_view args);

// SpecCache remembers RecordSpec's answer for each spec as given (every field, exactly), so the
// loads and drivers of one process that see the same spec compile its schema, canonicalize and
// hash it once: an MCP load checking a tool (mcp::LoadOptions::specs), then each driver
// registering it (DriverOptions::specs), then a restarted driver registering it again. What
// Record returns is what RecordSpec would; a refused spec is refused with the same error each
// time (it is not kept). Thread-safe. It only grows: hold one for a bounded set of specs (a
// configuration, a simulated play), not for a server's lifetime of changing listings.
class SpecCache {
 public:
  absl::StatusOr<std::shared_ptr<const RecordedSpec>> Record(const ToolSpec& spec);
  std::size_t size() const;

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<const RecordedSpec>, std::less<>> by_raw_
      ABSL_GUARDED_BY(mu_);
};

class ToolRegistry {
 public:
  // Create checks every tool; refuses duplicates and anything RecordSpec refuses. With a
  // `cache` (not owned; it must outlive the registry), specs are recorded through it, here and
  // by Current.
  static absl::StatusOr<ToolRegistry> Create(const std::vector<Tool*>& tools,
                                             SpecCache* cache = nullptr);

  Tool* Find(std::string_view name) const;
  // Specs as registered, sorted by name.
  const std::vector<RecordedSpec>& specs() const { return specs_; }
  // Current returns the recorded form of the tool's spec as it is now (Spec() is asked
  // again; a changed spec is compiled once and kept).
  absl::StatusOr<const RecordedSpec*> Current(Tool* tool);

 private:
  // RecordSpec(spec), through cache_ when there is one.
  absl::StatusOr<std::shared_ptr<const RecordedSpec>> Record(const ToolSpec& spec);

  SpecCache* cache_ = nullptr;
  std::map<std::string, Tool*, std::less<>> tools_;
  std::vector<RecordedSpec> specs_;
  std::map<std::string, std::shared_ptr<const RecordedSpec>, std::less<>> by_json_;
  std::map<std::string, const RecordedSpec*, std::less<>> by_raw_;  // spec as given -> recorded
};

}  // namespace agentrt
