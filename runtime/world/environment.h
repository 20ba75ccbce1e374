// runtime/world/environment.h
//
// This process's environment variables, injected: what the MCP client passes on to a stdio
// server (the minimal environment of child_env.h reads PATH, HOME, TMPDIR and the names the
// operator lets through) comes from an Environment, so a recorded run replays on another
// machine with the recorded values, and a simulation decides them.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/world/child_env.h"

namespace agentrt::world {

class Environment {
 public:
  virtual ~Environment() = default;
  // Get is variable `name`'s value ("" when set but empty), nullopt when it is not set.
  virtual std::optional<std::string> Get(std::string_view name) = 0;
};

// EnvironmentWrapper forwards every read to a target environment, so an environment that
// changes one call overrides only that one (clock.h's ClockWrapper says why). The target is not
// owned and must outlive this.
class EnvironmentWrapper : public Environment {
 public:
  explicit EnvironmentWrapper(Environment& target) : target_(target) {}
  Environment& target() const { return target_; }
  std::optional<std::string> Get(std::string_view name) override { return target_.Get(name); }

 private:
  Environment& target_;
};

// ProcessEnvironment reads this process's environment. Thread-safe as long as nothing in the
// process changes its environment (agentrt never does).
class ProcessEnvironment final : public Environment {
 public:
  std::optional<std::string> Get(std::string_view name) override;
};

// FixedEnvironment holds the variables it was given (tests, the simulator).
class FixedEnvironment final : public Environment {
 public:
  explicit FixedEnvironment(std::map<std::string, std::string, std::less<>> variables = {})
      : variables_(std::move(variables)) {}
  std::optional<std::string> Get(std::string_view name) override;

 private:
  std::map<std::string, std::string, std::less<>> variables_;
};

// LookupOf adapts an Environment to child_env.h's lookup (`environment` must outlive it).
EnvLookup LookupOf(Environment& environment);

}  // namespace agentrt::world
