// The MCP client against the real, pinned everything server (fixtures/servers/): over stdio, what
// a client that declares no capabilities is offered and sent, every content kind mapped (docs/
// mcp.md, "What a call does"), an isError result, a call past its deadline, the environment a
// stdio server gets; over streamable HTTP on loopback, pin, load, calls and the session's
// end. The facts asserted are those fixtures/servers/README.md writes down.
#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mcp/load.h"
#include "mcp/pin.h"
#include "runtime/base/string_view.h"
#include "runtime/json/intake.h"
#include "runtime/world/curl_network.h"
#include "tests/mcp/http_everything.h"
#include "tests/mcp/real_servers.h"
#include "tests/support/process_gone.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"

namespace agentrt::mcp {
namespace {

using ::agentrt::mcp::real_servers::CallTool;
using ::agentrt::mcp::real_servers::Classify;
using ::agentrt::mcp::real_servers::Count;
using ::agentrt::mcp::real_servers::GroupGone;
using ::agentrt::mcp::real_servers::Named;
using ::agentrt::mcp::real_servers::PinOrFail;
using ::agentrt::mcp::real_servers::RealWorld;

// The JSON-RPC lines a server wrote that are requests to the client (a method and an id).
std::vector<std::string> ServerRequests(const std::string& stdout_bytes) {
  std::vector<std::string> requests;
  for (absl::string_view line : absl::StrSplit(stdout_bytes, '\n', absl::SkipWhitespace())) {
    absl::StatusOr<json::Document> doc = json::Parse(ToStd(line));
    if (!doc.ok() || !doc->root().is_object()) continue;
    std::optional<json::Value> method = doc->root().Find("method");
    if (method && method->is_string() && doc->root().Find("id")) {
      requests.emplace_back(method->string_value());
    }
  }
  return requests;
}

// The keys of the JSON object that the JSON string `content` holds ({} when it holds none).
std::vector<std::string> KeysOfTheObjectIn(const std::string& content) {
  std::vector<std::string> keys;
  absl::StatusOr<json::Document> text = json::Parse(content);
  if (!text.ok() || !text->root().is_string()) return keys;
  absl::StatusOr<json::Document> object = json::Parse(text->root().string_value());
  if (!object.ok() || !object->root().is_object()) return keys;
  for (std::size_t i = 0; i < object->root().size(); ++i) {
    keys.emplace_back(object->root().key(i));
  }
  return keys;
}

// Calls trigger-long-running-operation (one step of a second) with 300 ms to go, then again
// (1.5 s) with room: the first fails as a timeout at its deadline, the second gets its own
// answer — never the first one's, which may come while it waits.
void TimeOutThenGetTheRightAnswer(const Server& server, const world::World& w) {
  Manifest manifest = PinOrFail(server, w);
  LoadResult loaded = Load(server, &manifest,
                           Classify({"trigger-long-running-operation"}, SideEffect::kReadOnly), w);
  ASSERT_OK(loaded.status);
  McpTool* slow = Named(loaded, "everything_trigger-long-running-operation");
  ASSERT_NE(slow, nullptr);
  absl::Time before = w.clock->Now();
  absl::StatusOr<ToolResult> late =
      CallTool(*slow, R"({"duration":1,"steps":1})", *w.clock, absl::Milliseconds(300));
  EXPECT_LT(w.clock->Now() - before, absl::Milliseconds(900));
  EXPECT_EQ(late.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(ToStd(late.status().message()),
            R"(mcp: server "everything": tool "trigger-long-running-operation": )"
            "no answer to tools/call by the deadline");
  absl::StatusOr<ToolResult> own = CallTool(*slow, R"({"duration":1.5,"steps":1})", *w.clock);
  ASSERT_OK(own);
  EXPECT_EQ(own->content,
            R"("Long running operation completed. Duration: 1.5 seconds, Steps: 1.")");
  loaded.connection->Close();
}

// ---------------------------------------------------------------------------------------------
// Over stdio.

class EverythingServerTest : public ::testing::Test {
 protected:
  RealWorld world_;
};

// The tools the everything server registers for a client that declares no capabilities: the 12
// it always has and simulate-research-query, added at notifications/initialized.
const std::vector<std::string> kEverythingTools = {
    "echo",
    "get-annotated-message",
    "get-env",
    "get-resource-links",
    "get-resource-reference",
    "get-structured-content",
    "get-sum",
    "get-tiny-image",
    "gzip-file-as-resource",
    "simulate-research-query",
    "toggle-simulated-logging",
    "toggle-subscriber-updates",
    "trigger-long-running-operation",
};

std::vector<std::string> Names(const Manifest& manifest) {
  std::vector<std::string> names;
  for (const auto& [name, tool] : manifest.tools) names.push_back(name);
  return names;
}

TEST_F(EverythingServerTest, AClientWithoutCapabilitiesIsSentNoRequestsAndIgnoresListChanged) {
  Manifest manifest = PinOrFail(real_servers::Everything(), world_.world());
  // No roots, sampling or elicitation declared: none of the tools that need them, and the one
  // added at initialization announced by one list_changed, which the session ignored.
  EXPECT_THAT(Names(manifest), ElementsAreArray(kEverythingTools));
  test_support::Tapped tapped = world_.tap().last();
  EXPECT_THAT(tapped.written, HasSubstr(R"("capabilities":{})"));
  EXPECT_EQ(Count(tapped.read, R"("method":"notifications/tools/list_changed")"), 1);
  EXPECT_THAT(ServerRequests(tapped.read), IsEmpty());
  for (const auto& [name, tool] : manifest.tools) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(tool.annotations.has_value());
    EXPECT_NE(tool.annotations->destructive_hint, true);  // none claims destructiveHint
  }
  EXPECT_EQ(manifest.tools.at("echo").annotations->read_only_hint, true);
  EXPECT_EQ(manifest.tools.at("gzip-file-as-resource").annotations->open_world_hint, true);
}

TEST_F(EverythingServerTest, EveryContentKindMapsAsTheReferenceSays) {
  Server server = real_servers::Everything();
  Manifest manifest = PinOrFail(server, world_.world());
  LoadResult loaded =
      Load(server, &manifest,
           Classify({"echo", "get-sum", "get-tiny-image", "get-resource-links",
                     "get-resource-reference", "get-structured-content", "get-annotated-message"},
                    SideEffect::kReadOnly),
           world_.world());
  ASSERT_OK(loaded.status);
  EXPECT_EQ(loaded.tools.size(), 7u);
  EXPECT_EQ(loaded.report->unclassified.size(), kEverythingTools.size() - 7);

  struct Case {
    std::string kind, tool, args;
    std::string content;  // the recorded JSON
  };
  const std::vector<Case> cases = {
      {"text", "everything_echo", R"({"message":"hi"})", R"("Echo: hi")"},
      {"text (numbers)", "everything_get-sum", R"({"a":2,"b":3.5})",
       R"("The sum of 2 and 3.5 is 5.5.")"},
      {"image", "everything_get-tiny-image", "{}",
       R"("Here's the image you requested:\n[image omitted]\nThe image above is the MCP logo.")"},
      {"annotated text and image", "everything_get-annotated-message",
       R"({"messageType":"error","includeImage":true})",
       R"("Error: Operation failed\n[image omitted]")"},
      {"resource links", "everything_get-resource-links", R"({"count":2})",
       R"("Here are 2 resource links to resources available in this server:\n[resource link omitted]\n[resource link omitted]")"},
      {"structured content", "everything_get-structured-content", R"({"location":"Chicago"})",
       R"({"conditions":"Light rain / drizzle","humidity":82,"temperature":36})"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.kind);
    McpTool* tool = Named(loaded, c.tool);
    ASSERT_NE(tool, nullptr);
    absl::StatusOr<ToolResult> result = CallTool(*tool, c.args, world_.clock());
    ASSERT_OK(result);
    EXPECT_EQ(result->content, c.content);
  }
  // An embedded resource: its text (which carries the time it was made) never reaches the model.
  absl::StatusOr<ToolResult> embedded =
      CallTool(*Named(loaded, "everything_get-resource-reference"),
               R"({"resourceType":"Text","resourceId":1})", world_.clock());
  ASSERT_OK(embedded);
  EXPECT_THAT(embedded->content, HasSubstr(R"(\n[embedded resource omitted]\n)"));
  EXPECT_THAT(embedded->content, Not(HasSubstr("plaintext resource created at")));
  loaded.connection->Close();
}

TEST_F(EverythingServerTest, AnIsErrorResultIsAnErrorTheAgentSeesNotAnAbort) {
  Server server = real_servers::Everything();
  Manifest manifest = PinOrFail(server, world_.world());
  LoadResult loaded =
      Load(server, &manifest, Classify({"get-resource-reference"}, SideEffect::kReadOnly),
           world_.world());
  ASSERT_OK(loaded.status);
  absl::StatusOr<ToolResult> result = CallTool(*Named(loaded, "everything_get-resource-reference"),
                                               R"({"resourceId":0})", world_.clock());
  ASSERT_THAT(result, Not(IsOk()));
  EXPECT_FALSE(IsAbortRun(result.status()));
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnknown);
  EXPECT_EQ(ToStd(result.status().message()),
            "everything/get-resource-reference: 59 bytes, error: Invalid resourceId: 0. Must be a "
            "finite positive integer.");
  // The session goes on after it.
  absl::StatusOr<ToolResult> again =
      CallTool(*Named(loaded, "everything_get-resource-reference"),
               R"({"resourceType":"Blob","resourceId":2})", world_.clock());
  ASSERT_OK(again);
  EXPECT_THAT(again->content, HasSubstr("[embedded resource omitted]"));
  loaded.connection->Close();
}

TEST_F(EverythingServerTest, ACallPastItsDeadlineTimesOutTellsTheServerAndTheNextGetsItsOwnAnswer) {
  TimeOutThenGetTheRightAnswer(real_servers::Everything(), world_.world());
  // The abandoned request was cancelled by its id, the second one in Load's session.
  EXPECT_THAT(world_.tap().last().written,
              HasSubstr(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":)"
                        R"({"reason":"the client's deadline passed","requestId":3}})"));
}

TEST_F(EverythingServerTest, TheServerGetsOnlyTheEnvironmentItIsGiven) {
  world::FixedEnvironment host({{"PATH", *world_.environment().Get("PATH")},
                                {"HOME", "/home/operator"},
                                {"AWS_SECRET_ACCESS_KEY", "not for servers"},
                                {"LANG", "C"},
                                {"UNUSED", "1"}});
  world::World w = world_.world();
  w.environment = &host;
  Server server = real_servers::Everything();
  server.inherit_env = {"LANG", "NOT_SET"};
  server.env = {"GIVEN=yes"};
  Manifest manifest = PinOrFail(server, w);
  LoadResult loaded = Load(server, &manifest, Classify({"get-env"}, SideEffect::kReadOnly), w);
  ASSERT_OK(loaded.status);
  absl::StatusOr<ToolResult> env = CallTool(*Named(loaded, "everything_get-env"), "{}", *w.clock);
  ASSERT_OK(env);
  EXPECT_THAT(KeysOfTheObjectIn(env->content), ElementsAre("GIVEN", "HOME", "LANG", "PATH"));
  EXPECT_THAT(env->content, Not(HasSubstr("not for servers")));
  loaded.connection->Close();
}

// ---------------------------------------------------------------------------------------------
// Over streamable HTTP on loopback.

// The server started for each test, ended with its process group when the test ends.
class EverythingOverHttpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::Status started = http_.Start(absl::Seconds(30));
    ASSERT_OK(started);
    absl::StatusOr<std::unique_ptr<world::CurlNetwork>> network =
        world::CurlNetwork::Create(world_.clock(), {.loopback_only = true});
    ASSERT_OK(network);
    network_ = *std::move(network);
    server_ = http_.server();
  }

  void TearDown() override {
    pid_t pid = static_cast<pid_t>(http_.pid());
    http_.Close();
    if (pid == 0) return;
    EXPECT_TRUE(test_support::ProcessGone(pid));
    EXPECT_TRUE(GroupGone(pid));
  }

  world::World World() {
    world::World w = world_.world();
    w.network = network_.get();
    return w;
  }

  RealWorld world_;
  real_servers::HttpEverything http_{world_.clock(), *world_.environment().Get("PATH")};
  std::unique_ptr<world::CurlNetwork> network_;
  Server server_;
};

TEST_F(EverythingOverHttpTest, PinLoadAndCallsWorkAndEachSessionIsDeletedAtClose) {
  Manifest manifest = PinOrFail(server_, World());
  EXPECT_THAT(Names(manifest), ElementsAreArray(kEverythingTools));
  LoadResult loaded =
      Load(server_, &manifest, Classify({"echo", "get-structured-content"}, SideEffect::kReadOnly),
           World());
  ASSERT_OK(loaded.status);
  absl::StatusOr<ToolResult> echo =
      CallTool(*Named(loaded, "everything_echo"), R"({"message":"over http"})", world_.clock());
  ASSERT_OK(echo);
  EXPECT_EQ(echo->content, R"("Echo: over http")");
  absl::StatusOr<ToolResult> weather = CallTool(*Named(loaded, "everything_get-structured-content"),
                                                R"({"location":"New York"})", world_.clock());
  ASSERT_OK(weather);
  EXPECT_EQ(weather->content, R"({"conditions":"Cloudy","humidity":82,"temperature":33})");
  loaded.connection->Close();
  // Pin's session and Load's each ended with a DELETE, which the server logs on stdout before
  // it answers: both lines are there once Close returned.
  std::string log = http_.LogWithTerminations(2, absl::Seconds(10));
  EXPECT_EQ(Count(log, "Received session termination request"), 2) << log;
}

TEST_F(EverythingOverHttpTest, ACallPastItsDeadlineTimesOutAndTheNextGetsItsOwnAnswer) {
  TimeOutThenGetTheRightAnswer(server_, World());
}

}  // namespace
}  // namespace agentrt::mcp
