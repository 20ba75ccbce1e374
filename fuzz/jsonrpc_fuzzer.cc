// A hostile MCP server's stdout, as the client reads it: the input's first byte picks how the
// bytes are cut into reads (1 to 256 bytes each, so lines split anywhere), the rest is what the
// server writes. A session performs the handshake and then asks for tools/list, through the
// real stdio framing (StdioTransport, with a small line cap) and the real Session.
//
// Never crashes or hangs; every error is one printable line however hostile the server's words;
// everything the client writes back is one line holding one well-formed JSON-RPC message (an
// answer to a server's request echoes its id exactly); a result the session returns is
// canonical JSON. ParseMessage is also run on every line directly: an accepted message's parts
// are canonical JSON.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "fuzz/printable.h"
#include "mcp/jsonrpc.h"
#include "mcp/session.h"
#include "mcp/stdio_transport.h"
#include "runtime/json/canonical_json.h"
#include "runtime/world/clock.h"
#include "runtime/world/launcher.h"

namespace {

using agentrt::fuzz::CheckPrintable;
using agentrt::mcp::Message;

constexpr std::size_t kLineCap = 1 << 16;

bool IsCanonical(std::string_view json) {
  absl::StatusOr<std::string> canonical = agentrt::json::Canonicalize(json);
  return canonical.ok() && *canonical == json;
}

// Checks an accepted message's parts, and remembers the ids of the server's requests.
void CheckMessage(const Message& message, std::set<std::string>* request_ids) {
  if (!message.id.empty() && !IsCanonical(message.id)) std::abort();
  if (!message.params.empty() && !IsCanonical(message.params)) std::abort();
  if (message.kind == Message::Kind::kResult && !IsCanonical(message.result)) std::abort();
  if (message.kind == Message::Kind::kRequest) {
    // An empty method is still a request (JSON-RPC asks only for a string): it is answered.
    if (message.id.empty()) std::abort();
    request_ids->insert(message.id);
  }
}

// The server's side: reads serve the input in pieces; writes are checked and kept.
class ScriptedProcess final : public agentrt::world::Process {
 public:
  ScriptedProcess(std::string_view out, std::size_t piece, const std::set<std::string>* asked)
      : out_(out), piece_(piece), asked_(asked) {}

  std::int64_t pid() const override { return 1; }
  absl::Status Write(std::string_view bytes, absl::Time) override {
    // One message per write, one line.
    if (bytes.empty() || bytes.back() != '\n') std::abort();
    std::string_view line = bytes.substr(0, bytes.size() - 1);
    if (line.find('\n') != std::string_view::npos) std::abort();
    absl::StatusOr<Message> message = agentrt::mcp::ParseMessage(line);
    if (!message.ok()) std::abort();
    bool answer = message->kind == Message::Kind::kResult || message->kind == Message::Kind::kError;
    if (answer && !asked_->contains(message->id)) std::abort();
    return absl::OkStatus();
  }
  absl::Status CloseStdin() override { return absl::OkStatus(); }
  absl::StatusOr<std::string> Read(absl::Time, std::size_t max_bytes) override {
    if (closed_) return absl::CancelledError("closed");
    std::size_t n = std::min({piece_, max_bytes, out_.size()});
    std::string chunk(out_.substr(0, n));
    out_.remove_prefix(n);
    return chunk;  // "" once the input is used up: stdout ended
  }
  absl::Status Signal(int) override { return absl::OkStatus(); }
  absl::StatusOr<agentrt::world::ExitStatus> Wait(absl::Time) override {
    return agentrt::world::ExitStatus{.code = 0};
  }
  agentrt::world::ExitStatus Close() override {
    closed_ = true;
    return {.code = 0};
  }
  std::string StderrTail(absl::Time) override { return ""; }

 private:
  std::string_view out_;
  const std::size_t piece_;
  const std::set<std::string>* asked_;
  bool closed_ = false;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::size_t piece = std::size_t{data[0]} + 1;
  std::string_view out(reinterpret_cast<const char*>(data) + 1, size - 1);

  // Every line on its own, as the framing would cut it.
  std::set<std::string> request_ids;
  for (std::string_view rest = out; !rest.empty();) {
    std::size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    absl::StatusOr<Message> message = agentrt::mcp::ParseMessage(line);
    if (message.ok()) {
      CheckMessage(*message, &request_ids);
    } else {
      CheckPrintable(message.status());
    }
  }

  // The same bytes through the transport and a session.
  agentrt::world::ManualClock clock(absl::UnixEpoch());
  auto transport = std::make_unique<agentrt::mcp::StdioTransport>(
      std::make_unique<ScriptedProcess>(out, piece, &request_ids), kLineCap);
  std::unique_ptr<agentrt::mcp::Session> session =
      agentrt::mcp::Session::Open(std::move(transport), clock);
  absl::Time deadline = absl::UnixEpoch() + absl::Seconds(1);
  if (absl::Status ready = session->Initialize(deadline); !ready.ok()) {
    CheckPrintable(ready);
    return 0;
  }
  absl::StatusOr<std::string> listed = session->Request("tools/list", "{}", deadline);
  if (!listed.ok()) {
    CheckPrintable(listed.status());
  } else if (!IsCanonical(*listed)) {
    std::abort();
  }
  session->Close();
  return 0;
}
