#include "tools/agentrt/view_commands.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/base/string_view.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sanitize.h"
#include "runtime/operator/view/approval_json.h"
#include "runtime/operator/view/bound.h"
#include "runtime/operator/view/display.h"
#include "runtime/operator/view/pages.h"
#include "runtime/records/schema.h"
#include "runtime/store/store.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/db_flag.h"
#include "tools/agentrt/operator_io.h"

namespace agentrt::cli {
namespace {

// What the reading commands take: --db, --limit, --offset, --json.
struct ReadOptions {
  std::string db;
  Page page;
  bool json = false;
  FlagSet Flags() {
    return FlagSet()
        .Add("db", &db)
        .Add("limit", &page.limit)
        .Add("offset", &page.offset)
        .Add("json", &json);
  }
};
constexpr std::int64_t kRunsDefaultLimit = 100;
constexpr std::int64_t kRunsChunk = 500;
constexpr std::int64_t kShowDefaultLimit = 500;
constexpr int kGoalColumnBytes = 60;

constexpr char kRunsHelp[] =
    R"(Usage: agentrt runs [--db PATH] [--limit N] [--offset N] [--json]

Lists the runs in the database, newest first: id, status, reason, steps, when it was created,
the approval it waits on (when it waits on exactly one) and its goal (the first 60 bytes).
Text a model chose is escaped. --limit (default 100; 0 lists every run) and --offset page
through many runs; a last line says what was left out. --json prints one object:
{"runs", "total", "limit", "offset", "truncated"}.

The database (--db or $AGENTRT_DB) is opened existing-only and read-only.

Exit status: 0 listed, 1 the database could not be read, 2 usage error.
)";

constexpr char kShowHelp[] =
    R"(Usage: agentrt show RUN [--db PATH] [--limit N] [--offset N] [--json]

Shows one run: its goal, status and reason, steps, times and model use; then every pending
approval on the page as an APPROVAL WAITING block — the tool call the model asked for, field by
field with sizes, and what the consumer's policy chose to present — with the command that
decides it; then the steps (tool, decision, status, policy outcome, observation, summary).
Steps and pending approvals are paged together by --limit (default 500) and --offset.
--json prints one object: {"run", "steps", "steps_total", "steps_truncated", "approvals",
"approvals_total", "waiting_approval", "limit", "offset"}, approvals bounded as shown.

The database (--db or $AGENTRT_DB) is opened existing-only and read-only.

Exit status: 0 shown, 1 no such run or the database could not be read, 2 usage error.
)";

std::string OrDash(std::string_view text) { return text.empty() ? "-" : std::string(text); }

// Prints rows as columns two spaces apart; the last column is not padded.
void PrintTable(Io& io, const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line.append(widths[i] - row[i].size() + 2, ' ');
    }
    io.out << line << "\n";
  }
}

absl::StatusOr<std::unique_ptr<store::Store>> OpenForReading(const std::string& path) {
  return records::OpenExistingStore(path, /*read_only=*/true);
}

}  // namespace

int RunRunsCommand(std::span<const std::string> args, Io& io) {
  ReadOptions read{.page = {.limit = kRunsDefaultLimit}};
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, read.Flags());
  if (!parsed.ok()) return UsageError(io, "runs", ToStd(parsed.status().message()));
  if (parsed->help) {
    io.out << kRunsHelp;
    return kExitOk;
  }
  if (!parsed->positional.empty()) return UsageError(io, "runs", "runs takes no arguments");
  absl::StatusOr<Page> page = PageFlags(read.page, /*allow_zero_limit=*/true);
  if (!page.ok()) return UsageError(io, "runs", ToStd(page.status().message()));
  absl::StatusOr<std::string> path = DatabasePath(read.db);
  if (!path.ok()) return UsageError(io, "runs", ToStd(path.status().message()));
  bool json = read.json;

  absl::StatusOr<std::unique_ptr<store::Store>> store = OpenForReading(*path);
  if (!store.ok()) return Failure(io, "runs", ToStd(store.status().message()));
  std::vector<view::RunSummary> runs;
  std::int64_t total = 0;
  if (page->limit > 0) {
    absl::StatusOr<view::RunsPageResult> read = view::RunsPage(**store, page->limit, page->offset);
    if (!read.ok()) return Failure(io, "runs", ToStd(read.status().message()));
    runs = std::move(read->runs);
    total = read->total;
  } else {
    // Everything, read a chunk at a time so no single read holds the whole table.
    for (std::int64_t offset = page->offset;; offset += kRunsChunk) {
      absl::StatusOr<view::RunsPageResult> read = view::RunsPage(**store, kRunsChunk, offset);
      if (!read.ok()) return Failure(io, "runs", ToStd(read.status().message()));
      total = read->total;
      std::size_t got = read->runs.size();
      for (view::RunSummary& r : read->runs) runs.push_back(std::move(r));
      if (got < static_cast<std::size_t>(kRunsChunk)) break;
    }
  }
  auto shown = static_cast<std::int64_t>(runs.size());
  bool truncated = page->offset + shown < total;

  if (json) {
    std::vector<std::string> items;
    for (const view::RunSummary& r : runs) items.push_back(view::ToJson(r));
    json::JsonObject out;
    out.Raw("runs", absl::StrCat("[", absl::StrJoin(items, ","), "]"))
        .Int("total", total)
        .Int("limit", page->limit)
        .Int("offset", page->offset);
    if (truncated) out.Bool("truncated", true);
    io.out << out.Build() << "\n";
    return kExitOk;
  }
  if (total == 0) {
    io.out << "no runs\n";
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows = {
      {"RUN", "STATUS", "REASON", "STEPS", "CREATED", "APPROVAL", "GOAL"}};
  absl::TimeZone local = absl::LocalTimeZone();
  for (const view::RunSummary& r : runs) {
    rows.push_back({OrDash(json::Sanitize(r.id)), view::DisplayStatusOf(r),
                    OrDash(json::Sanitize(r.reason)), absl::StrCat(r.steps),
                    view::DisplayTime(r.created_at, local),
                    OrDash(json::Sanitize(r.pending_approval_id)),
                    OrDash(json::Truncate(json::Sanitize(r.goal), kGoalColumnBytes))});
  }
  PrintTable(io, rows);
  if (std::string more = MorePage("run", shown, page->offset, total); !more.empty()) {
    io.out << more << "\n";
  }
  return kExitOk;
}

