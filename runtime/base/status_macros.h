// runtime/base/status_macros.h
//
// The two early-return macros every module uses at its boundaries. This Abseil release ships
// none of its own. Both evaluate their expression exactly once.
//
//   AGENTRT_RETURN_IF_ERROR(store.Append(event));
//   AGENTRT_ASSIGN_OR_RETURN(Document doc, Parse(bytes));
#pragma once

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define AGENTRT_STATUS_CONCAT_INNER_(a, b) a##b
#define AGENTRT_STATUS_CONCAT_(a, b) AGENTRT_STATUS_CONCAT_INNER_(a, b)

#define AGENTRT_RETURN_IF_ERROR(expr)                                     \
  do {                                                                    \
    if (::absl::Status agentrt_status_ = (expr); !agentrt_status_.ok()) { \
      return agentrt_status_;                                             \
    }                                                                     \
  } while (false)

#define AGENTRT_ASSIGN_OR_RETURN(lhs, expr) \
  AGENTRT_ASSIGN_OR_RETURN_IMPL_(AGENTRT_STATUS_CONCAT_(agentrt_statusor_, __LINE__), lhs, expr)

#define AGENTRT_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                                   \
  if (!statusor.ok()) return std::move(statusor).status();  \
  lhs = std::move(statusor).value()
