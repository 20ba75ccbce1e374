// `agentrt cassette dump`, run as a user runs it: the built binary as a child process over a
// cassette recorded in this process.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/base/file_util.h"
#include "runtime/replay/cassette_file.h"
#include "runtime/replay/model_key.h"
#include "runtime/replay/proto/cassette.pb.h"
#include "tests/support/real_files.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"
#include "tests/tools/agentrt_binary.h"
#include "tests/tools/child_process.h"
#include "tests/tools/model_cassette.h"

namespace agentrt {
namespace {

using ::agentrt::testing::Agentrt;
using ::agentrt::testing::Ask;
using ::agentrt::testing::ProcessResult;
using ::agentrt::testing::RunProcess;

class AgentrtCassetteCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_support::TestFolder();
    path_ = (dir_ / "run.cassette").string();
  }

  // Records "roll" twice and "name" once with model `model`, and a chain head (model_cassette.h).
  void Record(const std::string& model, const std::string& notes = "") {
    testing::RecordModelCassette(path_, model, notes);
  }

  std::string Bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
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
  ASSERT_EQ(lines.size(), 8u) << r.out;
  EXPECT_EQ(lines[0], "cassette " + path_ + ": format 2, 1 session, 3 exchanges");
  EXPECT_EQ(lines[1], "session 1: created by \"agentrt\"");
  EXPECT_EQ(lines[2], "notes: two rolls and a name");
  EXPECT_THAT(lines[3], StartsWith("  1  model \"gpt-test\" key " + roll + " request "));
  EXPECT_THAT(lines[3], HasSubstr(" ordinal 1 response "));
  EXPECT_THAT(lines[3], HasSubstr(R"( B raw 9 B "{\"t\":\"4\"}")"));
  EXPECT_THAT(lines[4], StartsWith("  2  model \"gpt-test\" key " + roll + " request "));
  EXPECT_THAT(lines[4], HasSubstr(R"( ordinal 2 response )"));
  EXPECT_THAT(lines[4], HasSubstr(R"( raw 2 B "\xff\xfe")"));
  EXPECT_THAT(lines[5], StartsWith("  3  model \"gpt-test\" key " + name + " request "));
  EXPECT_EQ(lines[6], "chain head: seq 12, hash " + std::string(64, 'c'));
  EXPECT_EQ(lines[7], "");
}

TEST_F(AgentrtCassetteCliTest, DumpJsonPrintsTheCassetteThenOneObjectPerExchange) {
  Record("gpt-test");
  ProcessResult r = Agentrt({"cassette", "dump", "--json", path_});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines = absl::StrSplit(r.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 4u) << r.out;
  EXPECT_EQ(lines[0], R"({"chain_head":{"hash":")" + std::string(64, 'c') +
                          R"(","seq":12},"exchanges":3,"format_version":2,"kind":"cassette",)"
                          R"("sessions":[{"created_by":"agentrt","notes":"","program":[]}],)"
                          R"("torn":""})");
  std::string key = replay::ModelKey("gpt-test", Ask("roll"));
  EXPECT_THAT(lines[1], StartsWith(R"({"exchange":"1","kind":"exchange","op":"model call",)"));
  EXPECT_THAT(lines[1], HasSubstr(R"("key":")" + key + R"(")"));
  EXPECT_THAT(lines[1], HasSubstr(R"("ordinal":1)"));
  // Bytes are base64 in the record, escaped in the text.
  EXPECT_THAT(lines[1], HasSubstr(R"("raw":"eyJ0IjoiNCJ9")"));
  EXPECT_THAT(lines[2], HasSubstr(R"("raw":"//4=")"));
  EXPECT_THAT(lines[2], HasSubstr(R"(raw 2 B \"\\xff\\xfe\")"));
  EXPECT_THAT(lines[3], HasSubstr(R"("session":1)"));
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
           {"cassette", "dump", "--bytes", "many", "a"},
           {"cassette", "check"},
           {"replay"},
           {"replay", "a", "b", "--db", "x"},
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
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"cassette", "check", "--help"}, {"replay", "--help"}, {"demo", "world", "--help"}}) {
    SCOPED_TRACE(::testing::PrintToString(args));
    EXPECT_EQ(Agentrt(args).exit_code, 0);
  }
}

