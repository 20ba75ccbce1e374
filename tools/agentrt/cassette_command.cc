#include "tools/agentrt/cassette_command.h"

#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/util/json_util.h"
#include "runtime/base/string_view.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sanitize.h"
#include "runtime/replay/cassette.h"
#include "runtime/replay/cassette_file.h"
#include "runtime/replay/cassette_text.h"
#include "runtime/replay/proto/cassette.pb.h"
#include "runtime/world/real_filesystem.h"
#include "tools/agentrt/command_line.h"

namespace agentrt::cli {
namespace {

constexpr char kCassetteHelp[] =
    R"(Usage: agentrt cassette SUBCOMMAND CASSETTE

Work with cassettes: every exchange a run had with the world, recorded in order
(docs/formats/cassette.md).

Subcommands:
  dump CASSETTE [--json] [--bytes N]   print every exchange
  check CASSETTE                       check it can be replayed, or say what is wrong

Run 'agentrt cassette dump --help' for details.
)";

constexpr char kDumpHelp[] =
    R"(Usage: agentrt cassette dump CASSETTE [--json] [--bytes N]

Reads CASSETTE with every check a replay makes and prints its sessions, one line per exchange
in recorded order, and the chain head of the run it recorded. A task run's own exchanges
follow it, numbered under it (17.1, 17.2). Bodies, process bytes and names are shown escaped
(quoted, with \n, \t, \xHH and \u{...} escapes), each cut at --bytes N bytes (default 120; 0
shows everything) with the count of what was left out. A recording cut by a crash is read up
to the cut, and the last line says where it was cut.

With --json it prints one JSON object per line: first the cassette
({"kind":"cassette","format_version","sessions":[{"created_by","notes","program","inputs"}],
"exchanges","chain_head":{"seq","hash"},"torn"}; "inputs", the files a session's program read
before it started, as [{"role","key","path","bytes"}], only when it kept any), then one per
exchange ({"kind":"exchange","exchange","session","op","text","record"}), "record" being the
exchange in protobuf's JSON form (bytes in base64) and "exchange" a number, or "17.1" inside a
task run.

Exit status: 0 printed, 1 the cassette is unreadable or refused (the reason names it),
2 usage error.
)";

constexpr char kCheckHelp[] =
    R"(Usage: agentrt cassette check CASSETTE

Reads CASSETTE with every check a replay makes (framing and checksums, the format version,
each exchange's rules: canonical model requests and their keys, processes, responses and tasks
started before they are used, ...) and prints one line: what it holds, or the first thing
wrong with it, naming the record or the exchange.

Exit status: 0 it can be replayed whole, 1 it cannot (refused, or cut by a crash: the line
says where), 2 usage error.
)";

std::string ChainHeadText(const replay::ChainHead& head) {
  if (head.seq == 0) return "chain head: none recorded";
  return absl::StrCat("chain head: seq ", head.seq, ", hash ", head.hash);
}

std::string SessionText(std::size_t index, const replay::CassetteHeader& header) {
  std::string text = absl::StrCat("session ", index + 1, ": created by \"",
                                  json::Sanitize(header.created_by), "\"");
  if (!header.program.empty()) {
    absl::StrAppend(&text, ", program \"", json::Sanitize(absl::StrJoin(header.program, " ")),
                    "\"");
  }
  if (!header.notes.empty()) absl::StrAppend(&text, "\nnotes: ", json::Sanitize(header.notes));
  for (const replay::CassetteInput& input : header.inputs) {
    absl::StrAppend(&text, "\ninput: ", json::Sanitize(input.role));
    if (!input.key.empty()) absl::StrAppend(&text, " \"", json::Sanitize(input.key), "\"");
    absl::StrAppend(&text, " read from \"", json::Sanitize(input.path), "\", ", input.data.size(),
                    " bytes");
  }
  return text;
}

std::string Summary(const std::string& path, const replay::Cassette& cassette) {
  return absl::StrCat("cassette ", json::Sanitize(path), ": format ",
                      replay::kCassetteFormatVersion, ", ", cassette.sessions().size(),
                      cassette.sessions().size() == 1 ? " session, " : " sessions, ",
                      cassette.size(), cassette.size() == 1 ? " exchange" : " exchanges");
}

