#include "runtime/base/status_macros.h"
#include "runtime/json/intake.h"
#include "runtime/schema/internal/compiler.h"
#include "runtime/schema/internal/uri.h"
#include "runtime/schema/schema.h"

namespace agentrt::schema {

Registry::Registry() = default;
Registry::~Registry() = default;
Registry::Registry(Registry&&) noexcept = default;
Registry& Registry::operator=(Registry&&) noexcept = default;

absl::Status Registry::Add(std::string_view uri, std::string_view json) {
  AGENTRT_ASSIGN_OR_RETURN(json::Document document, json::Parse(json));
  auto entry = std::make_shared<Entry>();
  entry->document = std::make_shared<const json::Document>(std::move(document));
  entries_[SplitFragment(uri).without_fragment] = std::move(entry);
  return absl::OkStatus();
}

const Registry::Entry* Registry::Find(std::string_view uri) const {
  auto it = entries_.find(uri);
  return it == entries_.end() ? nullptr : it->second.get();
}

}  // namespace agentrt::schema
