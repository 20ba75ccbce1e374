// `agentrt schema validate|check` as a user runs them: the built binary, real files, exit codes.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"
#include "tests/tools/agentrt_binary.h"
#include "tests/tools/child_process.h"

namespace agentrt {
namespace {

using ::agentrt::testing::Agentrt;
using ::agentrt::testing::ProcessResult;
using ::agentrt::testing::RunProcess;

std::string WriteTempFile(const std::string& name, const std::string& bytes) {
  std::string path = test_support::TestFile(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

const char kToolSchema[] = R"({
  "type": "object",
  "properties": {"path": {"type": "string", "pattern": "^/"}, "limit": {"type": "integer"}},
  "required": ["path"],
  "additionalProperties": false
})";

TEST(AgentrtSchemaCliTest, ValidInstanceExitsZero) {
  std::string schema = WriteTempFile("tool.json", kToolSchema);
  ProcessResult r = Agentrt({"schema", "validate", schema, "-"}, R"({"path":"/tmp","limit":1.0})");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "valid\n");
}

TEST(AgentrtSchemaCliTest, InvalidInstanceExitsOneAndPrintsEachError) {
  std::string schema = WriteTempFile("tool.json", kToolSchema);
  ProcessResult r = Agentrt({"schema", "validate", schema, "-"}, R"({"path":"tmp","extra":1})");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("invalid\n"));
  EXPECT_THAT(r.out, HasSubstr("/path: \"tmp\" does not match the pattern \"^/\" (pattern at "
                               "#/properties/path/pattern)"));
  EXPECT_THAT(r.out, HasSubstr("(root): property \"extra\" is not allowed"));
}

TEST(AgentrtSchemaCliTest, MaxErrorsBoundsTheReport) {
  std::string schema = WriteTempFile("tool.json", kToolSchema);
  ProcessResult r =
      Agentrt({"schema", "validate", "--max_errors=1", schema, "-"}, R"({"path":"tmp","extra":1})");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("(more errors not shown)"));
}

TEST(AgentrtSchemaCliTest, RefusedSchemaExitsTwoWithTheReason) {
  std::string outside = WriteTempFile("outside.json", R"({"$ref":"file:///etc/passwd"})");
  ProcessResult r = Agentrt({"schema", "validate", outside, "-"}, "{}");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("could make the schema compiler read outside"));
  r = Agentrt({"schema", "check", "-"}, R"({"pattern":"(a)\\1"})");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("backreferences and lookaround are not supported"));
}

TEST(AgentrtSchemaCliTest, CheckPrintsTheDraft) {
  ProcessResult r =
      Agentrt({"schema", "check", "-"}, R"({"$schema":"http://json-schema.org/draft-07/schema#"})");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "ok: compiled as draft-07\n");
}

TEST(AgentrtSchemaCliTest, UsageErrorsExitTwoAndHelpExitsZero) {
  EXPECT_EQ(Agentrt({"schema"}).exit_code, 2);
  EXPECT_EQ(Agentrt({"schema", "validate", "only-one"}).exit_code, 2);
  EXPECT_EQ(Agentrt({"schema", "validate", "-", "-"}).exit_code, 2);
  EXPECT_EQ(Agentrt({"schema", "validate", "--max_errors=0", "a", "b"}).exit_code, 2);
  EXPECT_EQ(Agentrt({"schema", "check", "--bogus", "a"}).exit_code, 2);
  for (auto args : std::vector<std::vector<std::string>>{
           {"schema", "--help"}, {"schema", "validate", "--help"}, {"schema", "check", "--help"}}) {
    ProcessResult r = Agentrt(args);
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_THAT(r.out, HasSubstr("Usage: agentrt schema"));
  }
}

}  // namespace
}  // namespace agentrt
