// The `agentrt` commands run in-process through RunAgentrt with string streams (io.h): the exit
// status, and what went to standard output and what to standard error, for the dispatch, the
// JSON and schema commands, the commands over a database of runs and the cassette dump. The
// binary's own end-to-end tests are the agentrt_*_cli_test suites.
#include <stdlib.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/base/atomic_file.h"
#include "runtime/json/intake.h"
#include "runtime/scripted_agent.h"
#include "runtime/store/store.h"
#include "tests/support/lines.h"
#include "tests/support/status_matchers.h"
#include "tests/support/tamper.h"
#include "tests/support/test_folder.h"
#include "tests/tools/model_cassette.h"
#include "tests/tools/run_database.h"
#include "tests/tools/string_io.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/commands.h"

namespace agentrt::cli {
namespace {

using ::agentrt::scripted::Call;
using ::agentrt::scripted::Complete;
using ::agentrt::test_support::Lines;
using ::agentrt::test_support::TestFile;
using ::agentrt::testing::AgentrtInProcess;
using ::agentrt::testing::InProcessResult;
using ::agentrt::testing::RunDatabase;
using ::agentrt::testing::StringIo;

std::string WrittenFile(const std::string& name, const std::string& bytes) {
  std::string path = TestFile(name);
  EXPECT_OK(WriteFileAtomically(path, bytes, name));
  return path;
}

// The dispatch.

TEST(DispatchInProcessTest, HelpGoesToStandardOutputAndExitsZero) {
  for (const char* word : {"--help", "-h", "help"}) {
    SCOPED_TRACE(word);
    InProcessResult r = AgentrtInProcess({word});
    EXPECT_EQ(r.exit_code, kExitOk);
    EXPECT_THAT(r.out, StartsWith("agentrt: a runtime and deterministic simulator for tool-using "
                                  "AI agents.\n\nUsage: agentrt COMMAND [ARGS...]\n"));
    EXPECT_THAT(r.out, HasSubstr("\n  json canon "));
    EXPECT_THAT(r.out, EndsWith("Exit status: 0 ok, 1 failure or finding, 2 usage error.\n"));
    EXPECT_THAT(r.err, IsEmpty());
  }
}

TEST(DispatchInProcessTest, NoWordsPrintTheHelpOnStandardErrorAndExitTwo) {
  InProcessResult r = AgentrtInProcess({});
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_THAT(r.out, IsEmpty());
  EXPECT_EQ(r.err, AgentrtInProcess({"--help"}).out);
}

TEST(DispatchInProcessTest, AnUnknownCommandIsSuggestedTheNearestOnStandardError) {
  InProcessResult r = AgentrtInProcess({"verfiy", "--db", "x"});
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_THAT(r.out, IsEmpty());
  EXPECT_EQ(r.err,
            "agentrt: unknown command \"verfiy\"; did you mean \"verify\"?\n"
            "Run 'agentrt --help' for the list of commands.\n");
}

TEST(DispatchInProcessTest, ResumeIsRefusedWithTheReason) {
  InProcessResult r = AgentrtInProcess({"resume", "r1"});
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_THAT(r.out, IsEmpty());
  EXPECT_THAT(r.err, StartsWith("agentrt: there is no resume command: "));
}

// `agentrt json canon|hash`.

TEST(JsonInProcessTest, CanonReadsStandardInputFromItsStreams) {
  InProcessResult r = AgentrtInProcess({"json", "canon"}, R"({"b": [1.0, "\u0041"], "a": 1e2})");
  EXPECT_EQ(r.exit_code, kExitOk) << r.err;
  EXPECT_EQ(r.out, "{\"a\":100,\"b\":[1,\"A\"]}\n");
  EXPECT_THAT(r.err, IsEmpty());
  // "-" names standard input too.
  EXPECT_EQ(AgentrtInProcess({"json", "canon", "-"}, "[ true ]").out, "[true]\n");
}

TEST(JsonInProcessTest, HashPrintsTheSha256OfTheCanonicalForm) {
  std::string file = WrittenFile("doc.json", "{ }\n");
  InProcessResult r = AgentrtInProcess({"json", "hash", file});
  EXPECT_EQ(r.exit_code, kExitOk) << r.err;
  EXPECT_EQ(r.out, "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a\n");
  EXPECT_THAT(r.err, IsEmpty());
}

TEST(JsonInProcessTest, ADuplicateKeyIsRefusedOnStandardErrorWithNothingPrinted) {
  for (const char* sub : {"canon", "hash"}) {
    SCOPED_TRACE(sub);
    InProcessResult r = AgentrtInProcess({"json", sub}, R"({"a":1,"a":2})");
    EXPECT_EQ(r.exit_code, kExitFailure);
    EXPECT_THAT(r.out, IsEmpty());
    EXPECT_EQ(r.err,
              absl::StrCat("agentrt json ", sub,
                           ": standard input: json: duplicate object key \"a\" at byte 7\n"));
  }
}

TEST(JsonInProcessTest, AnUnreadableFileFailsAndAStrayWordIsAUsageError) {
  InProcessResult missing = AgentrtInProcess({"json", "canon", TestFile("none.json")});
  EXPECT_EQ(missing.exit_code, kExitFailure);
  EXPECT_THAT(missing.out, IsEmpty());
  EXPECT_EQ(missing.err,
            "agentrt json canon: open " + TestFile("none.json") + ": No such file or directory\n");

  InProcessResult two = AgentrtInProcess({"json", "hash", "a", "b"});
  EXPECT_EQ(two.exit_code, kExitUsage);
  EXPECT_THAT(two.out, IsEmpty());
  EXPECT_EQ(two.err,
            "agentrt json hash: expected at most one FILE\n"
            "Run 'agentrt json hash --help' for usage.\n");

  InProcessResult help = AgentrtInProcess({"json", "canon", "--help"});
  EXPECT_EQ(help.exit_code, kExitOk);
  EXPECT_THAT(help.out, StartsWith("Usage: agentrt json canon [FILE|-]\n"));
  EXPECT_THAT(help.err, IsEmpty());
}

// `agentrt schema validate|check`.

TEST(SchemaInProcessTest, ValidateSaysValidOrListsTheErrors) {
  std::string schema = WrittenFile("schema.json", R"({"type":"object","required":["a"]})");
  InProcessResult valid = AgentrtInProcess({"schema", "validate", schema, "-"}, R"({"a":1})");
  EXPECT_EQ(valid.exit_code, kExitOk) << valid.err;
  EXPECT_EQ(valid.out, "valid\n");
  EXPECT_THAT(valid.err, IsEmpty());

  InProcessResult invalid = AgentrtInProcess({"schema", "validate", schema, "-"}, "{}");
  EXPECT_EQ(invalid.exit_code, kExitFailure);
  EXPECT_EQ(invalid.out,
            "invalid\n(root): missing required property \"a\" (required at #/required)\n");
  EXPECT_THAT(invalid.err, IsEmpty());
}

TEST(SchemaInProcessTest, CheckSaysTheDraftOrWhyTheSchemaIsRefused) {
  InProcessResult ok = AgentrtInProcess({"schema", "check", "-"}, R"({"type":"string"})");
  EXPECT_EQ(ok.exit_code, kExitOk) << ok.err;
  EXPECT_EQ(ok.out, "ok: compiled as 2020-12\n");
  EXPECT_THAT(ok.err, IsEmpty());

  // Refused: said as a failure is, on standard error, but exit 2.
  InProcessResult refused = AgentrtInProcess({"schema", "check", "-"}, R"({"type":12})");
  EXPECT_EQ(refused.exit_code, kExitUsage);
  EXPECT_THAT(refused.out, IsEmpty());
  EXPECT_THAT(refused.err, StartsWith("agentrt schema check: standard input: schema: not a valid "
                                      "2020-12 schema: #/type: "));
}

TEST(SchemaInProcessTest, UsageErrorsExitTwoOnStandardError) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"schema"},
           {"schema", "nosuch"},
           {"schema", "check"},
           {"schema", "validate", "-", "-"},
           {"schema", "validate", "--max_errors=0", "a", "b"},
       }) {
    SCOPED_TRACE(::testing::PrintToString(args));
    InProcessResult r = AgentrtInProcess(args);
    EXPECT_EQ(r.exit_code, kExitUsage);
    EXPECT_THAT(r.out, IsEmpty());
    EXPECT_THAT(r.err, AllOf(StartsWith("agentrt schema"), HasSubstr(" --help' for usage.\n")));
  }
  InProcessResult help = AgentrtInProcess({"schema", "--help"});
  EXPECT_EQ(help.exit_code, kExitOk);
  EXPECT_THAT(help.out, StartsWith("Usage: agentrt schema SUBCOMMAND ...\n"));
}

