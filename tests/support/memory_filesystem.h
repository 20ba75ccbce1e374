// tests/support/memory_filesystem.h
//
// A world::Filesystem in memory, for tests that hand files in without a disk: files with the
// mode and owner a test chooses (so an operator's file someone else could write is refused as
// on disk), folders, symbolic links, and failures planted by path (a disk that refuses one
// write, or every read of a file). Keeps the promises of world/filesystem.h; paths are taken as
// written (no "..", no relative resolution). Thread-safe. Test-only.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "runtime/world/filesystem.h"

namespace agentrt::test_support {

class MemoryFilesystem final : public world::Filesystem {
 public:
  // The user this filesystem's process acts as (user()), and who owns what it creates.
  explicit MemoryFilesystem(std::uint32_t user = 1000) : user_(user) {}

  // What a test puts there: a file, a folder, a link to `target` (a path, may dangle).
  void AddFile(const std::string& path, std::string bytes, std::uint32_t mode = 0600);
  void AddFile(const std::string& path, std::string bytes, std::uint32_t mode, std::uint32_t owner);
  void AddFolder(const std::string& path);
  void AddLink(const std::string& path, const std::string& target);
  // Every later call on `path` fails with `status` (until cleared with OkStatus()).
  void Fail(const std::string& path, absl::Status status);

  absl::StatusOr<std::string> ReadFile(const std::string& path, std::size_t max_bytes) override;
  absl::StatusOr<std::string> ReadOwned(const std::string& path, std::size_t max_bytes) override;
  absl::StatusOr<std::string> ReadPrivate(const std::string& path, std::size_t max_bytes) override;
  absl::Status WriteAtomically(const std::string& path, std::string_view bytes,
                               std::string_view what) override;
  absl::StatusOr<std::unique_ptr<world::AppendableFile>> CreateAppendable(
      const std::string& path, std::string_view what) override;
  absl::StatusOr<std::unique_ptr<world::AppendableFile>> OpenAppendable(
      const std::string& path, std::string_view what) override;
  absl::StatusOr<world::FileInfo> Stat(const std::string& path) override;
  absl::StatusOr<world::FileInfo> Lstat(const std::string& path) override;
  absl::StatusOr<std::vector<std::string>> List(const std::string& path) override;
  absl::Status SetMode(const std::string& path, std::uint32_t mode) override;
  std::uint32_t user() const override { return user_; }

 private:
  struct Node {
    world::FileInfo::Type type = world::FileInfo::Type::kRegular;
    std::string bytes;  // a file's contents, or a link's target
    std::uint32_t mode = 0600;
    std::uint32_t owner = 0;
  };
  // The node `path` names, following links when `follow`; NotFound naming `op` and the path.
  absl::StatusOr<Node*> Find(const std::string& path, bool follow, std::string_view op)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status Planted(const std::string& path) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // NotFound (naming `what`, the path and `op`) unless `path`'s folder is one.
  absl::Status FolderOfExists(const std::string& path, std::string_view what, std::string_view op)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Appends `bytes` to the file at `path` (an AppendableFile's Append).
  absl::Status AppendTo(const std::string& path, std::string_view bytes);
  class Appendable;

  const std::uint32_t user_;
  absl::Mutex mu_;
  std::map<std::string, Node, std::less<>> nodes_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, absl::Status, std::less<>> failures_ ABSL_GUARDED_BY(mu_);
};

}  // namespace agentrt::test_support
