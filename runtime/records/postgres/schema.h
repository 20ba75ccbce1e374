// runtime/records/postgres/schema.h
//
// agentrt's tables on a PostgreSQL server: the same tables, columns, keys and indexes as the
// SQLite schema (runtime/records/schema.h), numbered the same way. records::OpenStore picks it
// for a server URL; nothing else needs it.
#pragma once

#include "runtime/store/schema.h"

namespace agentrt::records {

// The server's migrations, 1 to the current version (the same number as Migrations()).
store::Schema ServerMigrations();

}  // namespace agentrt::records