// One line per exchange, its number right-aligned in `width` columns; a task run's exchanges
// follow it, indented, numbered under it.
void PrintExchangeText(Io& io, const std::string& number, const replay::v1::Exchange& e,
                       std::size_t max_bytes, std::size_t width, int depth) {
  std::string indent(2 + 2 * depth, ' ');
  std::string pad(number.size() < width ? width - number.size() : 0, ' ');
  io.out << indent << pad << number << "  " << replay::DescribeExchange(e, max_bytes) << "\n";
  if (replay::OpOf(e) != replay::Op::kTaskFiring) return;
  const auto& nested = e.scheduler().firing().nested();
  for (int i = 0; i < nested.size(); ++i) {
    PrintExchangeText(io, absl::StrCat(number, ".", i + 1), nested[i], max_bytes, width, depth + 1);
  }
}

void PrintText(Io& io, const std::string& path, const replay::Cassette& cassette,
               std::size_t max_bytes) {
  io.out << Summary(path, cassette) << "\n";
  std::size_t width = absl::StrCat(cassette.size()).size();
  std::size_t session = std::numeric_limits<std::size_t>::max();
  for (std::size_t i = 0; i < cassette.size(); ++i) {
    if (cassette.session_of(i) != session) {
      session = cassette.session_of(i);
      io.out << SessionText(session, cassette.sessions()[session]) << "\n";
    }
    PrintExchangeText(io, absl::StrCat(i + 1), cassette.exchange(i), max_bytes, width, 0);
  }
  if (cassette.size() == 0 && !cassette.sessions().empty()) {
    io.out << SessionText(0, cassette.sessions()[0]) << "\n";
  }
  io.out << ChainHeadText(cassette.chain_head()) << "\n";
  if (!cassette.torn().empty()) {
    io.out << "cut: the recording stops at " << json::Sanitize(cassette.torn()) << "\n";
  }
}

std::string ProtoJson(const replay::v1::Exchange& e) {
  std::string out;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  if (!google::protobuf::util::MessageToJsonString(e, &out, options).ok()) return "null";
  return out;
}

void PrintExchangeJson(Io& io, const std::string& number, std::size_t session,
                       const replay::v1::Exchange& e) {
  io.out << json::JsonObject()
                .String("kind", "exchange")
                .String("exchange", number)
                .Int("session", static_cast<std::int64_t>(session + 1))
                .String("op", replay::OpName(replay::OpOf(e)))
                .String("text", replay::DescribeExchange(e, 0))
                .Raw("record", ProtoJson(e))
                .Build()
         << "\n";
  if (replay::OpOf(e) != replay::Op::kTaskFiring) return;
  const auto& nested = e.scheduler().firing().nested();
  for (int i = 0; i < nested.size(); ++i) {
    PrintExchangeJson(io, absl::StrCat(number, ".", i + 1), session, nested[i]);
  }
}

void PrintJson(Io& io, const replay::Cassette& cassette) {
  std::vector<std::string> sessions;
  for (const replay::CassetteHeader& h : cassette.sessions()) {
    std::vector<std::string> program;
    for (const std::string& arg : h.program) program.push_back(json::JsonString(arg));
    json::JsonObject session;
    session.String("created_by", h.created_by)
        .String("notes", h.notes)
        .Raw("program", "[" + absl::StrJoin(program, ",") + "]");
    // Only sessions that kept files say so: older cassettes print as they always did.
    if (!h.inputs.empty()) {
      std::vector<std::string> inputs;
      for (const replay::CassetteInput& input : h.inputs) {
        inputs.push_back(json::JsonObject()
                             .String("role", input.role)
                             .String("key", input.key)
                             .String("path", input.path)
                             .Int("bytes", static_cast<std::int64_t>(input.data.size()))
                             .Build());
      }
      session.Raw("inputs", "[" + absl::StrJoin(inputs, ",") + "]");
    }
    sessions.push_back(session.Build());
  }
  io.out << json::JsonObject()
                .String("kind", "cassette")
                .Int("format_version", replay::kCassetteFormatVersion)
                .Raw("sessions", "[" + absl::StrJoin(sessions, ",") + "]")
                .Int("exchanges", static_cast<std::int64_t>(cassette.size()))
                .Raw("chain_head", json::JsonObject()
                                       .Int("seq", cassette.chain_head().seq)
                                       .String("hash", cassette.chain_head().hash)
                                       .Build())
                .String("torn", cassette.torn())
                .Build()
         << "\n";
  for (std::size_t i = 0; i < cassette.size(); ++i) {
    PrintExchangeJson(io, absl::StrCat(i + 1), cassette.session_of(i), cassette.exchange(i));
  }
}

