// runtime/world/internal/quiet_thread.h
//
// The launcher's threads block every asynchronous signal for their whole life, from birth:
//  - a signal meant for the host program (SIGTERM, SIGINT, a handler's SIGUSR1) is delivered
//    to one of the host's own threads, never to a launcher thread it did not expect;
//  - a write to a child's closed stdin fails with EPIPE instead of raising SIGPIPE, without
//    changing the host's process-wide SIGPIPE disposition (the thread-directed SIGPIPE stays
//    pending on the writer thread and is discarded when it ends);
//  - a child forked from such a thread starts with every signal blocked, so no handler of the
//    host runs in it before it resets its signals and execs.
// Faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT) stay unblocked.
#pragma once

#include <thread>

#include "absl/functional/any_invocable.h"

namespace agentrt::world::internal {

// QuietThread starts `body` on a new thread whose signal mask blocks every asynchronous signal.
std::thread QuietThread(absl::AnyInvocable<void()> body);

}  // namespace agentrt::world::internal
