#include "mcp/load.h"

#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "mcp/annotations.h"
#include "mcp/duration.h"
#include "mcp/errors.h"
#include "mcp/hidden_params.h"
#include "mcp/internal/fields.h"
#include "mcp/pin.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sha256.h"
#include "runtime/schema/self_contained.h"
#include "runtime/tool.h"

namespace agentrt::mcp {
namespace {

// One classified tool's checks (steps 1 to 14 of the header); the spec, or why it is refused.
struct Checked {
  std::string refusal;  // "" when it registers
  ToolSpec spec;
  std::string hint_mismatch;
};

Checked Check(const Server& server, const PinnedTool& pinned, const ListedTool* live,
              const Rule& rule, SpecCache* specs) {
  Checked out;
  auto refuse = [&](std::string reason) {
    out.refusal = std::move(reason);
    return out;
  };
  if (live == nullptr) return refuse("the server no longer offers it");
  if (json::Sha256Hex(live->input_schema) != pinned.schema_hash) {
    return refuse("the input schema changed since the pin");
  }
  if (json::Sha256Hex(json::JsonString(live->description)) != pinned.description_hash) {
    return refuse("the description changed since the pin, and a description is model input");
  }
  if (rule.side_effect.has_value()) {
    std::string mismatch = HintMismatch(*rule.side_effect, pinned.annotations);
    if (mismatch.empty() && !pinned.annotations.has_value()) {
      std::string live_mismatch = HintMismatch(*rule.side_effect, live->annotations);
      if (!live_mismatch.empty()) mismatch = absl::StrCat("the server now says: ", live_mismatch);
    }
    if (!mismatch.empty() && !rule.allow_hint_mismatch) return refuse(mismatch);
    out.hint_mismatch = mismatch;
  }
  absl::Duration timeout =
      rule.timeout > absl::ZeroDuration() ? rule.timeout : server.default_timeout;
  if (timeout <= absl::ZeroDuration()) {
    return refuse("no timeout: set the rule's timeout or the server's default_timeout");
  }
  std::string name =
      rule.rename.empty() ? absl::StrCat(server.name, "_", pinned.name) : rule.rename;
  if (!internal::IsPlainName(name)) {
    return refuse(absl::StrCat("the name ", Quote(name), " does not match ^[a-zA-Z0-9_-]{1,64}$"));
  }
  absl::StatusOr<json::Document> schema = json::Parse(pinned.input_schema);
  if (!schema.ok() || !schema->root().is_object()) {
    return refuse("the input schema is not a JSON object");
  }
  std::optional<json::Value> type = schema->root().Find("type");
  if (!type || !type->is_string() || type->string_value() != "object") {
    return refuse("the input schema is not an object schema (\"type\":\"object\")");
  }
  if (absl::Status contained = schema::CheckSelfContained(schema->root()); !contained.ok()) {
    std::string_view message = ToStd(contained.message());
    if (message.starts_with("schema: ")) message.remove_prefix(8);
    return refuse(absl::StrCat("the input schema's ", ToAbsl(message)));
  }
  std::vector<std::string> hidden = rule.deny;
  for (const auto& [param, value] : rule.fixed) {
    if (!json::Canonicalize(value).ok()) {
      return refuse(absl::StrCat("the fixed value for ", Quote(param), " is not valid JSON"));
    }
    hidden.push_back(param);
  }
  if (absl::Status hideable = CheckHideable(pinned.input_schema, hidden); !hideable.ok()) {
    return refuse(std::string(hideable.message()));
  }
  absl::StatusOr<std::string> restricted = Restrict(pinned.input_schema, hidden);
  if (!restricted.ok()) {
    return refuse(
        absl::StrCat("the input schema cannot be restricted: ", restricted.status().message()));
  }
  if (!rule.side_effect.has_value()) {
    return refuse("the runtime refuses it: the rule sets no side_effect");
  }
  out.spec = ToolSpec{name,
                      rule.description.empty() ? pinned.description : rule.description,
                      *std::move(restricted),
                      *rule.side_effect,
                      timeout,
                      rule.terminal};
  absl::Status accepted =
      specs != nullptr ? specs->Record(out.spec).status() : CheckToolSpec(out.spec);
  if (!accepted.ok()) {
    return refuse(absl::StrCat("the runtime refuses it: ", accepted.message()));
  }
  return out;
}

LoadResult Failed(absl::Status status) {
  LoadResult result;
  result.status = std::move(status);
  return result;
}

// What Load and Classify check before anything else.
absl::Status Preconditions(const Server& server, const Manifest* manifest, const Rules& rules) {
  if (absl::Status valid = ValidateServer(server); !valid.ok()) return valid;
  if (manifest == nullptr) {
    return absl::FailedPreconditionError("mcp: manifest is required; run Pin first");
  }
  if (manifest->server != server.name) {
    return absl::FailedPreconditionError(absl::StrCat(
        "mcp: manifest is for server ", Quote(manifest->server), ", not ", Quote(server.name)));
  }
  std::vector<std::string> strangers;
  for (const auto& [tool, rule] : rules) {
    if (!manifest->tools.contains(tool)) strangers.push_back(Quote(tool));
  }
  if (!strangers.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        ServerPrefix(manifest->server),
        "rules name tools the manifest does not pin: ", absl::StrJoin(strangers, ", ")));
  }
  return absl::OkStatus();
}

