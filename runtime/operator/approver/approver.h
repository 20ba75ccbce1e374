// runtime/operator/approver/approver.h
//
// A portable approval channel (docs/operators.md, "Approving over HTTP"): what a human-facing
// surface (a webhook, a chat bot, a ticket queue) needs to show a paused run's approvals and decide
// them, without knowing the store. Every method addresses exactly one run: there is no listing
// across runs, so a channel scoped to one run can never reach another.
//
// A decision is bound to the hash that was shown: if the approval changed (or was replaced)
// after it was shown, the decision is refused and nothing is decided. Errors carry an
// ErrorKind (errors.h) for the channel to map; messages are one sentence naming the run or
// approval.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/types.h"

namespace agentrt::approver {

// What a channel shows of one approval.
struct Pending {
  Approval approval;   // bounded (view::BoundApproval): long strings by head and tail; hash intact
  std::string reason;  // the pausing policy's reason (bounded)
  bool expired = false;  // expires_at has passed by the channel's clock; nothing was written
};

// What a human decided, as the channel received it.
struct Decision {
  std::string run_id;
  std::string approval_id;
  std::string hash;  // the hash that was shown: the decision holds only for that approval
  std::string by;    // an unverified label, recorded as given
  std::string note;
};

class Approver {
 public:
  virtual ~Approver() = default;

  // ListPending: the run's pending approvals, oldest first, at most `limit`; empty when the run
  // is not waiting for approval. kNotFound when there is no such run, kDecision for limit < 1.
  virtual absl::StatusOr<std::vector<Pending>> ListPending(std::string_view run_id, int limit) = 0;
  // Show: one approval of the run, whatever its status. kNotFound unless it is this run's.
  virtual absl::StatusOr<Pending> Show(std::string_view run_id, std::string_view approval_id) = 0;
  // Approve grants the approval; the run stays waiting until its consumer resumes it.
  virtual absl::Status Approve(const Decision& decision) = 0;
  // Reject refuses it; the run is cancelled (approval_rejected).
  virtual absl::Status Reject(const Decision& decision) = 0;
  // Cancel ends a run that has not ended (operator_cancelled).
  virtual absl::Status Cancel(std::string_view run_id, std::string_view by,
                              std::string_view note) = 0;
};

// RunReader lets a channel show the run an approval belongs to without opening the store.
class RunReader {
 public:
  virtual ~RunReader() = default;
  // ReadRun: the run with its goal, reason detail and result bounded. kNotFound for no run.
  virtual absl::StatusOr<Run> ReadRun(std::string_view run_id) = 0;
};

}  // namespace agentrt::approver
