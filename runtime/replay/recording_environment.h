// runtime/replay/recording_environment.h
//
// An Environment that reads another and records every read (the name, and the value or that it
// was not set) into a cassette, so a replay on another machine sees this machine's values.
// Thread-safe when the inner one is; a read whose recording fails is still returned (the
// recorder keeps the error).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "runtime/replay/cassette_recorder.h"
#include "runtime/world/environment.h"

namespace agentrt::replay {

class RecordingEnvironment final : public world::EnvironmentWrapper {
 public:
  // `inner` and `recorder` must outlive this.
  RecordingEnvironment(world::Environment& inner, CassetteRecorder& recorder)
      : EnvironmentWrapper(inner), recorder_(recorder) {}

  std::optional<std::string> Get(std::string_view name) override;

 private:
  CassetteRecorder& recorder_;
};

}  // namespace agentrt::replay
