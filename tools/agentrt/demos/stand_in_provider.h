// tools/agentrt/demos/stand_in_provider.h
//
// A stand-in for a model provider, for `agentrt demo live --stand-in` where no model can be
// downloaded: an OpenAI-compatible chat completions endpoint (POST /v1/chat/completions) on
// loopback that answers from a script instead of thinking. It reads the conversation it is sent
// and answers by how many tool results it holds: none, a call to read_file; one, a call to
// send_report; more, a call to finish. Each answer has the shape the chat completions API
// documents (an id, one choice whose message holds the tool call with its arguments as a JSON
// string, finish_reason "tool_calls", and usage), so the real OpenAI adapter reads it as it would
// read a provider's. It is announced as a stand-in wherever it is used.
#pragma once

#include <cstddef>
#include <optional>

#include "runtime/world/http_service.h"

namespace agentrt::cli {

class StandInProvider final : public world::HttpService {
 public:
  std::size_t max_body() const override { return std::size_t{4} << 20; }
  std::optional<world::ServerResponse> Admit(const world::ServerRequest& head) override;
  world::ServerResponse Serve(const world::ServerRequest& request) override;
  world::ServerResponse Refused(const world::ServerRequest& head, int status) override;
};

}  // namespace agentrt::cli
