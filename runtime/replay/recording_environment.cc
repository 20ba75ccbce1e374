#include "runtime/replay/recording_environment.h"

#include "runtime/replay/proto/cassette.pb.h"

namespace agentrt::replay {

std::optional<std::string> RecordingEnvironment::Get(std::string_view name) {
  std::optional<std::string> value = EnvironmentWrapper::Get(name);
  v1::Exchange exchange;
  v1::EnvironmentRead* read = exchange.mutable_environment();
  read->set_name(std::string(name));
  read->set_set(value.has_value());
  if (value) read->set_value(*value);
  recorder_.Record(exchange).IgnoreError();  // kept by the recorder
  return value;
}

}  // namespace agentrt::replay
