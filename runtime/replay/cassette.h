// runtime/replay/cassette.h
//
// A cassette in memory (format: runtime/replay/proto/cassette.proto, docs/formats/cassette.md):
// every exchange a run had with the world, in order, in one or more recording sessions, and
// the chain head of the audit log the run wrote. cassette_file.h reads and writes the framed
// file; cassette_recorder.h records one; replay_cursor.h serves one.
//
// Exchanges are the generated messages (agentrt.replay.v1.Exchange): code that looks inside one
// includes "runtime/replay/proto/cassette.pb.h" (built with agentrt::replay, not installed). A
// product that only records and replays never needs to.
//
// What a cassette holds is what a replay can trust: Add and the file reader apply CheckExchange
// to every exchange, so a bad cassette is refused before the first request rather than in the
// middle of a run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/store/chain_head.h"

namespace agentrt::replay {

namespace v1 {
class Exchange;  // generated from proto/cassette.proto
class ModelExchange;
}  // namespace v1

using store::ChainHead;

inline constexpr std::uint32_t kCassetteFormatVersion = 2;

// How deep task runs may nest: a task run holds the exchanges its task made, and one of those
// may be the run of another task (a task that moved a manual clock). The reader refuses an
// exchange nested deeper, naming it, and a recorder fails rather than write one, so whatever
// reads can also be dumped: protobuf's JSON printer stops at 64 levels of message, and each
// task run is three (Exchange, SchedulerExchange, TaskFiring).
inline constexpr int kMaxTaskNesting = 16;

// A file the recorded program read before it started, kept whole so that a replay reads
// nothing but the cassette (proto InputFile).
struct CassetteInput {
  std::string role;  // what the program read it as ("config", "script", "manifest")
  std::string key;   // which one of its role ("" when there is one): a manifest's server
  std::string path;  // where it was read from, for people; a replay never opens it
  std::string data;  // its bytes
  bool operator==(const CassetteInput&) const = default;
};

// What a recording session says about itself (proto Header).
struct CassetteHeader {
  std::string created_by;             // what wrote it ("agentrt 0.1.0"); for people
  std::string notes;                  // free text; for people
  std::vector<std::string> program;   // the agentrt command line that recorded it (agentrt replay)
  std::vector<CassetteInput> inputs;  // the files the program read before it started
  bool operator==(const CassetteHeader&) const = default;
};

// The kinds of exchange, one per call of a world interface (plus the two a replay delivers by
// itself: a chunk of a process's stderr handed to its sink, and a scheduled task's run). Each
// has one row in its interface's table (internal/exchange_kinds.h), which says where it sits
// in the proto, the rules it keeps and how it prints.
enum class Op {
  kUnknown,  // a kind this build does not know (a newer build's)
  kModel,
  kClockNow,
  kClockWait,
  kEntropy,
  kEnvironmentRead,
  kLaunch,
  kStdinWrite,
  kStdinClose,
  kStdoutRead,
  kStderrTail,
  kStderrChunk,
  kSignal,
  kWait,
  kClose,
  kHttpSend,
  kHttpRead,
  kHttpClose,
  kTaskScheduled,
  kTaskCancelled,
  kTaskFiring,
};

// OpOf is the kind of `exchange` (kUnknown when no kind this build knows is set).
Op OpOf(const v1::Exchange& exchange);
// OpName: "model", "clock now", "stdin write", ... (for messages).
std::string_view OpName(Op op);
// IsDelivery: the ops a replay delivers by itself rather than answering a call.
bool IsDelivery(Op op);

class Cassette {
 public:
  Cassette();
  ~Cassette();
  Cassette(const Cassette& other);
  Cassette& operator=(const Cassette& other);
  Cassette(Cassette&& other) noexcept;
  Cassette& operator=(Cassette&& other) noexcept;

  // The recording sessions, in order (a recorder that opens an existing cassette adds one);
  // at least one once anything was recorded. header() is the first's.
  const std::vector<CassetteHeader>& sessions() const;
  const CassetteHeader& header() const;

  // The exchanges of every session, in recorded order.
  std::size_t size() const;
  const v1::Exchange& exchange(std::size_t i) const;
  // The session (index into sessions()) exchange i was recorded in.
  std::size_t session_of(std::size_t i) const;

  // The audit log's head as the last session recorded it ({0, ""} when none was).
  const ChainHead& chain_head() const;

  // Why the file's last record was cut ("" when it was not): a recording cut by a crash keeps
  // every whole record before the cut, and the reader names the one it stopped at.
  const std::string& torn() const;

  // Whether a newer build wrote fields or kinds this build does not know. Such a cassette is
  // read, dumped and replayed up to the first unknown exchange, and never written back.
  bool from_newer_build() const;

  // Building one (the file reader, in-memory recorders, tests). StartSession begins a session
  // (the first call sets header()); Add appends to the latest session, starting one with an
  // empty header if there is none. Errors: InvalidArgument naming the exchange (its number from
  // 1) and the rule it breaks (CheckExchange), the cassette unchanged.
  void StartSession(CassetteHeader header);
  absl::Status Add(v1::Exchange exchange);
  absl::Status SetChainHead(const ChainHead& head);
  void SetTorn(std::string why);
  void SetFromNewerBuild();

 private:
  struct Data;
  std::unique_ptr<Data> data_;
};

// CheckModelExchange applies the rules one model exchange must keep by itself (its ordinal's
// place in its key's sequence is the cassette's to check): a model name in UTF-8, a request in
// canonical JSON whose key is `key`, and either a response that reads back or an error with no
// ordinal, response or raw bytes. Errors: InvalidArgument naming the rule.
absl::Status CheckModelExchange(const v1::ModelExchange& exchange);

// CheckChainHead applies the chain head's rule: (0, "") or a positive seq with a 64-lowercase-
// hex-digit hash. Errors: InvalidArgument naming the rule.
absl::Status CheckChainHead(const ChainHead& head);

}  // namespace agentrt::replay
