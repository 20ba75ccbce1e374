// runtime/replay/cassette_file.h
//
// Cassette files: append-only framed records (docs/formats/cassette.md). The file starts with
// the 8 bytes kCassetteMagic; then each record is its length (4 bytes, little-endian), the
// masked CRC-32C of its bytes (4 bytes, little-endian, runtime/base/crc32c.h) and its bytes, an
// agentrt.replay.v1.Record. Recording appends records and never rewrites one, so thousands of
// exchanges cost one write each, and a recording cut by a crash keeps every whole record
// written before the cut: the reader stops at the torn one and says so (Cassette::torn).
//
// Files are mode 0600: a cassette holds whole conversations with a model and every byte a tool
// server sent.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/replay/cassette.h"
#include "runtime/world/filesystem.h"

namespace agentrt::replay {

namespace v1 {
class Record;
}  // namespace v1

inline constexpr std::string_view kCassetteMagic = "AGRTCAS\n";
// The longest record a reader accepts (an HTTP body may be 16 MiB; JSON and framing add to it).
inline constexpr std::size_t kMaxRecordBytes = std::size_t{64} << 20;

// ParseCassette decodes a cassette file's bytes; every error starts "cassette <name>: ".
//  - DataLoss: the bytes are not a cassette (no magic), or a record that is not the last is
//    damaged (its checksum, length or contents), naming the record (from 1) and its byte offset;
//  - FailedPrecondition: the first record is not a header, or its format version is not one
//    this build reads;
//  - InvalidArgument: an exchange breaks a rule of cassette.h, naming it (from 1).
// A last record cut short or damaged (a crash while it was being written) is not an error: the
// cassette holds every record before it and torn() names it.
absl::StatusOr<Cassette> ParseCassette(std::string_view bytes, std::string_view name);

// ReadCassette reads and parses the cassette file at `path`. Errors name the file: NotFound /
// PermissionDenied from the OS, and ParseCassette's.
absl::StatusOr<Cassette> ReadCassette(world::Filesystem& files, const std::string& path);

// SerializeCassette is the file form of `cassette`: each session's header and exchanges, then
// the chain head when one is set. Errors: FailedPrecondition for a cassette from a newer build
// (writing it would drop what this build does not know).
absl::StatusOr<std::string> SerializeCassette(const Cassette& cassette);

// WriteCassette replaces the file at `path` with `cassette` atomically (runtime/base/
// atomic_file.h). Errors: SerializeCassette's, and the OS's naming the file.
absl::Status WriteCassette(world::Filesystem& files, const std::string& path,
                           const Cassette& cassette);

// FrameRecord is one record in its file form, and FrameHeader a session's header record (for
// the recorder, which appends them).
std::string FrameRecord(const v1::Record& record);
std::string FrameHeader(const CassetteHeader& header);

}  // namespace agentrt::replay
