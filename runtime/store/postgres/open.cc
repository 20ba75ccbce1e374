// Store::OpenOnServer: a store whose database is on a PostgreSQL server (store.h,
// internal/postgres.h).
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"
#include "runtime/store/internal/postgres.h"
#include "runtime/store/store.h"

namespace agentrt::store {

bool IsServerUrl(std::string_view path) {
  return path.starts_with("postgres://") || path.starts_with("postgresql://");
}

absl::StatusOr<std::unique_ptr<Store>> Store::OpenOnServer(const std::string& url,
                                                           const world::Clock* clock, Schema schema,
                                                           const StoreOptions& options,
                                                           bool read_only) {
  AGENTRT_ASSIGN_OR_RETURN(
      std::unique_ptr<internal::PostgresConnection> connection,
      internal::PostgresConnection::Open(url, read_only, options.durability == Durability::kFull));
  std::unique_ptr<Store> store(new Store(std::move(connection), RedactedUrl(url), read_only));
  AGENTRT_RETURN_IF_ERROR(store->CheckSchema());
  if (clock != nullptr) AGENTRT_RETURN_IF_ERROR(store->Migrate(*clock, schema));
  AGENTRT_RETURN_IF_ERROR(store->NoteHighWater());
  return store;
}

std::string RedactedUrl(std::string_view url) {
  std::string out(url);
  // scheme://user:password@host... -> scheme://user:***@host...
  std::size_t scheme = out.find("://");
  if (scheme == std::string::npos) return out;
  std::size_t start = scheme + 3;
  std::size_t at = out.find('@', start);
  std::size_t slash = out.find('/', start);
  std::size_t colon = out.find(':', start);
  if (at != std::string::npos && (slash == std::string::npos || at < slash) &&
      colon != std::string::npos && colon < at) {
    out.replace(colon + 1, at - colon - 1, "***");
  }
  // ...?password=secret&... -> ...?password=***&...
  std::size_t query = out.find('?');
  for (std::size_t p = query; p != std::string::npos && p < out.size(); p = out.find('&', p + 1)) {
    std::string_view rest = std::string_view(out).substr(p + 1);
    if (!rest.starts_with("password=")) continue;
    std::size_t value = p + 1 + 9;
    std::size_t end = out.find('&', value);
    out.replace(value, (end == std::string::npos ? out.size() : end) - value, "***");
  }
  return out;
}

absl::StatusOr<std::string> CreateServerSchema(const std::string& url, std::string_view schema) {
  bool valid = !schema.empty() && schema.size() <= 63 && !absl::ascii_isdigit(schema[0]);
  for (char c : schema) valid &= absl::ascii_islower(c) || absl::ascii_isdigit(c) || c == '_';
  if (!valid) {
    return absl::InvalidArgumentError(
        absl::StrCat("schema \"", json::Sanitize(schema),
                     "\" is not [a-z_][a-z0-9_]* of at most 63 characters"));
  }
  if (!IsServerUrl(url)) {
    return absl::InvalidArgumentError(
        absl::StrCat(RedactedUrl(url), " is not a PostgreSQL URL (postgres://...)"));
  }
  AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<internal::PostgresConnection> connection,
                           internal::PostgresConnection::Open(url, /*read_only=*/false,
                                                              /*full=*/true));
  absl::Status made = connection->ExecScript(absl::StrCat("CREATE SCHEMA ", ToAbsl(schema)));
  if (!made.ok()) {
    return absl::Status(made.code(),
                        absl::StrCat("database ", RedactedUrl(url), ": ", made.message()));
  }
  return absl::StrCat(url, url.find('?') == std::string::npos ? "?" : "&",
                      "options=-csearch_path%3D", ToAbsl(schema));
}

}  // namespace agentrt::store
