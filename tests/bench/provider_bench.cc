// What a model-provider adapter costs around one call, against the bare JSON work on the same
// bytes (figures in docs/performance.md):
//  - BM_ProviderRoundTrip/<adapter>: one Generate of a mid-run request (a system text, the goal,
//    six prior steps each an assistant turn with a reason and a tool_use and a user turn with
//    its tool_result, as runtime/render/messages.cc renders them, and five tools with realistic
//    schemas) through the Anthropic, OpenAI or Ollama adapter: the request rendered to the
//    provider's JSON, sent through an in-memory world::Network whose answer is a canned 200
//    with a realistic reply of that provider (a short text where the provider writes one, one
//    tool call, usage), the reply read, parsed and mapped into a ModelResponse.
//  - floor BM_ProviderJsonFloor/<adapter>: json::Parse of the exact request body the adapter
//    sent (captured once from the network) and of the reply body, nothing else.
// Both report bytes processed as the request's plus the reply's bytes, and one item per round
// trip.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "providers/anthropic/anthropic_model.h"
#include "providers/api_key.h"
#include "providers/ollama/ollama_model.h"
#include "providers/openai/openai_model.h"
#include "runtime/json/intake.h"
#include "runtime/model.h"
#include "runtime/types.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "runtime/world/network.h"
#include "runtime/world/world.h"

namespace agentrt {
namespace {

constexpr absl::Time kStart = absl::FromUnixSeconds(1'767'225'600);

enum class Adapter { kAnthropic, kOpenAi, kOllama };

// ---- The request ----------------------------------------------------------------------------

std::vector<ToolSpec> Tools() {
  return {
      {"read_file", "Read a text file of the workspace, optionally a range of its lines.",
       R"({"type":"object","properties":{"path":{"type":"string","description":)"
       R"("Path relative to the workspace root.","minLength":1,"maxLength":4096},"offset":)"
       R"({"type":"integer","minimum":0,"description":"First line to read, 0-based."},"limit":)"
       R"({"type":"integer","minimum":1,"maximum":2000,"default":200,"description":)"
       R"("How many lines to read."}},"required":["path"],"additionalProperties":false})",
       SideEffect::kReadOnly, absl::Seconds(10)},
      {"search_files",
       "Search the workspace for a regular expression; returns matching lines with their file "
       "and line number.",
       R"({"type":"object","properties":{"path":{"type":"string","description":)"
       R"("Directory to search under.","default":"."},"pattern":{"type":"string","description":)"
       R"("RE2 regular expression.","minLength":1},"glob":{"type":"string","description":)"
       R"("Only files whose path matches this glob, e.g. \"*.cc\"."},"case_sensitive":)"
       R"({"type":"boolean","default":true},"max_results":{"type":"integer","minimum":1,)"
       R"("maximum":500,"default":50}},"required":["pattern"],"additionalProperties":false})",
       SideEffect::kReadOnly, absl::Seconds(30)},
      {"edit_file",
       "Replace an exact span of text in a file. old_text must occur exactly once unless "
       "replace_all is set.",
       R"({"type":"object","properties":{"path":{"type":"string","minLength":1},"old_text":)"
       R"({"type":"string","minLength":1,"description":"The text to replace, exactly as it )"
       R"(appears."},"new_text":{"type":"string","description":"The replacement."},)"
       R"("replace_all":{"type":"boolean","default":false}},"required":["path","old_text",)"
       R"("new_text"],"additionalProperties":false})",
       SideEffect::kLocalMutation, absl::Seconds(10)},
      {"run_command",
       "Run a program in the workspace sandbox and return its exit status, stdout and stderr "
       "(each cut to 64 KiB).",
       R"({"type":"object","properties":{"command":{"type":"string","description":)"
       R"("The program, looked up on the sandbox's PATH.","pattern":"^[A-Za-z0-9_./-]+$"},)"
       R"("args":{"type":"array","items":{"type":"string"},"maxItems":64,"default":[]},"cwd":)"
       R"({"type":"string","default":"."},"timeout_seconds":{"type":"integer","minimum":1,)"
       R"("maximum":600,"default":120},"env":{"type":"object","additionalProperties":)"
       R"({"type":"string"}}},"required":["command"],"additionalProperties":false})",
       SideEffect::kLocalMutation, absl::Seconds(600)},
      {"fetch_url", "Fetch a web page or API document over HTTPS and return its text.",
       R"({"type":"object","properties":{"url":{"type":"string","format":"uri","pattern":)"
       R"("^https://"},"method":{"enum":["GET","HEAD"],"default":"GET"},"headers":{"type":)"
       R"("object","additionalProperties":{"type":"string"},"maxProperties":16},"max_bytes":)"
       R"({"type":"integer","minimum":1024,"maximum":1048576,"default":65536}},"required":)"
       R"(["url"],"additionalProperties":false})",
       SideEffect::kReadOnly, absl::Seconds(60)},
  };
}

