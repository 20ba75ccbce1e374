#include "testkit/report.h"

#include <algorithm>
#include <cstddef>

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"

namespace agentrt::testkit {
namespace {

// Columns are padded by characters shown, not bytes: a cell with "é" is one column wide.
std::size_t Width(std::string_view text) {
  std::size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

std::string Cell(std::string_view text, int max_cell) {
  return json::Truncate(json::Sanitize(text), max_cell);
}

}  // namespace

std::string Table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows, int max_cell) {
  std::size_t columns = header.size();
  for (const auto& row : rows) columns = std::max(columns, row.size());
  std::vector<std::vector<std::string>> cells;
  cells.reserve(rows.size() + 1);
  auto add = [&](const std::vector<std::string>& row) {
    std::vector<std::string> line;
    for (const std::string& c : row) line.push_back(Cell(c, max_cell));
    cells.push_back(std::move(line));
  };
  add(header);
  for (const auto& row : rows) add(row);
  std::vector<std::size_t> widths(columns, 0);
  for (auto& line : cells) {
    line.resize(columns);
    for (std::size_t i = 0; i < columns; ++i) widths[i] = std::max(widths[i], Width(line[i]));
  }
  std::string out;
  auto append_line = [&](const std::vector<std::string>& line) {
    std::string text;
    for (std::size_t i = 0; i < columns; ++i) {
      if (i > 0) text += " | ";
      text += line[i];
      if (i + 1 < columns) text.append(widths[i] - Width(line[i]), ' ');
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text;
    out += '\n';
  };
  for (std::size_t r = 0; r < cells.size(); ++r) {
    append_line(cells[r]);
    if (r == 0 && !header.empty()) {
      std::string rule;
      for (std::size_t i = 0; i < columns; ++i) {
        if (i > 0) rule += "-+-";
        rule.append(widths[i], '-');
      }
      out += rule;
      out += '\n';
    }
  }
  return out;
}

std::string Report::Text() const {
  std::string out;
  if (ok()) {
    out = absl::StrCat(ToAbsl(title), ": all ", checked, " passed\n");
  } else {
    out = absl::StrCat(ToAbsl(title), ": ", failures.size(),
                       failures.size() == 1 ? " failure" : " failures", " in ", checked,
                       " checked\n");
    out += Table(header, failures);
  }
  for (const std::string& note : notes) {
    out += json::Sanitize(note);
    out += '\n';
  }
  return out;
}

absl::Status Report::ToStatus() const {
  if (ok()) return absl::OkStatus();
  return absl::FailedPreconditionError(Text());
}

}  // namespace agentrt::testkit
