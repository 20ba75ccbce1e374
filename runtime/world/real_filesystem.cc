#include "runtime/world/real_filesystem.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/base/append_file.h"
#include "runtime/base/atomic_file.h"
#include "runtime/base/file_util.h"
#include "runtime/base/owned_file.h"

namespace agentrt::world {
namespace {

static_assert(kDefaultMaxFileBytes == kDefaultMaxInputBytes,
              "an operator's file has one bound, read through the world or not");

FileInfo InfoOf(const struct stat& st) {
  FileInfo info;
  if (S_ISREG(st.st_mode)) {
    info.type = FileInfo::Type::kRegular;
  } else if (S_ISDIR(st.st_mode)) {
    info.type = FileInfo::Type::kDirectory;
  } else if (S_ISLNK(st.st_mode)) {
    info.type = FileInfo::Type::kSymlink;
  }
  info.size = static_cast<std::uint64_t>(st.st_size);
  info.mode = st.st_mode & 0777;
  info.owner = st.st_uid;
  info.device = static_cast<std::uint64_t>(st.st_dev);
  info.inode = static_cast<std::uint64_t>(st.st_ino);
  return info;
}

class RealAppendable final : public AppendableFile {
 public:
  explicit RealAppendable(std::unique_ptr<AppendFile> file) : file_(std::move(file)) {}
  absl::Status Append(std::string_view bytes) override { return file_->Append(bytes); }
  absl::Status Sync() override { return file_->Sync(); }

 private:
  std::unique_ptr<AppendFile> file_;
};

absl::StatusOr<std::unique_ptr<AppendableFile>> Appendable(
    absl::StatusOr<std::unique_ptr<AppendFile>> file) {
  if (!file.ok()) return file.status();
  return std::make_unique<RealAppendable>(*std::move(file));
}

}  // namespace

absl::StatusOr<std::string> RealFilesystem::ReadFile(const std::string& path,
                                                     std::size_t max_bytes) {
  return agentrt::ReadFile(path, max_bytes);
}

absl::StatusOr<std::string> RealFilesystem::ReadOwned(const std::string& path,
                                                      std::size_t max_bytes) {
  return agentrt::ReadOwned(path, max_bytes);
}

absl::StatusOr<std::string> RealFilesystem::ReadPrivate(const std::string& path,
                                                        std::size_t max_bytes) {
  return agentrt::ReadOwned(path, max_bytes, OwnedRead::kOwnerOnly);
}

absl::Status RealFilesystem::WriteAtomically(const std::string& path, std::string_view bytes,
                                             std::string_view what) {
  return WriteFileAtomically(path, bytes, what);
}

absl::StatusOr<std::unique_ptr<AppendableFile>> RealFilesystem::CreateAppendable(
    const std::string& path, std::string_view what) {
  return Appendable(AppendFile::Create(path, what));
}

absl::StatusOr<std::unique_ptr<AppendableFile>> RealFilesystem::OpenAppendable(
    const std::string& path, std::string_view what) {
  return Appendable(AppendFile::OpenExisting(path, what));
}

absl::StatusOr<FileInfo> RealFilesystem::Stat(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return ErrnoStatus(errno, absl::StrCat("stat ", path));
  return InfoOf(st);
}

absl::StatusOr<FileInfo> RealFilesystem::Lstat(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return ErrnoStatus(errno, absl::StrCat("lstat ", path));
  return InfoOf(st);
}

absl::StatusOr<std::vector<std::string>> RealFilesystem::List(const std::string& path) {
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) return ErrnoStatus(errno, absl::StrCat("list ", path));
  std::vector<std::string> names;
  while (const struct dirent* entry = ::readdir(dir)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

absl::Status RealFilesystem::SetMode(const std::string& path, std::uint32_t mode) {
  // fchmodat with AT_SYMLINK_NOFOLLOW is not supported on Linux for links; a caller that
  // refuses links has already refused one by Lstat.
  if (::chmod(path.c_str(), mode) != 0) return ErrnoStatus(errno, absl::StrCat("chmod ", path));
  return absl::OkStatus();
}

std::uint32_t RealFilesystem::user() const { return ::geteuid(); }

}  // namespace agentrt::world
