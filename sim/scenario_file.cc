#include "sim/scenario_file.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "mcp/duration.h"
#include "mcp/rules.h"
#include "providers/anthropic/anthropic_model.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/events.h"
#include "runtime/json/intake.h"
#include "runtime/json/sanitize.h"
#include "runtime/json/utf8.h"
#include "runtime/types.h"
#include "sim/provider_cassette.h"
#include "sim/scenario_limits.h"

namespace agentrt::sim {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::TextFormat;

class Collector final : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (first_.empty()) first_ = absl::StrCat(line + 1, ":", column + 1, ": ", message);
  }
  const std::string& first() const { return first_; }

 private:
  std::string first_;
};

// A place in the parsed scenario: a message, where it was in the text, and its field path.
class At {
 public:
  At(const std::string& file, const Message& message, const TextFormat::ParseInfoTree* tree,
     std::string path)
      : file_(file), message_(message), tree_(tree), path_(std::move(path)) {}

  // The `index`-th value of the message field `name` (-1 for a singular one).
  At Nested(std::string_view name, int index, const Message& nested) const {
    const FieldDescriptor* field = Field(name);
    const TextFormat::ParseInfoTree* tree =
        tree_ != nullptr && field != nullptr && field->is_repeated() == (index >= 0)
            ? tree_->GetTreeForNested(field, index)
            : nullptr;
    return At(file_, nested, tree, Path(name, index));
  }

  absl::Status Error(std::string_view name, int index, std::string_view why) const {
    const FieldDescriptor* field = Field(name);
    TextFormat::ParseLocation location;
    // A repeated field has locations per value only; index -1 asks for the field itself.
    if (tree_ != nullptr && field != nullptr && field->is_repeated() == (index >= 0)) {
      location = tree_->GetLocation(field, index);
    }
    std::string where = location.line >= 0
                            ? absl::StrCat(file_, ":", location.line + 1, ":", location.column + 1)
                            : std::string(file_);
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": ", Path(name, index), ": ", ToAbsl(why)));
  }

  // Checks that a non-empty JSON field holds one strict JSON value.
  absl::Status Json(std::string_view name, const std::string& text, int index = -1) const {
    if (text.empty()) return absl::OkStatus();
    absl::StatusOr<json::Document> doc = json::Parse(text);
    if (!doc.ok()) return Error(name, index, absl::StrCat("not JSON: ", doc.status().message()));
    return absl::OkStatus();
  }

  absl::Status Duration(std::string_view name, const std::string& text) const {
    if (text.empty()) return absl::OkStatus();
    absl::StatusOr<absl::Duration> d = mcp::ParseDurationText(text);
    if (!d.ok() || *d < absl::ZeroDuration()) {
      return Error(name, -1, absl::StrCat("\"", text, "\" is not a duration such as \"30s\""));
    }
    if (*d > kMaxDuration) {
      return Error(name, -1,
                   absl::StrCat("\"", text, "\" is past the limit of ", Limit(kMaxDuration)));
    }
    return absl::OkStatus();
  }

  // Checks that the number `value` of field `name` is at most `limit` (of `unit`).
  absl::Status AtMost(std::string_view name, std::uint64_t value, std::uint64_t limit,
                      std::string_view unit = "") const {
    if (value <= limit) return absl::OkStatus();
    return Error(name, -1, absl::StrCat(value, " is past the limit of ", limit, ToAbsl(unit)));
  }

  // Checks that the repeated field `name` has at most `limit` entries, pointing at the first
  // one past it.
  absl::Status Count(std::string_view name, int size, int limit, std::string_view what) const {
    if (size <= limit) return absl::OkStatus();
    return Error(name, limit, absl::StrCat("more than ", limit, " ", ToAbsl(what), " (the limit)"));
  }

  static std::string Limit(absl::Duration d) { return mcp::DurationText(d); }

 private:
  const FieldDescriptor* Field(std::string_view name) const {
    return message_.GetDescriptor()->FindFieldByName(std::string(name));
  }
  std::string Path(std::string_view name, int index) const {
    std::string path = path_.empty() ? std::string(name) : absl::StrCat(path_, ".", ToAbsl(name));
    if (index >= 0) absl::StrAppend(&path, "[", index, "]");
    return path;
  }

  const std::string& file_;
  const Message& message_;
  const TextFormat::ParseInfoTree* tree_;
  std::string path_;
};

