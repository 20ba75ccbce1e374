#include "runtime/operator/view/approval_json.h"

#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/json_object.h"
#include "runtime/operator/view/display.h"
#include "runtime/operator/view/summary.h"
#include "runtime/world/timestamp.h"

namespace agentrt::view {

std::string ApprovalJson(const Approval& a) {
  // Text columns are shown whole; json::JsonObject makes them valid UTF-8, so the output is JSON.
  json::JsonObject o;
  o.String("id", a.id)
      .String("run_id", a.run_id)
      .String("step_id", a.step_id)
      .String("kind", a.kind)
      .String("hash", a.hash)
      .String("status", StoredStatus(a))
      .String("created_at", world::FormatTimestamp(a.created_at))
      .StringIfSet("expires_at", world::FormatTimestamp(a.expires_at))
      .StringIfSet("decided_at", world::FormatTimestamp(a.decided_at))
      .StringIfSet("decided_by", a.decided_by)
      .StringIfSet("note", a.note);
  std::vector<std::string> unreadable;
  for (auto [name, raw] :
       {std::pair<std::string_view, const std::string*>{"capability", &a.capability},
        {"presentation", &a.presentation},
        {"request", &a.request}}) {
    absl::StatusOr<std::string> canonical = json::Canonicalize(*raw);
    if (canonical.ok()) {
      o.Raw(name, *canonical);
    } else {
      unreadable.push_back(std::string(name));
    }
  }
  if (!unreadable.empty()) {
    o.String("decode_error", absl::StrCat(absl::StrJoin(unreadable, ", "), ": not JSON"));
  }
  return o.Build();
}

}  // namespace agentrt::view
