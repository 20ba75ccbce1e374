// runtime/engine/session_state.h
//
// Where a driver session stands, as one value. Each state holds only what is true in it, so
// the combinations that cannot happen (an allowed call in a released session, a grant being
// entered with a decision staged, ...) cannot be written down; every change goes through
// SessionState::Apply, the one transition function, which refuses a transition its table does
// not list (InternalError naming both) and changes nothing then. Internal to the engine.
//
//   state           the run as   writes require        holds
//   Driving         RUNNING      RUNNING, our lease    the open step's staged decision, if any
//   Allowed         RUNNING      RUNNING, our lease    the allowed call; its staged decision
//   EnteringGrant   WAITING      WAITING_FOR_APPROVAL  the grant; the call once judged allowed
//   FailingPaused   WAITING      WAITING_FOR_APPROVAL  nothing: a damaged paused run is failed
//   Released        (any)        nothing is written    nothing
//
//   event        from                              to
//   Stage        Driving                           Driving with the decision staged
//   Committed    Driving, Allowed                  the same, nothing staged
//   Allow        Driving                           Allowed (the staged decision goes along)
//                EnteringGrant without a call      EnteringGrant with the call
//   Take         Allowed                           Driving (the staged decision goes along)
//                EnteringGrant with a call         EnteringGrant without it
//   Grant        Driving, nothing staged           EnteringGrant
//   Enter        EnteringGrant without a call      Driving (the step's first write moved the
//                Driving                           run back to RUNNING); Driving stays
//   FailPaused   Driving, nothing staged           FailingPaused
//   Release      any                               Released
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "runtime/tool.h"
#include "runtime/tool_registry.h"
#include "runtime/types.h"

namespace agentrt::internal {

// A call the policy allowed, between its answer and the call's execution.
struct AllowedCall {
  Decision decision;
  const RecordedSpec* spec = nullptr;
  Tool* tool = nullptr;
  absl::Time start_at;
  absl::Time policy_at;
  std::string policy_event;
};

// A decision recorded as the agent made it but not yet written: it commits first in the step's
// next write (Session::RecordDecision).
struct StagedDecision {
  std::string step_id;
  std::string json;
  std::string spec_hash;
  const RecordedSpec* spec = nullptr;  // the spec the decision names, written with it
  absl::Time at;
};

// An approved approval being resumed, and when the resume began (the policy's new answer and
// run.resumed carry that time).
struct Grant {
  Approval approval;
  absl::Time resumed_at;
};

class SessionState {
 public:
  struct Driving {
    std::optional<StagedDecision> staged;
  };
  struct Allowed {
    AllowedCall call;
    std::optional<StagedDecision> staged;
  };
  struct EnteringGrant {
    Grant grant;
    std::optional<AllowedCall> call;
  };
  struct FailingPaused {};
  struct Released {};

  struct Stage {
    StagedDecision decision;
  };
  struct Committed {};
  struct Allow {
    AllowedCall call;
  };
  // Takes the allowed call out of the state: moved into `*into` when set, else dropped.
  struct Take {
    AllowedCall* into = nullptr;
  };
  struct GrantResumed {
    Grant grant;
  };
  struct Enter {};
  struct FailPaused {};
  struct Release {};
  using Event =
      std::variant<Stage, Committed, Allow, Take, GrantResumed, Enter, FailPaused, Release>;

  // A new session drives a RUNNING run (a resume of a paused one moves on to EnteringGrant or
  // FailingPaused before its first write).
  SessionState() = default;

  // The transition function (the table above).
  absl::Status Apply(Event event);

  // The status every write of the session requires the run to have; nullopt once released.
  std::optional<RunStatus> guard() const;
  // The decision staged for the next write, if any.
  const StagedDecision* staged() const;
  // The allowed call waiting to be executed, if any.
  const AllowedCall* call() const;
  // The grant being entered, if any (until the step's first write).
  const Grant* grant() const;
  bool released() const { return std::holds_alternative<Released>(state_); }

  // The state's name, as the table spells it (for errors and tests).
  std::string_view name() const;

 private:
  std::variant<Driving, Allowed, EnteringGrant, FailingPaused, Released> state_;
};

}  // namespace agentrt::internal
