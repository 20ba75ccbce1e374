// tests/mcp/fake_http_mcp.h
//
// A streamable HTTP MCP server for the client's tests, served on loopback by world::HttpServer:
// it answers initialize (with a session id), tools/list and tools/call, in JSON or as an event
// stream (with a priming event and a decoy event of another type before the message), and can
// misbehave on request: cut a stream before the response (to be resumed with Last-Event-ID),
// forget the session once (404), redirect elsewhere, send a body over 16 MiB. It keeps every
// request it was sent. Test-only.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "runtime/world/http_service.h"

namespace agentrt::mcp::testing {

class FakeHttpMcp final : public world::HttpService {
 public:
  struct Options {
    bool sse = false;                  // answer requests with an event stream
    bool cut_first_call = false;       // the first tools/call stream ends before its response
    int forget_session_at = 0;         // answer the n-th request carrying the session id with 404
    std::string redirect_to;           // answer every POST with a 307 to this URL
    std::size_t huge_description = 0;  // tools/list: a description of this many bytes
    std::string schema = R"({"properties":{"path":{"type":"string"}},"type":"object"})";
    std::string message_event = " message";  // the `event:` value of the message's event
    std::string call_result = R"({"content":[{"text":"contents","type":"text"}]})";
  };
  struct Seen {
    std::string method;  // HTTP method
    world::HttpFields headers;
    std::string body;
  };

  explicit FakeHttpMcp(Options options) : options_(std::move(options)) {}

  std::size_t max_body() const override { return 1 << 20; }
  std::optional<world::ServerResponse> Admit(const world::ServerRequest& head) override {
    return std::nullopt;
  }
  world::ServerResponse Serve(const world::ServerRequest& request) override;
  world::ServerResponse Refused(const world::ServerRequest& head, int status) override {
    return {status, {}, ""};
  }

  std::vector<Seen> seen() const;
  int sessions_started() const;

 private:
  world::ServerResponse Answer(const std::string& id_json, const std::string& result);

  const Options options_;
  mutable absl::Mutex mu_;
  std::vector<Seen> seen_ ABSL_GUARDED_BY(mu_);
  int sessions_ ABSL_GUARDED_BY(mu_) = 0;
  int with_session_ ABSL_GUARDED_BY(mu_) = 0;
  bool cut_ ABSL_GUARDED_BY(mu_) = false;
  std::string held_ ABSL_GUARDED_BY(mu_);  // the response a cut stream owes
};

}  // namespace agentrt::mcp::testing
