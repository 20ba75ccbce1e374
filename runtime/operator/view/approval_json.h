// runtime/operator/view/approval_json.h
//
// The JSON form of an approval for machine output: id, run_id,
// step_id, kind, capability, presentation, request (JSON values, as stored), hash, status,
// created_at, expires_at?, decided_at?, decided_by?, note?, decode_error?. Pass
// BoundApproval(a) to show it bounded. A JSON field whose stored text is not JSON (a rewritten
// row) is left out and named in decode_error, so the output always parses.
#pragma once

#include <string>

#include "runtime/types.h"

namespace agentrt::view {

std::string ApprovalJson(const Approval& approval);

}  // namespace agentrt::view
