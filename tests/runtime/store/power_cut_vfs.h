// tests/runtime/store/power_cut_vfs.h
//
// A SQLite VFS for tests that proves durability by injecting the faults a power cut makes: a shim
// over the default VFS that passes every call through, and remembers, for every file, what it held
// when it was last synced. What a power cut leaves on disk is exactly that: SaveDurable writes it
// out (a file never synced is absent; the shared-memory index is never kept, SQLite rebuilds it
// from the WAL). Writes are counted, and a hook runs before each one, so a test can take the power
// cut at every write of a run.
//
// Test-only; one thread (the store serializes its connection). Register it before opening a store
// with StoreOptions::vfs = name(); unregister it (destroy it) after every such store is closed.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

struct sqlite3_vfs;
struct sqlite3_file;

namespace agentrt::testing {

class PowerCutVfs {
 public:
  // Register makes a VFS named `name` over SQLite's default one.
  static absl::StatusOr<std::unique_ptr<PowerCutVfs>> Register(const std::string& name);
  ~PowerCutVfs();
  PowerCutVfs(const PowerCutVfs&) = delete;
  PowerCutVfs& operator=(const PowerCutVfs&) = delete;

  const std::string& name() const { return name_; }

  // Runs before write number `index` (from 1) reaches its file; SaveDurable called there is the
  // disk as a power cut at that write leaves it.
  void OnWrite(std::function<void(int index)> hook) { on_write_ = std::move(hook); }
  // Runs after each sync of a file has made it durable.
  void OnSync(std::function<void(const std::string& path)> hook) { on_sync_ = std::move(hook); }

  // Writes every file's durable contents into `dir`, under the file's base name.
  absl::Status SaveDurable(const std::string& dir) const;

  int writes() const { return writes_; }
  int syncs() const { return syncs_; }

  // The file SQLite holds (internal to the .cc).
  struct File;

 private:
  friend class PowerCutIo;
  explicit PowerCutVfs(std::string name);

  static int Open(sqlite3_vfs* vfs, const char* name, sqlite3_file* file, int flags,
                  int* out_flags);
  static int Delete(sqlite3_vfs* vfs, const char* name, int sync_dir);

  void Synced(const std::string& path);

  std::string name_;
  std::unique_ptr<sqlite3_vfs> vfs_;
  sqlite3_vfs* base_ = nullptr;
  std::map<std::string, std::optional<std::string>> durable_;  // path -> last synced contents
  std::function<void(int)> on_write_;
  std::function<void(const std::string&)> on_sync_;
  int writes_ = 0;
  int syncs_ = 0;
};

}  // namespace agentrt::testing
