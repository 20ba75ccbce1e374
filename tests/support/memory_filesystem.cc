#include "tests/support/memory_filesystem.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/base/owned_file.h"
#include "runtime/base/string_view.h"

namespace agentrt::test_support {
namespace {

using Type = world::FileInfo::Type;

// The folder a path is in ("" for a name without one).
std::string FolderOf(const std::string& path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

}  // namespace

void MemoryFilesystem::AddFile(const std::string& path, std::string bytes, std::uint32_t mode) {
  AddFile(path, std::move(bytes), mode, user_);
}

void MemoryFilesystem::AddFile(const std::string& path, std::string bytes, std::uint32_t mode,
                               std::uint32_t owner) {
  absl::MutexLock lock(&mu_);
  nodes_[path] = Node{Type::kRegular, std::move(bytes), mode & 0777, owner};
}

void MemoryFilesystem::AddFolder(const std::string& path) {
  absl::MutexLock lock(&mu_);
  nodes_[path] = Node{Type::kDirectory, "", 0700, user_};
}

void MemoryFilesystem::AddLink(const std::string& path, const std::string& target) {
  absl::MutexLock lock(&mu_);
  nodes_[path] = Node{Type::kSymlink, target, 0777, user_};
}

void MemoryFilesystem::Fail(const std::string& path, absl::Status status) {
  absl::MutexLock lock(&mu_);
  if (status.ok()) {
    failures_.erase(path);
  } else {
    failures_[path] = std::move(status);
  }
}

absl::Status MemoryFilesystem::Planted(const std::string& path) {
  auto it = failures_.find(path);
  return it == failures_.end() ? absl::OkStatus() : it->second;
}

absl::StatusOr<MemoryFilesystem::Node*> MemoryFilesystem::Find(const std::string& path, bool follow,
                                                               std::string_view op) {
  if (absl::Status s = Planted(path); !s.ok()) return s;
  std::string name = path;
  for (int hops = 0; hops < 40; ++hops) {
    auto it = nodes_.find(name);
    if (it == nodes_.end()) {
      return absl::NotFoundError(
          absl::StrCat(ToAbsl(op), " ", path, ": No such file or directory"));
    }
    if (!follow || it->second.type != Type::kSymlink) return &it->second;
    name = it->second.bytes;
  }
  return absl::InvalidArgumentError(
      absl::StrCat(ToAbsl(op), " ", path, ": Too many levels of symbolic links"));
}

absl::StatusOr<std::string> MemoryFilesystem::ReadFile(const std::string& path,
                                                       std::size_t max_bytes) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Node*> node = Find(path, /*follow=*/true, "open");
  if (!node.ok()) return node.status();
  if ((*node)->type == Type::kDirectory) {
    return absl::InvalidArgumentError(absl::StrCat("read ", path, ": Is a directory"));
  }
  if ((*node)->bytes.size() > max_bytes) {
    return absl::OutOfRangeError(
        absl::StrCat("read ", path, ": larger than the limit of ", max_bytes, " bytes"));
  }
  return (*node)->bytes;
}

absl::StatusOr<std::string> MemoryFilesystem::ReadOwned(const std::string& path,
                                                        std::size_t max_bytes) {
  {
    absl::MutexLock lock(&mu_);
    absl::StatusOr<Node*> node = Find(path, /*follow=*/true, "open");
    if (!node.ok()) return node.status();
    const Node& n = **node;
    if (n.type != Type::kRegular) {
      return absl::InvalidArgumentError(absl::StrCat(path, " is not a regular file"));
    }
    if ((n.mode & 022) != 0) {
      return absl::FailedPreconditionError(
          absl::StrCat(path, " has mode ", FileModeString(n.mode),
                       ", which lets its group or others write it: chmod go-w it"));
    }
    if (n.owner != user_) {
      return absl::FailedPreconditionError(absl::StrCat(path, " (mode ", FileModeString(n.mode),
                                                        ") is owned by uid ", n.owner,
                                                        ", not by the current user"));
    }
  }
  return ReadFile(path, max_bytes);
}

absl::StatusOr<std::string> MemoryFilesystem::ReadPrivate(const std::string& path,
                                                          std::size_t max_bytes) {
  {
    absl::MutexLock lock(&mu_);
    absl::StatusOr<Node*> node = Find(path, /*follow=*/true, "open");
    if (!node.ok()) return node.status();
    // Checked after what ReadOwned checks first (the real one's order): write bits, then read.
    if ((**node).type == Type::kRegular && ((**node).mode & 022) == 0 &&
        ((**node).mode & 077) != 0) {
      return absl::FailedPreconditionError(
          absl::StrCat(path, " has mode ", FileModeString((**node).mode),
                       ", which lets its group or others read it: chmod 600 it"));
    }
  }
  return ReadOwned(path, max_bytes);
}

absl::Status MemoryFilesystem::FolderOfExists(const std::string& path, std::string_view what,
                                              std::string_view op) {
  std::string folder = FolderOf(path);
  if (folder.empty()) return absl::OkStatus();
  auto it = nodes_.find(folder);
  if (it == nodes_.end() || it->second.type != Type::kDirectory) {
    return absl::NotFoundError(
        absl::StrCat(ToAbsl(what), " ", path, ": ", ToAbsl(op), ": No such file or directory"));
  }
  return absl::OkStatus();
}

absl::Status MemoryFilesystem::WriteAtomically(const std::string& path, std::string_view bytes,
                                               std::string_view what) {
  absl::MutexLock lock(&mu_);
  if (absl::Status s = Planted(path); !s.ok()) return s;
  if (absl::Status s = FolderOfExists(path, what, "create a temporary file"); !s.ok()) return s;
  nodes_[path] = Node{Type::kRegular, std::string(bytes), 0600, user_};
  return absl::OkStatus();
}

// Appends through the filesystem by name, so a failure planted on the path after the file was
// opened fails its appends and syncs too, and a file removed under it is NotFound.
class MemoryFilesystem::Appendable final : public world::AppendableFile {
 public:
  Appendable(MemoryFilesystem& fs, std::string path) : fs_(fs), path_(std::move(path)) {}
  absl::Status Append(std::string_view bytes) override { return fs_.AppendTo(path_, bytes); }
  absl::Status Sync() override { return fs_.AppendTo(path_, ""); }