// The commands over a database of runs: `runs`, `show`, `events`, `verify`, `approve`.

class DatabaseInProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ::unsetenv("AGENTRT_DB");
    runs_.Drive("done", {Call("read", "{}"), Complete()});
    runs_.Waiting("waits");
  }

  std::vector<store::Event> EventsOf(const std::string& run) {
    absl::StatusOr<std::unique_ptr<store::Store>> store = runs_.Open();
    EXPECT_OK(store);
    if (!store.ok()) return {};
    absl::StatusOr<std::vector<store::Event>> events = (*store)->ListEvents(run);
    EXPECT_OK(events);
    return events.ok() ? *std::move(events) : std::vector<store::Event>{};
  }

  const std::string& db() const { return runs_.path(); }

  RunDatabase runs_{TestFile("audit.db")};
};

TEST_F(DatabaseInProcessTest, RunsListsNewestFirst) {
  InProcessResult r = AgentrtInProcess({"runs", "--db", db()});
  EXPECT_EQ(r.exit_code, kExitOk) << r.err;
  std::vector<std::string> lines = Lines(r.out);
  ASSERT_THAT(lines, SizeIs(3));
  EXPECT_THAT(lines[0], StartsWith("RUN    STATUS"));
  EXPECT_THAT(lines[1],
              AllOf(StartsWith("waits  WAITING_FOR_APPROVAL"), EndsWith("goal of waits")));
  EXPECT_THAT(lines[2], AllOf(StartsWith("done   COMPLETED"), EndsWith("goal of done")));
  EXPECT_THAT(r.err, IsEmpty());

  InProcessResult json = AgentrtInProcess({"runs", "--db", db(), "--json"});
  EXPECT_EQ(json.exit_code, kExitOk) << json.err;
  absl::StatusOr<json::Document> doc = json::Parse(json.out);
  ASSERT_OK(doc);
  EXPECT_EQ(doc->root().Find("total")->number_literal(), "2");
}

