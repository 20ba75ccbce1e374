#include "tools/agentrt/operator_commands.h"

#include "absl/strings/str_cat.h"
#include "runtime/approvals.h"
#include "runtime/base/string_view.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sanitize.h"
#include "runtime/observe/trace/format.h"
#include "runtime/operator/view/approval_json.h"
#include "runtime/operator/view/bound.h"
#include "runtime/operator/view/display.h"
#include "runtime/operator/view/summary.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/schema.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/db_flag.h"
#include "tools/agentrt/operator_io.h"

namespace agentrt::cli {
namespace {

// What approve, reject and cancel take (cancel names no approval).
struct DecideOptions {
  std::string db;
  std::string approval;  // the approval to decide ("": the run's only pending one)
  std::string by;        // who decides, recorded as given ("": $USER)
  std::string note;      // recorded with the decision
  bool yes = false;      // decide without asking (for scripts)
  bool json = false;
  FlagSet Flags(bool with_approval) {
    FlagSet flags;
    flags.Add("db", &db);
    if (with_approval) flags.Add("approval", &approval);
    flags.Add("by", &by).Add("note", &note).Add("yes", &yes).Add("json", &json);
    return flags;
  }
};

std::string DecideHelp(std::string_view verb) {
  return absl::StrCat(
      "Usage: agentrt ", ToAbsl(verb),
      " RUN [--db PATH] [--approval ID] [--by NAME] [--note TEXT] [--yes] [--json]\n\n"
      "Prints the approval RUN is waiting on as an APPROVAL WAITING block — the tool call the "
      "model\nasked for, field by field with sizes, and what the consumer's policy chose to "
      "present — and\n",
      ToAbsl(verb),
      "s it. Without --approval the run's only pending approval is meant; with several, name\n"
      "one. The decision is bound to the hash of the block printed: if the approval changed "
      "in\nbetween, nothing is decided. Read the block to its closing line, which agentrt "
      "writes itself.\n\n"
      "It goes ahead when --approval names the approval, or --yes is given, or, on a "
      "terminal,\nyou answer y at the prompt. --by (default $USER) and --note are recorded "
      "with the decision.\n",
      verb == "approve"
          ? "Approving runs nothing: the run stays waiting until the consumer resumes it.\n"
          : "Rejecting cancels the run (approval_rejected).\n",
      "--json prints {\"run\", \"approval\"} instead of text and never asks.\n\n"
      "Exit status: 0 decided, 1 refused, declined or failed, 2 usage error (also: no "
      "confirmation).\n");
}

constexpr char kCancelHelp[] =
    R"(Usage: agentrt cancel RUN [--db PATH] [--by NAME] [--note TEXT] [--yes] [--json]

Cancels a run that has not ended (operator_cancelled): steps in flight fail with an
interrupted observation; a tool already running is not recalled and its outcome is recorded
late. Pending approvals stay pending but can no longer be decided. This is also how to close a
run whose approval was granted but that will never be resumed. It goes ahead with --yes or
when you answer y at the prompt on a terminal. --by (default $USER) and --note are recorded.
--json prints {"run"} instead of text and never asks.

Exit status: 0 cancelled, 1 refused, declined or failed, 2 usage error (also: no
confirmation).
)";

// Writes each event the command commits to `io.err` as a trace line (local time).
void TraceToErr(Io& io, store::Store& store) {
  store.AddObserver([&io](const store::Event& e) {
    trace::TextOptions options;
    options.zone = absl::LocalTimeZone();
    options.max_payload_bytes = 8000;
    io.err << trace::TextLine(e, options) << std::flush;
  });
}

// The report after a decision: the run as it now is (and the approval, for a decision).
int Report(Io& io, store::Store& store, std::string_view command, std::string_view run_id,
           const Approval* decided, bool json) {
  absl::StatusOr<Run> run = ReadRun(store, run_id);
  if (!run.ok()) return Failure(io, command, ToStd(run.status().message()));
  absl::StatusOr<view::RunSummary> summary = view::Summary(store, *run);
  if (!summary.ok()) return Failure(io, command, ToStd(summary.status().message()));
  if (json) {
    json::JsonObject out;
    out.Raw("run", view::ToJson(*summary));
    if (decided != nullptr) out.Raw("approval", view::ApprovalJson(view::BoundApproval(*decided)));
    io.out << out.Build() << "\n";
    return kExitOk;
  }
  if (decided != nullptr) {
    io.out << "approval " << json::Sanitize(decided->id) << ": " << view::DisplayStatusOf(*decided)
           << " by " << json::Sanitize(decided->decided_by) << "\n";
  }
  io.out << "run " << json::Sanitize(summary->id) << ": " << view::DisplayStatusOf(*summary);
  if (!summary->reason.empty()) io.out << " (" << json::Sanitize(summary->reason) << ")";
  io.out << "\n";
  if (decided != nullptr && decided->status == ApprovalStatus::kApproved &&
      summary->status == RunStatus::kWaitingForApproval) {
    io.out << "the run stays waiting until the consumer resumes it\n";
  }
  return kExitOk;
}

// What every decision needs before the database is opened.
struct Checked {
  std::string run;
  std::string path;
  std::string by;
  bool json = false;
  bool ask = false;  // confirm at the prompt
};

// `named`: --approval was given; `bypass` says how a script goes ahead without being asked.
absl::StatusOr<Checked> CheckArgs(const Io& io, const ParsedArgs& parsed, const DecideOptions& o,
                                  bool named, std::string_view bypass) {
  if (parsed.positional.size() != 1) return absl::InvalidArgumentError("expected one RUN id");
  Checked c;
  c.run = parsed.positional[0];
  absl::StatusOr<std::string> by = Who(o.by);
  if (!by.ok()) return by.status();
  c.by = *by;
  absl::StatusOr<std::string> path = DatabasePath(o.db);
  if (!path.ok()) return path.status();
  c.path = *path;
  c.json = o.json;
  if (!named && !o.yes) {
    if (c.json || !io.in_is_terminal) {
      return absl::InvalidArgumentError(absl::StrCat(
          c.json ? "--json never asks" : "standard input is not a terminal, so nobody can be asked",
          ": ", ToAbsl(bypass)));
    }
    c.ask = true;
  }
  return c;
}

int Decide(std::string_view verb, std::span<const std::string> args, Io& io) {
  std::string command(verb);
  DecideOptions o;
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, o.Flags(/*with_approval=*/true));
  if (!parsed.ok()) return UsageError(io, command, ToStd(parsed.status().message()));
  if (parsed->help) {
    io.out << DecideHelp(verb);
    return kExitOk;
  }
  const std::string& named = o.approval;
  absl::StatusOr<Checked> c =
      CheckArgs(io, *parsed, o, !named.empty(),
                "pass --yes, or name the approval with --approval, to decide");
  if (!c.ok()) return UsageError(io, command, ToStd(c.status().message()));

