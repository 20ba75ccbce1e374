// mcp/listing.h
//
// Reading a server's tool listing (tools/list, docs/mcp.md, "Pin") from the raw bytes of each
// page's `result`, so that what is pinned and hashed is what the server sent: numbers keep
// their literal digits, keys match exactly as written (`tools`, never a sibling `Tools`), and
// strict intake refuses a page that two JSON readers could read two ways (a repeated key,
// invalid UTF-8). A Listing gathers the pages under fixed bounds: at most 100 pages,
// at most 1000 tools, no tool twice, no cursor twice, so a hostile server cannot keep a client
// paging forever or make it hold an unbounded tool set.
//
// Every piece of server-chosen text in an error is quoted (errors.h Quote). The errors are the
// step's own words; the caller adds `mcp: server "<name>": list tools: `.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "mcp/annotations.h"

namespace agentrt::mcp {

inline constexpr int kMaxToolPages = 100;
inline constexpr std::size_t kMaxTools = 1000;

struct ListedTool {
  std::string name;
  std::string description;   // "" when the server sent none
  std::string input_schema;  // canonical JSON of inputSchema; "null" when absent
  std::optional<Annotations> annotations;

  bool operator==(const ListedTool&) const = default;
};

struct ListingPage {
  std::vector<ListedTool> tools;  // in the order the server listed them
  std::string next_cursor;        // "" on the last page
};

// ParseListingPage reads one tools/list result. Entries of `tools` that are not objects with a
// string `name` are skipped. InvalidArgument:
//   `the raw tools/list result: <intake error>` (not JSON, or refused by strict intake)
//   `the raw tools/list result is not a JSON object`
//   `the raw tools/list result's "tools" is not an array`
//   `the raw tools/list result's "nextCursor" is not a string`
//   `the server lists tool "<name>" twice`
//   `tool "<name>": the description is not a string`
//   `tool "<name>": <annotations error>` (annotations.h)
absl::StatusOr<ListingPage> ParseListingPage(std::string_view result_json);

// Listing applies the paging rules across pages. Use:
//   Listing listing;
//   while (!listing.done()) {
//     RETURN_IF_ERROR(listing.BeforeRequest());
//     page = ParseListingPage(<tools/list with listing.next_cursor()>);
//     RETURN_IF_ERROR(listing.Add(std::move(page)));
//   }
//   tools = listing.Take();
// After an error the listing is over: the caller gives up on the server.
class Listing {
 public:
  // BeforeRequest refuses the request of a 101st page: ResourceExhausted `more than 100 pages`.
  absl::Status BeforeRequest() const;

  // Add takes the next page. Errors: InvalidArgument `the server lists tool "<name>" twice`
  // (a name of an earlier page), `the cursor "<c>" repeats`; ResourceExhausted
  // `more than 1000 tools`, `more than 100 pages`; FailedPrecondition when the listing was
  // already done.
  absl::Status Add(ListingPage page);

  // Done once a page came without a next cursor.
  bool done() const { return done_; }
  // The cursor to send with the next request ("" for the first).
  const std::string& next_cursor() const { return next_cursor_; }
  int pages() const { return pages_; }

  // Take returns every tool listed, sorted by name, and empties the listing.
  std::vector<ListedTool> Take();

 private:
  std::map<std::string, ListedTool> tools_;
  std::set<std::string> cursors_;
  std::string next_cursor_;
  int pages_ = 0;
  bool done_ = false;
};

}  // namespace agentrt::mcp
