// runtime/world/real_filesystem.h
//
// The operating system's files as a world::Filesystem, over the file helpers of runtime/base
// (bounded reads, ReadOwned's checks on the opened file, WriteFileAtomically, AppendFile). Only
// composition roots construct one. Thread-safe: no state.
#pragma once

#include "runtime/world/filesystem.h"

namespace agentrt::world {

class RealFilesystem final : public Filesystem {
 public:
  absl::StatusOr<std::string> ReadFile(const std::string& path, std::size_t max_bytes) override;
  absl::StatusOr<std::string> ReadOwned(const std::string& path, std::size_t max_bytes) override;
  absl::StatusOr<std::string> ReadPrivate(const std::string& path, std::size_t max_bytes) override;
  absl::Status WriteAtomically(const std::string& path, std::string_view bytes,
                               std::string_view what) override;
  absl::StatusOr<std::unique_ptr<AppendableFile>> CreateAppendable(const std::string& path,
                                                                   std::string_view what) override;
  absl::StatusOr<std::unique_ptr<AppendableFile>> OpenAppendable(const std::string& path,
                                                                 std::string_view what) override;
  absl::StatusOr<FileInfo> Stat(const std::string& path) override;
  absl::StatusOr<FileInfo> Lstat(const std::string& path) override;
  absl::StatusOr<std::vector<std::string>> List(const std::string& path) override;
  absl::Status SetMode(const std::string& path, std::uint32_t mode) override;
  std::uint32_t user() const override;
};

}  // namespace agentrt::world
