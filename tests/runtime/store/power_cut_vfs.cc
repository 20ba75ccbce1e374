#include "tests/runtime/store/power_cut_vfs.h"

#include <sqlite3.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>

#include "absl/strings/str_cat.h"

namespace agentrt::testing {

// The file SQLite holds: our header, then the default VFS's own file (szOsFile bytes).
struct PowerCutVfs::File {
  sqlite3_file base;  // first: SQLite reads pMethods from here
  PowerCutVfs* owner;
  sqlite3_file* real;
  std::string path;  // "" for a temporary file (never kept)
};

namespace {

using File = PowerCutVfs::File;

File* Of(sqlite3_file* f) { return reinterpret_cast<File*>(f); }
sqlite3_file* Real(sqlite3_file* f) { return Of(f)->real; }

// What a file holds now, read through the default VFS's handle.
std::string Contents(sqlite3_file* real) {
  sqlite3_int64 size = 0;
  if (real->pMethods->xFileSize(real, &size) != SQLITE_OK || size <= 0) return "";
  std::string bytes(static_cast<std::size_t>(size), '\0');
  if (real->pMethods->xRead(real, bytes.data(), static_cast<int>(size), 0) != SQLITE_OK) {
    return "";
  }
  return bytes;
}

}  // namespace

// The io methods: everything passes through; writes are counted (and may be a power cut),
// syncs make a file's contents durable.
class PowerCutIo {
 public:
  static int Close(sqlite3_file* f) {
    File* file = Of(f);
    int rc = file->real->pMethods->xClose(file->real);
    file->~File();
    return rc;
  }
  static int Read(sqlite3_file* f, void* out, int n, sqlite3_int64 offset) {
    return Real(f)->pMethods->xRead(Real(f), out, n, offset);
  }
  static int Write(sqlite3_file* f, const void* in, int n, sqlite3_int64 offset) {
    File* file = Of(f);
    if (!file->path.empty()) {
      int index = ++file->owner->writes_;
      if (file->owner->on_write_) file->owner->on_write_(index);
    }
    return file->real->pMethods->xWrite(file->real, in, n, offset);
  }
  static int Truncate(sqlite3_file* f, sqlite3_int64 size) {
    return Real(f)->pMethods->xTruncate(Real(f), size);
  }
  static int Sync(sqlite3_file* f, int flags) {
    File* file = Of(f);
    int rc = file->real->pMethods->xSync(file->real, flags);
    if (rc == SQLITE_OK && !file->path.empty()) {
      file->owner->durable_[file->path] = Contents(file->real);
      file->owner->Synced(file->path);
    }
    return rc;
  }
  static int FileSize(sqlite3_file* f, sqlite3_int64* size) {
    return Real(f)->pMethods->xFileSize(Real(f), size);
  }
  static int Lock(sqlite3_file* f, int level) { return Real(f)->pMethods->xLock(Real(f), level); }
  static int Unlock(sqlite3_file* f, int level) {
    return Real(f)->pMethods->xUnlock(Real(f), level);
  }
  static int CheckReservedLock(sqlite3_file* f, int* out) {
    return Real(f)->pMethods->xCheckReservedLock(Real(f), out);
  }
  static int FileControl(sqlite3_file* f, int op, void* arg) {
    return Real(f)->pMethods->xFileControl(Real(f), op, arg);
  }
  static int SectorSize(sqlite3_file* f) { return Real(f)->pMethods->xSectorSize(Real(f)); }
  static int DeviceCharacteristics(sqlite3_file* f) {
    return Real(f)->pMethods->xDeviceCharacteristics(Real(f));
  }
  static int ShmMap(sqlite3_file* f, int region, int size, int extend, void volatile** out) {
    return Real(f)->pMethods->xShmMap(Real(f), region, size, extend, out);
  }
  static int ShmLock(sqlite3_file* f, int offset, int n, int flags) {
    return Real(f)->pMethods->xShmLock(Real(f), offset, n, flags);
  }
  static void ShmBarrier(sqlite3_file* f) { Real(f)->pMethods->xShmBarrier(Real(f)); }
  static int ShmUnmap(sqlite3_file* f, int delete_flag) {
    return Real(f)->pMethods->xShmUnmap(Real(f), delete_flag);
  }
  static int Fetch(sqlite3_file* f, sqlite3_int64 offset, int n, void** out) {
    return Real(f)->pMethods->xFetch(Real(f), offset, n, out);
  }
  static int Unfetch(sqlite3_file* f, sqlite3_int64 offset, void* p) {
    return Real(f)->pMethods->xUnfetch(Real(f), offset, p);
  }

