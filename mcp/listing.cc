#include "mcp/listing.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "mcp/errors.h"
#include "mcp/internal/fields.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"

namespace agentrt::mcp {
namespace {

absl::Status ListedTwice(std::string_view name) {
  return absl::InvalidArgumentError(absl::StrCat("the server lists tool ", Quote(name), " twice"));
}

absl::Status ToolError(std::string_view name, std::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("tool ", Quote(name), ": ", ToAbsl(why)));
}

// The tool's name when `entry` has one: only an object whose exact key `name` holds a string.
std::optional<std::string_view> NameOf(json::Value entry) {
  if (!entry.is_object()) return std::nullopt;
  std::optional<json::Value> name = entry.Find("name");
  if (!name || !name->is_string()) return std::nullopt;
  return name->string_value();
}

absl::StatusOr<ListedTool> ReadTool(json::Value entry, std::string_view name) {
  ListedTool tool;
  tool.name = std::string(name);
  if (std::optional<json::Value> d = entry.Find("description"); d && !d->is_null()) {
    if (!d->is_string()) return ToolError(name, "the description is not a string");
    tool.description = std::string(d->string_value());
  }
  // The canonical form of the value exactly as received; an absent schema pins as null, which
  // Load later refuses as not an object schema.
  std::optional<json::Value> schema = entry.Find("inputSchema");
  tool.input_schema = schema ? json::WriteCanonical(*schema) : "null";
  if (std::optional<json::Value> a = entry.Find("annotations"); a && !a->is_null()) {
    absl::StatusOr<Annotations> annotations = ParseAnnotations(*a);
    if (!annotations.ok()) {
      return internal::WithContext(absl::StrCat("tool ", Quote(name)), annotations.status());
    }
    tool.annotations = *std::move(annotations);
  }
  return tool;
}

}  // namespace

absl::StatusOr<ListingPage> ParseListingPage(std::string_view result_json) {
  absl::StatusOr<json::Document> document = json::Parse(result_json);
  if (!document.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the raw tools/list result: ", document.status().message()));
  }
  json::Value root = document->root();
  if (!root.is_object()) {
    return absl::InvalidArgumentError("the raw tools/list result is not a JSON object");
  }
  ListingPage page;
  if (std::optional<json::Value> tools = root.Find("tools"); tools && !tools->is_null()) {
    if (!tools->is_array()) {
      return absl::InvalidArgumentError("the raw tools/list result's \"tools\" is not an array");
    }
    // Names first, over the whole page: a name listed twice is the page's first fault.
    std::set<std::string_view> names;
    for (std::size_t i = 0; i < tools->size(); ++i) {
      std::optional<std::string_view> name = NameOf(tools->element(i));
      if (name && !names.insert(*name).second) return ListedTwice(*name);
    }
    page.tools.reserve(names.size());
    for (std::size_t i = 0; i < tools->size(); ++i) {
      std::optional<std::string_view> name = NameOf(tools->element(i));
      if (!name) continue;
      absl::StatusOr<ListedTool> tool = ReadTool(tools->element(i), *name);
      if (!tool.ok()) return tool.status();
      page.tools.push_back(*std::move(tool));
    }
  }
  if (std::optional<json::Value> cursor = root.Find("nextCursor"); cursor && !cursor->is_null()) {
    if (!cursor->is_string()) {
      return absl::InvalidArgumentError(
          "the raw tools/list result's \"nextCursor\" is not a string");
    }
    page.next_cursor = std::string(cursor->string_value());
  }
  return page;
}

absl::Status Listing::BeforeRequest() const {
  if (done_) return absl::FailedPreconditionError("the listing is complete");
  if (pages_ >= kMaxToolPages) {
    return absl::ResourceExhaustedError(absl::StrCat("more than ", kMaxToolPages, " pages"));
  }
  return absl::OkStatus();
}

absl::Status Listing::Add(ListingPage page) {
  if (absl::Status ready = BeforeRequest(); !ready.ok()) return ready;
  ++pages_;
  for (const ListedTool& tool : page.tools) {
    if (tools_.contains(tool.name)) return ListedTwice(tool.name);
  }
  if (tools_.size() + page.tools.size() > kMaxTools) {
    return absl::ResourceExhaustedError(absl::StrCat("more than ", kMaxTools, " tools"));
  }
  for (ListedTool& tool : page.tools) {
    std::string name = tool.name;
    tools_.emplace(std::move(name), std::move(tool));
  }
  if (page.next_cursor.empty()) {
    done_ = true;
    next_cursor_.clear();
    return absl::OkStatus();
  }
  // A cursor seen before would page in a circle.
  if (!cursors_.insert(page.next_cursor).second) {
    return absl::InvalidArgumentError(
        absl::StrCat("the cursor ", Quote(page.next_cursor), " repeats"));
  }
  next_cursor_ = std::move(page.next_cursor);
  return absl::OkStatus();
}

std::vector<ListedTool> Listing::Take() {
  std::vector<ListedTool> out;
  out.reserve(tools_.size());
  for (auto& [name, tool] : tools_) out.push_back(std::move(tool));
  tools_.clear();
  return out;
}

}  // namespace agentrt::mcp
