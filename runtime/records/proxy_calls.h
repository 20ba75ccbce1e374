// runtime/records/proxy_calls.h
//
// The governing proxy's index of the calls a host made (docs/proxy.md, "The call index"; table
// proxy_calls, migration 7): one row a run the proxy began or is about to begin, keyed by the
// session and the request key (the tool's name and the canonical arguments, hashed), so an
// identical call finds the run an earlier one began. Invariants the statements keep:
//  - at most one open row a key (a unique partial index): the open row is the key's current run;
//  - a row is written before its run is begun, so a row without a run means nothing started,
//    and the next identical call begins that run under the row's id;
//  - a row is closed only by claiming the next one for its key, in the same transaction, and
//    only if the open row is still the one the claimant saw (compare-and-set);
//  - settled_at and outcome cache what the run's record says once it finished (or that a row
//    was never begun): a row without a run is settled only while its run still does not exist.
// The runtime's own tables are never written here; one statement reads `runs` by its key.
// Times are stored timestamps (runtime/world/timestamp.h), "" for none.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/store/store.h"

namespace agentrt::rows {

// What a settled row says about the last attempt of its run's tool call.
enum class CallOutcome : std::int64_t { kUnseen = 0, kNone = 1, kKnown = 2, kUnknown = 3 };

struct ProxyCall {
  std::int64_t id = 0;
  std::string session;
  std::string request_key;
  std::string tool;  // the model-visible name
  std::string side_effect;
  std::string run_id;
  std::string created_at;
  bool open = true;
  std::string closed_at;
  std::string settled_at;
  CallOutcome outcome = CallOutcome::kUnseen;
};

struct NewProxyCall {
  std::string_view session;
  std::string_view request_key;
  std::string_view tool;
  std::string_view side_effect;
  std::string_view run_id;
  std::string_view at;
};

// ClaimProxyCall closes the key's open row (at `call.at`) and writes `call` as the open one,
// only while the key's open row is the one with id `seen_open` (0: none): false, writing
// nothing, when another claimant came first.
absl::StatusOr<bool> ClaimProxyCall(store::Transaction& tx, const NewProxyCall& call,
                                    std::int64_t seen_open);

// ProxyCallsForKey: the key's open row, then its closed rows closed at or after `since`, newest
// first, at most `limit`.
absl::StatusOr<std::vector<ProxyCall>> ProxyCallsForKey(store::Transaction& tx,
                                                        std::string_view session,
                                                        std::string_view request_key,
                                                        std::string_view since, std::int64_t limit);

// UnsettledProxyCalls: the session's rows not settled yet, oldest first, at most `limit`.
absl::StatusOr<std::vector<ProxyCall>> UnsettledProxyCalls(store::Transaction& tx,
                                                           std::string_view session,
                                                           std::int64_t limit);

// ProxyCallAttempts: the key's rows that may hold an attempt (outcome other than none), newest
// first, at most `limit`.
absl::StatusOr<std::vector<ProxyCall>> ProxyCallAttempts(store::Transaction& tx,
                                                         std::string_view session,
                                                         std::string_view request_key,
                                                         std::int64_t limit);

// UnknownForTool: for each other key of the tool, its newest row that may hold an attempt, when
// that row is unseen or unknown; at most `limit`, oldest key first.
absl::StatusOr<std::vector<ProxyCall>> UnknownForTool(store::Transaction& tx,
                                                      std::string_view session,
                                                      std::string_view tool,
                                                      std::string_view except_key,
                                                      std::int64_t limit);

// RecentProxyCalls: the session's rows unsettled or settled at or after `since`, newest first,
// at most `limit`.
absl::StatusOr<std::vector<ProxyCall>> RecentProxyCalls(store::Transaction& tx,
                                                        std::string_view session,
                                                        std::string_view since, std::int64_t limit);

// SettleProxyCall caches a finished run's outcome on its row. SettleUnbegunProxyCall settles a
// row as kNone only while no run has its id (false otherwise). UnsettleProxyCall clears the
// cache (the call that begins the row's run).
absl::Status SettleProxyCall(store::Transaction& tx, std::int64_t id, std::string_view at,
                             CallOutcome outcome);
absl::StatusOr<bool> SettleUnbegunProxyCall(store::Transaction& tx, std::int64_t id,
                                            std::string_view at);
absl::Status UnsettleProxyCall(store::Transaction& tx, std::int64_t id);

// ProxySessionRunIds: the run ids of the session's newest `limit` rows, newest first (a re-check
// picks its runs from them).
absl::StatusOr<std::vector<std::string>> ProxySessionRunIds(store::Transaction& tx,
                                                            std::string_view session,
                                                            std::int64_t limit);

}  // namespace agentrt::rows