  static const sqlite3_io_methods kMethods;
};

const sqlite3_io_methods PowerCutIo::kMethods = {
    3,
    Close,
    Read,
    Write,
    Truncate,
    Sync,
    FileSize,
    Lock,
    Unlock,
    CheckReservedLock,
    FileControl,
    SectorSize,
    DeviceCharacteristics,
    ShmMap,
    ShmLock,
    ShmBarrier,
    ShmUnmap,
    Fetch,
    Unfetch,
};

PowerCutVfs::PowerCutVfs(std::string name) : name_(std::move(name)) {}

absl::StatusOr<std::unique_ptr<PowerCutVfs>> PowerCutVfs::Register(const std::string& name) {
  std::unique_ptr<PowerCutVfs> v(new PowerCutVfs(name));
  v->base_ = sqlite3_vfs_find(nullptr);
  if (v->base_ == nullptr) return absl::InternalError("SQLite has no default VFS");
  v->vfs_ = std::make_unique<sqlite3_vfs>(*v->base_);
  v->vfs_->iVersion = 1;  // only the calls below are ours; the rest come from the base
  v->vfs_->szOsFile = static_cast<int>(sizeof(File)) + v->base_->szOsFile;
  v->vfs_->pNext = nullptr;
  v->vfs_->zName = v->name_.c_str();
  v->vfs_->pAppData = v.get();
  v->vfs_->xOpen = &PowerCutVfs::Open;
  v->vfs_->xDelete = &PowerCutVfs::Delete;
  if (int rc = sqlite3_vfs_register(v->vfs_.get(), /*makeDflt=*/0); rc != SQLITE_OK) {
    return absl::InternalError(absl::StrCat("cannot register VFS ", name, ": ", rc));
  }
  return v;
}

PowerCutVfs::~PowerCutVfs() { sqlite3_vfs_unregister(vfs_.get()); }

int PowerCutVfs::Open(sqlite3_vfs* vfs, const char* name, sqlite3_file* file, int flags,
                      int* out_flags) {
  auto* self = static_cast<PowerCutVfs*>(vfs->pAppData);
  File* f = new (file) File{};
  f->owner = self;
  // The default VFS's file lives right after ours, aligned as SQLite aligns its own.
  f->real = reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(f) + sizeof(File));
  f->path = name == nullptr ? "" : name;
  int rc = self->base_->xOpen(self->base_, name, f->real, flags, out_flags);
  if (rc != SQLITE_OK) {
    f->~File();
    file->pMethods = nullptr;  // SQLite closes nothing that did not open
    return rc;
  }
  f->base.pMethods = &PowerCutIo::kMethods;
  return SQLITE_OK;
}

int PowerCutVfs::Delete(sqlite3_vfs* vfs, const char* name, int sync_dir) {
  auto* self = static_cast<PowerCutVfs*>(vfs->pAppData);
  int rc = self->base_->xDelete(self->base_, name, sync_dir);
  if (rc == SQLITE_OK && name != nullptr) self->durable_.erase(name);
  return rc;
}

void PowerCutVfs::Synced(const std::string& path) {
  ++syncs_;
  if (on_sync_) on_sync_(path);
}

absl::Status PowerCutVfs::SaveDurable(const std::string& dir) const {
  std::filesystem::create_directories(dir);
  for (const auto& [path, contents] : durable_) {
    if (!contents.has_value()) continue;
    std::string target = (std::filesystem::path(dir) / std::filesystem::path(path).filename());
    std::ofstream out(target, std::ios::binary | std::ios::trunc);
    out.write(contents->data(), static_cast<std::streamsize>(contents->size()));
    if (!out) return absl::InternalError(absl::StrCat("cannot write ", target));
  }
  return absl::OkStatus();
}

}  // namespace agentrt::testing
