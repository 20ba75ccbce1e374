#include "tools/agentrt/commands.h"

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <iostream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/json/sanitize.h"
#include "tools/agentrt/cassette_command.h"
#include "tools/agentrt/checked_stdout.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/demos/demo_command.h"
#include "tools/agentrt/event_commands.h"
#include "tools/agentrt/io.h"
#include "tools/agentrt/json_command.h"
#include "tools/agentrt/mcp_commands.h"
#include "tools/agentrt/operator_commands.h"
#include "tools/agentrt/proxy_command.h"
#include "tools/agentrt/replay_command.h"
#include "tools/agentrt/run_commands.h"
#include "tools/agentrt/schema_command.h"
#include "tools/agentrt/sim_command.h"
#include "tools/agentrt/suggest.h"
#include "tools/agentrt/view_commands.h"
#include "tools/agentrt/webhook_command.h"

namespace agentrt::cli {
namespace {

// Where `agentrt --help` lists a command; the table keeps each section's commands together.
enum class Section {
  kStandalone,   // works on files, or writes a database of its own
  kRunDatabase,  // operates on an existing database of runs
};

struct Command {
  std::string_view name;     // one word, or two for a command of a family ("json canon")
  std::string_view summary;  // one line, for `agentrt --help`
  Section section;
  int (*run)(std::span<const std::string> words_after_first, Io& io);
};

// In the order `agentrt --help` lists them.
constexpr Command kCommands[] = {
    {"json canon", "print the canonical form of a JSON document", Section::kStandalone,
     RunJsonCommand},
    {"json hash", "print the SHA-256 of a JSON document's canonical form", Section::kStandalone,
     RunJsonCommand},
    {"schema validate", "validate a JSON document against a JSON Schema", Section::kStandalone,
     RunSchemaCommand},
    {"schema check", "compile a JSON Schema, or say why it is refused", Section::kStandalone,
     RunSchemaCommand},
    {"demo scripted", "run a scripted agent against in-memory tools and print its trace",
     Section::kStandalone, RunDemoCommand},
    {"demo model", "run a model-backed agent under model accounting, recorded or replayed",
     Section::kStandalone, RunDemoCommand},
    {"demo mcp", "run an agent against the real filesystem MCP server; a write waits for you",
     Section::kStandalone, RunDemoCommand},
    {"demo world", "run tools that start a process and ask an HTTP server, recorded or replayed",
     Section::kStandalone, RunDemoCommand},
    {"demo live", "run an agent on a real model through its provider; a report waits for you",
     Section::kStandalone, RunDemoCommand},
    {"demo proxy", "play a host in front of the proxy and a real MCP server; print what it sees",
     Section::kStandalone, RunDemoCommand},
    {"cassette dump", "print every exchange a recorded cassette holds", Section::kStandalone,
     RunCassetteCommand},
    {"cassette check", "check a cassette can be replayed, or say what is wrong with it",
     Section::kStandalone, RunCassetteCommand},
    {"replay", "re-run a recorded demonstration offline and check its audit log",
     Section::kStandalone, RunReplayCommand},
    {"mcp pin", "record what each configured MCP server presents (its manifest)",
     Section::kStandalone, RunMcpCommand},
    {"mcp check", "what loading the pinned MCP servers would register and refuse, offline",
     Section::kStandalone, RunMcpCommand},
    {"mcp tools", "list an MCP server's tools live, with their hints and their pin",
     Section::kStandalone, RunMcpCommand},
    {"mcp call", "make one governed call to an MCP server's tool, recorded as a run",
     Section::kStandalone, RunMcpCommand},
    {"mcp login", "authorize to a remote MCP server that requires it (OAuth), at a browser",
     Section::kStandalone, RunMcpCommand},
    {"proxy", "serve an MCP host over stdio, every tool call governed and recorded",
     Section::kStandalone, RunProxyCommand},
    {"proxy pin", "record what each server behind the proxy presents (its manifest)",
     Section::kStandalone, RunProxyCommand},
    {"proxy check", "start the proxy as serving would, print what registered, and stop",
     Section::kStandalone, RunProxyCommand},
    {"proxy recheck", "ask today's policy every decision the proxy's runs recorded",
     Section::kStandalone, RunProxyCommand},
    {"sim run", "play scenarios in the simulator: hostile MCP servers on a virtual clock",
     Section::kStandalone, RunSimCommand},
    {"sim swarm", "play scenarios under many seeds that perturb the world; check invariants",
     Section::kStandalone, RunSimCommand},
    {"sim shrink", "reduce a failing seed's scenario to a minimal one and write it",
     Section::kStandalone, RunSimCommand},
    {"sim generate", "write the world a seed generates (as `sim swarm --generate` plays it)",
     Section::kStandalone, RunSimCommand},
    {"sim record", "run an MCP configuration and a scripted agent for real, into a cassette",
     Section::kStandalone, RunSimCommand},
    {"sim replay", "replay a recorded sim run offline through the same client; check its head",
     Section::kStandalone, RunSimCommand},
    {"runs", "list the runs, newest first, with the approval each waits on", Section::kRunDatabase,
     RunRunsCommand},
    {"show", "print a run, the approvals it waits on, and its steps", Section::kRunDatabase,
     RunShowCommand},
    {"events", "print a run's persisted events (aligned text or JSON Lines)", Section::kRunDatabase,
     RunEventsCommand},
    {"verify", "walk the event hash chain, report the first break, check a kept head",
     Section::kRunDatabase, RunVerifyCommand},
    {"export", "follow the event log read-only, writing JSON Lines records", Section::kRunDatabase,
     RunExportCommand},
    {"approve", "show the approval a run waits on and approve what was shown",
     Section::kRunDatabase, RunApproveCommand},
    {"reject", "show the approval a run waits on and reject it (the run is cancelled)",
     Section::kRunDatabase, RunRejectCommand},
    {"cancel", "cancel a run that has not ended", Section::kRunDatabase, RunCancelCommand},
    {"recheck", "re-ask the default policy every decision the run recorded", Section::kRunDatabase,
     RunRecheckCommand},
    {"migrate", "bring a database written by an older agentrt up to this build's schema",
     Section::kRunDatabase, RunMigrateCommand},
    {"webhook serve", "serve the signed approval webhook (docs/operators.md)",
     Section::kRunDatabase, RunWebhookCommand},
};

constexpr std::string_view FirstWord(std::string_view name) {
  return name.substr(0, name.find(' '));
}

// A name is one word or two, lower case, separated by one space: what the dispatch splits on
// and what the help lines up.
constexpr bool WellFormed(std::string_view name) {
  int spaces = 0;
  for (char c : name) {
    if (c == ' ') {
      ++spaces;
    } else if (!(c >= 'a' && c <= 'z')) {
      return false;
    }
  }
  return !name.empty() && spaces <= 1 && name.front() != ' ' && name.back() != ' ';
}

constexpr bool EveryEntryIsWellFormed() {
  for (const Command& c : kCommands) {
    if (!WellFormed(c.name) || c.summary.empty() || c.run == nullptr) return false;
    if (c.summary.find('\n') != std::string_view::npos) return false;
  }
  return true;
}
static_assert(EveryEntryIsWellFormed(),
              "a command name is one or two lower-case words, and "
              "every command has a one-line summary and a handler");

constexpr bool NoNameTwiceAndFamiliesShareTheirHandler() {
  for (const Command& a : kCommands) {
    for (const Command& b : kCommands) {
      if (&a == &b) continue;
      if (a.name == b.name) return false;
      if (FirstWord(a.name) == FirstWord(b.name) && a.run != b.run) return false;
    }
  }
  return true;
}
static_assert(NoNameTwiceAndFamiliesShareTheirHandler(),
              "dispatch is on the first word: commands sharing it must share a handler");

// A section that starts must not have appeared before.
constexpr bool SectionsAreContiguous() {
  for (std::size_t i = 1; i < std::size(kCommands); ++i) {
    if (kCommands[i].section == kCommands[i - 1].section) continue;
    for (std::size_t j = 0; j < i; ++j) {
      if (kCommands[j].section == kCommands[i].section) return false;
    }
  }
  return true;
}
static_assert(SectionsAreContiguous(), "the help prints each section's heading once");

std::string_view Heading(Section section) {
  switch (section) {
    case Section::kStandalone:
      return "Commands:\n";
    case Section::kRunDatabase:
      return "Operating on a database of runs (--db PATH, or the AGENTRT_DB environment "
             "variable;\nopened existing-only, never created; --json for machine output):\n";
  }
  return "";
}

std::string HelpText() {
  std::size_t width = 0;
  for (const Command& c : kCommands) width = std::max(width, c.name.size());
  std::string text =
      "agentrt: a runtime and deterministic simulator for tool-using AI agents.\n\n"
      "Usage: agentrt COMMAND [ARGS...]\n";
  for (std::size_t i = 0; i < std::size(kCommands); ++i) {
    const Command& c = kCommands[i];
    if (i == 0 || kCommands[i - 1].section != c.section) {
      text += "\n";
      text += Heading(c.section);
    }
    text += "  ";
    text += c.name;
    text += std::string(width - c.name.size() + 2, ' ');
    text += c.summary;
    text += "\n";
  }
  text +=
      "\nThere is deliberately no 'resume' command: resuming a run needs the consumer's agent,\n"
      "tools and policy, so the consumer's own program resumes it after an approval.\n\n"
      "Run 'agentrt COMMAND --help' for a command's arguments and details.\n"
      "Exit status: 0 ok, 1 failure or finding, 2 usage error.\n";
  return text;
}

// `; did you mean "a"?`, `; did you mean "a" or "b"?`, `; did you mean "a", "b" or "c"?`; empty
// for no names.
std::string DidYouMean(const std::vector<std::string_view>& names) {
  if (names.empty()) return "";
  std::string text = "; did you mean ";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " or " : ", ";
    text += "\"";
    text += names[i];
    text += "\"";
  }
  return text + "?";
}

int UnknownCommand(std::span<const std::string> args, Io& io) {
  std::vector<std::string_view> names;
  for (const Command& c : kCommands) names.push_back(c.name);
  io.err << "agentrt: unknown command \"" << json::Sanitize(args[0]) << "\""
         << DidYouMean(ClosestCommands(names, args))
         << "\nRun 'agentrt --help' for the list of commands.\n";
  return kExitUsage;
}

// The command's name for a message of the dispatch's own: its two words when the second names
// one of its family ("mcp call"), else the first, escaped.
std::string CommandName(std::span<const std::string> args) {
  if (args.size() > 1) {
    std::string two = args[0] + " " + args[1];
    for (const Command& c : kCommands) {
      if (c.name == two) return two;
    }
  }
  return json::Sanitize(args[0]);
}

int Dispatch(std::span<const std::string> args, Io& io) {
  const std::string& word = args[0];
  if (word == "--help" || word == "-h" || word == "help") {
    io.out << HelpText();
    return kExitOk;
  }
  for (const Command& c : kCommands) {
    if (FirstWord(c.name) == word) return c.run(args.subspan(1), io);
  }
  // Not a command, so not in the table (the help would list it), but the one an operator
  // after an approval most expects: it gets the reason rather than a suggestion.
  if (word == "resume") {
    io.err << "agentrt: there is no resume command: resuming a run needs the consumer's "
              "agent, tools and policy, so the consumer's program resumes it\n";
    return kExitUsage;
  }
  return UnknownCommand(args, io);
}

}  // namespace

int RunAgentrt(std::span<const std::string> args, Io& io) {
  if (args.empty()) {
    io.err << HelpText();
    return kExitUsage;
  }
  return Dispatch(args, io);
}

int RunAgentrt(std::span<const std::string> args) {
  Io io{.in = std::cin,
        .out = std::cout,
        .err = std::cerr,
        .in_is_terminal = StdinIsTerminal(),
        .err_is_terminal = ::isatty(STDERR_FILENO) == 1};
  if (args.empty()) return RunAgentrt(args, io);
  // Under std::cout, so `io.out` is checked: a command whose output was lost exits 1.
  CheckedStdout out(STDOUT_FILENO);
  int exit = RunAgentrt(args, io);
  return out.Finish(io, CommandName(args), exit);
}

}  // namespace agentrt::cli