TEST_F(AgentrtCassetteCliTest, CheckSaysWhetherACassetteCanBeReplayedWhole) {
  Record("gpt-test");
  ProcessResult whole = Agentrt({"cassette", "check", path_});
  EXPECT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_EQ(whole.out, "cassette " + path_ +
                           ": format 2, 1 session, 3 exchanges, chain head: seq "
                           "12, hash " +
                           std::string(64, 'c') + "; whole\n");
  // Cut inside its last record, as a crash while recording would leave it.
  std::string bytes = Bytes(path_);
  std::ofstream(path_, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() - 7);
  ProcessResult cut = Agentrt({"cassette", "check", path_});
  EXPECT_EQ(cut.exit_code, 1);
  EXPECT_THAT(cut.out, HasSubstr("chain head: none recorded; CUT: the recording stops at record 5 "
                                 "at byte "));
  ProcessResult dump = Agentrt({"cassette", "dump", path_});
  EXPECT_EQ(dump.exit_code, 0);
  EXPECT_THAT(dump.out, HasSubstr("\ncut: the recording stops at record 5 at byte "));
  // Damaged in the middle: refused, naming the record.
  std::string damaged = bytes;
  damaged[replay::kCassetteMagic.size() + 8 + 2] ^= 0x20;
  std::ofstream(path_, std::ios::binary | std::ios::trunc) << damaged;
  ProcessResult refused = Agentrt({"cassette", "check", path_});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, HasSubstr("record 1 at byte 8 does not match its checksum"));
}

// A cassette whose one task run holds `runs` runs nested one inside the other: `cassette check`
// accepted 25 of them while `dump --json` printed "record": null for them, with protobuf's
// warnings, and exited 0. One limit now holds for both.
std::string NestedRunsCassette(int runs) {
  replay::v1::Exchange e;
  e.mutable_clock()->set_clock("run");
  e.mutable_clock()->set_now(1);
  for (int i = 0; i < runs; ++i) {
    replay::v1::Exchange run;
    run.mutable_scheduler()->set_scheduler("lease");
    run.mutable_scheduler()->mutable_firing()->set_task(1);
    *run.mutable_scheduler()->mutable_firing()->add_nested() = std::move(e);
    e = std::move(run);
  }
  replay::v1::Record header;
  header.mutable_header()->set_format_version(replay::kCassetteFormatVersion);
  replay::v1::Record scheduled;
  scheduled.mutable_exchange()->mutable_scheduler()->set_scheduler("lease");
  scheduled.mutable_exchange()->mutable_scheduler()->mutable_scheduled()->set_task(1);
  replay::v1::Record nested;
  *nested.mutable_exchange() = std::move(e);
  return std::string(replay::kCassetteMagic) + replay::FrameRecord(header) +
         replay::FrameRecord(scheduled) + replay::FrameRecord(nested);
}

TEST_F(AgentrtCassetteCliTest, CheckAndDumpRefuseTaskRunsNestedPastWhatADumpCanPrint) {
  std::ofstream(path_, std::ios::binary) << NestedRunsCassette(25);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"cassette", "check", path_},
        std::vector<std::string>{"cassette", "dump", path_, "--json"}}) {
    SCOPED_TRACE(args[1]);
    ProcessResult r = Agentrt(args);
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_THAT(r.err, HasSubstr("exchange 2 (task run): its exchange 1: "));
    EXPECT_THAT(r.err, HasSubstr("task runs nested more than 16 deep (the limit)"));
    EXPECT_THAT(r.out, Not(HasSubstr("null")));
  }
  std::ofstream(path_, std::ios::binary | std::ios::trunc)
      << NestedRunsCassette(replay::kMaxTaskNesting);
  EXPECT_EQ(Agentrt({"cassette", "check", path_}).exit_code, 0);
  ProcessResult dump = Agentrt({"cassette", "dump", path_, "--json"});
  EXPECT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_THAT(dump.err, IsEmpty());
  EXPECT_THAT(dump.out, Not(HasSubstr(R"("record":null)")));
  EXPECT_THAT(dump.out, HasSubstr(R"("exchange":"2.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1")"));
}