TEST_F(DatabaseInProcessTest, RunsWithoutADatabaseIsAUsageError) {
  InProcessResult r = AgentrtInProcess({"runs"});
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_THAT(r.out, IsEmpty());
  EXPECT_EQ(r.err,
            "agentrt runs: no database: pass --db PATH or set AGENTRT_DB\n"
            "Run 'agentrt runs --help' for usage.\n");
}

TEST_F(DatabaseInProcessTest, ShowPrintsTheRunAndTheApprovalItWaitsOn) {
  InProcessResult r = AgentrtInProcess({"show", "waits", "--db", db()});
  EXPECT_EQ(r.exit_code, kExitOk) << r.err;
  EXPECT_THAT(r.out, StartsWith("run       waits\ngoal      goal of waits\n"
                                "status    WAITING_FOR_APPROVAL\n"));
  EXPECT_THAT(r.out,
              HasSubstr("decide with: agentrt approve waits --db '" + db() + "' --approval "));
  EXPECT_THAT(r.err, IsEmpty());

  InProcessResult missing = AgentrtInProcess({"show", "nosuch", "--db", db()});
  EXPECT_EQ(missing.exit_code, kExitFailure);
  EXPECT_THAT(missing.out, IsEmpty());
  EXPECT_THAT(missing.err, AllOf(StartsWith("agentrt show: "), HasSubstr("nosuch")));
}