struct PriorStep {
  const char* reason;
  const char* tool;
  const char* input;
  const char* result;  // the observation's canonical JSON
};

// Six steps of a run fixing a failing test, each result a few hundred bytes.
const PriorStep
    kSteps[] =
        {
            {"Find where the failing test lives.", "search_files",
             R"({"glob":"*_test.cc","pattern":"ReadsIncludes","path":"tests"})",
             R"({"matches":[{"file":"tests/config/loader_test.cc","line":212,"text":"TEST(ConfigLoaderTest, ReadsIncludes) {"},{"file":"tests/config/loader_test.cc","line":240,"text":"TEST(ConfigLoaderTest, ReadsIncludesRelativeToTheFile) {"}],"truncated":false})"},
            {"Read the test to see what it expects.", "read_file",
             R"({"limit":40,"offset":205,"path":"tests/config/loader_test.cc"})",
             R"({"lines":"205: }\n206: \n212: TEST(ConfigLoaderTest, ReadsIncludes) {\n213:   TempDir dir;\n214:   dir.Write(\"base.toml\", \"[server]\\nport = 8080\\n\");\n215:   dir.Write(\"main.toml\", \"include = [\\\"base.toml\\\"]\\n[server]\\nhost = \\\"a\\\"\\n\");\n216:   absl::StatusOr<Config> config = LoadConfig(dir.Path(\"main.toml\"));\n217:   ASSERT_TRUE(config.ok()) << config.status();\n218:   EXPECT_EQ(config->server.port, 8080);\n219:   EXPECT_EQ(config->server.host, \"a\");\n220: }","total_lines":388})"},
            {"Run the test to see the failure.", "run_command",
             R"({"args":["--test-dir","build","-R","ConfigLoaderTest.ReadsIncludes","--output-on-failure"],"command":"ctest","timeout_seconds":300})",
             R"({"exit_status":8,"stderr":"","stdout":"Test project /work/build\n    Start 412: ConfigLoaderTest.ReadsIncludes\n1/1 Test #412: ConfigLoaderTest.ReadsIncludes ...***Failed    0.02 sec\ntests/config/loader_test.cc:217: Failure\nValue of: config.ok()\n  Actual: false\nExpected: true\nNOT_FOUND: include \"base.toml\": no such file (looked in /work/build/tests)\n\n0% tests passed, 1 tests failed out of 1\n"})"},
            {"The include is resolved against the working directory, not the file; read the "
             "loader.",
             "read_file", R"({"limit":30,"offset":88,"path":"src/config/loader.cc"})", R"({"lines":"88: absl::StatusOr<Config> LoadConfig(const std::filesystem::path& file) {\n89:   AGENTRT_ASSIGN_OR_RETURN(std::string text, ReadFile(file));\n90:   AGENTRT_ASSIGN_OR_RETURN(Table table, ParseToml(text));\n91:   for (const std::string& include : table.Includes()) {\n92:     AGENTRT_ASSIGN_OR_RETURN(std::filesystem::path resolved, ResolveInclude(include));\n93:     AGENTRT_RETURN_IF_ERROR(table.Merge(resolved));\n94:   }\n95:   return ToConfig(table);\n96: }","total_lines":161})"},
            {"Look at ResolveInclude and who else calls it.", "search_files",
             R"({"path":"src","pattern":"ResolveInclude\\("})",
             R"({"matches":[{"file":"src/config/include_resolver.h","line":14,"text":"absl::StatusOr<std::filesystem::path> ResolveInclude(std::string_view include, const std::filesystem::path& base = {});"},{"file":"src/config/include_resolver.cc","line":22,"text":"absl::StatusOr<std::filesystem::path> ResolveInclude(std::string_view include,"},{"file":"src/config/loader.cc","line":92,"text":"    AGENTRT_ASSIGN_OR_RETURN(std::filesystem::path resolved, ResolveInclude(include));"}],"truncated":false})"},
            {"Check what an empty base means in the resolver.", "read_file",
             R"({"limit":20,"offset":22,"path":"src/config/include_resolver.cc"})",
             R"({"lines":"22: absl::StatusOr<std::filesystem::path> ResolveInclude(std::string_view include,\n23:                                                     const std::filesystem::path& base) {\n24:   std::filesystem::path p(include);\n25:   if (p.is_absolute()) return p;\n26:   // An empty base is the working directory (the command line's includes).\n27:   std::filesystem::path dir = base.empty() ? std::filesystem::current_path() : base;\n28:   return Exists(dir / p);\n29: }","total_lines":41})"},
};

ModelRequest Request() {
  ModelRequest request;
  request.system =
      "You are a careful software engineer working in a sandboxed checkout of a C++ project. "
      "Use the tools to inspect and change the workspace; make one tool call at a time and "
      "explain in one sentence why before each. Never guess at file contents: read them. When "
      "the goal is met, call complete with a short summary of what you changed and how you "
      "checked it. If a tool fails, read its error before trying again.";
  request.messages.push_back(
      {"user",
       {{.type = "text",
         .text = "Goal: ConfigLoaderTest.ReadsIncludes fails since the include change; find out "
                 "why and fix it without changing the test. Workspace: /work (build folder "
                 "/work/build, already configured)."}}});
  int index = 0;
  for (const PriorStep& step : kSteps) {
    std::string id = absl::StrCat("step_", index++);
    request.messages.push_back(
        {"assistant",
         {{.type = "text", .text = step.reason},
          {.type = "tool_use", .tool_use_id = id, .name = step.tool, .input = step.input}}});
    request.messages.push_back(
        {"user",
         {{.type = "tool_result", .tool_use_id = id, .name = step.tool, .content = step.result}}});
  }
  request.tools = Tools();
  return request;
}

// ---- The replies: what each provider answers, with one tool call and usage ------------------

constexpr char kAnthropicReply[] =
    R"({"id":"msg_01QpXzT6WfDZz4tS8gK3mY7b","type":"message","role":"assistant",)"
    R"("model":"claude-opus-5","content":[{"type":"text","text":"The loader calls )"
    R"(ResolveInclude without a base, so includes resolve against the working directory; )"
    R"(pass the including file's directory."},{"type":"tool_use",)"
    R"("id":"toolu_01D7FLrfh4GYq7yT1ULFeyMV","name":"edit_file","input":{"path":)"
    R"("src/config/loader.cc","old_text":"ResolveInclude(include));","new_text":)"
    R"("ResolveInclude(include, file.parent_path()));"}}],"stop_reason":"tool_use",)"
    R"("stop_sequence":null,"usage":{"input_tokens":312,"cache_creation_input_tokens":0,)"
    R"("cache_read_input_tokens":2048,"cache_creation":{"ephemeral_5m_input_tokens":0,)"
    R"("ephemeral_1h_input_tokens":0},"output_tokens":118,"service_tier":"standard"}})";

constexpr char kOpenAiReply[] =
    R"({"id":"chatcmpl-CgT2v7l1s0dJq9YwRk3XzP4eH8uNa","object":"chat.completion",)"
    R"("created":1767225600,"model":"gpt-5-2025-08-07","choices":[{"index":0,"message":)"
    R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_Vx1hQ6mZ2bY8kLw3Rt5nJ0sE",)"
    R"("type":"function","function":{"name":"edit_file","arguments":"{\"path\":)"
    R"(\"src/config/loader.cc\",\"old_text\":\"ResolveInclude(include));\",\"new_text\":)"
    R"(\"ResolveInclude(include, file.parent_path()));\"}"}}],"refusal":null,"annotations":[]},)"
    R"("logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":2360,)"
    R"("completion_tokens":118,"total_tokens":2478,"prompt_tokens_details":{"cached_tokens":)"
    R"(2048,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":64,)"
    R"("audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},)"
    R"("service_tier":"default","system_fingerprint":null})";

