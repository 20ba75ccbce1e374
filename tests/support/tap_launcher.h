// tests/support/tap_launcher.h
//
// A Launcher that starts processes with another and keeps, for each one, its pid and every byte
// the caller wrote to its stdin and read from its stdout: so a test can find a server's process
// to check it is gone, see exactly what a server sent (a request, a notification), and a
// benchmark can take the bytes of one exchange for its floor. Nothing is changed on the way.
//
// Thread-safe when the inner launcher is; what a process tapped is readable while it runs.
// Test-only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "runtime/world/launcher.h"

namespace agentrt::test_support {

// What one started process exchanged so far.
struct Tapped {
  std::int64_t pid = 0;
  std::vector<std::string> argv;
  std::string written;  // everything written to its stdin, in order
  std::string read;     // everything read from its stdout, in order

  bool operator==(const Tapped&) const = default;
};

class TapLauncher final : public world::LauncherWrapper {
 public:
  // `inner` must outlive this and every process it starts.
  explicit TapLauncher(world::Launcher& inner) : LauncherWrapper(inner) {}

  absl::StatusOr<std::unique_ptr<world::Process>> Start(const world::LaunchSpec& spec) override;

  // Every process started so far, in the order they were, as they stand now.
  std::vector<Tapped> processes() const;
  // The last one started; a Tapped with pid 0 when none was.
  Tapped last() const;

  // The tapped processes write here (the processes hold a pointer to this launcher's state).
  struct State {
    mutable absl::Mutex mu;
    std::vector<Tapped> processes ABSL_GUARDED_BY(mu);
  };

 private:
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

}  // namespace agentrt::test_support
