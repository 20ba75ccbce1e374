// sim/sim_disk.h
//
// The simulator's disk: a SQLite VFS of its own whose files live in this object's memory, so a
// play's database is on a disk the simulator decides about, on one thread and with nothing
// read from or written to the machine's. It does what the simulator needs of a disk:
//  - Crash(): from now on every write, truncation, sync and write lock fails (SQLite reports an
//    I/O error), while reads go on. The database stays exactly what a process that died at that
//    moment would leave: a write transaction cannot even begin, so nothing of it is written.
//    Recover() ends it: the restarted runtime writes again.
//  - Snapshot() and Restore(): the files as they are now, and put back. A thread that plays
//    many scenarios on one database snapshots it freshly migrated and restores it before each
//    play; a connection kept open across a restore sees the restored file at its next
//    transaction (SQLite compares the file's change counter) and keeps its prepared statements
//    (the schema did not change).
//
// The VFS has no shared memory, so a database on it keeps SQLite's rollback journal (WAL needs
// shared memory); SQLite's randomness from it is zeros and its clock a fixed instant, so nothing
// of the machine reaches a play through SQLite either. Sleeping returns at once.
//
// Open a store on it with StoreOptions{.vfs = disk.name(), .files_on_vfs = true}. Not
// thread-safe: one play's thread. Destroy it after every connection on it is closed.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

struct sqlite3_vfs;

namespace agentrt::sim {

class SimDisk {
 public:
  // Create registers a new, empty disk under a name of its own.
  static absl::StatusOr<std::unique_ptr<SimDisk>> Create();
  ~SimDisk();
  SimDisk(const SimDisk&) = delete;
  SimDisk& operator=(const SimDisk&) = delete;

  // The VFS's name, for StoreOptions::vfs.
  const std::string& name() const { return name_; }

  void Crash() { crashed_ = true; }
  void Recover() { crashed_ = false; }
  bool crashed() const { return crashed_; }

  // Snapshot keeps the files as they are; Restore puts them back (FailedPrecondition without a
  // snapshot, or while a connection holds a lock on a file: in the middle of a transaction).
  void Snapshot();
  absl::Status Restore();

  // The bytes of file `name` ("" when there is none): a play's database, to keep.
  std::string Contents(const std::string& name) const;

  // The file SQLite holds, and the VFS's calls (internal to the .cc).
  struct File;
  struct Calls;

 private:
  SimDisk() = default;

  std::string name_;
  std::unique_ptr<sqlite3_vfs> vfs_;
  std::map<std::string, std::string> files_;
  std::optional<std::map<std::string, std::string>> snapshot_;
  std::map<std::string, int> locks_;  // the lock level SQLite holds on each open file
  bool crashed_ = false;
  int temporaries_ = 0;  // names given to SQLite's nameless temporary files
};

}  // namespace agentrt::sim