 private:
  MemoryFilesystem& fs_;
  const std::string path_;
};

absl::Status MemoryFilesystem::AppendTo(const std::string& path, std::string_view bytes) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Node*> node = Find(path, /*follow=*/true, "append to");
  if (!node.ok()) return node.status();
  (*node)->bytes.append(bytes);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<world::AppendableFile>> MemoryFilesystem::CreateAppendable(
    const std::string& path, std::string_view what) {
  absl::MutexLock lock(&mu_);
  if (absl::Status s = Planted(path); !s.ok()) return s;
  if (nodes_.contains(path)) {
    return absl::AlreadyExistsError(absl::StrCat(ToAbsl(what), " ", path, ": create: File exists"));
  }
  if (absl::Status s = FolderOfExists(path, what, "create"); !s.ok()) return s;
  nodes_[path] = Node{Type::kRegular, "", 0600, user_};
  return std::make_unique<Appendable>(*this, path);
}

absl::StatusOr<std::unique_ptr<world::AppendableFile>> MemoryFilesystem::OpenAppendable(
    const std::string& path, std::string_view what) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Node*> node = Find(path, /*follow=*/true, absl::StrCat(ToAbsl(what), " open"));
  if (!node.ok()) return node.status();
  if ((*node)->type != Type::kRegular) {
    return absl::InvalidArgumentError(
        absl::StrCat(ToAbsl(what), " ", path, ": open: not a regular file"));
  }
  return std::make_unique<Appendable>(*this, path);
}

absl::StatusOr<world::FileInfo> MemoryFilesystem::Stat(const std::string& path) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Node*> node = Find(path, /*follow=*/true, "stat");
  if (!node.ok()) return node.status();
  return world::FileInfo{(*node)->type, (*node)->bytes.size(), (*node)->mode, (*node)->owner};
}

absl::StatusOr<world::FileInfo> MemoryFilesystem::Lstat(const std::string& path) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Node*> node = Find(path, /*follow=*/false, "lstat");
  if (!node.ok()) return node.status();
  return world::FileInfo{(*node)->type, (*node)->bytes.size(), (*node)->mode, (*node)->owner};
}

absl::StatusOr<std::vector<std::string>> MemoryFilesystem::List(const std::string& path) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Node*> node = Find(path, /*follow=*/true, "list");
  if (!node.ok()) return node.status();
  if ((*node)->type != Type::kDirectory) {
    return absl::InvalidArgumentError(absl::StrCat("list ", path, ": Not a directory"));
  }
  std::vector<std::string> names;  // nodes_ is sorted, so these are too
  for (const auto& [name, n] : nodes_) {
    if (name.size() > path.size() + 1 && absl::StartsWith(name, path + "/") &&
        name.find('/', path.size() + 1) == std::string::npos) {
      names.push_back(name.substr(path.size() + 1));
    }
  }
  return names;
}

absl::Status MemoryFilesystem::SetMode(const std::string& path, std::uint32_t mode) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Node*> node = Find(path, /*follow=*/true, "chmod");
  if (!node.ok()) return node.status();
  (*node)->mode = mode & 0777;
  return absl::OkStatus();
}

}  // namespace agentrt::test_support
