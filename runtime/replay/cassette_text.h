// runtime/replay/cassette_text.h
//
// Exchanges as text for people: one line each for `agentrt cassette dump`, and the difference
// between a recorded exchange and what a replayed run asked instead, for the error that stops
// the replay. Bytes from outside (process and HTTP bytes, server-chosen names, provider text) are
// always escaped (json::QuoteBytes) and bounded, so a dump or an error never carries a terminal
// escape or an unbounded body.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace agentrt::replay {

namespace v1 {
class Exchange;
class Outcome;
}  // namespace v1

// DescribeExchange is one line saying what `exchange` asked and what the world answered, bytes
// shown up to `max_bytes` each (0: all). A task's run is described without the exchanges it
// nested (a dump prints those on lines of their own).
std::string DescribeExchange(const v1::Exchange& exchange, std::size_t max_bytes = 120);

// RequestDifference names the first field in which `requested` asks for something else than
// `recorded` did, fields marked served (what the world answered) left out: for example
//   argv[1]: recorded "server.js", requested "other.js"
//   body at byte 17: recorded …"\"id\":1,"…, requested …"\"id\":2,"…
// "" when both ask the same. Both must be of the same op (cassette.h OpOf).
std::string RequestDifference(const v1::Exchange& recorded, const v1::Exchange& requested);

// DescribeOutcome: "OK" or "<CODE>: <message>" (the message escaped).
std::string DescribeOutcome(const v1::Outcome& outcome);

// TimeText: a recorded time (Unix nanoseconds) as the project's timestamp, "never" for INT64_MAX.
std::string TimeText(std::int64_t unix_nanos);

}  // namespace agentrt::replay
