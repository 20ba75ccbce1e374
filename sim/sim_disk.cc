#include "sim/sim_disk.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <new>

#include "absl/strings/str_cat.h"

namespace agentrt::sim {

// The file SQLite holds: its header first (SQLite reads pMethods from there), then ours.
struct SimDisk::File {
  sqlite3_file base;
  SimDisk* disk;
  std::string name;
  bool delete_on_close;
};

namespace {

// 2026-01-01T00:00:00Z as a Julian day, the instant every simulation starts at: what SQLite's
// clock says on the simulator's disk.
constexpr double kJulianStart = 2461041.5;

SimDisk::File* Of(sqlite3_file* f) { return reinterpret_cast<SimDisk::File*>(f); }

}  // namespace

struct SimDisk::Calls {
  // --- The files ---
  static int Close(sqlite3_file* f) {
    File* file = Of(f);
    file->disk->locks_.erase(file->name);
    if (file->delete_on_close) file->disk->files_.erase(file->name);
    file->~File();
    return SQLITE_OK;
  }
  static int Read(sqlite3_file* f, void* out, int n, sqlite3_int64 offset) {
    const std::string& bytes = Of(f)->disk->files_[Of(f)->name];
    auto* to = static_cast<char*>(out);
    std::size_t from = static_cast<std::size_t>(offset);
    std::size_t got = from < bytes.size() ? std::min(bytes.size() - from, std::size_t(n)) : 0;
    if (got > 0) std::memcpy(to, bytes.data() + from, got);
    if (got == static_cast<std::size_t>(n)) return SQLITE_OK;
    std::memset(to + got, 0, static_cast<std::size_t>(n) - got);  // SQLite requires the zeros
    return SQLITE_IOERR_SHORT_READ;
  }
  static int Write(sqlite3_file* f, const void* in, int n, sqlite3_int64 offset) {
    SimDisk* disk = Of(f)->disk;
    if (disk->crashed_) return SQLITE_IOERR_WRITE;
    if (disk->next_write_fails_) {
      Fault::Kind kind = *disk->next_write_fails_;
      disk->next_write_fails_.reset();
      return kind == Fault::Kind::kDiskFull ? SQLITE_FULL : SQLITE_IOERR_WRITE;
    }
    std::string& bytes = disk->files_[Of(f)->name];
    std::size_t at = static_cast<std::size_t>(offset);
    std::size_t length = static_cast<std::size_t>(n);
    if (at == bytes.size()) {  // an append (the journal's records): no zeros written first
      bytes.append(static_cast<const char*>(in), length);
      return SQLITE_OK;
    }
    if (bytes.size() < at + length) bytes.resize(at + length, '\0');
    std::memcpy(bytes.data() + at, in, length);
    return SQLITE_OK;
  }
  static int Truncate(sqlite3_file* f, sqlite3_int64 size) {
    if (Of(f)->disk->crashed_) return SQLITE_IOERR_TRUNCATE;
    std::string& bytes = Of(f)->disk->files_[Of(f)->name];
    if (bytes.size() > static_cast<std::size_t>(size)) bytes.resize(static_cast<std::size_t>(size));
    return SQLITE_OK;
  }
  static int Sync(sqlite3_file* f, int) {
    SimDisk* disk = Of(f)->disk;
    if (disk->crashed_) return SQLITE_IOERR_FSYNC;
    if (disk->next_sync_fails_) {
      disk->next_sync_fails_ = false;
      return SQLITE_IOERR_FSYNC;
    }
    if (disk->synced_) (*disk->synced_)[Of(f)->name] = disk->files_[Of(f)->name];
    return SQLITE_OK;
  }
  static int FileSize(sqlite3_file* f, sqlite3_int64* size) {
    *size = static_cast<sqlite3_int64>(Of(f)->disk->files_[Of(f)->name].size());
    return SQLITE_OK;
  }
  // One process, so a lock is only a level to remember; a crashed disk grants no write lock,
  // which is where a write transaction begins.
  static int Lock(sqlite3_file* f, int level) {
    SimDisk* disk = Of(f)->disk;
    int& held = disk->locks_[Of(f)->name];
    if (level >= SQLITE_LOCK_RESERVED && held < SQLITE_LOCK_RESERVED) {
      // A write transaction begins here.
      if (int rc = disk->BeginWrite(); rc != SQLITE_OK) return rc;
    }
    if (disk->crashed_ && level >= SQLITE_LOCK_RESERVED) return SQLITE_IOERR_LOCK;
    held = level;
    return SQLITE_OK;
  }
  static int Unlock(sqlite3_file* f, int level) {
    Of(f)->disk->locks_[Of(f)->name] = level;
    return SQLITE_OK;
  }
  static int CheckReservedLock(sqlite3_file* f, int* out) {
    *out = Of(f)->disk->locks_[Of(f)->name] >= SQLITE_LOCK_RESERVED;
    return SQLITE_OK;
  }
  static int FileControl(sqlite3_file*, int, void*) { return SQLITE_NOTFOUND; }
  static int SectorSize(sqlite3_file*) { return 4096; }
  static int DeviceCharacteristics(sqlite3_file*) {
    return SQLITE_IOCAP_POWERSAFE_OVERWRITE | SQLITE_IOCAP_SAFE_APPEND;
  }

