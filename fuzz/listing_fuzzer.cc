// A hostile server's tools/list pages: the input is a sequence of raw `result` bodies separated
// by NUL bytes, fed in order to ParseListingPage and a Listing as a client pages through them.
// Never crashes; every refusal is one printable line (no raw control byte, no C1 control, no
// bidi or zero-width character, valid UTF-8) however hostile the names and cursors; the bounds
// hold (at most 100 pages, at most 1000 tools, names unique and sorted).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "fuzz/printable.h"
#include "mcp/listing.h"

using agentrt::fuzz::CheckPrintable;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  agentrt::mcp::Listing listing;
  while (!listing.done()) {
    if (absl::Status ready = listing.BeforeRequest(); !ready.ok()) {
      CheckPrintable(ready);
      if (listing.pages() != agentrt::mcp::kMaxToolPages) std::abort();
      return 0;
    }
    // The next page is the next piece; past the input the server answers an empty object.
    std::size_t end = bytes.find('\0');
    std::string_view piece = bytes.substr(0, end);
    bytes = end == std::string_view::npos ? std::string_view() : bytes.substr(end + 1);
    absl::StatusOr<agentrt::mcp::ListingPage> page =
        agentrt::mcp::ParseListingPage(piece.empty() ? std::string_view("{}") : piece);
    if (!page.ok()) {
      CheckPrintable(page.status());
      return 0;
    }
    if (absl::Status added = listing.Add(*std::move(page)); !added.ok()) {
      CheckPrintable(added);
      return 0;
    }
    if (listing.pages() > agentrt::mcp::kMaxToolPages) std::abort();
  }
  std::vector<agentrt::mcp::ListedTool> tools = listing.Take();
  if (tools.size() > agentrt::mcp::kMaxTools) std::abort();
  for (std::size_t i = 1; i < tools.size(); ++i) {
    if (!(tools[i - 1].name < tools[i].name)) std::abort();
  }
  for (const agentrt::mcp::ListedTool& tool : tools) {
    if (tool.input_schema.empty()) std::abort();
  }
  return 0;
}
