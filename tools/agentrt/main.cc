// tools/agentrt/main.cc
//
// The `agentrt` command: one binary, subcommands. Exit status 0 ok, 1 failure or finding,
// 2 usage error (DESIGN.md, "The agentrt command").
#include <iostream>
#include <string>
#include <vector>

#include "runtime/json/sanitize.h"
#include "tools/agentrt/cassette_command.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/event_commands.h"
#include "tools/agentrt/json_command.h"
#include "tools/agentrt/operator_commands.h"
#include "tools/agentrt/run_commands.h"
#include "tools/agentrt/schema_command.h"
#include "tools/agentrt/view_commands.h"
#include "tools/agentrt/webhook_command.h"

namespace {

constexpr char kHelp[] =
    R"(agentrt: a runtime and deterministic simulator for tool-using AI agents.

Usage: agentrt COMMAND [ARGS...]

Commands:
  json canon [FILE|-]   print the canonical form of a JSON document
  json hash [FILE|-]    print the SHA-256 of a JSON document's canonical form
  schema validate SCHEMA INSTANCE
                        validate a JSON document against a JSON Schema
  schema check SCHEMA   compile a JSON Schema, or say why it is refused
  demo scripted --db PATH [--approval | --resume RUN]
                        run a scripted agent against in-memory tools and print its trace
  demo model --db PATH (--record CASSETTE | --replay CASSETTE)
                        a model-backed agent under model accounting, recorded or replayed
  cassette dump CASSETTE [--json]
                        print the exchanges a recorded cassette holds

Operating on a database of runs (--db PATH, or the AGENTRT_DB environment variable;
opened existing-only, never created; --json for machine output):
  runs                  list the runs, newest first, with the approval each waits on
  show RUN              a run, the approvals it waits on, and its steps
  events RUN [--limit N] [--offset N]
                        print a run's persisted events (aligned text or JSON Lines)
  verify [--from N] [--to N] [--head SEQ:HASH]
                        walk the event hash chain, report the first break, check a kept head
  export [--run RUN] [--cursor FILE] [--once]
                        follow the event log read-only, writing JSON Lines records
  approve RUN           show the approval a run waits on and approve it (bound to what
                        was shown; the run stays waiting until the consumer resumes it)
  reject RUN            show it and reject it (the run is cancelled)
  cancel RUN            cancel a run that has not ended
  recheck RUN           re-ask the default policy every decision the run recorded
  webhook serve --listen HOST:PORT --secret_file FILE
                        serve the signed approval webhook (docs/operators.md)

There is deliberately no 'resume' command: resuming a run needs the consumer's agent,
tools and policy, so the consumer's own program resumes it after an approval.

Run 'agentrt COMMAND --help' for a command's details.
Exit status: 0 ok, 1 failure or finding, 2 usage error.
)";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << kHelp;
    return agentrt::cli::kExitUsage;
  }
  const std::string& command = args[0];
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kHelp;
    return agentrt::cli::kExitOk;
  }
  std::span<const std::string> rest(args.data() + 1, args.size() - 1);
  if (command == "json") return agentrt::cli::RunJsonCommand(rest);
  if (command == "schema") return agentrt::cli::RunSchemaCommand(rest);
  if (command == "demo") return agentrt::cli::RunDemoCommand(rest);
  if (command == "events") return agentrt::cli::RunEventsCommand(rest);
  if (command == "verify") return agentrt::cli::RunVerifyCommand(rest);
  if (command == "export") return agentrt::cli::RunExportCommand(rest);
  if (command == "recheck") return agentrt::cli::RunRecheckCommand(rest);
  if (command == "resume") {
    std::cerr << "agentrt: there is no resume command: resuming a run needs the consumer's "
                 "agent, tools and policy, so the consumer's program resumes it\n";
    return agentrt::cli::kExitUsage;
  }
  if (command == "runs") return agentrt::cli::RunRunsCommand(rest);
  if (command == "show") return agentrt::cli::RunShowCommand(rest);
  if (command == "approve") return agentrt::cli::RunApproveCommand(rest);
  if (command == "reject") return agentrt::cli::RunRejectCommand(rest);
  if (command == "cancel") return agentrt::cli::RunCancelCommand(rest);
  if (command == "cassette") return agentrt::cli::RunCassetteCommand(rest);
  if (command == "webhook") return agentrt::cli::RunWebhookCommand(rest);
  std::cerr << "agentrt: unknown command \"" << agentrt::json::Sanitize(command)
            << "\"\nRun 'agentrt --help' for the list of commands.\n";
  return agentrt::cli::kExitUsage;
}