// Ollama's tool calls carry no id: the adapter draws one from the world's entropy.
constexpr char kOllamaReply[] =
    R"({"model":"qwen3:32b","created_at":"2026-01-01T00:00:04.883051234Z","message":)"
    R"({"role":"assistant","content":"","tool_calls":[{"function":{"index":0,"name":)"
    R"("edit_file","arguments":{"path":"src/config/loader.cc","old_text":)"
    R"("ResolveInclude(include));","new_text":"ResolveInclude(include, file.parent_path()));"}}}]},)"
    R"("done_reason":"stop","done":true,"total_duration":4883051234,"load_duration":21534125,)"
    R"("prompt_eval_count":2360,"prompt_eval_duration":1520338000,"eval_count":118,)"
    R"("eval_duration":3301042000})";

const char* Reply(Adapter adapter) {
  switch (adapter) {
    case Adapter::kAnthropic:
      return kAnthropicReply;
    case Adapter::kOpenAi:
      return kOpenAiReply;
    case Adapter::kOllama:
      return kOllamaReply;
  }
  return "";
}

// ---- The network ------------------------------------------------------------------------------

class CannedResponse final : public world::HttpResponse {
 public:
  CannedResponse(std::string body, world::HttpFields headers)
      : headers_(std::move(headers)), body_(std::move(body)) {}
  int status() const override { return 200; }
  const world::HttpFields& headers() const override { return headers_; }
  absl::StatusOr<std::string> Read(absl::Time) override {
    if (closed_) return absl::CancelledError("closed");
    if (read_) return std::string();
    read_ = true;
    return std::move(body_);
  }
  void Close() override { closed_ = true; }

