// tests/support/fake_world.h
//
// In-process stand-ins for a child process and an HTTP server, for tests and benchmarks that
// need a world with processes and a network but not a real one: FakeLauncher plays `wc -w`
// (what is written to stdin is counted at end of input; anything else fails to start), and
// FakeNetwork answers every request 200 with a JSON body naming its method and path, in two
// chunks. Deterministic; no thread, no clock. Test-only.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/world/launcher.h"
#include "runtime/world/network.h"

namespace agentrt::test_support {

class FakeLauncher final : public world::Launcher {
 public:
  absl::StatusOr<std::unique_ptr<world::Process>> Start(const world::LaunchSpec& spec) override;
  int started() const { return started_; }

 private:
  int started_ = 0;
};

class FakeNetwork final : public world::Network {
 public:
  absl::StatusOr<std::unique_ptr<world::HttpResponse>> Send(const world::HttpRequest& request,
                                                            absl::Time deadline) override;
  int sent() const { return sent_; }

 private:
  int sent_ = 0;
};

}  // namespace agentrt::test_support
