// sim/sim_disk.h
//
// The simulator's disk: a SQLite VFS of its own whose files live in this object's memory, so a
// play's database is on a disk the simulator decides about, on one thread and with nothing
// read from or written to the machine's. It does what the simulator needs of a disk:
//  - Crash(): from now on every write, truncation, sync and write lock fails (SQLite reports an
//    I/O error), while reads go on. The database stays exactly what a process that died at that
//    moment would leave: a write transaction cannot even begin, so nothing of it is written.
//    Recover() ends it: the restarted runtime writes again.
//  - Faults (SetFaults): the runtime's write transactions are counted while the disk is armed
//    (Arm), and at the n-th one a scheduled fault fires once: a crash (as Crash(), as the
//    transaction begins), a power cut (every file loses what was written since it was last
//    synced, then a crash), a failed write, a full disk or a failed sync (the transaction's
//    first write, or sync, fails; SQLite rolls the transaction back from its journal). A crash
//    or power cut calls `on_crash` first, so the simulator kills the runtime with its disk.
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

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

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

  struct Fault {
    enum class Kind { kCrash, kPowerCut, kWriteFails, kDiskFull, kSyncFails };
    Kind kind = Kind::kCrash;
    std::uint32_t at_commit = 0;  // the armed write transaction it fires in, from 1
  };
  // SetFaults schedules `faults` and starts counting from 0 again; what was written so far
  // counts as synced. `on_crash` runs as a crash or power cut fires (from inside SQLite: it
  // must not use a connection on this disk). SetFaults({}, {}) turns them all off.
  void SetFaults(std::vector<Fault> faults, std::function<void()> on_crash);
  // Arm counts write transactions (and fires faults) only while armed: the runtime's, not an
  // operator's. A failed write or sync belongs to its transaction: one that wrote nothing never
  // fails, and disarming drops it.
  void Arm(bool armed) {
    armed_ = armed;
    if (!armed) {
      next_write_fails_.reset();
      next_sync_fails_ = false;
    }
  }
  // How many write transactions began while armed since SetFaults; how many faults fired.
  std::uint32_t commits() const { return commits_; }
  int faults_fired() const { return fired_; }

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
  // Faults (SetFaults).
  std::vector<Fault> faults_;
  std::function<void()> on_crash_;
  bool armed_ = false;
  std::uint32_t commits_ = 0;
  int fired_ = 0;
  std::optional<Fault::Kind> next_write_fails_;  // kWriteFails or kDiskFull
  bool next_sync_fails_ = false;
  // With a power cut scheduled: each file as it was last synced (a file absent was never).
  std::optional<std::map<std::string, std::string>> synced_;

  // A write transaction begins: count it and fire what is due. Returns an SQLite error code
  // when the transaction must not begin (a crash), else SQLITE_OK.
  int BeginWrite();
};

}  // namespace agentrt::sim
