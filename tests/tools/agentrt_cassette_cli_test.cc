// `agentrt cassette dump`, run as a user runs it: the built binary as a child process over a
// cassette recorded in this process.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/replay/cassette_file.h"
#include "runtime/replay/cassette_recorder.h"
#include "runtime/replay/model_key.h"
#include "runtime/replay/recording_model.h"
#include "sim/scripted_model.h"
#include "tests/tools/agentrt_binary.h"
#include "tests/tools/child_process.h"

namespace agentrt {
namespace {

using ::agentrt::testing::Agentrt;
using ::agentrt::testing::ProcessResult;
using ::agentrt::testing::RunProcess;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;

ModelRequest Ask(const std::string& text) {
  ModelRequest request;
  ContentBlock block;
  block.type = "text";
  block.text = text;
  request.messages.push_back({"user", {block}});
  return request;
}

ModelResponse Answer(const std::string& text, const std::string& raw) {
  ModelResponse response;
  response.text = text;
  response.stop_reason = "end_turn";
  response.raw = raw;
  return response;
}

class AgentrtCassetteCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("agentrt_cassette_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "run.cassette").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Records "roll" twice and "name" once with model `model`, and a chain head.
  void Record(const std::string& model, const std::string& notes = "") {
    sim::ScriptedModel inner(
        {Answer("4", R"({"t":"4"})"), Answer("2", "\xFF\xFE"), Answer("n", "<n>")}, {}, model);
    absl::StatusOr<std::unique_ptr<replay::CassetteRecorder>> recorder =
        replay::CassetteRecorder::Open(path_);
    ASSERT_TRUE(recorder.ok()) << recorder.status();
    replay::RecordingModel recording(inner, **recorder);
    for (const char* q : {"roll", "roll", "name"}) {
      ASSERT_TRUE(recording.Generate(Ask(q), absl::InfiniteFuture()).ok());
    }
    ASSERT_TRUE((*recorder)->SetNotes(notes).ok());
    ASSERT_TRUE((*recorder)->SetChainHead({12, std::string(64, 'c')}).ok());
  }

  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(AgentrtCassetteCliTest, DumpPrintsEachExchangeInOrderAndTheChainHead) {
  Record("gpt-test", "two rolls and a name");
  std::string roll = std::string(replay::KeyPrefix(replay::ModelKey("gpt-test", Ask("roll"))));
  std::string name = std::string(replay::KeyPrefix(replay::ModelKey("gpt-test", Ask("name"))));
  ProcessResult r = Agentrt({"cassette", "dump", path_});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, IsEmpty());
  std::vector<std::string> lines = absl::StrSplit(r.out, '\n');
  ASSERT_EQ(lines.size(), 7u) << r.out;
  EXPECT_EQ(lines[0], "cassette " + path_ + ": format 1, created by \"agentrt\", 3 exchanges");
  EXPECT_EQ(lines[1], "notes: two rolls and a name");
  EXPECT_THAT(lines[2],
              StartsWith("  1  model \"gpt-test\"  key " + roll + "  ordinal 1  request "));
  EXPECT_THAT(lines[2], HasSubstr(" B  raw 9 B"));
  EXPECT_THAT(lines[3], StartsWith("  2  model \"gpt-test\"  key " + roll + "  ordinal 2  "));
  EXPECT_THAT(lines[3], HasSubstr(" B  raw 2 B"));
  EXPECT_THAT(lines[4], StartsWith("  3  model \"gpt-test\"  key " + name + "  ordinal 1  "));
  EXPECT_EQ(lines[5], "chain head: seq 12, hash " + std::string(64, 'c'));
  EXPECT_EQ(lines[6], "");
}

TEST_F(AgentrtCassetteCliTest, DumpJsonPrintsTheCassetteThenOneObjectPerExchange) {
  Record("gpt-test");
  ProcessResult r = Agentrt({"cassette", "dump", "--json", path_});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines = absl::StrSplit(r.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 4u) << r.out;
  EXPECT_EQ(lines[0], R"({"chain_head":{"hash":")" + std::string(64, 'c') +
                          R"(","seq":12},"created_by":"agentrt","exchanges":3,"format_version":1,)"
                          R"("kind":"cassette","notes":""})");
  std::string key = replay::ModelKey("gpt-test", Ask("roll"));
  EXPECT_THAT(lines[1], StartsWith(R"({"exchange":1,"key":")" + key + R"(","kind":"model",)"));
  EXPECT_THAT(lines[1], HasSubstr(R"("ordinal":1,"raw":"{\"t\":\"4\"}","raw_bytes":9,)"));
  EXPECT_THAT(lines[1], HasSubstr(R"("request":{"messages":[{"content":[{"text":"roll")"));
  EXPECT_THAT(lines[1], HasSubstr(R"("response":{"stop_reason":"end_turn","text":"4")"));
  // Raw bytes that are not UTF-8 are counted, not printed.
  EXPECT_THAT(lines[2], HasSubstr(R"("ordinal":2,"raw_bytes":2,)"));
  EXPECT_THAT(lines[2], Not(HasSubstr(R"("raw":)")));
  EXPECT_THAT(lines[3], HasSubstr(R"("raw":"<n>")"));
}

TEST_F(AgentrtCassetteCliTest, DumpEscapesNamesAndNotesForTheTerminal) {
  Record("evil\x1b[2J-model", "line one\nline two \x1b]0;title\x07");
  ProcessResult r = Agentrt({"cassette", "dump", path_});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
  EXPECT_EQ(r.out.find('\x07'), std::string::npos);
  EXPECT_THAT(r.out, HasSubstr("model \"evil\\x1b[2J-model\""));
  EXPECT_THAT(r.out, HasSubstr("notes: line one line two \\x1b]0;title\\x07\n"));
}

TEST_F(AgentrtCassetteCliTest, ACorruptOrMissingCassetteExitsOneNamingTheFile) {
  std::ofstream(path_, std::ios::binary) << "\xFF\xFF\xFF garbage";
  ProcessResult corrupt = Agentrt({"cassette", "dump", path_});
  EXPECT_EQ(corrupt.exit_code, 1);
  EXPECT_THAT(corrupt.out, IsEmpty());
  EXPECT_THAT(corrupt.err,
              HasSubstr("agentrt cassette dump: cassette " + path_ + ": not a cassette"));

  ProcessResult missing = Agentrt({"cassette", "dump", path_ + ".nope"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, HasSubstr(path_ + ".nope"));
}

TEST_F(AgentrtCassetteCliTest, UsageErrorsExitTwoAndHelpExitsZero) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"cassette"},
           {"cassette", "nosuch"},
           {"cassette", "dump"},
           {"cassette", "dump", "a", "b"},
           {"cassette", "dump", "--db", "x", "a"},
       }) {
    SCOPED_TRACE(::testing::PrintToString(args));
    EXPECT_EQ(Agentrt(args).exit_code, 2);
  }
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"cassette", "--help"}, {"cassette", "dump", "--help"}, {"--help"}}) {
    SCOPED_TRACE(::testing::PrintToString(args));
    ProcessResult r = Agentrt(args);
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_THAT(r.out, HasSubstr("cassette dump"));
  }
}

