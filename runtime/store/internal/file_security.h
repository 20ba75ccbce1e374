// runtime/store/internal/file_security.h
//
// The rules a database file and its WAL and shared-memory sidecars must meet before agentrt
// trusts them, since anyone who can write them can rewrite the audit log.
#pragma once

#include <string>

#include "absl/status/status.h"

namespace agentrt::store {

// CreateIfMissing creates `path` empty with mode 0600 (O_EXCL; losing a race to another
// creator is fine). A name that exists, a symbolic link included, is left as it is: nothing is
// ever created where a link points.
absl::Status CreateIfMissing(const std::string& path);

// SecureFiles checks `path` and any existing `-wal`/`-shm` by name, without ever opening them
// (closing a descriptor would drop this process's SQLite locks on the file): each must be a
// regular file, not a symbolic link, not writable by group or others, and the sidecars owned by
// the database's owner. What SQLite then opens is the same file or nothing: it is opened with
// SQLITE_OPEN_NOFOLLOW (sqlite.h). A `writer` tightens a file readable by group or others to 0600.
// Errors: NotFound when the database does not exist; PermissionDenied naming the file and the
// reason (a symbolic link: "name the database file itself"; a mode: the command that fixes it).
absl::Status SecureFiles(const std::string& path, bool writer);

}  // namespace agentrt::store
