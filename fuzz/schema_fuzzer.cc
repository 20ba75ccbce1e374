// Arbitrary schema plus arbitrary instance: compiling and validating never crashes, never
// hangs (evaluation budget, depth bound, in-place cycle refusal) and never exceeds memory
// bounds; the fast and the reporting validation always agree, and reporting stays bounded.
//
// Input: schema bytes, a NUL byte, instance bytes. Without a NUL the document is validated
// against itself (so any JSON file, a metaschema included, is a useful seed).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "runtime/json/intake.h"
#include "runtime/schema/schema.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::size_t nul = bytes.find('\0');
  std::string_view schema_bytes = bytes.substr(0, nul);
  std::string_view instance_bytes = nul == std::string_view::npos ? bytes : bytes.substr(nul + 1);

  agentrt::schema::CompileOptions options;
  options.limits.max_nodes = 5'000;
  options.limits.max_evaluations_per_validation = 200'000;
  absl::StatusOr<agentrt::schema::Schema> schema =
      agentrt::schema::Schema::Compile(schema_bytes, options);
  if (!schema.ok()) return 0;
  absl::StatusOr<agentrt::json::Document> instance = agentrt::json::Parse(instance_bytes);
  if (!instance.ok()) return 0;
  bool fast = schema->IsValid(instance->root());
  agentrt::schema::ValidationResult full = schema->Validate(instance->root(), 8);
  if (fast != full.valid) std::abort();
  if (full.valid != full.errors.empty()) std::abort();
  if (full.errors.size() > 8) std::abort();
  for (const auto& e : full.errors) {
    if (e.message.size() > 300 || e.instance_location.size() > 300) std::abort();
  }
  return 0;
}