 private:
  const world::HttpFields headers_;
  std::string body_;
  bool read_ = false;
  bool closed_ = false;
};

// Every Send answers 200 with the same body; the request's body is kept when asked to.
class CannedNetwork final : public world::Network {
 public:
  explicit CannedNetwork(std::string body)
      : body_(std::move(body)),
        headers_{{"Content-Type", "application/json"},
                 {"Content-Length", absl::StrCat(body_.size())}} {}

  absl::StatusOr<std::unique_ptr<world::HttpResponse>> Send(const world::HttpRequest& request,
                                                            absl::Time) override {
    if (body_.size() > request.max_body_bytes) {
      return absl::ResourceExhaustedError(
          absl::StrCat("response body exceeds ", request.max_body_bytes, " bytes"));
    }
    if (capture_) sent_ = request.body;
    return std::make_unique<CannedResponse>(body_, headers_);
  }

  void Capture(bool on) { capture_ = on; }
  const std::string& sent() const { return sent_; }

 private:
  const std::string body_;
  const world::HttpFields headers_;
  bool capture_ = false;
  std::string sent_;
};

// ---- The adapters ---------------------------------------------------------------------------

struct Setup {
  explicit Setup(Adapter adapter) : network(Reply(adapter)) {
    world::World w{.clock = &clock, .scheduler = &clock, .entropy = &entropy, .network = &network};
    world = w;
    switch (adapter) {
      case Adapter::kAnthropic: {
        auto m = providers::AnthropicModel::Create({.model = "claude-opus-5",
                                                    .base_url = "https://provider.bench",
                                                    .api_key = providers::ApiKey("bench-key")},
                                                   world);
        if (m.ok()) model = *std::move(m);
        status = m.status();
        break;
      }
      case Adapter::kOpenAi: {
        auto m = providers::OpenAiModel::Create({.model = "gpt-5",
                                                 .base_url = "https://provider.bench/v1",
                                                 .api_key = providers::ApiKey("bench-key")},
                                                world);
        if (m.ok()) model = *std::move(m);
        status = m.status();
        break;
      }
      case Adapter::kOllama: {
        auto m = providers::OllamaModel::Create(
            {.model = "qwen3:32b", .host = "http://provider.bench"}, world);
        if (m.ok()) model = *std::move(m);
        status = m.status();
        break;
      }
    }
  }

