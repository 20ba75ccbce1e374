#include "runtime/operator/verify.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"

namespace agentrt {

std::optional<KeptHead> ParseKeptHead(std::string_view text) {
  std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  KeptHead head;
  if (!absl::SimpleAtoi(ToAbsl(text.substr(0, colon)), &head.seq) || head.seq < 1) {
    return std::nullopt;
  }
  head.hash = std::string(text.substr(colon + 1));
  if (head.hash.size() != 64) return std::nullopt;
  for (char c : head.hash) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c)) && (c < 'a' || c > 'f')) {
      return std::nullopt;
    }
  }
  return head;
}

absl::StatusOr<VerifyReport> VerifyLog(store::Store& store, const VerifyRange& range) {
  if (range.from < 0 || range.to < 0 || (range.to > 0 && range.from > range.to) ||
      (range.kept &&
       (range.kept->seq < range.from || (range.to > 0 && range.kept->seq > range.to)))) {
    return absl::InvalidArgumentError("verify: the range or the kept head is out of order");
  }
  VerifyReport report;
  AGENTRT_ASSIGN_OR_RETURN(report.head, store.Head());
  std::int64_t end = range.to > 0 ? std::min(range.to, report.head.seq) : report.head.seq;
  report.walk.from = std::max<std::int64_t>(range.from, 1);
  report.walk.to = end;
  if (end >= report.walk.from) {
    AGENTRT_ASSIGN_OR_RETURN(report.walk, store.VerifyEvents(report.walk.from, end));
  }
  report.reached = range.to == 0 || report.head.seq >= range.to;
  report.kept = range.kept;
  if (range.kept && range.kept->seq <= report.head.seq) {
    absl::StatusOr<std::string> stored = store.StoredHash(range.kept->seq);
    if (stored.ok()) {
      report.kept_stored = *std::move(stored);
    } else if (!absl::IsNotFound(stored.status())) {
      return stored.status();
    }
  }
  report.kept_matches = report.kept_stored.has_value() && *report.kept_stored == range.kept->hash;
  // The rows are the state of the whole log: they are checked against it when the walk covers
  // it all.
  if (report.walk.from <= 1 && end == report.head.seq) {
    AGENTRT_ASSIGN_OR_RETURN(RowAudit rows, AuditRows(store));
    report.rows = std::move(rows);
  }
  return report;
}

}  // namespace agentrt
