// tools/agentrt/main.cc
//
// The `agentrt` command: one binary, subcommands. Exit status 0 ok, 1 failure or finding,
// 2 usage error (DESIGN.md, "The agentrt command").
#include <iostream>
#include <string>
#include <vector>

#include "runtime/json/sanitize.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/json_command.h"
#include "tools/agentrt/operator_commands.h"
#include "tools/agentrt/run_commands.h"
#include "tools/agentrt/schema_command.h"
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
  events [--db PATH] RUN
                        print a run's persisted events
  verify [--db PATH]    walk the event hash chain and report the first break
  recheck [--db PATH] RUN
                        re-ask the default policy every decision the run recorded
  approve [--db PATH] RUN
                        show the request a run waits on and approve it
  reject [--db PATH] RUN
                        show it and reject it (the run is cancelled)
  cancel [--db PATH] RUN
                        cancel a run that has not ended
  webhook serve [--db PATH] --listen HOST:PORT --secret_file FILE
                        serve the signed approval webhook over the database

Operator commands take --db PATH or the AGENTRT_DB environment variable.

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
  if (command == "recheck") return agentrt::cli::RunRecheckCommand(rest);
  if (command == "approve") return agentrt::cli::RunApproveCommand(rest);
  if (command == "reject") return agentrt::cli::RunRejectCommand(rest);
  if (command == "cancel") return agentrt::cli::RunCancelCommand(rest);
  if (command == "webhook") return agentrt::cli::RunWebhookCommand(rest);
  std::cerr << "agentrt: unknown command \"" << agentrt::json::Sanitize(command)
            << "\"\nRun 'agentrt --help' for the list of commands.\n";
  return agentrt::cli::kExitUsage;
}
