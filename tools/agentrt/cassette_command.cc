#include "tools/agentrt/cassette_command.h"

#include <iostream>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sanitize.h"
#include "runtime/json/utf8.h"
#include "runtime/replay/cassette.h"
#include "runtime/replay/cassette_file.h"
#include "runtime/replay/model_key.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/shared_flags.h"

namespace agentrt::cli {
namespace {

constexpr char kCassetteHelp[] =
    R"(Usage: agentrt cassette SUBCOMMAND CASSETTE

Work with cassettes: the recorded exchanges of a run with the world (docs/formats/cassette.md).

Subcommands:
  dump CASSETTE [--json]   print what the cassette holds

Run 'agentrt cassette dump --help' for details.
)";

constexpr char kDumpHelp[] =
    R"(Usage: agentrt cassette dump CASSETTE [--json]

Reads CASSETTE with every check a replay makes and prints its header, one line per exchange
in recorded order (model exchanges: the model, the first 12 hex digits of the key, the
ordinal among identical requests and the sizes of the request, the response and the raw
provider bytes) and the chain head of the run it recorded. Names and notes are escaped for
the terminal.

With --json it prints one JSON object per line: first the cassette
({"kind":"cassette","format_version","created_by","notes","exchanges","chain_head"}), then
one per exchange ({"kind":"model","exchange","model","key","ordinal","request_bytes",
"response_bytes","raw_bytes","request","response", and "raw" when the raw bytes are UTF-8}).
An exchange of a kind this build does not know is {"kind":"unknown","exchange","field"}.

Exit status: 0 printed, 1 the cassette is unreadable or refused (the reason names it),
2 usage error.
)";

std::string ChainHeadText(const replay::ChainHead& head) {
  if (head.seq == 0) return "chain head: none recorded";
  return absl::StrCat("chain head: seq ", head.seq, ", hash ", head.hash);
}

void PrintText(const std::string& path, const replay::Cassette& cassette) {
  std::cout << "cassette " << json::Sanitize(path) << ": format " << replay::kCassetteFormatVersion
            << ", created by \"" << json::Sanitize(cassette.created_by) << "\", "
            << cassette.exchanges.size() << " exchanges\n";
  if (!cassette.notes.empty()) std::cout << "notes: " << json::Sanitize(cassette.notes) << "\n";
  for (std::size_t i = 0; i < cassette.exchanges.size(); ++i) {
    const replay::CassetteExchange& exchange = cassette.exchanges[i];
    std::cout << "  " << i + 1 << "  ";
    if (!exchange.model) {
      std::cout << "an exchange of kind " << exchange.unknown_kind << ", not known to this build\n";
      continue;
    }
    const replay::ModelExchange& m = *exchange.model;
    std::cout << "model \"" << json::Sanitize(m.model) << "\"  key " << replay::KeyPrefix(m.key)
              << "  ordinal " << m.ordinal << "  request " << m.request_json.size()
              << " B  response " << m.response_json.size() << " B  raw " << m.raw.size() << " B\n";
  }
  std::cout << ChainHeadText(cassette.chain_head) << "\n";
}

// Canonical form of JSON that ParseCassette has checked reads back.
std::string Canonical(const std::string& json_text) {
  absl::StatusOr<std::string> canonical = json::Canonicalize(json_text);
  return canonical.ok() ? *canonical : "null";
}

void PrintJson(const replay::Cassette& cassette) {
  std::cout << json::JsonObject()
                   .String("kind", "cassette")
                   .Int("format_version", replay::kCassetteFormatVersion)
                   .String("created_by", cassette.created_by)
                   .String("notes", cassette.notes)
                   .Int("exchanges", static_cast<std::int64_t>(cassette.exchanges.size()))
                   .Raw("chain_head", json::JsonObject()
                                          .Int("seq", cassette.chain_head.seq)
                                          .String("hash", cassette.chain_head.hash)
                                          .Build())
                   .Build()
            << "\n";
  for (std::size_t i = 0; i < cassette.exchanges.size(); ++i) {
    const replay::CassetteExchange& exchange = cassette.exchanges[i];
    json::JsonObject o;
    o.Int("exchange", static_cast<std::int64_t>(i + 1));
    if (!exchange.model) {
      std::cout << o.String("kind", "unknown").Int("field", exchange.unknown_kind).Build() << "\n";
      continue;
    }
    const replay::ModelExchange& m = *exchange.model;
    o.String("kind", "model")
        .String("model", m.model)
        .String("key", m.key)
        .Int("ordinal", m.ordinal)
        .Int("request_bytes", static_cast<std::int64_t>(m.request_json.size()))
        .Int("response_bytes", static_cast<std::int64_t>(m.response_json.size()))
        .Int("raw_bytes", static_cast<std::int64_t>(m.raw.size()))
        .Raw("request", Canonical(m.request_json))
        .Raw("response", Canonical(m.response_json));
    if (json::IsValidUtf8(m.raw)) o.String("raw", m.raw);
    std::cout << o.Build() << "\n";
  }
}

int RunDump(std::span<const std::string> args) {
  constexpr std::string_view kFlags[] = {"json"};
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, kFlags);
  if (!parsed.ok()) return UsageError("cassette dump", ToStd(parsed.status().message()));
  if (parsed->help) {
    std::cout << kDumpHelp;
    return kExitOk;
  }
  if (parsed->positional.size() != 1) return UsageError("cassette dump", "expected one CASSETTE");
  const std::string& path = parsed->positional[0];
  absl::StatusOr<replay::Cassette> cassette = replay::ReadCassette(path);
  if (!cassette.ok()) {
    return Failure("cassette dump", json::Sanitize(ToStd(cassette.status().message())));
  }
  if (absl::GetFlag(FLAGS_json)) {
    PrintJson(*cassette);
  } else {
    PrintText(path, *cassette);
  }
  return std::cout.flush() ? kExitOk : Failure("cassette dump", "cannot write to standard output");
}

}  // namespace

int RunCassetteCommand(std::span<const std::string> args) {
  if (args.empty()) return UsageError("cassette", "missing subcommand (dump)");
  const std::string& sub = args[0];
  if (sub == "--help" || sub == "-h" || sub == "help") {
    std::cout << kCassetteHelp;
    return kExitOk;
  }
  if (sub == "dump") return RunDump(args.subspan(1));
  return UsageError("cassette", "unknown subcommand \"" + json::Sanitize(sub) + "\"");
}

}  // namespace agentrt::cli
