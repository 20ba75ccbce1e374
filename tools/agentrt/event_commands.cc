#include "tools/agentrt/event_commands.h"

#include <pthread.h>
#include <signal.h>

#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "runtime/base/string_view.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sanitize.h"
#include "runtime/observe/export/cursor.h"
#include "runtime/observe/export/follower.h"
#include "runtime/observe/export/jsonl_sink.h"
#include "runtime/observe/trace/format.h"
#include "runtime/observe/trace/writer.h"
#include "runtime/operator/verify.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/schema.h"
#include "runtime/row_audit.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/real_filesystem.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/db_flag.h"

namespace agentrt::cli {
namespace {

constexpr char kEventsHelp[] =
    R"(Usage: agentrt events [--db PATH] RUN [--limit N] [--offset N] [--json]

Prints the events of RUN in commit order, one line each: the time (UTC), the type, and the
payload as recorded, with every character a model or server could use to move the cursor,
recolour the terminal or reorder text shown as an escape. A payload is shown up to 8000 bytes,
then "...[N more bytes]".

With --json each event is one JSON Lines record instead (docs/formats/events.md), the payload
whole as stored (a payload over 65536 characters is read only that far, as a JSON object
saying so).

--limit (default 500) and --offset page through a long run. When events remain, the last line
says so: "... K more event(s); rerun with --offset X", or with --json the record
{"meta":true,"truncated":true,"total":T,"returned":R,"offset":O}.

The database (--db or $AGENTRT_DB) is opened existing-only and read-only.
Exit status: 0 printed, 1 no such run or the database failed, 2 usage error.
)";

constexpr char kVerifyHelp[] =
    R"(Usage: agentrt verify [--db PATH] [--from N] [--to N] [--head SEQ:HASH] [--json]

Walks the hash chain of the event log and reports the first break: a missing event, or one
whose stored hash is not the one its fields and the previous event's hash give. The newest
event (the head) is read first; events committed after it are not checked. Then checks every
run, step and approval row against the events that recorded it (a run's goal, limits and end;
a step's index and decision; an approval's request hash, kind, capability, presentation, times
and decisions) and reports each row that contradicts its chain: someone changed the database.

  --from N, --to N   check only seqs N to M (the walk starts from the stored hash before N)
  --head SEQ:HASH    a head you kept somewhere the database's writers cannot reach (from an
                     earlier verify, or `agentrt export --cursor`): it must still be in the
                     log with the same hash. Anyone who can write the file can recompute the
                     whole chain, and a log cut at its end still verifies: only a kept head
                     proves the log intact up to it.
  --json             one JSON object: head, from, to, hash, checked, intact, rows {checked,
                     runs, steps, approvals, contradictions, first}, and break, requested {to,
                     reached}, kept_head {seq, hash, found, matches} when they apply.
The rows are checked only when the walk covers the whole log (no --from, no --to before the
head).

Exit status: 0 intact; 1 a break, a row that contradicts the chain, a --to the log does not
reach, a kept head not reached or with another hash now, or the database failed; 2 usage error (a negative seq, --to before
--from, a malformed --head, a --head outside --from..--to).
)";

constexpr char kExportHelp[] =
    R"(Usage: agentrt export [--db PATH] [--run RUN] [--cursor FILE] [--once] [--interval D]

Follows the event log read-only and writes every event to standard output as a JSON Lines
record (docs/formats/events.md), in commit order, a page at a time; then waits for more,
polling every --interval (default 250ms, at most 1m), until interrupted (SIGINT or SIGTERM).

  --run RUN       only that run's events
  --cursor FILE   where the seq of the last event written is kept (created 0600, replaced
                  atomically): a restart goes on after it. Every event is written exactly
                  once across stops; after a crash, at most one page is written again —
                  consumers that must not act twice key on "seq".
  --once          stop once caught up

With --cursor, the line "head SEQ:HASH" goes to standard error at the end: keep it where the
database's writers cannot reach, and check it later with 'agentrt verify --head SEQ:HASH'.

Exit status: 0 stopped or caught up, 1 the database, cursor or output failed, 2 usage error.
)";

constexpr std::int64_t kDefaultEventsLimit = 500;

struct EventsOptions {
  std::string db;
  std::int64_t limit = kDefaultEventsLimit;
  std::int64_t offset = 0;
  bool json = false;
};

struct VerifyOptions {
  std::string db;
  std::int64_t from = 0;  // the first seq to check (0: 1)
  std::int64_t to = 0;    // the last seq to check (0: the head)
  std::string head;       // a head kept elsewhere, SEQ:HASH, that must still be in the log
  bool json = false;
};

