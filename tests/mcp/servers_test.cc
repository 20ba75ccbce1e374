// The MCP client against the real, pinned Node MCP servers (fixtures/servers/) that keep files:
// the filesystem server with the shipped rules (docs/mcp.md, "The demonstration") — its pin, the
// load report, calls that write and read in the sandbox, a refused path, the cap, Close — and the
// memory server's graph and destructive hints. The real-server counterparts of the
// client's own tests; the facts asserted are those fixtures/servers/README.md
// writes down. The everything server: servers_everything_test.cc.
#include <sys/stat.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mcp/load.h"
#include "mcp/pin.h"
#include "mcp/result_content.h"
#include "mcp/rules.h"
#include "runtime/base/string_view.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sha256.h"
#include "tests/mcp/real_servers.h"
#include "tests/support/process_gone.h"
#include "tests/support/real_files.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"

namespace agentrt::mcp {
namespace {

using ::agentrt::mcp::real_servers::CallTool;
using ::agentrt::mcp::real_servers::Classify;
using ::agentrt::mcp::real_servers::GroupGone;
using ::agentrt::mcp::real_servers::Named;
using ::agentrt::mcp::real_servers::PinOrFail;
using ::agentrt::mcp::real_servers::ReadFile;
using ::agentrt::mcp::real_servers::RealWorld;
using ::agentrt::mcp::real_servers::WriteFile;

// ---------------------------------------------------------------------------------------------
// server-filesystem over stdio, confined to a sandbox in the test's folder.

class FilesystemServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sandbox_ = test_support::TestFolder() / "sandbox";
    std::filesystem::create_directories(sandbox_);
  }

  Server Filesystem() const { return real_servers::Filesystem(sandbox_.string()); }

  // The shipped rules file, read as an operator's file is: through ReadRules, from a copy only
  // its owner can write (a checkout's mode depends on the umask it was made with).
  Rules ShippedRules() {
    std::filesystem::path copy = test_support::TestFolder() / "filesystem.rules.json";
    WriteFile(copy, ReadFile(std::filesystem::path(AGENTRT_SOURCE_DIR) /
                             "fixtures/mcp/filesystem.rules.json"));
    EXPECT_EQ(::chmod(copy.c_str(), 0600), 0);
    absl::StatusOr<Rules> rules = ReadRules(test_support::RealFiles(), copy.string());
    EXPECT_OK(rules);
    return rules.ok() ? *rules : Rules();
  }

  LoadResult LoadShipped() {
    Manifest manifest = PinOrFail(Filesystem(), world_.world());
    return Load(Filesystem(), &manifest, ShippedRules(), world_.world());
  }

  std::filesystem::path sandbox_;
  RealWorld world_;
};

