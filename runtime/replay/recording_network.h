// runtime/replay/recording_network.h
//
// A Network that sends with another and records every exchange: each request (method, URL,
// headers, body, body limit, deadline) with its answer (the response's number, status and
// headers, or the error), every read of a body with the bytes it got as they arrived (a
// streamed answer is recorded chunk by chunk), and every close. A replay then answers the same
// requests without a network (replaying_network.h).
//
// What carries a secret is recorded redacted (internal/convert.h): the credential headers
// (`Authorization`, `X-Api-Key`, ...), and, for a request marked carries_secrets (an OAuth token
// request, a client registration), its form body's secret fields and its answer's secret JSON
// members (internal/secret_redactor.h). Everything else is recorded as sent; a cassette file is
// mode 0600 all the same. Thread-safe when the inner network is; every response must be
// destroyed before it.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/replay/cassette_recorder.h"
#include "runtime/world/network.h"

namespace agentrt::replay {

class RecordingNetwork final : public world::NetworkWrapper {
 public:
  // `inner` and `recorder` must outlive this.
  RecordingNetwork(world::Network& inner, CassetteRecorder& recorder)
      : NetworkWrapper(inner), recorder_(recorder) {}

  absl::StatusOr<std::unique_ptr<world::HttpResponse>> Send(const world::HttpRequest& request,
                                                            absl::Time deadline) override;

 private:
  CassetteRecorder& recorder_;
};

}  // namespace agentrt::replay
