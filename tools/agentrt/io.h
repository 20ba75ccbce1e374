// tools/agentrt/io.h
//
// The streams an `agentrt` command talks through. A command reads standard input from `in`,
// prints what it found (and its help, and a prompt) to `out`, and its errors, warnings and
// progress to `err`; no command reaches std::cin, std::cout or std::cerr itself. So the binary
// hands a command the process's streams (commands.cc builds them, with CheckedStdout under
// std::cout) and a test hands it string streams, runs it in-process and checks what went where.
//
// An Io refers to its streams and owns none: they must outlive it. Streams are not for two
// threads at once, so a command that writes from threads of its own keeps the writes apart
// (the webhook's log takes a lock; the swarm's progress calls never overlap).
#pragma once

#include <istream>
#include <ostream>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace agentrt::cli {

struct Io {
  std::istream& in;
  std::ostream& out;
  std::ostream& err;
  // `in` is a terminal a person types at, so a command may ask there (operator_io.h, Ask);
  // otherwise a question nobody can answer is refused instead.
  bool in_is_terminal = false;
  // `err` is a terminal, so a progress line may be redrawn in place rather than logged.
  bool err_is_terminal = false;
};

// ReadInput returns the bytes of the file at `path` (runtime/base/file_util.h's ReadFile), or
// everything `io.in` holds when `path` is "-". Errors: NotFound / PermissionDenied /
// InvalidArgument naming the path (or "standard input") and the reason; OutOfRange past
// kDefaultMaxInputBytes.
absl::StatusOr<std::string> ReadInput(Io& io, std::string_view path);

// StdinIsTerminal: the process's standard input is a character device other than /dev/null
// (compared by device and inode, so another name for it is recognized too). What the dispatch
// sets `in_is_terminal` from.
bool StdinIsTerminal();

}  // namespace agentrt::cli
