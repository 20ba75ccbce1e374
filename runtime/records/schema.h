// runtime/records/schema.h
//
// agentrt's tables (docs/formats/database.md): runs, steps, approvals, model calls, tool specs
// and the events the store chains, as the forward-only migrations that make them
// (runtime/store/schema.h). The records layer owns them with the statements that read and write
// them (rows.h), so a change to a table is made here alone; the store applies them.
//
// Every agentrt database is opened through these functions. A released migration is never
// edited (a test pins each one's hash); a change is a new migration at the end.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/store/schema.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"

namespace agentrt::records {

// The migrations, 1 to the current version.
store::Schema Migrations();

// The schema of the database `path` names: Migrations() for a SQLite file, the server's
// (runtime/records/postgres/schema.h) for a PostgreSQL URL, numbered alike.
store::Schema SchemaFor(std::string_view path);

// store::Store::Open, OpenExisting and OpenInMemory with agentrt's tables (their contracts):
// `path` is a SQLite file or a PostgreSQL URL (store::IsServerUrl).
absl::StatusOr<std::unique_ptr<store::Store>> OpenStore(const std::string& path,
                                                        const world::Clock& clock,
                                                        store::StoreOptions options = {});
absl::StatusOr<std::unique_ptr<store::Store>> OpenExistingStore(const std::string& path,
                                                                bool read_only);
absl::StatusOr<std::unique_ptr<store::Store>> OpenStoreInMemory(const world::Clock& clock);

}  // namespace agentrt::records