struct ExportOptions {
  std::string db;
  std::string run;     // follow this run only ("": every run)
  std::string cursor;  // file keeping the last seq written ("": start at the beginning)
  bool once = false;   // stop once caught up
  absl::Duration interval = exporter::kDefaultInterval;  // between polls (at most 1m)
};
constexpr std::size_t kMaxTextPayloadBytes = 8000;

absl::StatusOr<std::unique_ptr<store::Store>> OpenForReading(const std::string& path) {
  return records::OpenExistingStore(path, /*read_only=*/true);
}

// The final JSON Lines record of a page that did not reach the end.
std::string TruncatedRecord(std::int64_t total, std::int64_t returned, std::int64_t offset) {
  return absl::StrCat("{\"meta\":true,\"truncated\":true,\"total\":", total,
                      ",\"returned\":", returned, ",\"offset\":", offset, "}\n");
}

}  // namespace

int RunEventsCommand(std::span<const std::string> args, Io& io) {
  EventsOptions o;
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, FlagSet()
                                                          .Add("db", &o.db)
                                                          .Add("limit", &o.limit)
                                                          .Add("offset", &o.offset)
                                                          .Add("json", &o.json));
  if (!parsed.ok()) return UsageError(io, "events", ToStd(parsed.status().message()));
  if (parsed->help) {
    io.out << kEventsHelp;
    return kExitOk;
  }
  if (parsed->positional.size() != 1) return UsageError(io, "events", "expected one RUN id");
  std::int64_t limit = o.limit, offset = o.offset;
  if (limit < 1) return UsageError(io, "events", "--limit must be at least 1");
  if (offset < 0) return UsageError(io, "events", "--offset must not be negative");
  absl::StatusOr<std::string> path = DatabasePath(o.db);
  if (!path.ok()) return UsageError(io, "events", ToStd(path.status().message()));
  absl::StatusOr<std::unique_ptr<store::Store>> store = OpenForReading(*path);
  if (!store.ok()) return Failure(io, "events", ToStd(store.status().message()));
  const std::string& run = parsed->positional[0];
  absl::StatusOr<store::Store::EventPage> page = (*store)->ListEventsPage(run, limit, offset);
  if (!page.ok()) return Failure(io, "events", ToStd(page.status().message()));
  if (page->total == 0) {
    absl::Status known = ReadLease(**store, run).status();
    if (!known.ok()) return Failure(io, "events", ToStd(known.message()));
  }
  bool json = o.json;
  std::int64_t returned = static_cast<std::int64_t>(page->events.size());
  std::int64_t remaining = page->total - offset - returned;
  absl::Status written;
  if (json) {
    trace::JsonlWriter writer(io.out);
    for (const store::Event& e : page->events) written.Update(writer.Write(e));
    if (remaining > 0) {
      trace::LineOutput out(io.out);
      written.Update(out.WriteLine(TruncatedRecord(page->total, returned, offset)));
    }
  } else {
    trace::TextOptions options;
    options.max_payload_bytes = kMaxTextPayloadBytes;
    trace::TextWriter writer(io.out, options);
    for (const store::Event& e : page->events) written.Update(writer.Write(e));
    trace::LineOutput out(io.out);
    if (remaining > 0) {
      written.Update(out.WriteLine(absl::StrCat(
          "... ", remaining, " more event(s); rerun with --offset ", offset + returned, "\n")));
    } else if (returned == 0 && page->total > 0) {
      written.Update(out.WriteLine(
          absl::StrCat("no events from offset ", offset, "; the run has ", page->total, "\n")));
    }
  }
  // Only standard output can fail here, and the dispatch names why (CheckedStdout).
  return written.ok() ? kExitOk : kExitFailure;
}