TEST_F(DatabaseInProcessTest, EventsPrintsOneLineAnEventAndPages) {
  std::vector<store::Event> events = EventsOf("done");
  ASSERT_GT(events.size(), 2u);
  InProcessResult r = AgentrtInProcess({"events", "--db", db(), "done"});
  EXPECT_EQ(r.exit_code, kExitOk) << r.err;
  std::vector<std::string> lines = Lines(r.out);
  ASSERT_THAT(lines, SizeIs(events.size()));
  EXPECT_THAT(lines[0], HasSubstr("  run.created  "));
  EXPECT_THAT(lines.back(), HasSubstr("  run.finished  "));
  EXPECT_THAT(r.err, IsEmpty());

  InProcessResult page = AgentrtInProcess({"events", "--db", db(), "done", "--limit", "1"});
  EXPECT_EQ(page.exit_code, kExitOk) << page.err;
  lines = Lines(page.out);
  ASSERT_THAT(lines, SizeIs(2));
  EXPECT_EQ(lines[1],
            absl::StrCat("... ", events.size() - 1, " more event(s); rerun with --offset 1"));

  InProcessResult json = AgentrtInProcess({"events", "--db", db(), "--json", "done"});
  EXPECT_EQ(json.exit_code, kExitOk) << json.err;
  lines = Lines(json.out);
  ASSERT_THAT(lines, SizeIs(events.size()));
  EXPECT_THAT(lines[0], StartsWith(absl::StrCat("{\"seq\":", events[0].seq, ",")));

  InProcessResult unknown = AgentrtInProcess({"events", "--db", db(), "nosuch"});
  EXPECT_EQ(unknown.exit_code, kExitFailure);
  EXPECT_THAT(unknown.out, IsEmpty());
  EXPECT_THAT(unknown.err, StartsWith("agentrt events: "));
}

TEST_F(DatabaseInProcessTest, VerifyReportsAnIntactChainThenItsFirstBreak) {
  absl::StatusOr<std::unique_ptr<store::Store>> store = runs_.Open();
  ASSERT_OK(store);
  absl::StatusOr<store::ChainHead> head = (*store)->Head();
  ASSERT_OK(head);
  store->reset();

  InProcessResult intact = AgentrtInProcess({"verify", "--db", db()});
  EXPECT_EQ(intact.exit_code, kExitOk) << intact.err;
  EXPECT_EQ(intact.out, absl::StrCat("head: seq ", head->seq, " ", head->hash,
                                     "\nintact: ", head->seq, " event(s), seq 1 to ", head->seq,
                                     "\nlast checked: seq ", head->seq, " ", head->hash,
                                     "\nrows: 2 run(s), 4 step(s), 1 approval(s) agree with the "
                                     "chain\n"));
  EXPECT_THAT(intact.err, IsEmpty());

  // The first event rewritten behind the store's back, as anyone with the file could.
  store = runs_.Open();
  ASSERT_OK(store);
  ASSERT_OK(test_support::Tamper(**store, "the first event's payload rewritten",
                                 "UPDATE events SET payload_json = '{}' WHERE seq = 1"));
  store->reset();
  InProcessResult broken = AgentrtInProcess({"verify", "--db", db()});
  EXPECT_EQ(broken.exit_code, kExitFailure);
  EXPECT_THAT(broken.out, HasSubstr("\nbroken at seq 1: the stored hash is not the one the "
                                    "event's fields and the previous event's hash give\n"));
  EXPECT_THAT(broken.err, IsEmpty());
}

TEST_F(DatabaseInProcessTest, VerifyRefusesAHeadThatIsNotSeqColonHash) {
  InProcessResult r = AgentrtInProcess({"verify", "--db", db(), "--head", "nonsense"});
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_THAT(r.out, IsEmpty());
  EXPECT_EQ(r.err,
            "agentrt verify: --head \"nonsense\" is not SEQ:HASH (a seq from 1 and 64 lowercase "
            "hex digits)\nRun 'agentrt verify --help' for usage.\n");
}

