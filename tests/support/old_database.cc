#include "tests/support/old_database.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include "absl/strings/str_cat.h"
#include "runtime/records/schema.h"

namespace agentrt::test_support {

absl::Status MakeDatabaseAtVersion(const std::string& path, int version,
                                   const std::vector<std::string>& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
    sqlite3_close(db);
    return absl::InternalError(absl::StrCat("cannot create ", path));
  }
  absl::Status status;
  auto exec = [&](const std::string& statement) {
    if (!status.ok()) return;
    char* error = nullptr;
    if (sqlite3_exec(db, statement.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      status = absl::InternalError(
          absl::StrCat(error != nullptr ? error : "error", " in ", statement.substr(0, 80)));
    }
    sqlite3_free(error);
  };
  exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)");
  for (const store::Migration& m : records::Migrations()) {
    if (m.version > version) break;
    exec(std::string(m.sql));
    exec(absl::StrCat("INSERT INTO schema_migrations VALUES (", m.version,
                      ", '2026-01-01T00:00:00Z')"));
  }
  for (const std::string& statement : sql) exec(statement);
  sqlite3_close(db);
  ::chmod(path.c_str(), 0600);
  return status;
}

}  // namespace agentrt::test_support
