#include "runtime/world/launcher.h"

#include <csignal>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace agentrt::world {

std::string ToString(const ExitStatus& status) {
  if (status.signal > 0) {
    const char* name = sigabbrev_np(status.signal);
    return name == nullptr ? absl::StrCat("signal ", status.signal)
                           : absl::StrCat("signal ", status.signal, " (SIG", name, ")");
  }
  return absl::StrCat("exit ", status.code);
}

}  // namespace agentrt::world
