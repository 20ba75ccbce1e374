#include "tools/agentrt/operator_commands.h"

#include <unistd.h>

#include <iostream>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "runtime/approvals.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/db_flag.h"

ABSL_FLAG(std::string, approval, "",
          "the approval to decide (default: the run's only pending one)");
ABSL_FLAG(std::string, by, "", "who decides (recorded as given)");
ABSL_FLAG(std::string, note, "", "a note recorded with the decision");
ABSL_FLAG(bool, yes, false, "decide without asking (for scripts)");

namespace agentrt::cli {
namespace {

constexpr std::string_view kDecideFlags[] = {"db", "approval", "by", "note", "yes"};
constexpr std::string_view kCancelFlags[] = {"db", "by", "note", "yes"};

std::string DecideHelp(std::string_view verb) {
  return absl::StrCat(
      "Usage: agentrt ", ToAbsl(verb),
      " [--db PATH] RUN [--approval ID] [--by NAME] [--note TEXT] [--yes]\n\n",
      "Shows the "
      "request the run is waiting on (tool, arguments, approval kind and hash) and ",
      ToAbsl(verb),
      "s it. Without --approval the run's only pending approval is meant; with "
      "several, name one. The decision is bound to the hash shown: if the approval changed in "
      "between, nothing is decided. On a terminal you are asked to confirm; in a script pass "
      "--yes.\n",
      verb == "approve"
          ? "Approving does not run anything: the run stays waiting until it is resumed.\n"
          : "Rejecting cancels the run (approval_rejected).\n",
      "\nExit status: 0 decided, 1 refused or failed, 2 usage error.\n");
}

constexpr char kCancelHelp[] =
    R"(Usage: agentrt cancel [--db PATH] RUN [--by NAME] [--note TEXT] [--yes]

Cancels a run that has not ended (operator_cancelled): steps in flight fail with an
interrupted observation; a tool already running is not recalled and its outcome is recorded
late. On a terminal you are asked to confirm; in a script pass --yes.

Exit status: 0 cancelled, 1 refused or failed, 2 usage error.
)";

bool Confirm(std::string_view question) {
  std::cout << question << " [y/N] " << std::flush;
  std::string answer;
  if (!std::getline(std::cin, answer)) return false;
  return answer == "y" || answer == "Y" || answer == "yes";
}

void Show(const Approval& a) {
  auto field = [](std::string_view name, std::string_view value) {
    std::cout << "  " << name << ": " << json::Truncate(json::Sanitize(value), 2000) << "\n";
  };
  std::cout << "run " << json::Sanitize(a.run_id) << " is waiting for approval "
            << json::Sanitize(a.id) << "\n";
  field("kind", a.kind);
  field("request", a.request);
  field("presentation", a.presentation);
  field("hash", a.hash);
}

int Decide(std::string_view verb, std::span<const std::string> args) {
  std::string command(verb);
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, kDecideFlags);
  if (!parsed.ok()) return UsageError(command, ToStd(parsed.status().message()));
  if (parsed->help) {
    std::cout << DecideHelp(verb);
    return kExitOk;
  }
  if (parsed->positional.size() != 1) return UsageError(command, "expected one RUN id");
  absl::StatusOr<std::string> path = DatabasePath();
  if (!path.ok()) return UsageError(command, ToStd(path.status().message()));
  bool yes = absl::GetFlag(FLAGS_yes);
  if (!yes && !::isatty(STDIN_FILENO)) {
    return UsageError(command, "standard input is not a terminal: pass --yes to decide");
  }
  absl::StatusOr<std::unique_ptr<store::Store>> store =
      store::Store::OpenExisting(*path, /*read_only=*/false);
  if (!store.ok()) return Failure(command, ToStd(store.status().message()));
  const std::string& run = parsed->positional[0];
  absl::StatusOr<Approval> pending = PendingApproval(**store, run, absl::GetFlag(FLAGS_approval));
  if (!pending.ok()) return Failure(command, ToStd(pending.status().message()));
  Show(*pending);
  if (!yes && !Confirm(absl::StrCat(verb == "approve" ? "Approve" : "Reject", " this request?"))) {
    std::cout << "nothing decided\n";
    return kExitFailure;
  }
  world::RealClock clock;
  Decider decider{absl::GetFlag(FLAGS_by), absl::GetFlag(FLAGS_note), pending->hash};
  absl::StatusOr<Approval> decided = verb == "approve"
                                         ? Approve(**store, clock, run, pending->id, decider)
                                         : Reject(**store, clock, run, pending->id, decider);
  if (!decided.ok()) return Failure(command, ToStd(decided.status().message()));
  std::cout << ToString(decided->status) << " " << decided->id << " (hash " << decided->hash
            << ")\n";
  return kExitOk;
}

}  // namespace

int RunApproveCommand(std::span<const std::string> args) { return Decide("approve", args); }
int RunRejectCommand(std::span<const std::string> args) { return Decide("reject", args); }

int RunCancelCommand(std::span<const std::string> args) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, kCancelFlags);
  if (!parsed.ok()) return UsageError("cancel", ToStd(parsed.status().message()));
  if (parsed->help) {
    std::cout << kCancelHelp;
    return kExitOk;
  }
  if (parsed->positional.size() != 1) return UsageError("cancel", "expected one RUN id");
  absl::StatusOr<std::string> path = DatabasePath();
  if (!path.ok()) return UsageError("cancel", ToStd(path.status().message()));
  bool yes = absl::GetFlag(FLAGS_yes);
  if (!yes && !::isatty(STDIN_FILENO)) {
    return UsageError("cancel", "standard input is not a terminal: pass --yes to cancel");
  }
  absl::StatusOr<std::unique_ptr<store::Store>> store =
      store::Store::OpenExisting(*path, /*read_only=*/false);
  if (!store.ok()) return Failure("cancel", ToStd(store.status().message()));
  const std::string& run = parsed->positional[0];
  if (!yes && !Confirm("Cancel run " + json::Sanitize(run) + "?")) {
    std::cout << "nothing cancelled\n";
    return kExitFailure;
  }
  world::RealClock clock;
  absl::Status cancelled =
      Cancel(**store, clock, run, Decider{absl::GetFlag(FLAGS_by), absl::GetFlag(FLAGS_note)});
  if (!cancelled.ok()) return Failure("cancel", ToStd(cancelled.message()));
  std::cout << "cancelled " << json::Sanitize(run) << "\n";
  return kExitOk;
}

}  // namespace agentrt::cli
