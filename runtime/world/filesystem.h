// runtime/world/filesystem.h
//
// Files, injected: the operator's files (manifests, rules, configurations), cassettes and the
// checks a store makes on its database's path are read, written and examined through a
// Filesystem, one interface for every file operation. So a test hands in a filesystem in
// memory, or one that fails where it chooses, and a simulation decides what is on disk.
// world::RealFilesystem (real_filesystem.h) is the operating system's.
//
// What every Filesystem promises (fakes must not be laxer):
//  - ReadOwned reads an operator's file only when nobody else could have written it: a regular
//    file, not writable by group or others, owned by user(); the checks hold for the bytes read
//    (the real one checks the opened file, so a rename in between cannot swap them); ReadPrivate
//    also refuses a file its group or others may read (a secret), on the same terms;
//  - WriteAtomically leaves the old contents or the new, never a mix, mode 0600;
//  - Lstat never follows a symbolic link, so a caller that refuses links (the store) sees one;
//  - CreateAppendable makes only a new name (never through a link, never over a file), mode
//    0600, and its name survives a power loss; what Append returned for survives this process
//    crashing, what Sync returned for survives the machine crashing.
// Errors name the path: NotFound when nothing is there, PermissionDenied when it may not be
// reached, OutOfRange for a file over the caller's limit, InvalidArgument otherwise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace agentrt::world {

// The bound on a file whose form sets none of its own (an operator's configuration, rules, a
// manifest, a cassette): 256 MiB.
inline constexpr std::size_t kDefaultMaxFileBytes = std::size_t{256} << 20;

// What Stat and Lstat say of a name.
struct FileInfo {
  enum class Type { kRegular, kDirectory, kSymlink, kOther };
  Type type = Type::kOther;
  std::uint64_t size = 0;
  std::uint32_t mode = 0;   // the permission bits (0777 at most)
  std::uint32_t owner = 0;  // the owner's user id
  // Which file it is: two names with the same device and inode name one file (0 and 0 when the
  // filesystem has no such notion: then no two names are known to be one).
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  bool SameFile(const FileInfo& other) const {
    return inode != 0 && device == other.device && inode == other.inode;
  }
  bool operator==(const FileInfo&) const = default;
};

// A file that only grows (a cassette as it is recorded): Filesystem::CreateAppendable and
// OpenAppendable hand one out. Errors name the file; after a failed Append the file may end
// with part of the bytes (a reader tells a torn end from data).
class AppendableFile {
 public:
  virtual ~AppendableFile() = default;
  virtual absl::Status Append(std::string_view bytes) = 0;
  virtual absl::Status Sync() = 0;
};

class Filesystem {
 public:
  virtual ~Filesystem() = default;

  // ReadFile returns the bytes of the file at `path`, following a symbolic link. Errors:
  // `open <path>: <reason>`; OutOfRange when it holds more than `max_bytes`.
  virtual absl::StatusOr<std::string> ReadFile(const std::string& path, std::size_t max_bytes) = 0;

  // ReadOwned is ReadFile for an operator's file (base/owned_file.h has the messages): also
  // InvalidArgument `<path> is not a regular file`, FailedPrecondition for a file its group or
  // others may write, or that user() does not own.
  virtual absl::StatusOr<std::string> ReadOwned(const std::string& path, std::size_t max_bytes) = 0;

  // ReadPrivate is ReadOwned for a secret (a key, a token): the file must not be readable by
  // group or others either, checked on the opened file like the rest (base/owned_file.h's
  // OwnedRead::kOwnerOnly message).
  virtual absl::StatusOr<std::string> ReadPrivate(const std::string& path,
                                                  std::size_t max_bytes) = 0;

  // WriteAtomically replaces (or creates) the file at `path` with `bytes`, mode 0600; errors
  // name `what` ("manifest") and the path, and leave the file as it was.
  virtual absl::Status WriteAtomically(const std::string& path, std::string_view bytes,
                                       std::string_view what) = 0;

