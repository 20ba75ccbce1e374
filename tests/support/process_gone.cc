#include "tests/support/process_gone.h"

#include <signal.h>

#include <cerrno>
#include <fstream>
#include <string>

#include "absl/time/clock.h"

namespace agentrt::test_support {

bool ProcessGone(pid_t pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  std::size_t end = line.rfind(')');
  return end == std::string::npos || (end + 2 < line.size() && line[end + 2] == 'Z');
}

bool ProcessGoneWithin(pid_t pid, absl::Duration limit) {
  absl::Time deadline = absl::Now() + limit;
  while (!ProcessGone(pid)) {
    if (absl::Now() > deadline) {
      ::kill(pid, SIGKILL);
      return false;
    }
    absl::SleepFor(absl::Milliseconds(10));
  }
  return true;
}

}  // namespace agentrt::test_support