TEST_F(FilesystemServerTest, PinRecordsTheFourteenToolsWithTheirAnnotations) {
  Manifest manifest = PinOrFail(Filesystem(), world_.world());
  struct Hints {
    std::string tool;
    std::optional<bool> read_only, destructive, idempotent, open_world;
  };
  const std::optional<bool> none;
  // readOnly tools claim exactly {readOnlyHint: true, openWorldHint: false}; the four writing
  // ones claim all four hints (README: "What the pinned servers do").
  const std::vector<Hints> expected = {
      {"create_directory", false, false, true, false},
      {"directory_tree", true, none, none, false},
      {"edit_file", false, true, false, false},
      {"get_file_info", true, none, none, false},
      {"list_allowed_directories", true, none, none, false},
      {"list_directory", true, none, none, false},
      {"list_directory_with_sizes", true, none, none, false},
      {"move_file", false, true, false, false},
      {"read_file", true, none, none, false},
      {"read_media_file", true, none, none, false},
      {"read_multiple_files", true, none, none, false},
      {"read_text_file", true, none, none, false},
      {"search_files", true, none, none, false},
      {"write_file", false, true, true, false},
  };
  EXPECT_EQ(manifest.server, "fs");
  ASSERT_EQ(manifest.tools.size(), expected.size());
  for (const Hints& hints : expected) {
    SCOPED_TRACE(hints.tool);
    ASSERT_TRUE(manifest.tools.contains(hints.tool));
    const PinnedTool& pinned = manifest.tools.at(hints.tool);
    EXPECT_EQ(pinned.schema_hash, json::Sha256Hex(pinned.input_schema));
    EXPECT_THAT(pinned.input_schema, HasSubstr(R"("$schema":"http://json-schema.org/draft-07)"));
    ASSERT_TRUE(pinned.annotations.has_value());
    EXPECT_EQ(pinned.annotations->read_only_hint, hints.read_only);
    EXPECT_EQ(pinned.annotations->destructive_hint, hints.destructive);
    EXPECT_EQ(pinned.annotations->idempotent_hint, hints.idempotent);
    EXPECT_EQ(pinned.annotations->open_world_hint, hints.open_world);
  }
  // Pin closed its session: the server it started is gone.
  pid_t pid = static_cast<pid_t>(world_.tap().last().pid);
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(test_support::ProcessGone(pid));
}

TEST_F(FilesystemServerTest, ShippedRulesRegisterTheFourReadsAndWriteFileOverItsDestructiveHint) {
  Rules rules = ShippedRules();
  ASSERT_EQ(rules.size(), 5u);
  for (const char* read : {"directory_tree", "list_directory", "read_file", "read_text_file"}) {
    SCOPED_TRACE(read);
    ASSERT_TRUE(rules.contains(read));
    EXPECT_EQ(rules.at(read).side_effect, SideEffect::kReadOnly);
    EXPECT_EQ(rules.at(read).timeout, absl::Seconds(5));
    EXPECT_FALSE(rules.at(read).allow_hint_mismatch);
  }
  EXPECT_EQ(rules.at("write_file").side_effect, SideEffect::kLocalMutation);
  EXPECT_EQ(rules.at("write_file").timeout, absl::Seconds(10));
  EXPECT_TRUE(rules.at("write_file").allow_hint_mismatch);

  LoadResult loaded = LoadShipped();
  ASSERT_OK(loaded.status);
  ASSERT_TRUE(loaded.report.has_value());
  EXPECT_EQ(loaded.report->Text(),
            "fs: registered directory_tree as fs_directory_tree (read_only)\n"
            "fs: registered list_directory as fs_list_directory (read_only)\n"
            "fs: registered read_file as fs_read_file (read_only)\n"
            "fs: registered read_text_file as fs_read_text_file (read_only)\n"
            "fs: registered write_file as fs_write_file (local_mutation) [hint mismatch allowed: "
            "classified local_mutation, but the server claims destructiveHint]\n"
            "fs: unclassified create_directory: no rule\n"
            "fs: unclassified edit_file: no rule\n"
            "fs: unclassified get_file_info: no rule\n"
            "fs: unclassified list_allowed_directories: no rule\n"
            "fs: unclassified list_directory_with_sizes: no rule\n"
            "fs: unclassified move_file: no rule\n"
            "fs: unclassified read_media_file: no rule\n"
            "fs: unclassified read_multiple_files: no rule\n"
            "fs: unclassified search_files: no rule\n");
  EXPECT_THAT(loaded.report->refused, IsEmpty());
  EXPECT_THAT(loaded.report->unpinned, IsEmpty());
  EXPECT_EQ(loaded.report->unclassified.size(), 9u);
  ASSERT_EQ(loaded.report->registered.size(), 5u);
  EXPECT_EQ(loaded.report->registered[4].hint_mismatch,
            "classified local_mutation, but the server claims destructiveHint");
  ASSERT_EQ(loaded.tools.size(), 5u);
  McpTool* write = Named(loaded, "fs_write_file");
  ASSERT_NE(write, nullptr);
  EXPECT_EQ(write->Spec().side_effect, SideEffect::kLocalMutation);
  EXPECT_EQ(write->Spec().timeout, absl::Seconds(10));
  loaded.connection->Close();
}

TEST_F(FilesystemServerTest, WriteThenReadRoundTripsAFileInTheSandbox) {
  LoadResult loaded = LoadShipped();
  ASSERT_OK(loaded.status);
  const std::string path = (sandbox_ / "note.txt").string();
  const std::string text = "first line\nsecond line, \"quoted\" and \xc3\xa9\n";

  absl::StatusOr<ToolResult> wrote = CallTool(
      *Named(loaded, "fs_write_file"),
      json::JsonObject().String("path", path).String("content", text).Build(), world_.clock());
  ASSERT_OK(wrote);
  EXPECT_EQ(wrote->content,
            json::JsonObject().String("content", "Successfully wrote to " + path).Build());
  EXPECT_EQ(ReadFile(path), text);

  absl::StatusOr<ToolResult> read =
      CallTool(*Named(loaded, "fs_read_text_file"), json::JsonObject().String("path", path).Build(),
               world_.clock());
  ASSERT_OK(read);
  // Structured content fits the cap, so it is kept as the object it is.
  EXPECT_EQ(read->content, json::JsonObject().String("content", text).Build());
  EXPECT_EQ(read->summary, absl::StrCat("fs/read_text_file: ", read->content.size(), " bytes"));
  loaded.connection->Close();
}

TEST_F(FilesystemServerTest, PathOutsideTheSandboxIsAnErrorObservationNamingAccessDenied) {
  LoadResult loaded = LoadShipped();
  ASSERT_OK(loaded.status);
  const std::string outside = (test_support::TestFolder() / "outside.txt").string();
  WriteFile(outside, "not for the agent\n");

  absl::StatusOr<ToolResult> read =
      CallTool(*Named(loaded, "fs_read_text_file"),
               json::JsonObject().String("path", outside).Build(), world_.clock());
  ASSERT_THAT(read, StatusIs(absl::StatusCode::kUnknown));
  EXPECT_FALSE(IsAbortRun(read.status()));  // an observation for the agent, not the run's end
  EXPECT_THAT(ToStd(read.status().message()), StartsWith("fs/read_text_file: "));
  EXPECT_THAT(ToStd(read.status().message()),
              HasSubstr(", error: Access denied - path outside allowed directories: " + outside));
  EXPECT_THAT(ToStd(read.status().message()), Not(HasSubstr("not for the agent")));
  loaded.connection->Close();
}

TEST_F(FilesystemServerTest, CloseLeavesNoServerProcessAndLaterCallsFailAtOnce) {
  LoadResult loaded = LoadShipped();
  ASSERT_OK(loaded.status);
  McpTool* list = Named(loaded, "fs_list_directory");
  ASSERT_NE(list, nullptr);
  WriteFile(sandbox_ / "a.txt", "a");
  std::filesystem::create_directories(sandbox_ / "d");
  absl::StatusOr<ToolResult> listed =
      CallTool(*list, json::JsonObject().String("path", sandbox_.string()).Build(), world_.clock());
  ASSERT_OK(listed);
  EXPECT_EQ(listed->content, R"({"content":"[FILE] a.txt\n[DIR] d"})");
  pid_t pid = static_cast<pid_t>(world_.tap().last().pid);
  ASSERT_GT(pid, 0);
  ASSERT_FALSE(test_support::ProcessGone(pid));

  loaded.connection->Close();
  // Close waited for the server to end, and its process group with it.
  EXPECT_TRUE(test_support::ProcessGone(pid));
  EXPECT_TRUE(GroupGone(pid));
  absl::Time before = world_.clock().Now();
  absl::StatusOr<ToolResult> after =
      CallTool(*list, json::JsonObject().String("path", sandbox_.string()).Build(), world_.clock());
  EXPECT_EQ(after.status().code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(ToStd(after.status().message()),
              StartsWith(R"(mcp: server "fs": tool "list_directory": )"));
  EXPECT_LT(world_.clock().Now() - before, absl::Seconds(1));  // not after the rule's 5 s
}

TEST_F(FilesystemServerTest, AFileOverTheCapIsCutToTheCapWithTheMarker) {
  LoadResult loaded = LoadShipped();
  ASSERT_OK(loaded.status);
  const std::string path = (sandbox_ / "big.txt").string();
  WriteFile(path, std::string(100 * 1024, 'x'));
  absl::StatusOr<ToolResult> read =
      CallTool(*Named(loaded, "fs_read_text_file"), json::JsonObject().String("path", path).Build(),
               world_.clock());
  ASSERT_OK(read);
  // The structured copy ({"content":"xx…"}) is over the 64 KiB cap, so the text block stands
  // in for it, cut so that the JSON string recorded is exactly the cap, marker included.
  const std::size_t structured = std::string(R"({"content":""})").size() + 100 * 1024;
  EXPECT_EQ(read->content.size(), kDefaultMaxContentBytes);
  EXPECT_THAT(read->content, StartsWith("\"xxxx"));
  EXPECT_THAT(read->content, testing::EndsWith("x\\n[truncated]\""));
  EXPECT_EQ(read->summary, absl::StrCat("fs/read_text_file: 65536 bytes, truncated, structured "
                                        "content of ",
                                        structured, " bytes dropped for the text"));
  loaded.connection->Close();
}

// ---------------------------------------------------------------------------------------------
// server-memory over stdio, its graph in a file of the test's folder.

class MemoryServerTest : public ::testing::Test {
 protected:
  Server Memory() const { return real_servers::Memory(memory_file_); }
  std::string memory_file_ = test_support::TestFile("memory.jsonl");
  RealWorld world_;
};

TEST_F(MemoryServerTest, CreatedEntitiesComeBackInTheGraph) {
  Manifest manifest = PinOrFail(Memory(), world_.world());
  EXPECT_EQ(manifest.tools.size(), 9u);
  Rules rules = Classify({"read_graph"}, SideEffect::kReadOnly);
  rules.merge(Classify({"create_entities"}, SideEffect::kLocalMutation));
  LoadResult loaded = Load(Memory(), &manifest, rules, world_.world());
  ASSERT_OK(loaded.status);
  const std::string entity =
      R"({"entityType":"project","name":"agentrt","observations":["written in C++20"]})";

  absl::StatusOr<ToolResult> created =
      CallTool(*Named(loaded, "memory_create_entities"),
               absl::StrCat(R"({"entities":[)", entity, "]}"), world_.clock());
  ASSERT_OK(created);
  EXPECT_EQ(created->content, absl::StrCat(R"({"entities":[)", entity, "]}"));
  absl::StatusOr<ToolResult> graph =
      CallTool(*Named(loaded, "memory_read_graph"), "{}", world_.clock());
  ASSERT_OK(graph);
  EXPECT_EQ(graph->content, absl::StrCat(R"({"entities":[)", entity, R"(],"relations":[]})"));
  loaded.connection->Close();
  // The graph went where MEMORY_FILE_PATH said.
  EXPECT_THAT(ReadFile(memory_file_), HasSubstr(R"("name":"agentrt")"));
}

TEST_F(MemoryServerTest, ADeleteToolClassifiedLocalMutationIsRefusedNamingDestructiveHint) {
  Manifest manifest = PinOrFail(Memory(), world_.world());
  for (const char* deleting : {"delete_entities", "delete_observations", "delete_relations"}) {
    SCOPED_TRACE(deleting);
    EXPECT_EQ(manifest.tools.at(deleting).annotations->destructive_hint, true);
  }
  Rules rules = Classify({"read_graph"}, SideEffect::kReadOnly);
  rules.merge(Classify({"delete_entities"}, SideEffect::kLocalMutation));
  LoadResult loaded = Load(Memory(), &manifest, rules, world_.world());
  ASSERT_OK(loaded.status);
  ASSERT_EQ(loaded.report->refused.size(), 1u);
  EXPECT_EQ(loaded.report->refused[0].tool, "delete_entities");
  EXPECT_EQ(loaded.report->refused[0].reason,
            "classified local_mutation, but the server claims destructiveHint");
  ASSERT_EQ(loaded.tools.size(), 1u);
  EXPECT_EQ(loaded.tools[0]->Spec().name, "memory_read_graph");
  loaded.connection->Close();
}

}  // namespace
}  // namespace agentrt::mcp
