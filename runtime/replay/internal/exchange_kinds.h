// runtime/replay/internal/exchange_kinds.h
//
// One table per world interface describing the exchanges its calls record: for each kind of
// exchange (cassette.h's Op), where it sits in the proto (the Exchange field set and, for a
// kind with several calls, the call's field), whether the replay delivers it by itself, the
// rules its fields keep (by kind of field: a name, an outcome, a number it gives or refers to,
// bytes a failed call must not hold, exchanges it nests) and how it prints. The cassette's
// checks (cassette.cc), OpOf and OpName, and the text form (cassette_text.cc) are all read off
// these rows: a new call of an interface is its proto message, one row, and the wrappers.
//
// Which fields a replay compares is the proto's business (the `served` option), not the table's.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "runtime/replay/cassette.h"
#include "runtime/replay/proto/cassette.pb.h"

namespace agentrt::replay::internal {

// What a field of an exchange is, for the rules every kind shares. A call "failed" when its
// kError field is set.
enum class FieldKind {
  kNone,      // (an unused slot of a row)
  kName,      // a string that must not be empty; `rule` is the sentence when it is
  kRequired,  // a repeated field that must not be empty; `rule` is the sentence when it is
  kError,     // an Outcome set when the call failed: must hold an error code (`what` names it)
  kResult,    // an Outcome that is OK or an error (`what` names it)
  kAnswer,    // what the call answered: empty when it failed (`rule` is the sentence when not)
  kNumbers,   // a new number of `numbered` (never 0 nor twice), 0 when the call failed (`rule`)
  kRefersTo,  // a number of `numbered` given before (`what` names it)
  kNested,    // exchanges made while this one ran (a task's run), each checked in turn
};

// What numbers a kNumbers field gives and a kRefersTo field refers to.
enum class Numbered { kNone, kProcess, kResponse, kTask };

struct FieldRule {
  std::string_view path;  // dotted, from the Exchange: "stdio.read.error"
  FieldKind kind = FieldKind::kNone;
  std::string_view what = "";  // the field as a message names it ("process", "error")
  std::string_view rule = "";  // the sentence when the rule is broken, where it is fixed
  Numbered numbered = Numbered::kNone;
};

struct ExchangeKind {
  Op op;
  std::string_view name;  // OpName: "stdin write"
  std::string_view kind;  // the Exchange's field that is set: "stdio"
  std::string_view call;  // the kind's field that is set ("write"), "" for a one-call kind
  bool delivery;          // delivered by the replay rather than asked for
  std::array<FieldRule, 4> fields;
  // Rules of its own, applied after the field rules that do not number (null: none).
  absl::Status (*check)(const v1::Exchange& exchange);
  // One line for people (cassette_text.h DescribeExchange), bytes up to `max_bytes` each.
  std::string (*describe)(const v1::Exchange& exchange, std::size_t max_bytes);
};

// The tables, one per interface (model, clock, entropy, environment, launcher with its
// processes, network with its responses, scheduler), in that order.
std::span<const std::span<const ExchangeKind>> AllExchanges();

// KindOf is `op`'s row; null for Op::kUnknown.
const ExchangeKind* KindOf(Op op);
// KindOf is the row of the kind set in `exchange`; null when none this build knows is.
const ExchangeKind* KindOf(const v1::Exchange& exchange);

}  // namespace agentrt::replay::internal
