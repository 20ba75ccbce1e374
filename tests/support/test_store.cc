#include "tests/support/test_store.h"

#include <libpq-fe.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <stdexcept>

#include "absl/strings/str_cat.h"
#include "runtime/records/schema.h"
#include "tests/support/test_folder.h"

namespace agentrt::test_support {
std::string ServerUrl() {
  const char* url = std::getenv("AGENTRT_TEST_POSTGRES");
  return url != nullptr ? url : "";
}

bool OnTestServer() { return !ServerUrl().empty(); }

std::string NewServerDatabase() {
  std::string url = ServerUrl();
  if (url.empty()) return "";
  static std::atomic<int> next{0};
  std::string schema = absl::StrCat("t", ::getpid(), "_", next.fetch_add(1));
  PGconn* conn = PQconnectdb(url.c_str());
  bool made = false;
  if (PQstatus(conn) == CONNECTION_OK) {
    PGresult* r = PQexec(conn, absl::StrCat("CREATE SCHEMA ", schema).c_str());
    made = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
  }
  std::string error = PQerrorMessage(conn);
  PQfinish(conn);
  if (!made) throw std::runtime_error("the test server made no schema: " + error);
  return absl::StrCat(url, url.find('?') == std::string::npos ? "?" : "&",
                      "options=-csearch_path%3D", schema);
}

absl::StatusOr<std::unique_ptr<store::Store>> OpenTestStore(const world::Clock& clock) {
  if (!OnTestServer()) return records::OpenStoreInMemory(clock);
  return records::OpenStore(NewServerDatabase(), clock);
}

std::string TestDatabase(std::string_view name) {
  return OnTestServer() ? NewServerDatabase() : TestFile(name);
}

}  // namespace agentrt::test_support
