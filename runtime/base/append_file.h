// runtime/base/append_file.h
//
// A file that only grows: each Append writes its bytes at the end with one series of write
// calls (no buffering in this process), so what Append returned for is in the operating system
// and survives this process crashing; Sync makes it survive the machine crashing too. The one
// way agentrt appends to a file (cassettes).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace agentrt {

class AppendFile {
 public:
  // Create makes a new file at `path`, mode 0600, refusing one that exists (AlreadyExists), and
  // syncs its folder so the new name survives a power loss. OpenExisting appends to an existing
  // file. Errors name `what` (e.g. "cassette") and `path` and the OS reason: NotFound,
  // PermissionDenied, AlreadyExists, otherwise Unavailable.
  static absl::StatusOr<std::unique_ptr<AppendFile>> Create(const std::string& path,
                                                            std::string_view what);
  static absl::StatusOr<std::unique_ptr<AppendFile>> OpenExisting(const std::string& path,
                                                                  std::string_view what);
  ~AppendFile();
  AppendFile(const AppendFile&) = delete;
  AppendFile& operator=(const AppendFile&) = delete;

  // Append writes `bytes` at the end of the file. Errors name the file and the OS reason; after
  // one the file may end with part of `bytes` (a reader must tell a torn end from data).
  absl::Status Append(std::string_view bytes);
  // Sync flushes everything appended so far to stable storage.
  absl::Status Sync();

  const std::string& path() const { return path_; }

 private:
  AppendFile(int fd, std::string path, std::string what)
      : fd_(fd), path_(std::move(path)), what_(std::move(what)) {}
  int fd_;
  std::string path_;
  std::string what_;
};

}  // namespace agentrt