int RunDump(std::span<const std::string> args, Io& io) {
  struct {
    bool json = false;
    std::string bytes = "120";  // of each body shown, 0 for all of them
  } dump;
  absl::StatusOr<ParsedArgs> parsed =
      ParseArgs(args, FlagSet().Add("json", &dump.json).Add("bytes", &dump.bytes));
  if (!parsed.ok()) return UsageError(io, "cassette dump", ToStd(parsed.status().message()));
  if (parsed->help) {
    io.out << kDumpHelp;
    return kExitOk;
  }
  if (parsed->positional.size() != 1) {
    return UsageError(io, "cassette dump", "expected one CASSETTE");
  }
  std::size_t max_bytes = 0;
  if (!absl::SimpleAtoi(dump.bytes, &max_bytes)) {
    return UsageError(io, "cassette dump", "--bytes takes a number of bytes (0 for all)");
  }
  const std::string& path = parsed->positional[0];
  world::RealFilesystem files;
  absl::StatusOr<replay::Cassette> cassette = replay::ReadCassette(files, path);
  if (!cassette.ok()) {
    return Failure(io, "cassette dump", json::Sanitize(ToStd(cassette.status().message())));
  }
  if (dump.json) {
    PrintJson(io, *cassette);
  } else {
    PrintText(io, path, *cassette, max_bytes);
  }
  return kExitOk;  // the dispatch checks that the output arrived (CheckedStdout)
}

int RunCheck(std::span<const std::string> args, Io& io) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args);
  if (!parsed.ok()) return UsageError(io, "cassette check", ToStd(parsed.status().message()));
  if (parsed->help) {
    io.out << kCheckHelp;
    return kExitOk;
  }
  if (parsed->positional.size() != 1) {
    return UsageError(io, "cassette check", "expected one CASSETTE");
  }
  const std::string& path = parsed->positional[0];
  world::RealFilesystem files;
  absl::StatusOr<replay::Cassette> cassette = replay::ReadCassette(files, path);
  if (!cassette.ok()) {
    return Failure(io, "cassette check", json::Sanitize(ToStd(cassette.status().message())));
  }
  io.out << Summary(path, *cassette) << ", " << ChainHeadText(cassette->chain_head());
  if (!cassette->torn().empty()) {
    io.out << "; CUT: the recording stops at " << json::Sanitize(cassette->torn()) << "\n";
    return kExitFailure;
  }
  if (cassette->from_newer_build()) {
    io.out << "; a newer build wrote parts of it this build does not know, so it replays "
              "only up to the first of them\n";
    return kExitFailure;
  }
  io.out << "; whole\n";
  return kExitOk;
}

}  // namespace

int RunCassetteCommand(std::span<const std::string> args, Io& io) {
  if (args.empty()) return UsageError(io, "cassette", "missing subcommand (dump, check)");
  const std::string& sub = args[0];
  if (sub == "--help" || sub == "-h" || sub == "help") {
    io.out << kCassetteHelp;
    return kExitOk;
  }
  if (sub == "dump") return RunDump(args.subspan(1), io);
  if (sub == "check") return RunCheck(args.subspan(1), io);
  return UsageError(io, "cassette", "unknown subcommand \"" + json::Sanitize(sub) + "\"");
}

}  // namespace agentrt::cli