// The whole story of a model run: a model-backed agent under accounting, every exchange with
// its world recorded to a cassette by one process and replayed by another into a fresh
// database, which ends with the recorded chain head; the cassette holds the provider's raw bytes
// exactly.
TEST_F(AgentrtCassetteCliTest, DemoModelRecordsThenReplaysTheSameAuditLog) {
  std::string cassette = (dir_ / "demo.cassette").string();
  std::string recorded_db = (dir_ / "recorded.db").string();
  std::string replayed_db = (dir_ / "replayed.db").string();
  ProcessResult recorded = Agentrt({"demo", "model", "--db", recorded_db, "--record", cassette});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  EXPECT_THAT(recorded.out, HasSubstr("COMPLETED (goal_completed) after 2 steps; 2 model call(s)"));
  EXPECT_THAT(recorded.out, HasSubstr("model.dispatched"));
  absl::StatusOr<replay::Cassette> read = replay::ReadCassette(test_support::RealFiles(), cassette);
  ASSERT_OK(read);
  EXPECT_EQ(read->header().program, (std::vector<std::string>{"demo", "model"}));
  int models = 0;
  for (std::size_t i = 0; i < read->size(); ++i) {
    if (!read->exchange(i).has_model()) continue;
    if (++models == 1) {
      EXPECT_THAT(read->exchange(i).model().raw(), HasSubstr("\"note\":\"<raw & exact>\""));
    }
  }
  EXPECT_EQ(models, 2);
  EXPECT_GT(read->chain_head().seq, 0);

  for (const std::vector<std::string>& replay_args : std::vector<std::vector<std::string>>{
           {"demo", "model", "--db", replayed_db, "--replay", cassette},
           {"replay", cassette, "--db", replayed_db + ".2"}}) {
    SCOPED_TRACE(::testing::PrintToString(replay_args));
    ProcessResult replayed = Agentrt(replay_args);
    ASSERT_EQ(replayed.exit_code, 0) << replayed.out << replayed.err;
    EXPECT_THAT(replayed.out, HasSubstr("the audit log is the recorded one, byte for byte"));
    EXPECT_THAT(replayed.out, HasSubstr(read->chain_head().hash));
    // The two databases hold the same events: the trace lines printed are identical.
    EXPECT_EQ(recorded.out.substr(0, recorded.out.find("recorded every exchange")),
              replayed.out.substr(0, replayed.out.find("replayed ")));
  }

  // Replaying into the database that already holds the run is refused, and recording never
  // overwrites a cassette.
  ProcessResult again = Agentrt({"demo", "model", "--db", replayed_db, "--replay", cassette});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_THAT(again.err, HasSubstr("replay into a new one"));
  ProcessResult overwrite = Agentrt({"demo", "model", "--db", recorded_db, "--record", cassette});
  EXPECT_EQ(overwrite.exit_code, 2);
  EXPECT_THAT(overwrite.err, HasSubstr("exists; record to a new file"));
}

// A run whose tools start a real child process and ask a real HTTP server on loopback, recorded
// by one process; replayed by another with neither present (the replaying process starts no
// server and no child: its PATH holds no wc), to the same chain head.
TEST_F(AgentrtCassetteCliTest, DemoWorldRecordsARealProcessAndServerAndReplaysWithoutThem) {
  std::string cassette = (dir_ / "world.cassette").string();
  ProcessResult recorded =
      Agentrt({"demo", "world", "--db", (dir_ / "recorded.db").string(), "--record", cassette});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.out << recorded.err;
  EXPECT_THAT(recorded.out, HasSubstr("9 words"));
  EXPECT_THAT(recorded.out, HasSubstr("HTTP 200"));
  absl::StatusOr<replay::Cassette> read = replay::ReadCassette(test_support::RealFiles(), cassette);
  ASSERT_OK(read);
  ASSERT_EQ(read->header().program.size(), 4u);
  EXPECT_THAT(read->header().program[3], StartsWith("http://127.0.0.1:"));

  ProcessResult replayed =
      RunProcess({"/usr/bin/env", "-i", "PATH=/nonexistent", AGENTRT_BIN, "replay", cassette,
                  "--db", (dir_ / "replayed.db").string()});
  ASSERT_EQ(replayed.exit_code, 0) << replayed.out << replayed.err;
  EXPECT_THAT(replayed.out, HasSubstr("the audit log is the recorded one, byte for byte"));
  EXPECT_EQ(recorded.out.substr(0, recorded.out.find("recorded every exchange")),
            replayed.out.substr(0, replayed.out.find("replayed ")));

  // One byte of what the run sends changed in the recording: the replay stops there, naming it.
  replay::Cassette edited;
  edited.StartSession(read->header());
  for (std::size_t i = 0; i < read->size(); ++i) {
    replay::v1::Exchange e = read->exchange(i);
    if (e.has_http() && e.http().has_send()) e.mutable_http()->mutable_send()->set_url("http://x/");
    ASSERT_OK(edited.Add(e));
  }
  ASSERT_OK(edited.SetChainHead(read->chain_head()));
  std::string edited_path = (dir_ / "edited.cassette").string();
  ASSERT_OK(replay::WriteCassette(test_support::RealFiles(), edited_path, edited));
  ProcessResult mismatch =
      Agentrt({"replay", edited_path, "--db", (dir_ / "mismatch.db").string()});
  EXPECT_EQ(mismatch.exit_code, 1);
  EXPECT_THAT(mismatch.err, HasSubstr("(HTTP request) differs from the recording: http.send.url: "
                                      "recorded \"http://x/\", requested \"http://127.0.0.1:"));
}