  // One Generate, its request body captured and its response checked: the mapping must have
  // found the one tool call and the usage.
  absl::Status Check(const ModelRequest& request) {
    if (!status.ok()) return status;
    network.Capture(true);
    absl::StatusOr<ModelResponse> response = model->Generate(request, kStart + absl::Minutes(10));
    network.Capture(false);
    if (!response.ok()) return response.status();
    if (response->tool_uses.size() != 1 || response->tool_uses[0].name != "edit_file" ||
        response->stop_reason != stop_reason::kToolUse || response->usage.output_tokens != 118 ||
        response->usage.input_tokens != 2360) {
      return absl::InternalError(
          absl::StrCat("unexpected response: ", ModelResponseJson(*response)));
    }
    return absl::OkStatus();
  }

  world::ManualClock clock{kStart};
  world::SeededEntropy entropy{7};
  CannedNetwork network;
  world::World world;
  std::unique_ptr<Model> model;
  absl::Status status;
};

void Report(benchmark::State& state, const std::string& sent, const std::string& reply) {
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() *
                          static_cast<std::int64_t>(sent.size() + reply.size()));
  state.counters["request_bytes"] = static_cast<double>(sent.size());
  state.counters["reply_bytes"] = static_cast<double>(reply.size());
  state.SetLabel("items = round trips");
}

void BM_ProviderRoundTrip(benchmark::State& state, Adapter adapter) {
  const ModelRequest request = Request();
  Setup setup(adapter);
  if (absl::Status checked = setup.Check(request); !checked.ok()) {
    state.SkipWithError(std::string(checked.message()).c_str());
    return;
  }
  const absl::Time deadline = kStart + absl::Minutes(10);
  for (auto _ : state) {
    absl::StatusOr<ModelResponse> response = setup.model->Generate(request, deadline);
    if (!response.ok()) {
      state.SkipWithError(std::string(response.status().message()).c_str());
      break;
    }
    benchmark::DoNotOptimize(response);
  }
  Report(state, setup.network.sent(), Reply(adapter));
}

void BM_ProviderJsonFloor(benchmark::State& state, Adapter adapter) {
  std::string sent;
  {
    Setup setup(adapter);
    if (absl::Status checked = setup.Check(Request()); !checked.ok()) {
      state.SkipWithError(std::string(checked.message()).c_str());
      return;
    }
    sent = setup.network.sent();
  }
  const std::string reply = Reply(adapter);
  for (auto _ : state) {
    absl::StatusOr<json::Document> request_doc = json::Parse(sent);
    absl::StatusOr<json::Document> reply_doc = json::Parse(reply);
    if (!request_doc.ok() || !reply_doc.ok()) {
      state.SkipWithError("a body did not parse");
      break;
    }
    benchmark::DoNotOptimize(request_doc);
    benchmark::DoNotOptimize(reply_doc);
  }
  Report(state, sent, reply);
}

BENCHMARK_CAPTURE(BM_ProviderRoundTrip, anthropic, Adapter::kAnthropic);
BENCHMARK_CAPTURE(BM_ProviderJsonFloor, anthropic, Adapter::kAnthropic);
BENCHMARK_CAPTURE(BM_ProviderRoundTrip, openai, Adapter::kOpenAi);
BENCHMARK_CAPTURE(BM_ProviderJsonFloor, openai, Adapter::kOpenAi);
BENCHMARK_CAPTURE(BM_ProviderRoundTrip, ollama, Adapter::kOllama);
BENCHMARK_CAPTURE(BM_ProviderJsonFloor, ollama, Adapter::kOllama);

}  // namespace
}  // namespace agentrt

BENCHMARK_MAIN();
