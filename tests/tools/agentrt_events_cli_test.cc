// `agentrt events`, `agentrt verify` and `agentrt export` as a user runs them: the built binary
// on a real database file made by `agentrt demo scripted` (one run, 20 events).
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/intake.h"
#include "tests/support/lines.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"
#include "tests/tools/agentrt_binary.h"
#include "tests/tools/child_process.h"

extern char** environ;

namespace agentrt {
namespace {

using ::agentrt::test_support::Lines;
using ::agentrt::testing::Agentrt;
using ::agentrt::testing::ProcessResult;
using ::agentrt::testing::RunProcess;

json::Document ParseOrDie(const std::string& text) {
  absl::StatusOr<json::Document> doc = json::Parse(text);
  EXPECT_OK(doc) << text.substr(0, 200);
  return doc.ok() ? *std::move(doc) : *json::Parse("{}");
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class AgentrtEventsCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_support::TestFolder();
    db_ = (dir_ / "audit.db").string();
    ::unsetenv("AGENTRT_DB");  // the child inherits our environment
  }

  // Runs the scripted demonstration once more; returns its run id.
  std::string Demo() {
    ProcessResult demo = Agentrt({"demo", "scripted", "--db", db_});
    EXPECT_EQ(demo.exit_code, 0) << demo.err;
    return demo.out.substr(4, 32);
  }
  // Edits the database the way anyone with write access to the file could.
  void Tamper(const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(db_.c_str(), &db), SQLITE_OK);
    char* error = nullptr;
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << error;
    sqlite3_close(db);
  }
  std::string StoredHash(int seq) {
    std::string hash;
    sqlite3* db = nullptr;
    sqlite3_open(db_.c_str(), &db);
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db, "SELECT hash FROM events WHERE seq = ?1", -1, &stmt, nullptr);
    sqlite3_bind_int(stmt, 1, seq);
    if (sqlite3_step(stmt) == SQLITE_ROW) {
      hash = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return hash;
  }

  std::filesystem::path dir_;
  std::string db_;
};

