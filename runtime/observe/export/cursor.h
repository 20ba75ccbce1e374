// runtime/observe/export/cursor.h
//
// Where a follower (follower.h) keeps its place: the seq of the last event it delivered.
//
// FileCursor keeps it in a file (docs/formats/events.md): the seq in decimal and a newline.
// A save replaces the file atomically (Filesystem::WriteAtomically; on disk: a fresh 0600 temporary
// beside it, synced, renamed over the old one, the folder synced), so a crash leaves either
// the old or the new seq, never a torn one. A
// missing file is seq 0 (nothing delivered yet); a file that does not hold exactly that form,
// or holds a negative number, is an error naming the file — it is never guessed at.
//
// MemCursor keeps it in memory (a follower given no cursor uses one, from 0).
//
// Neither is meant to be shared by two followers at once.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/world/filesystem.h"

namespace agentrt::exporter {

class Cursor {
 public:
  virtual ~Cursor() = default;
  // Load returns the saved seq (0 when nothing was saved).
  virtual absl::StatusOr<std::int64_t> Load() = 0;
  // Save records `seq` as delivered. Errors: InvalidArgument for a negative seq.
  virtual absl::Status Save(std::int64_t seq) = 0;
};

class FileCursor final : public Cursor {
 public:
  // The file at `path` on `files`, which must outlive this.
  FileCursor(world::Filesystem& files, std::string path) : files_(files), path_(std::move(path)) {}
  // Errors: InvalidArgument naming the file for content that is not a seq, or a negative one;
  // the OS error naming the file when it cannot be read.
  absl::StatusOr<std::int64_t> Load() override;
  // Errors: the OS error naming the file (or its temporary) that could not be written.
  absl::Status Save(std::int64_t seq) override;
  const std::string& path() const { return path_; }

 private:
  world::Filesystem& files_;
  std::string path_;
};

class MemCursor final : public Cursor {
 public:
  explicit MemCursor(std::int64_t seq = 0) : seq_(seq) {}
  absl::StatusOr<std::int64_t> Load() override;
  absl::Status Save(std::int64_t seq) override;
  std::int64_t seq() const { return seq_; }

 private:
  std::int64_t seq_;
};

}  // namespace agentrt::exporter