// Registration (docs/mcp.md, "Check") of every pinned tool against what the server offers: the
// report, and the spec, remote name and rule of each tool that registers, in the report's
// order, each spec checked through `specs` when given. `before_check` runs before each classified
// tool is checked; an error from it stops the registration.
struct Accepted {
  ToolSpec spec;
  std::string remote;
  const Rule* rule;
};
struct Registration {
  Report report;
  std::vector<Accepted> tools;
};

absl::StatusOr<Registration> Register(
    const Server& server, const Manifest& manifest, const Rules& rules,
    const std::map<std::string, const ListedTool*>& live, const ToolNames* names, SpecCache* specs,
    const std::function<absl::Status(const std::string&)>& before_check) {
  Registration out;
  out.report.server = server.name;
  for (const auto& [name, tool] : live) {
    if (!manifest.tools.contains(name)) out.report.unpinned.push_back(name);
  }
  std::map<std::string, std::string> taken;  // model-visible name -> the tool holding it
  for (const auto& [key, pinned] : manifest.tools) {
    auto rule = rules.find(key);
    if (rule == rules.end()) {
      out.report.unclassified.push_back(key);
      continue;
    }
    if (absl::Status go_on = before_check(key); !go_on.ok()) return go_on;
    auto found = live.find(key);
    Checked checked =
        Check(server, pinned, found == live.end() ? nullptr : found->second, rule->second, specs);
    if (checked.refusal.empty()) {
      const std::string& name = checked.spec.name;
      const ToolNames::Holder* other = names != nullptr ? names->Find(name) : nullptr;
      if (auto holder = taken.find(name); holder != taken.end()) {
        checked.refusal = absl::StrCat("the name ", Quote(name), " is already taken by tool ",
                                       Quote(holder->second));
      } else if (other != nullptr) {
        checked.refusal = absl::StrCat("the name ", Quote(name), " is already taken by tool ",
                                       Quote(other->tool), " of server ", Quote(other->server));
      } else {
        taken.emplace(name, key);
      }
    }
    if (!checked.refusal.empty()) {
      out.report.refused.push_back({key, std::move(checked.refusal)});
      continue;
    }
    out.report.registered.push_back(
        {key, checked.spec.name, checked.spec.side_effect, checked.hint_mismatch});
    out.tools.push_back({std::move(checked.spec), pinned.name, &rule->second});
  }
  return out;
}

// Hold records the names `report` registered as its server's.
void Hold(ToolNames* names, const Report& report) {
  if (names == nullptr) return;
  for (const Registered& tool : report.registered) {
    names->Hold(tool.name, {report.server, tool.tool});
  }
}

}  // namespace

absl::StatusOr<Report> Classify(const Server& server, const Manifest& manifest, const Rules& rules,
                                ToolNames* names) {
  AGENTRT_RETURN_IF_ERROR(Preconditions(server, &manifest, rules));
  // The server as pinned: every pinned tool offered exactly as recorded.
  std::vector<ListedTool> offered;
  offered.reserve(manifest.tools.size());
  for (const auto& [key, pinned] : manifest.tools) {
    offered.push_back({key, pinned.description, pinned.input_schema, pinned.annotations});
  }
  std::map<std::string, const ListedTool*> live;
  for (const ListedTool& tool : offered) live.emplace(tool.name, &tool);
  AGENTRT_ASSIGN_OR_RETURN(Registration registration,
                           Register(server, manifest, rules, live, names, /*specs=*/nullptr,
                                    [](const std::string&) { return absl::OkStatus(); }));
  Hold(names, registration.report);
  return std::move(registration.report);
}

LoadResult Load(const Server& server, const Manifest* manifest, const Rules& rules,
                const world::World& world, const LoadOptions& options) {
  if (absl::Status ready = Preconditions(server, manifest, rules); !ready.ok()) {
    return Failed(ready);
  }
  absl::Duration timeout = ConnectTimeout(server);
  absl::Time deadline = world.clock->Now() + timeout;
  absl::StatusOr<std::unique_ptr<Session>> session = Connect(server, world, deadline);
  if (!session.ok()) return Failed(session.status());
  absl::StatusOr<std::vector<ListedTool>> listed = ListAll(**session, deadline);
  if (!listed.ok()) {
    return Failed(Fail(server, "list tools", **session, listed.status(), *world.clock));
  }
  std::map<std::string, const ListedTool*> live;
  for (const ListedTool& tool : *listed) live.emplace(tool.name, &tool);

  auto connection = std::make_shared<Connection>(server.name, *std::move(session), *world.clock);
  absl::StatusOr<Registration> registration =
      Register(server, *manifest, rules, live, options.names, options.specs,
               [&](const std::string& tool) -> absl::Status {
                 if (options.before_check) options.before_check(tool);
                 if (world.clock->Now() > deadline) {
                   return absl::DeadlineExceededError(absl::StrCat(
                       ServerPrefix(server.name), "load: timed out after ", DurationText(timeout)));
                 }
                 return absl::OkStatus();
               });
  if (!registration.ok()) {
    connection->Close();
    return Failed(registration.status());
  }
  LoadResult result;
  for (Accepted& tool : registration->tools) {
    result.tools.push_back(std::make_unique<McpTool>(connection, std::move(tool.spec),
                                                     std::move(tool.remote), *tool.rule,
                                                     MaxContentBytes(server)));
  }
  result.report = std::move(registration->report);
  if (result.tools.empty()) {
    connection->Close();
    result.status = absl::FailedPreconditionError(
        absl::StrCat(ServerPrefix(server.name), "no tool registered"));
    return result;
  }
  Hold(options.names, *result.report);
  result.connection = std::move(connection);
  return result;
}

}  // namespace agentrt::mcp