// A prompt reads its answer from the command's own input, and only when it is a terminal.
TEST_F(DatabaseInProcessTest, ApproveAsksAtATerminalAndTracesTheDecisionOnStandardError) {
  StringIo streams("y\n");
  streams.io().in_is_terminal = true;
  int exit = RunAgentrt(std::vector<std::string>{"approve", "waits", "--db", db(), "--by", "ana"},
                        streams.io());
  EXPECT_EQ(exit, kExitOk) << streams.err();
  EXPECT_THAT(streams.out(), HasSubstr("APPROVAL WAITING"));
  EXPECT_THAT(streams.out(), HasSubstr("Approve approval "));
  EXPECT_THAT(streams.out(), HasSubstr(" of run waits? [y/N] "));
  EXPECT_THAT(streams.out(), HasSubstr(": approved by ana\nrun waits: WAITING_FOR_APPROVAL\n"
                                       "the run stays waiting until the consumer resumes it\n"));
  EXPECT_THAT(streams.err(), HasSubstr("approval.decided"));
  EXPECT_THAT(streams.err(), Not(HasSubstr("APPROVAL WAITING")));

  // Not a terminal: nobody is asked, and nothing is decided.
  InProcessResult piped = AgentrtInProcess({"reject", "waits", "--db", db(), "--by", "ana"}, "y\n");
  EXPECT_EQ(piped.exit_code, kExitUsage);
  EXPECT_THAT(piped.out, IsEmpty());
  EXPECT_THAT(piped.err, StartsWith("agentrt reject: standard input is not a terminal, so nobody "
                                    "can be asked: pass --yes"));
}

// `agentrt cassette dump`.

TEST(CassetteInProcessTest, DumpPrintsTheCassetteOnStandardOutput) {
  std::string path = TestFile("run.cassette");
  ::agentrt::testing::RecordModelCassette(path, "gpt-test", "two rolls and a name");
  InProcessResult r = AgentrtInProcess({"cassette", "dump", path});
  EXPECT_EQ(r.exit_code, kExitOk) << r.err;
  std::vector<std::string> lines = Lines(r.out);
  ASSERT_THAT(lines, SizeIs(7));
  EXPECT_EQ(lines[0], "cassette " + path + ": format 2, 1 session, 3 exchanges");
  EXPECT_EQ(lines[1], "session 1: created by \"agentrt\"");
  EXPECT_EQ(lines[2], "notes: two rolls and a name");
  EXPECT_THAT(lines[3], StartsWith("  1  model \"gpt-test\" key "));
  EXPECT_EQ(lines[6], "chain head: seq 12, hash " + std::string(64, 'c'));
  EXPECT_THAT(r.err, IsEmpty());

  InProcessResult json = AgentrtInProcess({"cassette", "dump", "--json", path});
  EXPECT_EQ(json.exit_code, kExitOk) << json.err;
  EXPECT_THAT(Lines(json.out), SizeIs(4));
}

TEST(CassetteInProcessTest, DumpOfAMissingCassetteFailsOnStandardError) {
  std::string path = TestFile("none.cassette");
  InProcessResult r = AgentrtInProcess({"cassette", "dump", path});
  EXPECT_EQ(r.exit_code, kExitFailure);
  EXPECT_THAT(r.out, IsEmpty());
  EXPECT_THAT(r.err, AllOf(StartsWith("agentrt cassette dump: "), HasSubstr(path)));

  InProcessResult usage = AgentrtInProcess({"cassette", "dump"});
  EXPECT_EQ(usage.exit_code, kExitUsage);
  EXPECT_THAT(usage.out, IsEmpty());
  EXPECT_EQ(usage.err,
            "agentrt cassette dump: expected one CASSETTE\n"
            "Run 'agentrt cassette dump --help' for usage.\n");
}

}  // namespace
}  // namespace agentrt::cli
