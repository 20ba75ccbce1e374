// A swarm's report comes from another machine (`agentrt sim merge`, sim/swarm_report.h): reading
// one never crashes; a report read is written back as one that reads to itself (a fixed point);
// it merges, alone, into a report that is written the same way; its JUnit is always made.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sim/swarm_report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace agentrt::sim;
  absl::StatusOr<SwarmReport> report =
      ParseReport(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!report.ok()) return 0;
  std::string written = ReportJson(*report);
  absl::StatusOr<SwarmReport> again = ParseReport(written);
  if (!again.ok() || ReportJson(*again) != written) std::abort();
  absl::StatusOr<SwarmReport> merged = MergeReports({*report}, {"fuzzed.json"});
  if (!merged.ok()) std::abort();  // one report is always of one swarm
  if (merged->plays != report->plays || merged->failures.size() != report->failures.size()) {
    std::abort();
  }
  (void)ReportJunit(*merged);
  return 0;
}