int RunShowCommand(std::span<const std::string> args, Io& io) {
  ReadOptions read{.page = {.limit = kShowDefaultLimit}};
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, read.Flags());
  if (!parsed.ok()) return UsageError(io, "show", ToStd(parsed.status().message()));
  if (parsed->help) {
    io.out << kShowHelp;
    return kExitOk;
  }
  if (parsed->positional.size() != 1) return UsageError(io, "show", "expected one RUN id");
  absl::StatusOr<Page> page = PageFlags(read.page, /*allow_zero_limit=*/false);
  if (!page.ok()) return UsageError(io, "show", ToStd(page.status().message()));
  absl::StatusOr<std::string> path = DatabasePath(read.db);
  if (!path.ok()) return UsageError(io, "show", ToStd(path.status().message()));
  bool json = read.json;
  const std::string& run_id = parsed->positional[0];

  absl::StatusOr<std::unique_ptr<store::Store>> store = OpenForReading(*path);
  if (!store.ok()) return Failure(io, "show", ToStd(store.status().message()));
  absl::StatusOr<view::RunDetailPage> detail =
      view::DetailPage(**store, run_id, page->limit, page->offset);
  if (!detail.ok()) return Failure(io, "show", ToStd(detail.status().message()));
  auto shown = static_cast<std::int64_t>(detail->steps.size());

  if (json) {
    std::vector<std::string> steps, approvals;
    for (const view::StepSummary& s : detail->steps) steps.push_back(view::ToJson(s));
    for (const Approval& a : detail->approvals) {
      approvals.push_back(view::ApprovalJson(view::BoundApproval(a)));
    }
    json::JsonObject out;
    out.Raw("run", view::ToJson(detail->run))
        .Raw("steps", absl::StrCat("[", absl::StrJoin(steps, ","), "]"))
        .Int("steps_total", detail->steps_total)
        .Raw("approvals", absl::StrCat("[", absl::StrJoin(approvals, ","), "]"))
        .Int("approvals_total", detail->approvals_total)
        .Int("limit", page->limit)
        .Int("offset", page->offset);
    if (page->offset + shown < detail->steps_total) out.Bool("steps_truncated", true);
    if (detail->waiting.has_value()) {
      out.Raw("waiting_approval", view::ApprovalJson(view::BoundApproval(*detail->waiting)));
    }
    io.out << out.Build() << "\n";
    return kExitOk;
  }

  const view::RunSummary& run = detail->run;
  absl::TimeZone local = absl::LocalTimeZone();
  auto line = [&io](std::string_view name, std::string_view value) {
    io.out << name << std::string(10 - name.size(), ' ') << json::Sanitize(value) << "\n";
  };
  line("run", run.id);
  line("goal", OrDash(run.goal));
  std::string status = view::DisplayStatusOf(run);
  line("status", run.reason.empty() ? status : absl::StrCat(status, " (", run.reason, ")"));
  if (!run.reason_detail.empty()) line("detail", run.reason_detail);
  line("steps", absl::StrCat(run.steps));
  line("created", view::DisplayTime(run.created_at, local));
  if (run.finished_at != absl::InfinitePast()) {
    line("finished", view::DisplayTime(run.finished_at, local));
  }
  line("model",
       absl::StrCat(run.model_calls, " call(s), ", run.input_tokens, " in, ", run.output_tokens,
                    " out, estimated ", view::DisplayMoney(run.estimated_cost_micros)));
  for (const Approval& a : detail->pending) {
    io.out << "\n" << WaitingApprovalBlock(a, *path);
  }
  if (std::string more =
          MorePage("pending approval", static_cast<std::int64_t>(detail->pending.size()),
                   page->offset, detail->pending_total);
      !more.empty()) {
    io.out << more << "\n";
  }
  io.out << "\n";
  if (detail->steps_total == 0) {
    io.out << "no steps\n";
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows = {
      {"STEP", "TOOL", "DECISION", "STATUS", "POLICY", "OBSERVATION", "SUMMARY"}};
  for (const view::StepSummary& s : detail->steps) {
    rows.push_back({absl::StrCat(s.index), OrDash(json::Truncate(json::Sanitize(s.tool), 40)),
                    OrDash(json::Sanitize(s.decision)), view::DisplayStatusOf(s),
                    OrDash(json::Sanitize(s.policy)), OrDash(json::Sanitize(s.observation)),
                    OrDash(json::Sanitize(s.summary))});
  }
  PrintTable(io, rows);
  if (std::string more = MorePage("step", shown, page->offset, detail->steps_total);
      !more.empty()) {
    io.out << more << "\n";
  }
  return kExitOk;
}

}  // namespace agentrt::cli