TEST_F(AgentrtEventsCliTest, EventsBothTraceFormats) {
  std::string run = Demo();
  ProcessResult text = Agentrt({"events", "--db", db_, run});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  std::vector<std::string> lines = Lines(text.out);
  ASSERT_THAT(lines, SizeIs(20));
  for (const std::string& line : lines) {
    EXPECT_THAT(line,
                MatchesRegex("[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3} "
                             "\\+0000  [a-z_.]+ +\\{.*\\}"));
    EXPECT_EQ(line.find('{'), 31u + 22 + 1) << line;  // the payload column is aligned
  }
  EXPECT_THAT(lines[0], HasSubstr("  run.created            {\"goal\":"));
  EXPECT_THAT(lines[19], HasSubstr("  run.finished           "));

  ProcessResult jsonl = Agentrt({"events", "--db", db_, "--json", run});
  ASSERT_EQ(jsonl.exit_code, 0) << jsonl.err;
  std::vector<std::string> records = Lines(jsonl.out);
  ASSERT_THAT(records, SizeIs(20));
  for (std::size_t i = 0; i < records.size(); ++i) {
    json::Document doc = ParseOrDie(records[i]);
    EXPECT_EQ(doc.root().Find("seq")->number_literal(), std::to_string(i + 1));
    EXPECT_EQ(doc.root().Find("run_id")->string_value(), run);
    EXPECT_TRUE(doc.root().Find("payload")->is_object());
    EXPECT_FALSE(doc.root().Find("hash").has_value());
  }
  EXPECT_THAT(records[2], HasSubstr(R"(,"step_id":")"));
  EXPECT_THAT(records[0], Not(HasSubstr("step_id")));
}

TEST_F(AgentrtEventsCliTest, EventsPagesAndSaysWhatRemains) {
  std::string run = Demo();
  ProcessResult text = Agentrt({"events", "--db", db_, "--limit", "5", run});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  std::vector<std::string> lines = Lines(text.out);
  ASSERT_THAT(lines, SizeIs(6));
  EXPECT_EQ(lines[5], "... 15 more event(s); rerun with --offset 5");
  ProcessResult json = Agentrt({"events", "--db", db_, run, "--limit=5", "--offset=10", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  std::vector<std::string> records = Lines(json.out);
  ASSERT_THAT(records, SizeIs(6));
  EXPECT_THAT(records[0], StartsWith("{\"seq\":11,"));
  EXPECT_EQ(records[5], R"({"meta":true,"truncated":true,"total":20,"returned":5,"offset":10})");
  ProcessResult last = Agentrt({"events", "--db", db_, run, "--limit", "5", "--offset", "15"});
  EXPECT_THAT(Lines(last.out), SizeIs(5));
  EXPECT_THAT(last.out, Not(HasSubstr("more event")));
  ProcessResult last_json =
      Agentrt({"events", "--db", db_, run, "--limit", "5", "--offset", "15", "--json"});
  EXPECT_THAT(Lines(last_json.out), SizeIs(5));
  EXPECT_THAT(last_json.out, Not(HasSubstr("meta")));
  // 600 more events of the run: the default page is 500.
  Tamper(
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 600) "
      "INSERT INTO events (run_id, at, type, payload_json) SELECT '" +
      run + "', '', 'extra', '{}' FROM n");
  ProcessResult page = Agentrt({"events", "--db", db_, run});
  lines = Lines(page.out);
  ASSERT_THAT(lines, SizeIs(501));
  EXPECT_EQ(lines[500], "... 120 more event(s); rerun with --offset 500");
}

TEST_F(AgentrtEventsCliTest, EventsCapsLongPayloadsInTextOnly) {
  std::string run = Demo();
  Tamper(
      "UPDATE events SET payload_json = '{\"x\":\"' || replace(hex(zeroblob(4500)), '0', 'y') "
      "|| '\"}' WHERE seq = 2");  // 9008 bytes
  ProcessResult text = Agentrt({"events", "--db", db_, "--limit", "2", run});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  std::vector<std::string> lines = Lines(text.out);
  EXPECT_THAT(lines[1], HasSubstr("yyy...[1008 more bytes]"));
  EXPECT_LT(lines[1].size(), 8100u);
  ProcessResult json = Agentrt({"events", "--db", db_, "--limit", "2", "--json", run});
  json::Document doc = ParseOrDie(Lines(json.out)[1]);
  EXPECT_THAT(doc.root().Find("payload")->Find("x")->string_value(), SizeIs(9000));
}

TEST_F(AgentrtEventsCliTest, EventsEscapesHostileTextInTheTraceLines) {
  std::string run = Demo();
  Tamper(
      "UPDATE events SET payload_json = '{\"summary\":\"ok' || char(27) || '[2J' || "
      "char(8238) || 'gpj.exe' || char(10) || 'FAKE\"}' WHERE seq = 3");
  ProcessResult text = Agentrt({"events", "--db", db_, "--limit", "3", run});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(Lines(text.out), SizeIs(4));  // three events and the "more" line
  EXPECT_THAT(text.out, HasSubstr("ok\\x1b[2J\\u{202e}gpj.exe FAKE"));
  EXPECT_THAT(text.out, Not(HasSubstr("\x1b")));
  // Not JSON any more (a raw newline in a string): kept, as a string, in the record.
  ProcessResult json = Agentrt({"events", "--db", db_, "--limit", "3", "--json", run});
  std::vector<std::string> records = Lines(json.out);
  ASSERT_THAT(records, SizeIs(4));
  json::Document doc = ParseOrDie(records[2]);
  EXPECT_TRUE(doc.root().Find("invalid_payload")->bool_value());
  EXPECT_THAT(records[2], HasSubstr("ok\\u001b[2J"));
}

// SQLite's substr and length end a text at a NUL: a payload edited to hold one is still shown
// whole, the NUL escaped, in text and in the record.
TEST_F(AgentrtEventsCliTest, EventsShowWhatFollowsANulInAnEditedPayload) {
  std::string run = Demo();
  Tamper(
      "UPDATE events SET payload_json = '{\"summary\":\"ok' || char(0) || "
      "'and the backups were deleted\"}' WHERE seq = 3");
  ProcessResult text = Agentrt({"events", "--db", db_, "--limit", "3", run});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("ok\\x00and the backups were deleted"));
  ProcessResult json = Agentrt({"events", "--db", db_, "--limit", "3", "--json", run});
  std::vector<std::string> records = Lines(json.out);
  ASSERT_THAT(records, SizeIs(4));
  EXPECT_THAT(records[2], HasSubstr("ok\\u0000and the backups were deleted"));
}

TEST_F(AgentrtEventsCliTest, EventsRefusesUnknownRunsAndBadArguments) {
  Demo();
  ProcessResult unknown = Agentrt({"events", "--db", db_, "nope"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_THAT(unknown.err, HasSubstr("no run nope"));
  for (std::vector<std::string> args :
       {std::vector<std::string>{"events", "--db", db_, "--limit", "0", "r"},
        {"events", "--db", db_, "--offset", "-1", "r"},
        {"events", "--db", db_, "r", "s"},
        {"events", "--db", db_},
        {"events", "--db", db_, "--from", "2", "r"},
        {"events", "r"}}) {
    SCOPED_TRACE(args.size());
    EXPECT_EQ(Agentrt(args).exit_code, 2);
  }
}

TEST_F(AgentrtEventsCliTest, VerifyReportsAnIntactChainInTextAndJson) {
  Demo();
  std::string head = StoredHash(20);
  ProcessResult text = Agentrt({"verify", "--db", db_});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out, "head: seq 20 " + head + "\nintact: 20 event(s), seq 1 to 20\n" +
                          "last checked: seq 20 " + head + "\n" +
                          "rows: 1 run(s), 4 step(s), 0 approval(s) agree with the chain\n");
  ProcessResult range = Agentrt({"verify", "--db", db_, "--from", "5", "--to", "10"});
  EXPECT_EQ(range.exit_code, 0) << range.err;
  EXPECT_THAT(range.out,
              HasSubstr("intact: 6 event(s), seq 5 to 10\nlast checked: seq 10 " + StoredHash(10)));
  EXPECT_THAT(range.out, HasSubstr("rows: not checked (the walk covers part of the log)"));
  ProcessResult past = Agentrt({"verify", "--db", db_, "--from", "30"});
  EXPECT_EQ(past.exit_code, 0);
  EXPECT_THAT(past.out, HasSubstr("intact: no events in the range"));
  ProcessResult json = Agentrt({"verify", "--db", db_, "--json", "--from=2"});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  json::Document doc = ParseOrDie(json.out);
  EXPECT_EQ(doc.root().Find("head")->Find("seq")->number_literal(), "20");
  EXPECT_EQ(doc.root().Find("head")->Find("hash")->string_value(), head);
  EXPECT_EQ(doc.root().Find("from")->number_literal(), "2");
  EXPECT_EQ(doc.root().Find("to")->number_literal(), "20");
  EXPECT_EQ(doc.root().Find("checked")->number_literal(), "19");
  EXPECT_EQ(doc.root().Find("hash")->string_value(), head);
  EXPECT_TRUE(doc.root().Find("intact")->bool_value());
  EXPECT_FALSE(doc.root().Find("break").has_value());
  EXPECT_FALSE(doc.root().Find("requested").has_value());
  EXPECT_FALSE(doc.root().Find("kept_head").has_value());
  EXPECT_FALSE(doc.root().Find("rows")->Find("checked")->bool_value());  // --from 2
  doc = ParseOrDie(Agentrt({"verify", "--db", db_, "--json"}).out);
  std::optional<json::Value> rows = doc.root().Find("rows");
  ASSERT_TRUE(rows.has_value());
  EXPECT_TRUE(rows->Find("checked")->bool_value());
  EXPECT_EQ(rows->Find("runs")->number_literal(), "1");
  EXPECT_EQ(rows->Find("steps")->number_literal(), "4");
  EXPECT_EQ(rows->Find("contradictions")->number_literal(), "0");
}

TEST_F(AgentrtEventsCliTest, VerifyNamesTheBreakAndAToNotReached) {
  Demo();
  Tamper(
      "UPDATE events SET payload_json = replace(payload_json, 'deny', 'allow') "
      "WHERE type = 'step.policy' AND payload_json LIKE '%deny%'");
  ProcessResult text = Agentrt({"verify", "--db", db_});
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_THAT(text.out, HasSubstr("broken at seq 13: the stored hash is not the one the event's "
                                  "fields and the previous event's hash give\n  expected "));
  EXPECT_THAT(text.out, HasSubstr("\n  found    " + StoredHash(13) + "\n"));
  ProcessResult json = Agentrt({"verify", "--db", db_, "--json"});
  EXPECT_EQ(json.exit_code, 1);
  json::Document doc = ParseOrDie(json.out);
  EXPECT_FALSE(doc.root().Find("intact")->bool_value());
  EXPECT_EQ(doc.root().Find("break")->Find("seq")->number_literal(), "13");
  EXPECT_EQ(doc.root().Find("break")->Find("found")->string_value(), StoredHash(13));
  // Before the break the range is intact; a --to past the log's end is not reached.
  EXPECT_EQ(Agentrt({"verify", "--db", db_, "--to", "12"}).exit_code, 0);
  Tamper(
      "UPDATE events SET payload_json = replace(payload_json, 'allow', 'deny') "
      "WHERE seq = 13");
  ProcessResult to = Agentrt({"verify", "--db", db_, "--to", "25"});
  EXPECT_EQ(to.exit_code, 1);
  EXPECT_THAT(to.out, HasSubstr("intact: 20 event(s)"));
  EXPECT_THAT(to.out, HasSubstr("not reached: --to 25, but the log ends at seq 20"));
  json = Agentrt({"verify", "--db", db_, "--to", "25", "--json"});
  doc = ParseOrDie(json.out);
  EXPECT_FALSE(doc.root().Find("requested")->Find("reached")->bool_value());
  EXPECT_EQ(doc.root().Find("requested")->Find("to")->number_literal(), "25");
}

// A log cut at its end still verifies; only a head kept elsewhere shows it.
TEST_F(AgentrtEventsCliTest, VerifyChecksAKeptHead) {
  Demo();
  std::string kept = "20:" + StoredHash(20);
  ProcessResult matches = Agentrt({"verify", "--db", db_, "--head", kept});
  EXPECT_EQ(matches.exit_code, 0) << matches.out;
  EXPECT_THAT(matches.out, HasSubstr("kept head: seq 20 matches\n"));
  std::string other = "20:" + std::string(64, 'a');
  ProcessResult changed = Agentrt({"verify", "--db", db_, "--head", other});
  EXPECT_EQ(changed.exit_code, 1);
  EXPECT_THAT(changed.out, HasSubstr("kept head: seq 20 has another hash now: kept aaaa"));
  Tamper("DELETE FROM events WHERE seq >= 19");
  ProcessResult cut = Agentrt({"verify", "--db", db_});
  // The chain cut at its end verifies on its own; the run's row, which still says the run
  // ended, no longer agrees with it.
  EXPECT_EQ(cut.exit_code, 1);
  EXPECT_THAT(cut.out, HasSubstr("intact: 18 event(s)"));
  EXPECT_THAT(cut.out, HasSubstr("but the chain holds no run.finished"));
  ProcessResult caught = Agentrt({"verify", "--db", db_, "--head", kept});
  EXPECT_EQ(caught.exit_code, 1);
  EXPECT_THAT(caught.out, HasSubstr("kept head: seq 20 not reached: the log ends at seq 18"));
  ProcessResult json = Agentrt({"verify", "--db", db_, "--head", kept, "--json"});
  EXPECT_EQ(json.exit_code, 1);
  json::Document doc = ParseOrDie(json.out);
  EXPECT_TRUE(doc.root().Find("intact")->bool_value());
  EXPECT_EQ(doc.root().Find("kept_head")->Find("seq")->number_literal(), "20");
  EXPECT_FALSE(doc.root().Find("kept_head")->Find("found")->bool_value());
  EXPECT_FALSE(doc.root().Find("kept_head")->Find("matches")->bool_value());
}

TEST_F(AgentrtEventsCliTest, VerifyChecksArgumentsBeforeOpeningTheDatabase) {
  std::string missing = (dir_ / "missing.db").string();
  std::string hash(64, 'b');
  for (std::vector<std::string> args : {std::vector<std::string>{"--from", "-1"},
                                        {"--to", "-2"},
                                        {"--from", "5", "--to", "3"},
                                        {"--head", "junk"},
                                        {"--head", "0:" + hash},
                                        {"--head", "3:" + hash.substr(1)},
                                        {"--head", "3:" + std::string(64, 'B')},
                                        {"--head", "30:" + hash, "--to", "10"},
                                        {"--head", "2:" + hash, "--from", "5"},
                                        {"extra"}}) {
    SCOPED_TRACE(args[0] + " " + (args.size() > 1 ? args[1] : ""));
    args.insert(args.begin(), {"verify", "--db", missing});
    ProcessResult r = Agentrt(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
  }
  ProcessResult open = Agentrt({"verify", "--db", missing, "--head", "3:" + hash});
  EXPECT_EQ(open.exit_code, 1);
  EXPECT_THAT(open.err, HasSubstr("does not exist"));
  EXPECT_FALSE(std::filesystem::exists(missing));
}

TEST_F(AgentrtEventsCliTest, ExportWritesEachEventOnceWithACursor) {
  std::string first = Demo();
  std::string cursor = (dir_ / "export.cursor").string();
  ProcessResult exported = Agentrt({"export", "--db", db_, "--once", "--cursor", cursor});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  // The same records as `events --json`, byte for byte.
  EXPECT_EQ(exported.out, Agentrt({"events", "--db", db_, "--json", first}).out);
  EXPECT_EQ(ReadFile(cursor), "20\n");
  EXPECT_EQ(exported.err, "head 20:" + StoredHash(20) + "\n");
  EXPECT_EQ(Agentrt({"verify", "--db", db_, "--head", "20:" + StoredHash(20)}).exit_code, 0);
  std::string second = Demo();
  ProcessResult more = Agentrt({"export", "--db", db_, "--once", "--cursor", cursor});
  ASSERT_EQ(more.exit_code, 0) << more.err;
  EXPECT_EQ(more.out, Agentrt({"events", "--db", db_, "--json", second}).out);
  EXPECT_EQ(ReadFile(cursor), "40\n");
  ProcessResult again = Agentrt({"export", "--db", db_, "--once", "--cursor", cursor});
  EXPECT_EQ(again.out, "");
  // One run only, from the beginning (no cursor).
  ProcessResult one = Agentrt({"export", "--db", db_, "--once", "--run", first});
  EXPECT_EQ(one.out, Agentrt({"events", "--db", db_, "--json", first}).out);
  // A cursor file that is not a seq is refused by name.
  { std::ofstream(cursor, std::ios::trunc) << "soon\n"; }
  ProcessResult refused = Agentrt({"export", "--db", db_, "--once", "--cursor", cursor});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, HasSubstr("cursor file " + cursor));
  EXPECT_EQ(Agentrt({"export", "--db", db_, "--interval", "-1s"}).exit_code, 2);
  EXPECT_EQ(Agentrt({"export", "--db", db_, "--limit", "3"}).exit_code, 2);
}

// A live export writes events committed while it runs, and stops on SIGTERM with the cursor
// saved. The test waits on the records themselves, never on the clock.
TEST_F(AgentrtEventsCliTest, ExportFollowsLiveAndStopsOnSigterm) {
  Demo();
  std::string cursor = (dir_ / "live.cursor").string();
  int from_child[2];
  ASSERT_EQ(pipe2(from_child, O_CLOEXEC), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<std::string> args = {AGENTRT_BIN, "export", "--db",       db_,
                                   "--cursor",  cursor,   "--interval", "20ms"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid;
  ASSERT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  ::close(from_child[1]);
  FILE* out = ::fdopen(from_child[0], "r");
  std::vector<std::string> records;
  auto read_until = [&](std::size_t n) {
    std::vector<char> line(1 << 20);
    while (records.size() < n && std::fgets(line.data(), static_cast<int>(line.size()), out)) {
      records.emplace_back(line.data());
    }
  };
  read_until(20);
  ASSERT_THAT(records, SizeIs(20));
  Demo();  // written while the export runs
  read_until(40);
  ASSERT_THAT(records, SizeIs(40));
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::fclose(out);
  ASSERT_TRUE(WIFEXITED(status)) << "stopped by the signal instead of on it";
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(ReadFile(cursor), "40\n");
  for (std::size_t i = 0; i < records.size(); ++i) {
    EXPECT_THAT(records[i], StartsWith("{\"seq\":" + std::to_string(i + 1) + ","));
  }
}

TEST_F(AgentrtEventsCliTest, HelpForEachCommand) {
  for (const char* command : {"events", "verify", "export"}) {
    ProcessResult r = Agentrt({command, "--help"});
    EXPECT_EQ(r.exit_code, 0) << command;
    EXPECT_THAT(r.out, StartsWith(std::string("Usage: agentrt ") + command));
  }
}

}  // namespace
}  // namespace agentrt