  absl::StatusOr<std::unique_ptr<store::Store>> store =
      records::OpenExistingStore(c->path, /*read_only=*/false);
  if (!store.ok()) return Failure(io, command, ToStd(store.status().message()));
  absl::StatusOr<Run> run = ReadRun(**store, c->run);
  if (!run.ok()) return Failure(io, command, ToStd(run.status().message()));
  if (run->status != RunStatus::kWaitingForApproval) {
    return Failure(io, command,
                   absl::StrCat("run ", json::Sanitize(c->run), " is ", view::DisplayStatusOf(*run),
                                ", not waiting for approval"));
  }
  absl::StatusOr<Approval> shown = PendingApproval(**store, c->run, named);
  if (!shown.ok()) return Failure(io, command, ToStd(shown.status().message()));
  if (!c->json) io.out << WaitingApprovalBlock(*shown, "") << std::flush;
  if (c->ask) {
    std::string question =
        absl::StrCat(verb == "approve" ? "Approve" : "Reject", " approval ",
                     json::Sanitize(shown->id), " of run ", json::Sanitize(c->run), "?");
    switch (Ask(io, question)) {
      case Answer::kYes:
        break;
      case Answer::kNo:
        return Failure(io, command, "declined at the prompt; nothing decided");
      case Answer::kNoAnswer:
        return UsageError(io, command, "no answer at the prompt (end of input); nothing decided");
    }
  }
  TraceToErr(io, **store);
  world::RealClock clock;
  // Bound to the hash of the block just printed: a row that changed since is refused.
  Decider decider{c->by, o.note, shown->hash};
  absl::StatusOr<Approval> decided = verb == "approve"
                                         ? Approve(**store, clock, c->run, shown->id, decider)
                                         : Reject(**store, clock, c->run, shown->id, decider);
  if (!decided.ok()) {
    if (decided.status().code() == absl::StatusCode::kAborted) {
      return Failure(io, command,
                     absl::StrCat("approval ", json::Sanitize(shown->id),
                                  " changed after it was shown; run the command "
                                  "again to see it"));
    }
    return Failure(io, command, ToStd(decided.status().message()));
  }
  return Report(io, **store, command, c->run, &*decided, c->json);
}

}  // namespace

int RunApproveCommand(std::span<const std::string> args, Io& io) {
  return Decide("approve", args, io);
}
int RunRejectCommand(std::span<const std::string> args, Io& io) {
  return Decide("reject", args, io);
}

int RunCancelCommand(std::span<const std::string> args, Io& io) {
  DecideOptions o;
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, o.Flags(/*with_approval=*/false));
  if (!parsed.ok()) return UsageError(io, "cancel", ToStd(parsed.status().message()));
  if (parsed->help) {
    io.out << kCancelHelp;
    return kExitOk;
  }
  absl::StatusOr<Checked> c = CheckArgs(io, *parsed, o, /*named=*/false, "pass --yes to cancel");
  if (!c.ok()) return UsageError(io, "cancel", ToStd(c.status().message()));
  absl::StatusOr<std::unique_ptr<store::Store>> store =
      records::OpenExistingStore(c->path, /*read_only=*/false);
  if (!store.ok()) return Failure(io, "cancel", ToStd(store.status().message()));
  absl::StatusOr<Run> run = ReadRun(**store, c->run);
  if (!run.ok()) return Failure(io, "cancel", ToStd(run.status().message()));
  if (IsTerminal(run->status)) {
    return Failure(
        io, "cancel",
        absl::StrCat("run ", json::Sanitize(c->run), " is already ", view::DisplayStatusOf(*run)));
  }
  if (c->ask) {
    switch (Ask(io, absl::StrCat("Cancel run ", json::Sanitize(c->run), " (",
                                 ToAbsl(ToString(run->status)), ")?"))) {
      case Answer::kYes:
        break;
      case Answer::kNo:
        return Failure(io, "cancel", "declined at the prompt; nothing cancelled");
      case Answer::kNoAnswer:
        return UsageError(io, "cancel",
                          "no answer at the prompt (end of input); nothing cancelled");
    }
  }
  TraceToErr(io, **store);
  world::RealClock clock;
  absl::Status cancelled = Cancel(**store, clock, c->run, Decider{c->by, o.note});
  if (!cancelled.ok()) return Failure(io, "cancel", ToStd(cancelled.message()));
  return Report(io, **store, "cancel", c->run, nullptr, c->json);
}

}  // namespace agentrt::cli