namespace {

// The rows' audit as `verify --json` reports it: {"checked": false} for a partial walk.
std::string RowsJson(const std::optional<RowAudit>& rows) {
  if (!rows) return json::JsonObject().Bool("checked", false).Build();
  std::string first = "[";
  for (const RowContradiction& c : rows->first) {
    if (first.size() > 1) first += ",";
    first += json::JsonObject()
                 .String("run_id", c.run_id)
                 .String("row", c.row)
                 .String("detail", c.detail)
                 .Build();
  }
  first += "]";
  return json::JsonObject()
      .Bool("checked", true)
      .Int("runs", rows->runs)
      .Int("steps", rows->steps)
      .Int("approvals", rows->approvals)
      .Int("contradictions", rows->contradictions)
      .Raw("first", first)
      .Build();
}

void PrintRows(Io& io, const std::optional<RowAudit>& rows) {
  if (!rows) {
    io.out << "rows: not checked (the walk covers part of the log)\n";
    return;
  }
  if (rows->contradictions == 0) {
    io.out << "rows: " << rows->runs << " run(s), " << rows->steps << " step(s), "
           << rows->approvals << " approval(s) agree with the chain\n";
    return;
  }
  io.out << "rows: " << rows->contradictions
         << " row(s) contradict the chain (the database was changed outside agentrt):\n";
  for (const RowContradiction& c : rows->first) {
    io.out << "  run " << json::Sanitize(c.run_id) << ", " << json::Sanitize(c.row) << ": "
           << json::Sanitize(c.detail) << "\n";
  }
  if (rows->contradictions > static_cast<std::int64_t>(rows->first.size())) {
    io.out << "  ... and " << rows->contradictions - static_cast<std::int64_t>(rows->first.size())
           << " more\n";
  }
}

}  // namespace

int RunVerifyCommand(std::span<const std::string> args, Io& io) {
  int exit = kExitOk;
  VerifyOptions o;
  std::optional<ParsedArgs> parsed = ParseFlags(io, "verify", args,
                                                FlagSet()
                                                    .Add("db", &o.db)
                                                    .Add("from", &o.from)
                                                    .Add("to", &o.to)
                                                    .Add("head", &o.head)
                                                    .Add("json", &o.json),
                                                kVerifyHelp, &exit);
  if (!parsed) return exit;
  std::int64_t from = o.from, to = o.to;
  if (from < 0 || to < 0) {
    return UsageError(io, "verify", "--from and --to are seqs, never negative");
  }
  if (to > 0 && from > to) {
    return UsageError(io, "verify", absl::StrCat("--to ", to, " is before --from ", from));
  }
  std::optional<KeptHead> kept;
  if (const std::string& text = o.head; !text.empty()) {
    kept = ParseKeptHead(text);
    if (!kept) {
      return UsageError(io, "verify",
                        "--head \"" + json::Sanitize(text.substr(0, 200)) +
                            "\" is not SEQ:HASH (a seq from 1 and 64 lowercase hex "
                            "digits)");
    }
    if (to > 0 && kept->seq > to) {
      return UsageError(io, "verify", absl::StrCat("--head seq ", kept->seq, " is past --to ", to));
    }
    if (kept->seq < from) {
      return UsageError(io, "verify",
                        absl::StrCat("--head seq ", kept->seq, " is before --from ", from));
    }
  }
  absl::StatusOr<std::string> path = DatabasePath(o.db);
  if (!path.ok()) return UsageError(io, "verify", ToStd(path.status().message()));
  absl::StatusOr<std::unique_ptr<store::Store>> store = OpenForReading(*path);
  if (!store.ok()) return Failure(io, "verify", ToStd(store.status().message()));

  absl::StatusOr<VerifyReport> verified = VerifyLog(**store, {from, to, kept});
  if (!verified.ok()) return Failure(io, "verify", ToStd(verified.status().message()));
  const VerifyReport& v = *verified;
  const store::ChainHead* head = &v.head;
  const store::ChainReport& report = v.walk;
  const std::optional<RowAudit>& rows = v.rows;
  const std::optional<std::string>& kept_stored = v.kept_stored;
  bool intact = v.Intact(), reached = v.reached, kept_matches = v.kept_matches;
  if (o.json) {
    json::JsonObject out;
    out.Raw("head", json::JsonObject().Int("seq", head->seq).String("hash", head->hash).Build())
        .Int("from", report.from)
        .Int("to", report.to)
        .String("hash", report.hash)
        .Int("checked", report.checked)
        .Bool("intact", intact);
    if (report.broken) {
      out.Raw("break", json::JsonObject()
                           .Int("seq", report.broken->seq)
                           .String("expected", report.broken->expected)
                           .String("found", report.broken->found)
                           .String("detail", report.broken->detail)
                           .Build());
    }
    if (to > 0)
      out.Raw("requested", json::JsonObject().Int("to", to).Bool("reached", reached).Build());
    if (kept) {
      out.Raw("kept_head", json::JsonObject()
                               .Int("seq", kept->seq)
                               .String("hash", kept->hash)
                               .Bool("found", kept_stored.has_value())
                               .Bool("matches", kept_matches)
                               .Build());
    }
    out.Raw("rows", RowsJson(rows));
    io.out << out.Build() << "\n";
  } else {
    if (head->seq == 0) {
      io.out << "head: no events\n";
    } else {
      io.out << "head: seq " << head->seq << " " << json::Sanitize(head->hash) << "\n";
    }
    if (report.broken) {
      io.out << "broken at seq " << report.broken->seq << ": " << report.broken->detail << "\n";
      if (!report.broken->expected.empty() || !report.broken->found.empty()) {
        io.out << "  expected " << json::Sanitize(report.broken->expected) << "\n"
               << "  found    " << json::Sanitize(report.broken->found) << "\n";
      }
    } else if (report.checked == 0) {
      io.out << "intact: no events in the range\n";
    } else {
      std::int64_t last = report.to;
      io.out << "intact: " << report.checked << " event(s), seq " << last - report.checked + 1
             << " to " << last << "\nlast checked: seq " << last << " "
             << json::Sanitize(report.hash) << "\n";
    }
    if (!reached) {
      io.out << "not reached: --to " << to << ", but the log ends at seq " << head->seq << "\n";
    }
    if (kept) {
      if (kept_matches) {
        io.out << "kept head: seq " << kept->seq << " matches\n";
      } else if (kept_stored) {
        io.out << "kept head: seq " << kept->seq << " has another hash now: kept " << kept->hash
               << ", stored " << json::Sanitize(*kept_stored) << "\n";
      } else if (kept->seq > head->seq) {
        io.out << "kept head: seq " << kept->seq << " not reached: the log ends at seq "
               << head->seq << " (events after it were removed)\n";
      } else {
        io.out << "kept head: seq " << kept->seq << " is no longer in the log\n";
      }
    }
    PrintRows(io, rows);
  }
  return v.Ok() ? kExitOk : kExitFailure;
}