// A real provider adapter over the real network, talking to the stand-in on loopback: the run
// pauses at the remote mutation, an operator approves, a resume finishes it; the recording of
// the first part replays with no server, to the same head; the key travels in a header but is
// never printed and never recorded.
TEST_F(AgentrtCassetteCliTest, DemoLiveRecordsAProvidersHttpAndReplaysItWithoutTheServer) {
  std::string db = (dir_ / "live.db").string();
  std::string cassette = (dir_ / "live.cassette").string();
  const std::string kKey = "sk-live-demo-secret-4242";
  ProcessResult recorded = RunProcess({AGENTRT_BIN, "demo", "live", "--stand-in", "--key-env",
                                       "AGENTRT_DEMO_KEY", "--db", db, "--record", cassette},
                                      testing::ProcessOptions{.env = {"AGENTRT_DEMO_KEY=" + kKey}});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.out << recorded.err;
  EXPECT_THAT(recorded.err,
              HasSubstr("stand-in: an OpenAI-compatible server on http://127.0.0.1:"));
  EXPECT_THAT(recorded.err, HasSubstr("model.completed"));
  EXPECT_THAT(recorded.out, HasSubstr("(openai:stand-in): WAITING_FOR_APPROVAL"));
  EXPECT_THAT(recorded.out + recorded.err, Not(HasSubstr(kKey)));
  absl::StatusOr<std::string> bytes = ReadFile(cassette);
  ASSERT_OK(bytes);
  EXPECT_THAT(*bytes, Not(HasSubstr(kKey)));
  EXPECT_THAT(*bytes, HasSubstr("[redacted]"));

  // The printed commands, as an operator would run them.
  std::string approve = recorded.out.substr(recorded.out.find("agentrt approve --db "));
  std::string run = approve.substr(std::string("agentrt approve --db ").size() + db.size() + 1, 32);
  ProcessResult approved = Agentrt({"approve", "--db", db, run, "--by", "test", "--yes"});
  ASSERT_EQ(approved.exit_code, 0) << approved.err;
  ProcessResult resumed = RunProcess({AGENTRT_BIN, "demo", "live", "--stand-in", "--key-env",
                                      "AGENTRT_DEMO_KEY", "--db", db, "--resume", run},
                                     testing::ProcessOptions{.env = {"AGENTRT_DEMO_KEY=" + kKey}});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  EXPECT_THAT(resumed.out, HasSubstr("COMPLETED (goal_completed) after 3 steps; 3 model call(s)"));
  EXPECT_THAT(resumed.err, HasSubstr("step.tool_finished"));

  // Nor does the audit database hold it, in any of its files.
  for (const std::string& file : {db, db + "-wal"}) {
    absl::StatusOr<std::string> stored = ReadFile(file);
    if (stored.ok()) EXPECT_THAT(*stored, Not(HasSubstr(kKey))) << file;
  }

  ProcessResult replayed = RunProcess({"/usr/bin/env", "-i", AGENTRT_BIN, "replay", cassette,
                                       "--db", (dir_ / "replayed.db").string()});
  ASSERT_EQ(replayed.exit_code, 0) << replayed.out << replayed.err;
  EXPECT_THAT(replayed.out, HasSubstr("the audit log is the recorded one, byte for byte"));
  EXPECT_EQ(recorded.out.substr(0, recorded.out.find("recorded every exchange")),
            replayed.out.substr(0, replayed.out.find("replayed ")));
}

}  // namespace
}  // namespace agentrt