absl::Status CheckCall(const At& at, const v1::Call& call) {
  AGENTRT_RETURN_IF_ERROR(at.Json("structured_json", call.structured_json()));
  AGENTRT_RETURN_IF_ERROR(at.Duration("delay", call.delay()));
  AGENTRT_RETURN_IF_ERROR(at.AtMost("text_bytes", call.text_bytes(), kMaxTextBytes, " bytes"));
  if (!call.result_json().empty() && (!call.text().empty() || call.text_bytes() > 0)) {
    return at.Error("result_json", -1, "give the whole result or its text, not both");
  }
  return absl::OkStatus();
}

// A raw tool is found by `name` (calls, and the tools the invariants account for), so the name
// in its raw JSON, when it has one as a string, must be that name: otherwise the server offers a
// tool the scenario does not know by that name (a generated world once did).
absl::Status CheckRawName(const At& at, const v1::Tool& tool) {
  if (tool.raw_json().empty() || tool.repeat() > 0) return absl::OkStatus();
  absl::StatusOr<json::Document> raw = json::Parse(tool.raw_json());
  if (!raw.ok() || !raw->root().is_object()) return absl::OkStatus();  // hostile on purpose
  std::optional<json::Value> name = raw->root().Find("name");
  if (!name || !name->is_string() || name->string_value() == tool.name()) {
    return absl::OkStatus();
  }
  return at.Error("raw_json", -1,
                  absl::StrCat("the raw JSON names the tool ", json::Quoted(name->string_value()),
                               " but `name` is ", json::Quoted(tool.name()),
                               ": calls and the report find a raw tool by `name`, so give both the "
                               "same name"));
}

// What the fake server lists of `tool`: its JSON, once per repeat (fake_server.cc, ToolJson).
std::uint64_t ListedBytes(const v1::Tool& tool) {
  std::uint64_t one = tool.repeat() == 0 && !tool.raw_json().empty()
                          ? tool.raw_json().size()
                          : tool.name().size() + tool.description().size() +
                                tool.input_schema_json().size() + tool.annotations_json().size();
  return one * std::max<std::uint64_t>(tool.repeat(), 1);
}

// What the scenario's servers list in all, each repeat counted: tools and their bytes.
struct Listed {
  std::uint64_t tools = 0;
  std::uint64_t bytes = 0;
};

// `listed` counts what the servers before this one list.
absl::Status CheckServer(const At& at, const v1::Server& server, Listed& listed) {
  if (server.name().empty()) return at.Error("name", -1, "a server needs a name");
  for (int i = 0; i < server.tools_size(); ++i) {
    const v1::Tool& tool = server.tools(i);
    At t = at.Nested("tools", i, tool);
    if (tool.name().empty())
      return at.Error("tools", i, "a tool needs a name (calls find it by it)");
    AGENTRT_RETURN_IF_ERROR(t.Json("input_schema_json", tool.input_schema_json()));
    AGENTRT_RETURN_IF_ERROR(t.Json("annotations_json", tool.annotations_json()));
    AGENTRT_RETURN_IF_ERROR(CheckRawName(t, tool));
    listed.tools += std::max<std::uint64_t>(tool.repeat(), 1);
    if (listed.tools > kMaxTools) {
      return at.Error("tools", i,
                      absl::StrCat("the scenario lists more than ", kMaxTools,
                                   " tools in all, each repeat counted (the limit)"));
    }
    listed.bytes += ListedBytes(tool);
    if (listed.bytes > kMaxListedBytes) {
      return at.Error("tools", i,
                      absl::StrCat("the scenario lists more than ", kMaxListedBytes,
                                   " bytes of tools in all, each repeat counted (the limit)"));
    }
    for (int c = 0; c < tool.calls_size(); ++c) {
      AGENTRT_RETURN_IF_ERROR(CheckCall(t.Nested("calls", c, tool.calls(c)), tool.calls(c)));
    }
  }
  for (int i = 0; i < server.listings_size(); ++i) {
    const v1::Listing& listing = server.listings(i);
    At l = at.Nested("listings", i, listing);
    AGENTRT_RETURN_IF_ERROR(l.AtMost("page_size", listing.page_size(), kMaxPageSize));
    AGENTRT_RETURN_IF_ERROR(l.AtMost("extra_pages", listing.extra_pages(), kMaxExtraPages));
  }
  At http = at.Nested("http", -1, server.http());
  AGENTRT_RETURN_IF_ERROR(
      http.AtMost("lose_session_after", server.http().lose_session_after(), kMaxLoseSessionAfter));
  At auth = http.Nested("auth", -1, server.http().auth());
  AGENTRT_RETURN_IF_ERROR(auth.Duration("token_lifetime", server.http().auth().token_lifetime()));
  AGENTRT_RETURN_IF_ERROR(auth.Duration("token_delay", server.http().auth().token_delay()));
  if (server.http().has_auth() && server.transport() != v1::Server::HTTP) {
    return http.Error("auth", -1, "only an HTTP server requires authorization");
  }
  AGENTRT_RETURN_IF_ERROR(
      at.AtMost("max_content_bytes", server.max_content_bytes(), kMaxContentBytes, " bytes"));
  if (!server.rules_json().empty()) {
    absl::StatusOr<json::Document> rules = json::Parse(server.rules_json());
    if (!rules.ok()) {
      return at.Error("rules_json", -1, absl::StrCat("not JSON: ", rules.status().message()));
    }
    absl::StatusOr<mcp::Rules> parsed = mcp::ParseRules(rules->root(), "rules");
    if (!parsed.ok()) return at.Error("rules_json", -1, ToStd(parsed.status().message()));
    for (const auto& [name, rule] : *parsed) {
      if (rule.timeout > kMaxDuration) {
        return at.Error(
            "rules_json", -1,
            absl::StrCat("rules: tool \"", name, "\": timeout ", mcp::DurationText(rule.timeout),
                         " is past the limit of ", At::Limit(kMaxDuration)));
      }
    }
  }
  AGENTRT_RETURN_IF_ERROR(at.Duration("connect_timeout", server.connect_timeout()));
  AGENTRT_RETURN_IF_ERROR(at.Duration("default_timeout", server.default_timeout()));
  return absl::OkStatus();
}