int RunExportCommand(std::span<const std::string> args, Io& io) {
  int exit = kExitOk;
  ExportOptions o;
  std::optional<ParsedArgs> parsed = ParseFlags(io, "export", args,
                                                FlagSet()
                                                    .Add("db", &o.db)
                                                    .Add("run", &o.run)
                                                    .Add("cursor", &o.cursor)
                                                    .Add("once", &o.once)
                                                    .Add("interval", &o.interval),
                                                kExportHelp, &exit);
  if (!parsed) return exit;
  absl::Duration interval = o.interval;
  if (interval <= absl::ZeroDuration()) {
    return UsageError(io, "export", "--interval must be positive");
  }
  absl::StatusOr<std::string> path = DatabasePath(o.db);
  if (!path.ok()) return UsageError(io, "export", ToStd(path.status().message()));
  absl::StatusOr<std::unique_ptr<store::Store>> store = OpenForReading(*path);
  if (!store.ok()) return Failure(io, "export", ToStd(store.status().message()));

  const std::string& cursor_path = o.cursor;
  world::RealFilesystem disk;
  std::optional<exporter::FileCursor> file_cursor;
  if (!cursor_path.empty()) file_cursor.emplace(disk, cursor_path);
  world::RealClock clock;
  exporter::FollowerOptions options;
  options.store = store->get();
  options.run_id = o.run;
  options.cursor = file_cursor ? &*file_cursor : nullptr;
  options.interval = interval;
  options.once = o.once;
  absl::StatusOr<exporter::Follower> follower = exporter::Follower::Create(options, clock);
  if (!follower.ok()) return Failure(io, "export", ToStd(follower.status().message()));

  // A closed pipe is a write error the follower stops on (with its cursor saved), not a
  // signal that ends the process between a write and the save.
  ::signal(SIGPIPE, SIG_IGN);
  // SIGINT and SIGTERM stop the follower cleanly: one thread waits for them (they are blocked
  // in every thread) and notifies; SIGUSR1 ends that thread once the follower is done.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  absl::Notification stop;
  std::thread waiter([&] {
    int received = 0;
    sigwait(&signals, &received);
    if (received != SIGUSR1) {
      stop.Notify();
      clock.Wake();
    }
  });
  exporter::JsonlSink sink(io.out);
  absl::Status followed = follower->Follow(sink, &stop);
  if (!stop.HasBeenNotified()) pthread_kill(waiter.native_handle(), SIGUSR1);
  waiter.join();
  if (file_cursor) {
    absl::StatusOr<store::ChainHead> head = follower->Head();
    if (head.ok() && head->seq > 0) {
      io.err << "head " << head->seq << ":" << json::Sanitize(head->hash) << "\n";
    } else if (!head.ok() && followed.ok()) {
      followed = head.status();
    }
  }
  // A write that failed stopped the follower; the dispatch says why (CheckedStdout).
  if (!followed.ok() && !io.out.good()) return kExitFailure;
  if (!followed.ok()) return Failure(io, "export", ToStd(followed.message()));
  return kExitOk;
}

}  // namespace agentrt::cli
