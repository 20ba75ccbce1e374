// sim/fake_server.h
//
// A fake MCP server as a scenario scripts it (sim/proto/scenario.proto): what it answers to
// each JSON-RPC message a client sends, independent of how the bytes travel (sim_launcher.h
// carries them over simulated stdio, sim_network.h over simulated streamable HTTP). It answers
// `initialize`, `tools/list` (paged, looping, raw pages: whatever the scenario says, for the
// phase it is in: pin or load), `tools/call` (each tool's calls in order, the last repeating:
// an answer, isError, huge or non-text output, input-required, a hang, a crash, an exit with a
// stderr message, a wrong id), and `ping`; notifications get nothing, other methods -32601.
//
// Every tools/call that reaches it is an effect in the shared Ledger: the invariants check
// each one was authorized and none ran twice. Perturbations (a swarm seed's) apply to the n-th
// answer any server of the scenario sends, counted by the shared Perturber.
//
// One thread; no clock of its own: a Reply says how long after the request it comes, and the
// transport delivers it on the virtual clock.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "sim/proto/scenario.pb.h"

namespace agentrt::sim {

enum class ServerPhase { kPin, kLoad };

// One tools/call that reached a server.
struct Effect {
  std::string server;
  std::string tool;            // the server's name for it
  std::string arguments;       // canonical JSON of the call's arguments ({} when none)
  bool after_restart = false;  // made by the runtime restarted after a crash
};

// What the servers of one scenario saw, shared by all of them. `on_call` (optional) runs as
// each call arrives, after it is recorded: the runner crashes the runtime from there.
struct Ledger {
  std::vector<Effect> effects;
  bool restarted = false;  // the runtime was restarted: the calls from now on are the new one's
  std::function<void(std::size_t call_number)> on_call;
};

// The perturbations of one play, by answer number; counts the answers of every server.
class Perturber {
 public:
  explicit Perturber(const google::protobuf::RepeatedPtrField<v1::Perturbation>& list);
  // The perturbation of the next answer (a default one when none applies).
  v1::Perturbation Next();
  std::uint32_t answers() const { return answers_; }

 private:
  std::map<std::uint32_t, v1::Perturbation> by_answer_;
  std::uint32_t answers_ = 0;
};

// What a server does about one message.
struct Reply {
  // Lines to send, in order, without their newline: raw lines first (notifications, server
  // requests, garbage), then the answer when there is one.
  std::vector<std::string> lines;
  bool answered = false;  // a line answers the request (answer()); false: none ever will (a hang)
  bool notification = false;  // the message was a notification or a response: nothing is owed
  absl::Duration delay = absl::ZeroDuration();       // after the request, on the virtual clock
  absl::Duration clock_jump = absl::ZeroDuration();  // the clock jumps this far first
  bool partial = false;                              // the answer arrives in two pieces
  bool answer_first = false;  // the answer was moved before the other lines (a reordering)
  enum class End { kOpen, kCrash, kExit };
  End end = End::kOpen;  // after the lines: the server stays, dies (SIGKILL), or exits
  int exit_code = 0;
  std::string stderr;  // written to stderr with the lines

  // Where the answer is among `lines`; lines.size() when there is none.
  std::size_t answer() const {
    if (!answered) return lines.size();
    return answer_first ? 0 : lines.size() - 1;
  }

  // The pieces line `i` is delivered in, `framed` as its transport frames it (a line and its
  // newline, an SSE event, an HTTP body): two halves when it is the answer of a partial reply,
  // else whole.
  std::vector<std::string> Pieces(std::size_t i, std::string framed) const {
    if (i != answer() || !partial || framed.size() < 2) return {std::move(framed)};
    std::size_t half = framed.size() / 2;
    return {framed.substr(0, half), framed.substr(half)};
  }
};

class FakeServer {
 public:
  // `config` must have passed CheckScenario (scenario_file.h). Not owned: ledger, perturber.
  FakeServer(const v1::Server& config, Ledger* ledger, Perturber* perturber);

  const v1::Server& config() const { return config_; }
  void set_phase(ServerPhase phase) { phase_ = phase; }
  ServerPhase phase() const { return phase_; }

  // The names of the tools it offers in its phase; nullopt when raw pages say what it lists.
  std::optional<std::vector<std::string>> OfferedNames() const;

  // What the server does when started (stdio): its startup behaviour.
  Reply Start();
  // What it does about one JSON-RPC message (one line, or one HTTP body).
  Reply Handle(std::string_view message);

 private:
  struct ListedTool {
    const v1::Tool* tool;
    std::string name;
  };
  std::vector<ListedTool> LiveTools() const;
  const v1::Listing* LiveListing() const;
  std::string ToolJson(const ListedTool& listed) const;
  Reply List(std::string_view id, std::string_view cursor);
  Reply CallTool(std::string_view id, std::string_view name, std::string arguments);
  Reply Perturbed(Reply reply);

  const v1::Server& config_;
  Ledger* ledger_;
  Perturber* perturber_;
  ServerPhase phase_ = ServerPhase::kPin;
  std::size_t raw_page_ = 0;                  // the next raw page to serve
  std::map<std::string, std::size_t> calls_;  // tools/call count by tool name
};

// A JSON-RPC error answer to `id` (raw JSON).
std::string ErrorAnswer(std::string_view id, int code, std::string_view message);

}  // namespace agentrt::sim
