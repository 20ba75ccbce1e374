// tools/agentrt/commands.h
//
// The `agentrt` commands, named once. commands.cc holds one table with an entry per command:
// its name (one word, "verify", or two, "json canon"), a one-line summary, the section of the
// help it is listed in, and its handler. Dispatch, `agentrt --help` and the suggestions for a
// mistyped command all read that table, so a command cannot be reachable without being
// listed in the help, nor listed without being reachable.
//
// Dispatch is on the first word. Its handler gets every word after it, and the handler of a
// two-word command reads the second word itself, so that `agentrt json --help`, a bare
// `agentrt json` and `agentrt json nosuch` keep the family's own help and usage errors. So
// every command of a family (the same first word) has the same handler: commands.cc checks
// that, and that no name is listed twice, when it compiles.
//
// Exit status, for every command: 0 ok, 1 failure or finding, 2 usage error (command_line.h);
// and 1 whenever its standard output could not be written, whatever it found
// (checked_stdout.h).
#pragma once

#include <span>
#include <string>

#include "tools/agentrt/io.h"

namespace agentrt::cli {

// RunAgentrt runs `agentrt ARGS...`, `args` being the words after the program name, with the
// process's streams (io.h), and returns the process exit status:
//  - `--help`, `-h` or `help`: the help (a usage line, then every command with its summary)
//    on standard output, 0. No words at all: the same help on standard error, 2.
//  - A command's first word: whatever that command does.
//  - "resume": refused with the reason there is no such command, 2.
//  - Any other word: "unknown command" naming it (escaped for the terminal), the nearest
//    commands when one is near (suggest.h) and a pointer to `agentrt --help`, on standard
//    error, 2.
// Standard output is checked (checked_stdout.h): 1 when it could not be written.
int RunAgentrt(std::span<const std::string> args);

// RunAgentrt with the streams `io` instead, the same in every other way but that `io.out` is
// not checked (it is the caller's stream): what a test calls to run a command in-process.
int RunAgentrt(std::span<const std::string> args, Io& io);

}  // namespace agentrt::cli
