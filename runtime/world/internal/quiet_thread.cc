#include "runtime/world/internal/quiet_thread.h"

#include <pthread.h>
#include <signal.h>

#include <utility>

namespace agentrt::world::internal {

std::thread QuietThread(absl::AnyInvocable<void()> body) {
  sigset_t all;
  sigfillset(&all);
  for (int fault : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT}) sigdelset(&all, fault);
  // A new thread inherits its creator's mask: blocking here, around the creation, leaves no
  // moment in which the new thread could take a signal.
  sigset_t previous;
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  std::thread thread(std::move(body));
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return thread;
}

}  // namespace agentrt::world::internal