// The whole of the issue in one story: a model-backed agent under accounting, recorded to a
// cassette by one process and replayed by another into a fresh database, which ends with the
// recorded chain head; the cassette holds the provider's raw bytes exactly.
TEST_F(AgentrtCassetteCliTest, DemoModelRecordsThenReplaysTheSameAuditLog) {
  std::string cassette = (dir_ / "demo.cassette").string();
  std::string recorded_db = (dir_ / "recorded.db").string();
  std::string replayed_db = (dir_ / "replayed.db").string();
  ProcessResult recorded = Agentrt({"demo", "model", "--db", recorded_db, "--record", cassette});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  EXPECT_THAT(recorded.out, HasSubstr("COMPLETED (goal_completed) after 2 steps; 2 model call(s)"));
  EXPECT_THAT(recorded.out, HasSubstr("model.dispatched"));
  absl::StatusOr<replay::Cassette> read = replay::ReadCassette(cassette);
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->exchanges.size(), 2u);
  EXPECT_THAT(read->exchanges[0].model->raw, HasSubstr("\"note\":\"<raw & exact>\""));
  EXPECT_GT(read->chain_head.seq, 0);

  ProcessResult replayed = Agentrt({"demo", "model", "--db", replayed_db, "--replay", cassette});
  ASSERT_EQ(replayed.exit_code, 0) << replayed.out << replayed.err;
  EXPECT_THAT(replayed.out, HasSubstr("the audit log is the recorded one, byte for byte"));
  EXPECT_THAT(replayed.out, HasSubstr(read->chain_head.hash));
  // The two databases hold the same events: the trace lines printed are identical.
  EXPECT_EQ(recorded.out.substr(0, recorded.out.find("recorded 2")),
            replayed.out.substr(0, replayed.out.find("replayed from")));

  // Replaying into the database that already holds the run is refused, and recording never
  // overwrites a cassette.
  ProcessResult again = Agentrt({"demo", "model", "--db", replayed_db, "--replay", cassette});
  EXPECT_EQ(again.exit_code, 1);
  ProcessResult overwrite = Agentrt({"demo", "model", "--db", recorded_db, "--record", cassette});
  EXPECT_EQ(overwrite.exit_code, 2);
  EXPECT_THAT(overwrite.err, HasSubstr("exists; record to a new file"));
}

}  // namespace
}  // namespace agentrt