absl::Status CheckProvider(const At& at, const v1::Provider& p) {
  if (p.kind() != "anthropic" && p.kind() != "openai" && p.kind() != "ollama") {
    return at.Error("kind", -1,
                    absl::StrCat("\"", p.kind(), "\" is not anthropic, openai or ollama"));
  }
  if (p.kind() == "anthropic" && !p.model().empty() &&
      !providers::AnthropicPrices().contains(absl::StrCat("anthropic:", p.model()))) {
    return at.Error("model", -1,
                    absl::StrCat("\"", p.model(), "\" is not in Anthropic's price table"));
  }
  AGENTRT_RETURN_IF_ERROR(at.Count("exchanges", p.exchanges_size(), kMaxSteps, "exchanges"));
  AGENTRT_RETURN_IF_ERROR(at.AtMost(
      "max_retries", static_cast<std::uint64_t>(std::max(p.max_retries(), 0)), kMaxRunLimit));
  AGENTRT_RETURN_IF_ERROR(at.Duration("call_timeout", p.call_timeout()));
  AGENTRT_RETURN_IF_ERROR(at.Duration("backoff", p.backoff()));
  for (int i = 0; i < p.exchanges_size(); ++i) {
    const v1::ProviderExchange& e = p.exchanges(i);
    At x = at.Nested("exchanges", i, e);
    if (e.status() != 0 && (e.status() < 100 || e.status() > 599)) {
      return x.Error("status", -1, absl::StrCat(e.status(), " is not an HTTP status"));
    }
    AGENTRT_RETURN_IF_ERROR(x.Duration("delay", e.delay()));
  }
  return absl::OkStatus();
}

absl::Status CheckAgent(const At& agent, const v1::Agent& a) {
  int kinds =
      (a.steps().empty() ? 0 : 1) + (a.model().empty() ? 0 : 1) + (a.has_provider() ? 1 : 0);
  if (kinds > 1) {
    return agent.Error(a.has_provider() ? "provider" : "model", a.has_provider() ? -1 : 0,
                       "give the agent steps, a model's replies or a provider: one of them");
  }
  if (a.has_provider()) {
    AGENTRT_RETURN_IF_ERROR(
        CheckProvider(agent.Nested("provider", -1, a.provider()), a.provider()));
  }
  AGENTRT_RETURN_IF_ERROR(agent.Count("steps", a.steps_size(), kMaxSteps, "steps"));
  AGENTRT_RETURN_IF_ERROR(agent.Count("model", a.model_size(), kMaxSteps, "model replies"));
  for (int i = 0; i < a.steps_size(); ++i) {
    const v1::Step& step = a.steps(i);
    At s = agent.Nested("steps", i, step);
    switch (step.kind_case()) {
      case v1::Step::kCall:
        if (step.call().tool().empty()) return s.Error("call", -1, "a call names its tool");
        break;
      case v1::Step::kCompleteJson:
        AGENTRT_RETURN_IF_ERROR(s.Json("complete_json", step.complete_json()));
        break;
      case v1::Step::kFail:
        break;
      case v1::Step::KIND_NOT_SET:
        return agent.Error("steps", i, "a step is a call, complete_json or fail");
    }
  }
  return absl::OkStatus();
}

