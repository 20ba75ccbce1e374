// tools/agentrt/real_world.h
//
// The real world a command runs in, built once by the command (its composition root): the
// system clock, one scheduler thread, the operating system's randomness, environment and files,
// child processes and HTTP. Destroyed in the reverse order, so children started through it are gone
// before the rest.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "runtime/world/clock.h"
#include "runtime/world/curl_network.h"
#include "runtime/world/entropy.h"
#include "runtime/world/environment.h"
#include "runtime/world/real_filesystem.h"
#include "runtime/world/real_launcher.h"
#include "runtime/world/real_scheduler.h"
#include "runtime/world/world.h"

namespace agentrt::cli {

class RealWorld {
 public:
  static absl::StatusOr<std::unique_ptr<RealWorld>> Create(world::CurlNetworkOptions network = {});
  const world::World& world() const { return world_; }

 private:
  RealWorld() = default;

  world::RealClock clock_;
  world::RealScheduler scheduler_;
  world::OsEntropy entropy_;
  world::ProcessEnvironment environment_;
  world::RealFilesystem files_;
  std::unique_ptr<world::RealLauncher> launcher_;
  std::unique_ptr<world::CurlNetwork> network_;
  world::World world_;
};

inline absl::StatusOr<std::unique_ptr<RealWorld>> RealWorld::Create(
    world::CurlNetworkOptions network) {
  std::unique_ptr<RealWorld> w(new RealWorld());
  absl::StatusOr<std::unique_ptr<world::CurlNetwork>> net =
      world::CurlNetwork::Create(w->clock_, network);
  if (!net.ok()) return net.status();
  w->network_ = *std::move(net);
  w->launcher_ = std::make_unique<world::RealLauncher>(w->clock_);
  w->world_ = {&w->clock_,        &w->scheduler_,   &w->entropy_, w->launcher_.get(),
               w->network_.get(), &w->environment_, &w->files_};
  return w;
}

}  // namespace agentrt::cli