  static constexpr sqlite3_io_methods kMethods = {1,
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
                                                  nullptr,
                                                  nullptr,
                                                  nullptr,
                                                  nullptr,
                                                  nullptr,
                                                  nullptr};

  // --- The disk ---
  static SimDisk* DiskOf(sqlite3_vfs* vfs) { return static_cast<SimDisk*>(vfs->pAppData); }

  static int Open(sqlite3_vfs* vfs, const char* name, sqlite3_file* f, int flags, int* out) {
    SimDisk* disk = DiskOf(vfs);
    std::string file_name =
        name != nullptr ? name : absl::StrCat("temporary-", ++disk->temporaries_);
    auto found = disk->files_.find(file_name);
    // As Access says: an empty file (a deleted one keeps its buffer) does not exist.
    if (found == disk->files_.end() || found->second.empty()) {
      if ((flags & SQLITE_OPEN_CREATE) == 0) {
        f->pMethods = nullptr;  // SQLite closes nothing that did not open
        return SQLITE_CANTOPEN;
      }
      if (disk->crashed_) {
        f->pMethods = nullptr;
        return SQLITE_IOERR_WRITE;
      }
      disk->files_[file_name];
    }
    new (f) File{
        {&kMethods}, disk, file_name, (flags & SQLITE_OPEN_DELETEONCLOSE) != 0 || name == nullptr};
    if (out != nullptr) *out = flags;
    return SQLITE_OK;
  }
  static int Delete(sqlite3_vfs* vfs, const char* name, int) {
    if (DiskOf(vfs)->crashed_) return SQLITE_IOERR_DELETE;
    // Emptied rather than erased, so the journal deleted at every commit keeps its buffer for
    // the next: an empty file does not exist for SQLite (Access), and is never opened without
    // being created.
    if (auto it = DiskOf(vfs)->files_.find(name); it != DiskOf(vfs)->files_.end()) {
      it->second.clear();
    }
    if (DiskOf(vfs)->synced_) DiskOf(vfs)->synced_->erase(name);
    return SQLITE_OK;
  }
  // As SQLite's own disk says: a name exists when it holds bytes (an empty journal is no
  // journal to roll back).
  static int Access(sqlite3_vfs* vfs, const char* name, int, int* out) {
    auto it = DiskOf(vfs)->files_.find(name);
    *out = it != DiskOf(vfs)->files_.end() && !it->second.empty();
    return SQLITE_OK;
  }
  static int FullPathname(sqlite3_vfs*, const char* name, int n, char* out) {
    if (static_cast<int>(std::strlen(name)) >= n) return SQLITE_CANTOPEN;
    std::strcpy(out, name);
    return SQLITE_OK;
  }
  static int Randomness(sqlite3_vfs*, int n, char* out) {
    std::memset(out, 0, static_cast<std::size_t>(n));
    return n;
  }
  static int Sleep(sqlite3_vfs*, int microseconds) { return microseconds; }
  static int CurrentTime(sqlite3_vfs*, double* now) {
    *now = kJulianStart;
    return SQLITE_OK;
  }
  static int GetLastError(sqlite3_vfs*, int, char*) { return 0; }
};

absl::StatusOr<std::unique_ptr<SimDisk>> SimDisk::Create() {
  std::unique_ptr<SimDisk> disk(new SimDisk());
  disk->name_ =
      absl::StrCat("agentrt-sim-", absl::Hex(reinterpret_cast<std::uintptr_t>(disk.get())));
  disk->vfs_ = std::make_unique<sqlite3_vfs>();
  sqlite3_vfs& vfs = *disk->vfs_;
  vfs.iVersion = 1;
  vfs.szOsFile = static_cast<int>(sizeof(File));
  vfs.mxPathname = 1024;
  vfs.zName = disk->name_.c_str();
  vfs.pAppData = disk.get();
  vfs.xOpen = &Calls::Open;
  vfs.xDelete = &Calls::Delete;
  vfs.xAccess = &Calls::Access;
  vfs.xFullPathname = &Calls::FullPathname;
  vfs.xRandomness = &Calls::Randomness;
  vfs.xSleep = &Calls::Sleep;
  vfs.xCurrentTime = &Calls::CurrentTime;
  vfs.xGetLastError = &Calls::GetLastError;
  if (int rc = sqlite3_vfs_register(&vfs, /*makeDflt=*/0); rc != SQLITE_OK) {
    return absl::InternalError(absl::StrCat("cannot register the simulator's disk: ", rc));
  }
  return disk;
}

SimDisk::~SimDisk() { sqlite3_vfs_unregister(vfs_.get()); }

void SimDisk::SetFaults(std::vector<Fault> faults, std::function<void()> on_crash) {
  faults_ = std::move(faults);
  on_crash_ = std::move(on_crash);
  commits_ = 0;
  fired_ = 0;
  next_write_fails_.reset();
  next_sync_fails_ = false;
  synced_.reset();
  for (const Fault& fault : faults_) {
    if (fault.kind == Fault::Kind::kPowerCut) synced_ = files_;
  }
}

int SimDisk::BeginWrite() {
  if (!armed_ || crashed_) return SQLITE_OK;
  ++commits_;
  next_write_fails_.reset();
  next_sync_fails_ = false;
  for (const Fault& fault : faults_) {
    if (fault.at_commit != commits_) continue;
    ++fired_;
    switch (fault.kind) {
      case Fault::Kind::kPowerCut:
        // What was written and never synced is gone: a file goes back to its last sync, and
        // one never synced goes away.
        for (auto it = files_.begin(); it != files_.end();) {
          auto synced = synced_->find(it->first);
          if (synced == synced_->end()) {
            it = files_.erase(it);
          } else {
            it->second = synced->second;
            ++it;
          }
        }
        [[fallthrough]];
      case Fault::Kind::kCrash:
        crashed_ = true;
        if (on_crash_) on_crash_();
        return SQLITE_IOERR_LOCK;
      case Fault::Kind::kWriteFails:
      case Fault::Kind::kDiskFull:
        next_write_fails_ = fault.kind;
        break;
      case Fault::Kind::kSyncFails:
        next_sync_fails_ = true;
        break;
    }
  }
  return SQLITE_OK;
}

void SimDisk::Snapshot() { snapshot_ = files_; }

absl::Status SimDisk::Restore() {
  if (!snapshot_) return absl::FailedPreconditionError("the simulator's disk has no snapshot");
  for (const auto& [name, level] : locks_) {
    if (level != SQLITE_LOCK_NONE) {
      return absl::FailedPreconditionError(
          absl::StrCat(name, " is locked: a transaction is open on it"));
    }
  }
  // In place: each file keeps its buffer, so a play that restores a database of a few hundred
  // kilobytes copies its bytes and allocates (and faults in) nothing.
  for (auto it = files_.begin(); it != files_.end();) {
    it = snapshot_->contains(it->first) ? std::next(it) : files_.erase(it);
  }
  for (const auto& [name, bytes] : *snapshot_) files_[name].assign(bytes);
  return absl::OkStatus();
}

std::string SimDisk::Contents(const std::string& name) const {
  auto it = files_.find(name);
  return it == files_.end() ? "" : it->second;
}

}  // namespace agentrt::sim