// The host side: an agent or a host, never both; every duration one the simulator can play; a
// decision names an earlier call.
absl::Status CheckHost(const At& at, const v1::Host& host, const v1::Agent& agent) {
  if (!agent.steps().empty() || !agent.model().empty() || agent.has_provider()) {
    return at.Error("calls", -1, "give the scenario an agent or a host: one of them");
  }
  if (host.calls().empty()) return at.Error("calls", -1, "a host makes at least one call");
  AGENTRT_RETURN_IF_ERROR(at.Count("calls", host.calls_size(), kMaxSteps, "calls"));
  for (const auto& [field, value] :
       {std::pair<std::string_view, const std::string*>{"hold", &host.hold()},
        {"repeat_window", &host.repeat_window()},
        {"approval_ttl", &host.approval_ttl()},
        {"grant_ttl", &host.grant_ttl()}}) {
    AGENTRT_RETURN_IF_ERROR(at.Duration(field, *value));
  }
  AGENTRT_RETURN_IF_ERROR(at.AtMost(
      "max_pending", static_cast<std::uint64_t>(std::max(host.max_pending(), 0)), kMaxRunLimit));
  for (int i = 0; i < host.calls_size(); ++i) {
    const v1::HostCall& call = host.calls(i);
    At c = at.Nested("calls", i, call);
    if (call.tool().empty()) return c.Error("tool", -1, "a call names its tool");
    AGENTRT_RETURN_IF_ERROR(c.Duration("after", call.after()));
    AGENTRT_RETURN_IF_ERROR(
        c.Nested("decide", -1, call.decide()).Duration("during", call.decide().during()));
    if (call.decide().call() < 0 || call.decide().call() > i) {
      return c.Error("decide", -1,
                     absl::StrCat("call ", call.decide().call(),
                                  " is not an earlier call (from 1, before this one)"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckLimits(const At& at, const v1::Limits& limits) {
  AGENTRT_RETURN_IF_ERROR(at.Duration("max_active", limits.max_active()));
  AGENTRT_RETURN_IF_ERROR(at.Duration("max_elapsed", limits.max_elapsed()));
  AGENTRT_RETURN_IF_ERROR(at.Duration("approval_ttl", limits.approval_ttl()));
  // Negative counts mean the default (play.cc), so only the upper bound matters.
  AGENTRT_RETURN_IF_ERROR(at.AtMost("max_steps", std::max(limits.max_steps(), 0), kMaxSteps));
  AGENTRT_RETURN_IF_ERROR(at.AtMost("max_consecutive_tool_failures",
                                    std::max(limits.max_consecutive_tool_failures(), 0),
                                    kMaxRunLimit));
  return at.AtMost("loop_threshold", std::max(limits.loop_threshold(), 0), kMaxRunLimit);
}

// The crash and the storage faults: counted from 1, and played for an agent's run only.
absl::Status CheckFaults(const At& at, const v1::Scenario& scenario) {
  const v1::Crash& crash = scenario.crash();
  At c = at.Nested("crash", -1, crash);
  if (crash.at_commit() > 0 && crash.after_call() > 0) {
    return c.Error("at_commit", -1, "a runtime dies once: after_call or at_commit, not both");
  }
  if (crash.stale_owner() && crash.after_call() == 0) {
    return c.Error("stale_owner", -1, "a runtime stops mid-call: it needs after_call");
  }
  AGENTRT_RETURN_IF_ERROR(at.Count("storage_faults", scenario.storage_faults_size(),
                                   kMaxPerturbations, "storage faults"));
  for (int i = 0; i < scenario.storage_faults_size(); ++i) {
    if (scenario.storage_faults(i).at_commit() == 0) {
      return at.Nested("storage_faults", i, scenario.storage_faults(i))
          .Error("at_commit", -1, "write transactions count from 1");
    }
  }
  if (scenario.has_host() &&
      (crash.at_commit() > 0 || crash.stale_owner() || !scenario.storage_faults().empty())) {
    return at.Error("host", -1,
                    "a host scenario's proxy crashes only after_call: commit crashes, stale "
                    "owners and storage faults are played for an agent's run");
  }
  return absl::OkStatus();
}

absl::Status Check(const At& at, const v1::Scenario& scenario) {
  if (scenario.servers().empty()) return at.Error("servers", -1, "a scenario needs a server");
  AGENTRT_RETURN_IF_ERROR(at.Count("servers", scenario.servers_size(), kMaxServers, "servers"));
  std::set<std::string> names;
  Listed listed;
  for (int i = 0; i < scenario.servers_size(); ++i) {
    const v1::Server& server = scenario.servers(i);
    AGENTRT_RETURN_IF_ERROR(CheckServer(at.Nested("servers", i, server), server, listed));
    if (!names.insert(server.name()).second) {
      return at.Error("servers", i, absl::StrCat("a second server named \"", server.name(), "\""));
    }
  }
  AGENTRT_RETURN_IF_ERROR(CheckAgent(at.Nested("agent", -1, scenario.agent()), scenario.agent()));
  if (scenario.has_host()) {
    AGENTRT_RETURN_IF_ERROR(
        CheckHost(at.Nested("host", -1, scenario.host()), scenario.host(), scenario.agent()));
  }
  AGENTRT_RETURN_IF_ERROR(
      at.Count("approvals", scenario.approvals_size(), kMaxApprovals, "approvals"));
  for (int i = 0; i < scenario.approvals_size(); ++i) {
    const v1::Approval& a = scenario.approvals(i);
    At aa = at.Nested("approvals", i, a);
    AGENTRT_RETURN_IF_ERROR(aa.Duration("after", a.after()));
    if (a.cancel() && (a.reject() || a.twice())) {
      return aa.Error("cancel", -1, "a cancel decides nothing: no reject or twice with it");
    }
    if (a.reject() && a.twice()) return aa.Error("twice", -1, "only a grant is given twice");
  }
  AGENTRT_RETURN_IF_ERROR(CheckFaults(at, scenario));
  AGENTRT_RETURN_IF_ERROR(
      CheckLimits(at.Nested("limits", -1, scenario.limits()), scenario.limits()));
  AGENTRT_RETURN_IF_ERROR(
      at.Count("perturbations", scenario.perturbations_size(), kMaxPerturbations, "perturbations"));
  for (int i = 0; i < scenario.perturbations_size(); ++i) {
    const v1::Perturbation& p = scenario.perturbations(i);
    At pa = at.Nested("perturbations", i, p);
    if (p.at_answer() == 0) return pa.Error("at_answer", -1, "answers count from 1");
    AGENTRT_RETURN_IF_ERROR(pa.Duration("delay", p.delay()));
    AGENTRT_RETURN_IF_ERROR(pa.Duration("clock_jump", p.clock_jump()));
  }
  const v1::Expect& expect = scenario.expect();
  At e = at.Nested("expect", -1, expect);
  if (!expect.status().empty() && !ParseRunStatus(absl::AsciiStrToUpper(expect.status()))) {
    return e.Error("status", -1,
                   absl::StrCat("\"", expect.status(),
                                "\" is not a run status (completed, failed, cancelled, "
                                "waiting_for_approval, running, interrupted)"));
  }
  for (int i = 0; i < expect.events_size(); ++i) {
    if (std::find(event::kAll.begin(), event::kAll.end(), expect.events(i)) == event::kAll.end()) {
      return e.Error("events", i, absl::StrCat("\"", expect.events(i), "\" is not an event type"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckScenarioName(std::string_view name) {
  if (name.empty()) return absl::InvalidArgumentError("a scenario needs a name");
  if (name.size() > kMaxScenarioNameBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(name.size(), " bytes is past the limit of ", kMaxScenarioNameBytes));
  }
  if (name.find('/') != std::string_view::npos || name.find('\\') != std::string_view::npos ||
      name.find("..") != std::string_view::npos) {
    return absl::InvalidArgumentError(
        "it names the scenario's database files, so it holds no '/', '\\' or '..'");
  }
  for (std::size_t i = 0; i < name.size();) {
    char32_t cp = 0;
    int length = json::DecodeUtf8(name, i, &cp);
    if (length == 0) return absl::InvalidArgumentError("it is not UTF-8");
    if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) {
      return absl::InvalidArgumentError("it holds a control character");
    }
    i += static_cast<std::size_t>(length);
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::Scenario> ParseScenario(std::string_view text, std::string_view file) {
  if (text.size() > kMaxScenarioFileBytes) {
    return absl::InvalidArgumentError(absl::StrCat(ToAbsl(file), ": ", text.size(),
                                                   " bytes is past the limit of ",
                                                   kMaxScenarioFileBytes, " for a scenario file"));
  }
  v1::Scenario scenario;
  TextFormat::Parser parser;
  Collector collector;
  TextFormat::ParseInfoTree tree;
  parser.RecordErrorsTo(&collector);
  parser.WriteLocationsTo(&tree);
  if (!parser.ParseFromString(std::string(text), &scenario)) {
    return absl::InvalidArgumentError(absl::StrCat(ToAbsl(file), ":", collector.first()));
  }
  std::string name(file);
  At at(name, scenario, &tree, "");
  AGENTRT_RETURN_IF_ERROR(Check(at, scenario));
  if (!scenario.name().empty()) {
    if (absl::Status s = CheckScenarioName(scenario.name()); !s.ok()) {
      return at.Error("name", -1, ToStd(s.message()));
    }
  } else {
    scenario.set_name(std::filesystem::path(std::string(file)).stem().string());
    if (absl::Status s = CheckScenarioName(scenario.name()); !s.ok()) {
      return at.Error("name", -1,
                      absl::StrCat("the file's base name is no scenario name (", s.message(),
                                   "); give the scenario a name"));
    }
  }
  return scenario;
}

absl::StatusOr<v1::Scenario> ReadScenario(world::Filesystem& files, const std::string& path) {
  absl::StatusOr<std::string> text = files.ReadFile(path, kMaxScenarioFileBytes);
  if (absl::IsOutOfRange(text.status())) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": the file is past the limit of ",
                                                   kMaxScenarioFileBytes,
                                                   " bytes for a scenario file"));
  }
  if (!text.ok()) return text.status();
  AGENTRT_ASSIGN_OR_RETURN(v1::Scenario scenario, ParseScenario(*text, path));
  if (scenario.agent().has_provider() && !scenario.agent().provider().cassette().empty()) {
    AGENTRT_RETURN_IF_ERROR(
        LoadProviderCassette(files, path, *scenario.mutable_agent()->mutable_provider()));
  }
  return scenario;
}

absl::StatusOr<std::vector<std::string>> ScenarioFiles(world::Filesystem& files,
                                                       const std::vector<std::string>& paths) {
  std::vector<std::string> found;
  for (const std::string& path : paths) {
    absl::StatusOr<world::FileInfo> info = files.Stat(path);
    if (!info.ok()) return absl::NotFoundError(absl::StrCat("scenario ", path, " does not exist"));
    if (info->type != world::FileInfo::Type::kDirectory) {
      found.push_back(path);
      continue;
    }
    absl::StatusOr<std::vector<std::string>> names = files.List(path);
    if (!names.ok()) return names.status();
    std::size_t before = found.size();
    for (const std::string& name : *names) {  // sorted
      std::string file = (std::filesystem::path(path) / name).string();
      absl::StatusOr<world::FileInfo> entry = files.Stat(file);
      if (absl::EndsWith(name, ".textproto") && entry.ok() &&
          entry->type == world::FileInfo::Type::kRegular) {
        found.push_back(std::move(file));
      }
    }
    if (found.size() == before) {
      return absl::InvalidArgumentError(absl::StrCat("folder ", path, " holds no *.textproto"));
    }
  }
  return found;
}

absl::Duration ScenarioDuration(const std::string& text) {
  if (text.empty()) return absl::ZeroDuration();
  absl::StatusOr<absl::Duration> d = mcp::ParseDurationText(text);
  return d.ok() ? *d : absl::ZeroDuration();
}

std::string ScenarioText(const v1::Scenario& scenario) {
  std::string text;
  TextFormat::Printer printer;
  printer.SetUseUtf8StringEscaping(true);
  printer.PrintToString(scenario, &text);
  return text;
}

}  // namespace agentrt::sim
