// testkit/report.h
//
// What every test-kit check returns: how many things it checked and one row per failure, so a
// product's test asserts `report.ok()` and prints `report.Text()` — one readable table — with
// whatever test framework it uses. Nothing in the kit asserts or aborts on a failed check.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace agentrt::testkit {

struct Report {
  std::string title;                // what was checked, e.g. "policy conformance"
  std::vector<std::string> header;  // the columns of a failure row
  std::vector<std::vector<std::string>> failures;
  int checked = 0;                 // rows, requests, calls or runs looked at
  std::vector<std::string> notes;  // what the reader should know even when all passed

  bool ok() const { return failures.empty(); }
  // Text: "<title>: <k> failures in <checked> checked" and the failures as one table (or "<title>:
  // all <checked> passed"), then the notes, one a line. Every cell is sanitized and cut to a
  // readable width, so text a model or server chose cannot break the table or the terminal.
  std::string Text() const;
  // ToStatus: OK when ok(), else FailedPrecondition carrying Text().
  absl::Status ToStatus() const;
};

// Table lays out `rows` under `header` in padded columns separated by " | ", with a rule under
// the header. Cells are sanitized (one line, no control characters) and cut to `max_cell`
// bytes.
std::string Table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows, int max_cell = 100);

}  // namespace agentrt::testkit