  // CreateAppendable makes a new, empty file at `path`, mode 0600, to append to: AlreadyExists
  // when the name exists (a symbolic link, even a dangling one, included: what a link points to
  // is never created). OpenAppendable appends to an existing file (NotFound when there is
  // none). Errors name `what` ("cassette") and the path.
  virtual absl::StatusOr<std::unique_ptr<AppendableFile>> CreateAppendable(
      const std::string& path, std::string_view what) = 0;
  virtual absl::StatusOr<std::unique_ptr<AppendableFile>> OpenAppendable(const std::string& path,
                                                                         std::string_view what) = 0;
  // WriteNew makes a new file holding `bytes`, synced: CreateAppendable's refusals (AlreadyExists
  // when the name exists, which is left as it was), then the write's and the sync's errors.
  absl::Status WriteNew(const std::string& path, std::string_view bytes, std::string_view what) {
    absl::StatusOr<std::unique_ptr<AppendableFile>> file = CreateAppendable(path, what);
    if (!file.ok()) return file.status();
    if (absl::Status appended = (*file)->Append(bytes); !appended.ok()) return appended;
    return (*file)->Sync();
  }

  // Stat describes what `path` names, following symbolic links; Lstat describes the name
  // itself (a link is kSymlink). NotFound when nothing is there.
  virtual absl::StatusOr<FileInfo> Stat(const std::string& path) = 0;
  virtual absl::StatusOr<FileInfo> Lstat(const std::string& path) = 0;

  // List is the names in the folder `path`, sorted, without "." and "..".
  virtual absl::StatusOr<std::vector<std::string>> List(const std::string& path) = 0;

  // SetMode sets the permission bits of the file at `path` (following a link: a caller that
  // refuses links has refused it with Lstat first).
  virtual absl::Status SetMode(const std::string& path, std::uint32_t mode) = 0;

  // The user this process acts as: the owner an operator's file must have.
  virtual std::uint32_t user() const = 0;
};

// FilesystemWrapper forwards every call to a target filesystem, so a filesystem that changes
// one call (fails it, records it) overrides only that one (clock.h's ClockWrapper says why).
// The target is not owned and must outlive this.
class FilesystemWrapper : public Filesystem {
 public:
  explicit FilesystemWrapper(Filesystem& target) : target_(target) {}
  Filesystem& target() const { return target_; }

  absl::StatusOr<std::string> ReadFile(const std::string& path, std::size_t max_bytes) override {
    return target_.ReadFile(path, max_bytes);
  }
  absl::StatusOr<std::string> ReadPrivate(const std::string& path, std::size_t max_bytes) override {
    return target_.ReadPrivate(path, max_bytes);
  }
  absl::StatusOr<std::string> ReadOwned(const std::string& path, std::size_t max_bytes) override {
    return target_.ReadOwned(path, max_bytes);
  }
  absl::Status WriteAtomically(const std::string& path, std::string_view bytes,
                               std::string_view what) override {
    return target_.WriteAtomically(path, bytes, what);
  }
  absl::StatusOr<std::unique_ptr<AppendableFile>> CreateAppendable(const std::string& path,
                                                                   std::string_view what) override {
    return target_.CreateAppendable(path, what);
  }
  absl::StatusOr<std::unique_ptr<AppendableFile>> OpenAppendable(const std::string& path,
                                                                 std::string_view what) override {
    return target_.OpenAppendable(path, what);
  }
  absl::StatusOr<FileInfo> Stat(const std::string& path) override { return target_.Stat(path); }
  absl::StatusOr<FileInfo> Lstat(const std::string& path) override { return target_.Lstat(path); }
  absl::StatusOr<std::vector<std::string>> List(const std::string& path) override {
    return target_.List(path);
  }
  absl::Status SetMode(const std::string& path, std::uint32_t mode) override {
    return target_.SetMode(path, mode);
  }
  std::uint32_t user() const override { return target_.user(); }

 private:
  Filesystem& target_;
};

}  // namespace agentrt::world
