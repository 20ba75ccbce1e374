// `agentrt runs`, `show`, `approve`, `reject` and `cancel` as an operator runs them: the built
// binary as a child process on a real database file, on a pipe or on a pseudo-terminal.
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/intake.h"
#include "runtime/scripted_agent.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"
#include "tests/tools/agentrt_binary.h"
#include "tests/tools/child_process.h"
#include "tests/tools/run_database.h"

namespace agentrt {
namespace {

using ::agentrt::testing::Agentrt;
using ::agentrt::testing::ProcessResult;
using ::agentrt::testing::RunOnTerminal;
using ::agentrt::testing::RunProcess;
using ::agentrt::testing::TerminalResult;
using ::testing::ContainsRegex;

TerminalResult AgentrtOnTerminal(std::vector<std::string> args, const std::string& answer,
                                 const std::function<void()>& on_prompt = {}) {
  args.insert(args.begin(), AGENTRT_BIN);
  return RunOnTerminal(args, "[y/N] ", answer, on_prompt);
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

json::Document ParseJson(const std::string& text) {
  absl::StatusOr<json::Document> d = json::Parse(text);
  EXPECT_OK(d) << "\n" << text;
  return d.ok() ? std::move(*d) : *json::Parse("null");
}

std::string Text(json::Value object, std::string_view key) {
  std::optional<json::Value> v = object.Find(key);
  return v.has_value() && v->is_string() ? std::string(v->string_value()) : "";
}

using ::agentrt::scripted::Call;
using ::agentrt::scripted::Complete;

class AgentrtOperatorCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = test_support::TestFile("audit.db");
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db_ + suffix);
    // The child inherits our environment: start every test from a known one.
    ::unsetenv("AGENTRT_DB");
    ::unsetenv("USER");
    ::setenv("TZ", "UTC", 1);
    runs_.emplace(db_);
  }

  // The runs a consumer's program would have written (run_database.h).
  void Drive(const std::string& id, std::vector<Decision> script) {
    runs_->Drive(id, std::move(script));
  }
  void Waiting(const std::string& id, std::string args = R"({"to":"ops@example.com"})") {
    runs_->Waiting(id, std::move(args));
  }

  // Edits the database the way anyone with write access to the file could.
  void Sql(const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(db_.c_str(), &db), SQLITE_OK);
    char* error = nullptr;
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << error;
    sqlite3_close(db);
  }
  std::string SqlText(const std::string& sql) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(db_.c_str(), &db), SQLITE_OK);
    std::string out;
    sqlite3_exec(
        db, sql.c_str(),
        [](void* o, int, char** values, char**) {
          *static_cast<std::string*>(o) = values[0] != nullptr ? values[0] : "";
          return 0;
        },
        &out, nullptr);
    sqlite3_close(db);
    return out;
  }
  std::string ApprovalOf(const std::string& run) {
    return SqlText(
        "SELECT id FROM approvals WHERE run_key = (SELECT run_key FROM runs WHERE id = '" + run +
        "') ORDER BY rowid LIMIT 1");
  }
  std::string StatusOfApproval(const std::string& id) {
    return SqlText("SELECT status FROM approvals WHERE id = '" + id + "'");
  }

  std::string db_;
  std::optional<testing::RunDatabase> runs_;
};

TEST_F(AgentrtOperatorCliTest, Runs_ListsAndEmitsJSON) {
  Drive("done", {Call("read", "{}"), Complete()});
  Waiting("waits");
  Sql("UPDATE runs SET goal = char(27) || '[31m' || '" + std::string(100, 'g') +
      "' WHERE id = 'done'");
  ProcessResult r = Agentrt({"runs", "--db", db_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  EXPECT_THAT(lines[0], ContainsRegex("^RUN +STATUS +REASON +STEPS +CREATED +APPROVAL +GOAL$"));
  std::string approval = ApprovalOf("waits");
  EXPECT_THAT(lines[1], ContainsRegex("^waits +WAITING_FOR_APPROVAL +- +2 +2027-01-15 08:02:00 "
                                      "\\+0000 +" +
                                      approval + " +goal of waits$"));
  // The goal: escaped, clipped to 60 bytes, the cut marked.
  EXPECT_THAT(lines[2], ContainsRegex("^done +COMPLETED +goal_completed +2 +2027-01-15 08:01:00 "
                                      "\\+0000 +- +"));
  EXPECT_THAT(lines[2], EndsWith("\\x1b[31m" + std::string(49, 'g') + "…"));
  EXPECT_THAT(r.out, Not(HasSubstr("\x1b")));

  ProcessResult j = Agentrt({"runs", "--db", db_, "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  json::Document d = ParseJson(j.out);
  json::Value root = d.root();
  EXPECT_EQ(root.Find("total")->number_literal(), "2");
  EXPECT_EQ(root.Find("limit")->number_literal(), "100");
  EXPECT_EQ(root.Find("offset")->number_literal(), "0");
  EXPECT_FALSE(root.Find("truncated").has_value());
  json::Value runs = *root.Find("runs");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(Text(runs.element(0), "id"), "waits");
  EXPECT_EQ(Text(runs.element(0), "pending_approval_id"), approval);
  EXPECT_EQ(Text(runs.element(0), "status"), "WAITING_FOR_APPROVAL");
  EXPECT_EQ(Text(runs.element(1), "reason"), "goal_completed");
  EXPECT_FALSE(runs.element(1).Find("pending_approval_id").has_value());

  // An existing database without runs.
  std::filesystem::remove(db_);
  for (const char* suffix : {"-wal", "-shm"}) std::filesystem::remove(db_ + suffix);
  ASSERT_OK(runs_->Open());
  ProcessResult empty = Agentrt({"runs", "--db", db_});
  EXPECT_EQ(empty.exit_code, 0) << empty.err;
  EXPECT_EQ(empty.out, "no runs\n");
}

TEST_F(AgentrtOperatorCliTest, Runs_ReadsTheDatabaseFromTheEnvironment) {
  Waiting("r");
  ProcessResult without = Agentrt({"runs"});
  EXPECT_EQ(without.exit_code, 2);
  EXPECT_THAT(without.err, HasSubstr("pass --db PATH or set AGENTRT_DB"));
  ::setenv("AGENTRT_DB", db_.c_str(), 1);
  ProcessResult r = Agentrt({"runs"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("goal of r"));
  // --db wins over the environment.
  EXPECT_EQ(Agentrt({"runs", "--db", db_ + ".missing"}).exit_code, 1);
  // show prints the database it read in the command that decides.
  EXPECT_THAT(Agentrt({"show", "r"}).out,
              HasSubstr("decide with: agentrt approve r --db '" + db_ + "' --approval "));
}

TEST_F(AgentrtOperatorCliTest, Runs_LimitAndOffsetPageTheOutput) {
  for (int i = 0; i < 5; ++i) Drive("run" + std::to_string(i), {Complete()});
  ProcessResult first = Agentrt({"runs", "--db", db_, "--limit", "2"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  std::vector<std::string> lines = Lines(first.out);
  ASSERT_EQ(lines.size(), 4u) << first.out;
  EXPECT_THAT(lines[1], StartsWith("run4 "));
  EXPECT_THAT(lines[2], StartsWith("run3 "));
  EXPECT_EQ(lines[3], "... 3 more run(s); rerun with --offset 2 to see them (showing 2 of 5)");
  ProcessResult last = Agentrt({"runs", "--db", db_, "--limit=2", "--offset=4"});
  lines = Lines(last.out);
  ASSERT_EQ(lines.size(), 2u) << last.out;
  EXPECT_THAT(lines[1], StartsWith("run0 "));
  json::Document page = ParseJson(Agentrt({"runs", "--db", db_, "--limit", "2", "--json"}).out);
  EXPECT_TRUE(page.root().Find("truncated")->bool_value());
  EXPECT_EQ(page.root().Find("runs")->size(), 2u);

  // --limit 0 is everything, read 500 at a time: past one read's worth.
  Sql("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1200) "
      "INSERT INTO runs (id, goal, status, limits_json, created_at) "
      "SELECT 'bulk' || i, 'bulk goal', 'COMPLETED', '{}', "
      "'2020-01-01T00:00:00.000000000Z' FROM n");
  json::Document all = ParseJson(Agentrt({"runs", "--db", db_, "--limit", "0", "--json"}).out);
  EXPECT_EQ(all.root().Find("runs")->size(), 1205u);
  EXPECT_EQ(all.root().Find("total")->number_literal(), "1205");
  EXPECT_FALSE(all.root().Find("truncated").has_value());
  ProcessResult default_page = Agentrt({"runs", "--db", db_});
  EXPECT_EQ(Lines(default_page.out).size(), 102u);  // header, 100 runs, the "more" line
  EXPECT_THAT(default_page.out, HasSubstr("... 1105 more run(s); rerun with --offset 100"));
}

TEST_F(AgentrtOperatorCliTest, Show_PutsTheWaitingApprovalInFront) {
  Waiting("r");
  std::string approval = ApprovalOf("r");
  ProcessResult r = Agentrt({"show", "r", "--db", db_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("run       r\n"
                                "goal      goal of r\n"
                                "status    WAITING_FOR_APPROVAL\n"
                                "steps     2\n"
                                "created   2027-01-15 08:01:00 +0000\n"
                                "model     0 call(s), 0 in, 0 out, estimated $0.0000\n"
                                "\n"
                                "APPROVAL WAITING  " +
                                approval + "\n"));
  std::size_t block = r.out.find("APPROVAL WAITING");
  std::size_t closing = r.out.find("----- end of approval " + approval + " for tool post -----\n");
  std::size_t table = r.out.find("STEP  TOOL");
  ASSERT_NE(closing, std::string::npos) << r.out;
  EXPECT_LT(block, closing);
  EXPECT_LT(closing, table);
  EXPECT_THAT(r.out, HasSubstr("  to (17 bytes)\n    \"ops@example.com\"\n"));
  EXPECT_THAT(r.out, HasSubstr("decide with: agentrt approve r --db '" + db_ + "' --approval " +
                               approval + "\n----- end"));
  EXPECT_THAT(r.out,
              ContainsRegex("\n0 +read +tool_call +done +allow +tool_result +read 2 bytes\n"
                            "1 +post +tool_call +awaiting_approval +require_approval +- +-\n$"));

  ProcessResult j = Agentrt({"show", "r", "--db", db_, "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  json::Document d = ParseJson(j.out);
  json::Value root = d.root();
  EXPECT_EQ(Text(*root.Find("run"), "pending_approval_id"), approval);
  EXPECT_EQ(Text(*root.Find("waiting_approval"), "id"), approval);
  EXPECT_EQ(Text(*root.Find("waiting_approval"), "hash"),
            SqlText("SELECT hash FROM approvals WHERE id = '" + approval + "'"));
  EXPECT_EQ(root.Find("steps")->size(), 2u);
  EXPECT_EQ(root.Find("steps_total")->number_literal(), "2");
  EXPECT_EQ(root.Find("approvals")->size(), 1u);
  EXPECT_EQ(root.Find("approvals_total")->number_literal(), "1");
  EXPECT_EQ(root.Find("limit")->number_literal(), "500");
  EXPECT_FALSE(root.Find("steps_truncated").has_value());

  ProcessResult missing = Agentrt({"show", "nope", "--db", db_});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err, "agentrt show: run nope not found\n");
}

TEST_F(AgentrtOperatorCliTest, Show_LimitAndOffsetPageSteps) {
  Drive("r", {Call("read", "{}"), Call("post", "{}")});
  ProcessResult r = Agentrt({"show", "r", "--db", db_, "--limit", "1", "--offset", "0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ContainsRegex("\nSTEP +TOOL[^\n]*\n0 +read [^\n]*\n"
                                   "\\.\\.\\. 1 more step\\(s\\); rerun with --offset 1 to see "
                                   "them \\(showing 1 of 2\\)\n$"));
  ProcessResult second = Agentrt({"show", "r", "--db", db_, "--limit", "1", "--offset", "1"});
  EXPECT_THAT(second.out, ContainsRegex("\nSTEP +TOOL[^\n]*\n1 +post [^\n]*\n$"));
  // Pending approvals share the steps' paging: the one approval is on the first page.
  EXPECT_THAT(r.out, HasSubstr("APPROVAL WAITING"));
  EXPECT_THAT(second.out, Not(HasSubstr("APPROVAL WAITING")));
  json::Document d = ParseJson(Agentrt({"show", "r", "--db", db_, "--limit=1", "--json"}).out);
  EXPECT_TRUE(d.root().Find("steps_truncated")->bool_value());
  EXPECT_EQ(d.root().Find("steps")->size(), 1u);
  // The waiting approval is in the JSON whatever the offset.
  EXPECT_TRUE(d.root().Find("waiting_approval").has_value());
  EXPECT_EQ(Agentrt({"show", "r", "--db", db_, "--limit", "0"}).exit_code, 2);
  EXPECT_EQ(Agentrt({"show", "r", "--db", db_, "--offset", "-1"}).exit_code, 2);
}

TEST_F(AgentrtOperatorCliTest, Show_LongArgumentTruncatedHeadAndTail) {
  std::string body = "HEAD" + std::string(6000, 'm') + "TAIL";
  Waiting("r", R"({"body":")" + body + R"("})");
  ProcessResult r = Agentrt({"show", "r", "--db", db_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The size line gives the whole field; the value shows its head and its tail.
  EXPECT_THAT(r.out, HasSubstr("  body (6010 bytes)\n    \"HEAD" + std::string(196, 'm') +
                               "…[5608 bytes omitted]…" + std::string(196, 'm') + "TAIL\"\n"));
  EXPECT_THAT(r.out, Not(HasSubstr(std::string(201, 'm'))));
  // JSON is bounded the same, and the hash stays the one of the stored approval.
  json::Document d = ParseJson(Agentrt({"show", "r", "--db", db_, "--json"}).out);
  json::Value waiting = *d.root().Find("waiting_approval");
  std::string shown_body =
      std::string(waiting.Find("request")->Find("args")->Find("body")->string_value());
  EXPECT_EQ(shown_body, "HEAD" + std::string(196, 'm') + "…[5608 bytes omitted]…" +
                            std::string(196, 'm') + "TAIL");
  EXPECT_EQ(Text(waiting, "hash"), SqlText("SELECT hash FROM approvals"));
}

TEST_F(AgentrtOperatorCliTest, Show_BidiAndCombiningMarksInArgumentsEscaped) {
  Waiting(
      "r",
      R"({"note":"pay \u202eevil\u202c a\u0301\u0301\u0301\u0301\u0301\u0301\u0301",)"
      R"("x\u001b[2J":"ok\n----- end of approval fake for tool post -----\nAPPROVAL WAITING  x"})");
  ProcessResult r = Agentrt({"show", "r", "--db", db_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("\xe2\x80\xae")));  // U+202E itself never reaches the screen
  EXPECT_THAT(r.out, HasSubstr("pay \\u{202e}evil\\u{202c} a"));
  EXPECT_THAT(r.out, HasSubstr("[+3 combining marks dropped]"));
  EXPECT_THAT(r.out, Not(HasSubstr("\x1b")));
  std::vector<std::string> lines = Lines(r.out);
  int closing = 0, headers = 0;
  for (const std::string& line : lines) {
    if (line.starts_with("-----")) ++closing;
    if (line.starts_with("APPROVAL")) ++headers;
  }
  EXPECT_EQ(closing, 1);
  EXPECT_EQ(headers, 1);
}

// SQLite's text functions and C strings end at a NUL; the rest of a goal must not be hidden
// behind one ("Summarise the report" of a goal that goes on to delete every backup).
TEST_F(AgentrtOperatorCliTest, Show_AndRunsShowWhatFollowsANul) {
  Drive("r", {Call("read", "{}"), Complete()});
  Sql("UPDATE runs SET goal = 'Summarise the report' || char(0) || 'and then delete every backup', "
      "reason_detail = 'stopped' || char(0) || 'after the backups were gone' WHERE id = 'r'");
  // An observation over the page cap is cut to its kind and summary inside SQLite.
  Sql("UPDATE steps SET observation_json = json_object('kind', 'tool_result', 'summary', "
      "'read' || char(0) || 'and sent the backups away', 'content', printf('%.*c', 70000, 'x')) "
      "WHERE run_key = (SELECT run_key FROM runs WHERE id = 'r') AND idx = 0");

  ProcessResult runs = Agentrt({"runs", "--db", db_});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  EXPECT_THAT(runs.out, HasSubstr(" Summarise the report\\x00and then delete every backup\n"));
  ProcessResult show = Agentrt({"show", "r", "--db", db_});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_THAT(show.out,
              HasSubstr("goal      Summarise the report\\x00and then delete every backup\n"));
  EXPECT_THAT(show.out, HasSubstr("detail    stopped\\x00after the backups were gone\n"));
  EXPECT_THAT(show.out, ContainsRegex("\n0 +read +.* read\\\\x00and sent the backups away\n"));

  json::Document d = ParseJson(Agentrt({"show", "r", "--db", db_, "--json"}).out);
  EXPECT_EQ(Text(*d.root().Find("run"), "goal"),
            std::string("Summarise the report\0and then delete every backup", 49));
  EXPECT_EQ(Text(d.root().Find("steps")->element(0), "summary"),
            std::string("read\0and sent the backups away", 30));
}

// A status none of the runtime's words is damage: shown as unknown with the text escaped, never
// as the state it was read as, and in JSON as stored.
TEST_F(AgentrtOperatorCliTest, Show_AndRunsSayAStatusOutsideTheVocabularyIsUnknown) {
  Waiting("r");
  Sql("UPDATE runs SET status = 'PAUSED' || char(27) || '[32m' WHERE id = 'r'");
  Sql("UPDATE steps SET status = 'resting' WHERE run_key = (SELECT run_key FROM runs WHERE id = "
      "'r') AND idx = 0");
  Sql("UPDATE approvals SET status = 'maybe' WHERE run_key = (SELECT run_key FROM runs WHERE id = "
      "'r')");

  ProcessResult runs = Agentrt({"runs", "--db", db_});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  EXPECT_THAT(runs.out, ContainsRegex("\nr +UNKNOWN\\(\"PAUSED\\\\x1b\\[32m\"\\) "));
  ProcessResult show = Agentrt({"show", "r", "--db", db_});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_THAT(show.out, HasSubstr("status    UNKNOWN(\"PAUSED\\x1b[32m\")\n"));
  EXPECT_THAT(show.out, ContainsRegex("\n0 +read +tool_call +UNKNOWN\\(\"resting\"\\) +allow"));
  for (const ProcessResult* r : {&runs, &show}) {
    EXPECT_THAT(r->out, Not(HasSubstr("FAILED")));
    EXPECT_THAT(r->out, Not(HasSubstr("\x1b")));
  }

  json::Document d = ParseJson(Agentrt({"show", "r", "--db", db_, "--json"}).out);
  EXPECT_EQ(Text(*d.root().Find("run"), "status"), "PAUSED\x1b[32m");
  EXPECT_EQ(Text(d.root().Find("steps")->element(0), "status"), "resting");
  EXPECT_EQ(Text(d.root().Find("approvals")->element(0), "status"), "maybe");
  json::Document listed = ParseJson(Agentrt({"runs", "--db", db_, "--json"}).out);
  EXPECT_EQ(Text(listed.root().Find("runs")->element(0), "status"), "PAUSED\x1b[32m");

  ProcessResult cancel = Agentrt({"cancel", "r", "--db", db_, "--by", "ops", "--yes"});
  EXPECT_EQ(cancel.exit_code, 1);
  EXPECT_EQ(cancel.err, "agentrt cancel: run r is already UNKNOWN(\"PAUSED\\x1b[32m\")\n");
  ProcessResult recheck = Agentrt({"recheck", "r", "--db", db_});
  EXPECT_THAT(recheck.out, StartsWith("run r UNKNOWN(\"PAUSED\\x1b[32m\"): "));
}

TEST_F(AgentrtOperatorCliTest, Approve_RecordsTheDecisionAndTraces) {
  Waiting("r");
  std::string approval = ApprovalOf("r");
  ProcessResult r =
      Agentrt({"approve", "r", "--db", db_, "--by", "ops", "--note", "looks right", "--yes"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("APPROVAL WAITING  " + approval + "\n"));
  EXPECT_THAT(r.out, HasSubstr("----- end of approval " + approval +
                               " for tool post -----\n"
                               "approval " +
                               approval +
                               ": approved by ops\n"
                               "run r: WAITING_FOR_APPROVAL\n"
                               "the run stays waiting until the consumer resumes it\n"));
  EXPECT_THAT(r.err, HasSubstr("approval.decided"));
  EXPECT_THAT(r.err, HasSubstr("\"by\":\"ops\""));
  EXPECT_EQ(StatusOfApproval(approval), "approved");
  EXPECT_EQ(SqlText("SELECT note FROM approvals"), "looks right");
  // Nothing is pending any more.
  ProcessResult again = Agentrt({"approve", "r", "--db", db_, "--by", "ops", "--yes"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_THAT(again.err, HasSubstr("run r has no pending approval"));
}

TEST_F(AgentrtOperatorCliTest, Approve_DefaultsWhoToTheEnvironment) {
  Waiting("r");
  ProcessResult nobody = Agentrt({"approve", "r", "--db", db_, "--yes"});
  EXPECT_EQ(nobody.exit_code, 2);
  EXPECT_THAT(nobody.err, HasSubstr("pass --by NAME"));
  EXPECT_EQ(StatusOfApproval(ApprovalOf("r")), "pending");
  ::setenv("USER", "alice", 1);
  ProcessResult r = Agentrt({"approve", "r", "--db", db_, "--yes"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(": approved by alice\n"));
  EXPECT_EQ(SqlText("SELECT decided_by FROM approvals"), "alice");
}

TEST_F(AgentrtOperatorCliTest, Approve_AsksOnATerminal) {
  struct Row {
    std::string answer;
    int exit_code;
    std::string says;
    std::string status;
  };
  int runs = 0;
  for (const Row& row : {Row{"y\n", 0, ": approved by me", "approved"},
                         Row{"YES\n", 0, ": approved by me", "approved"},
                         Row{"n\n", 1, "declined at the prompt", "pending"},
                         Row{"sure\n", 1, "declined at the prompt", "pending"},
                         Row{"", 2, "no answer at the prompt", "pending"}}) {
    SCOPED_TRACE(row.answer.empty() ? "end of input" : row.answer);
    std::string run = "run" + std::to_string(++runs);
    Waiting(run);
    std::string approval = ApprovalOf(run);
    TerminalResult r = AgentrtOnTerminal({"approve", run, "--db", db_, "--by", "me"}, row.answer);
    EXPECT_TRUE(r.prompted) << r.out;
    EXPECT_EQ(r.exit_code, row.exit_code) << r.out;
    // The block, then the question naming what is decided.
    EXPECT_THAT(r.out, HasSubstr("----- end of approval " + approval +
                                 " for tool post -----\r\n"
                                 "Approve approval " +
                                 approval + " of run " + run + "? [y/N] "));
    EXPECT_THAT(r.out, HasSubstr(row.says));
    EXPECT_EQ(StatusOfApproval(approval), row.status);
  }
}

TEST_F(AgentrtOperatorCliTest, Approve_AScriptMustSayYesOrNameTheApproval) {
  Waiting("r");
  std::string approval = ApprovalOf("r");
  // A pipe, and /dev/null, are not terminals: nobody is asked and nothing is decided.
  ProcessResult piped = Agentrt({"approve", "r", "--db", db_, "--by", "ops"}, "y\n");
  EXPECT_EQ(piped.exit_code, 2);
  EXPECT_THAT(piped.err, HasSubstr("standard input is not a terminal"));
  EXPECT_THAT(piped.err, HasSubstr("pass --yes, or name the approval with --approval"));
  ProcessResult null =
      RunProcess({"/bin/sh", "-c",
                  std::string(AGENTRT_BIN) + " approve r --db '" + db_ + "' --by ops </dev/null"});
  EXPECT_EQ(null.exit_code, 2) << null.out;
  EXPECT_THAT(null.err, HasSubstr("not a terminal"));
  // --json never asks, even on a terminal.
  TerminalResult json =
      AgentrtOnTerminal({"approve", "r", "--db", db_, "--by", "ops", "--json"}, "y\n");
  EXPECT_FALSE(json.prompted);
  EXPECT_EQ(json.exit_code, 2);
  EXPECT_THAT(json.out, HasSubstr("--json never asks"));
  EXPECT_EQ(StatusOfApproval(approval), "pending");
  // Naming the approval is the confirmation a script gives.
  ProcessResult named =
      Agentrt({"approve", "r", "--db", db_, "--by", "ops", "--approval", approval});
  EXPECT_EQ(named.exit_code, 0) << named.err;
  EXPECT_EQ(StatusOfApproval(approval), "approved");
}

TEST_F(AgentrtOperatorCliTest, Decide_BindsToTheHashActuallyShown) {
  Waiting("r");
  std::string approval = ApprovalOf("r");
  std::string shown_hash = SqlText("SELECT hash FROM approvals");
  // While the operator reads the block, the approval is replaced under them.
  TerminalResult r = AgentrtOnTerminal({"approve", "r", "--db", db_, "--by", "me"}, "y\n", [&] {
    Sql("UPDATE approvals SET hash = '" + std::string(64, 'e') + "'");
  });
  EXPECT_TRUE(r.prompted);
  EXPECT_THAT(r.out, HasSubstr("hash     " + shown_hash));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("approval " + approval +
                               " changed after it was shown; run the command again to see it"));
  EXPECT_EQ(StatusOfApproval(approval), "pending");
}

TEST_F(AgentrtOperatorCliTest, Decide_JSONIncludesTheDecidedHash) {
  Waiting("r", R"({"body":")" + std::string(3000, 'b') + R"("})");
  std::string hash = SqlText("SELECT hash FROM approvals");
  ProcessResult r = Agentrt({"approve", "r", "--db", db_, "--by", "ops", "--yes", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(r.out).size(), 1u) << "only the JSON object on standard output";
  json::Document d = ParseJson(r.out);
  json::Value approval = *d.root().Find("approval");
  EXPECT_EQ(Text(approval, "hash"), hash);
  EXPECT_EQ(Text(approval, "status"), "approved");
  EXPECT_EQ(Text(approval, "decided_by"), "ops");
  EXPECT_THAT(std::string(approval.Find("request")->Find("args")->Find("body")->string_value()),
              HasSubstr("…[2600 bytes omitted]…"));
  EXPECT_EQ(Text(*d.root().Find("run"), "status"), "WAITING_FOR_APPROVAL");
}

TEST_F(AgentrtOperatorCliTest, Reject_CancelsTheRun) {
  Waiting("r");
  std::string approval = ApprovalOf("r");
  ProcessResult r =
      Agentrt({"reject", "r", "--db", db_, "--by", "ops", "--note", "not now", "--yes"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, EndsWith("approval " + approval +
                              ": rejected by ops\n"
                              "run r: CANCELLED (approval_rejected)\n"));
  EXPECT_THAT(r.err, HasSubstr("run.finished"));
  EXPECT_EQ(SqlText("SELECT reason_detail FROM runs WHERE id = 'r'"), "not now");
  ProcessResult again = Agentrt({"reject", "r", "--db", db_, "--by", "ops", "--yes"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_EQ(again.err, "agentrt reject: run r is CANCELLED, not waiting for approval\n");
}

TEST_F(AgentrtOperatorCliTest, Cancel_EndsTheRunAndRefusesATerminalOne) {
  Waiting("r");
  EXPECT_EQ(Agentrt({"cancel", "r", "--db", db_, "--by", "ops"}).exit_code, 2);
  ProcessResult r = Agentrt({"cancel", "r", "--db", db_, "--by", "ops", "--note", "stop", "--yes"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "run r: CANCELLED (operator_cancelled)\n");
  EXPECT_THAT(r.err, HasSubstr("\"reason\":\"operator_cancelled\""));
  ProcessResult again = Agentrt({"cancel", "r", "--db", db_, "--by", "ops", "--yes"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_EQ(again.err, "agentrt cancel: run r is already CANCELLED\n");

  Waiting("s");
  TerminalResult declined = AgentrtOnTerminal({"cancel", "s", "--db", db_, "--by", "me"}, "n\n");
  EXPECT_THAT(declined.out, HasSubstr("Cancel run s (WAITING_FOR_APPROVAL)? [y/N] "));
  EXPECT_EQ(declined.exit_code, 1);
  ProcessResult json = Agentrt({"cancel", "s", "--db", db_, "--by", "ops", "--yes", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  json::Document d = ParseJson(json.out);
  EXPECT_EQ(Text(*d.root().Find("run"), "reason"), "operator_cancelled");
  EXPECT_FALSE(d.root().Find("approval").has_value());
}

TEST_F(AgentrtOperatorCliTest, Usage_ExitCodes) {
  Waiting("r");
  std::string missing = db_ + ".missing";
  struct Row {
    std::vector<std::string> args;
    int exit_code;
    std::string err;
  };
  std::vector<Row> rows = {
      {{}, 2, "Usage: agentrt COMMAND"},
      {{"nonsense"}, 2, "unknown command"},
      {{"runs", "--db", db_, "extra"}, 2, "runs takes no arguments"},
      {{"runs", "--db", db_, "--limit", "-1"}, 2, "--limit must be"},
      {{"runs", "--db", db_, "--limit", "many"}, 2, "flag --limit"},
      {{"runs", "--db", db_, "--by", "x"}, 2, "unknown flag --by"},
      {{"show", "--db", db_}, 2, "expected one RUN id"},
      {{"approve", "--db", db_, "--by", "x", "--yes"}, 2, "expected one RUN id"},
      {{"approve", "r", "s", "--db", db_, "--by", "x", "--yes"}, 2, "expected one RUN id"},
      {{"cancel", "r", "--db", db_, "--approval", "a"}, 2, "unknown flag --approval"},
      {{"approve", "r", "--by", "x", "--yes"}, 2, "pass --db PATH or set AGENTRT_DB"},
      {{"runs", "--db", missing}, 1, "does not exist"},
      {{"show", "r", "--db", missing}, 1, "does not exist"},
      {{"approve", "r", "--db", missing, "--by", "x", "--yes"}, 1, "does not exist"},
      {{"approve", "nope", "--db", db_, "--by", "x", "--yes"}, 1, "run nope not found"},
      {{"approve", "r", "--db", db_, "--by", "x", "--approval", "nope"},
       1,
       "run r has no approval nope"},
      {{"runs", "--db", db_}, 0, ""},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(absl::StrJoin(row.args, " "));
    ProcessResult r = Agentrt(row.args);
    EXPECT_EQ(r.exit_code, row.exit_code) << r.err;
    EXPECT_THAT(r.err, HasSubstr(row.err));
  }
  // Arguments are checked before the database is opened, and it is never created.
  EXPECT_FALSE(std::filesystem::exists(missing));
  ProcessResult bad = Agentrt({"show", "--db", missing, "--limit", "-5", "r"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, Not(HasSubstr("does not exist")));
}

TEST_F(AgentrtOperatorCliTest, Help_SaysResumeBelongsToTheConsumer) {
  ProcessResult help = Agentrt({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (std::string command : {"runs", "show", "events", "verify", "approve", "reject", "cancel"}) {
    EXPECT_THAT(help.out, HasSubstr("\n  " + command + " ")) << command;
  }
  EXPECT_THAT(help.out, HasSubstr("There is deliberately no 'resume' command: resuming a run "
                                  "needs the consumer's agent,\ntools and policy"));
  ProcessResult resume = Agentrt({"resume", "r"});
  EXPECT_EQ(resume.exit_code, 2);
  EXPECT_THAT(resume.err, HasSubstr("there is no resume command"));
  for (std::string command : {"runs", "show", "approve", "reject", "cancel"}) {
    ProcessResult r = Agentrt({command, "--help"});
    EXPECT_EQ(r.exit_code, 0) << command;
    EXPECT_THAT(r.out, StartsWith("Usage: agentrt " + command)) << command;
  }
}

TEST_F(AgentrtOperatorCliTest, Open_InsecureModeSymlinkAndTriggerRefusedWithOneSentence) {
  Waiting("r");
  ASSERT_EQ(::chmod(db_.c_str(), 0666), 0);
  ProcessResult insecure = Agentrt({"runs", "--db", db_});
  EXPECT_EQ(insecure.exit_code, 1);
  EXPECT_EQ(Lines(insecure.err).size(), 1u) << insecure.err;
  EXPECT_THAT(insecure.err, HasSubstr(db_));
  ASSERT_EQ(::chmod(db_.c_str(), 0600), 0);
  std::string link = db_ + ".link";
  std::filesystem::remove(link);
  std::filesystem::create_symlink(db_, link);
  ProcessResult linked = Agentrt({"show", "r", "--db", link});
  EXPECT_EQ(linked.exit_code, 1);
  EXPECT_EQ(Lines(linked.err).size(), 1u) << linked.err;
  EXPECT_THAT(linked.err, HasSubstr("symbolic link"));
  std::filesystem::remove(link);
  // A schema carrying a trigger could rewrite what a reader is shown.
  Sql("CREATE TRIGGER t AFTER INSERT ON events BEGIN SELECT 1; END");
  for (std::vector<std::string> args : {std::vector<std::string>{"runs", "--db", db_},
                                        std::vector<std::string>{"show", "r", "--db", db_}}) {
    ProcessResult r = Agentrt(args);
    EXPECT_EQ(r.exit_code, 1) << args[0];
    EXPECT_EQ(Lines(r.err).size(), 1u) << r.err;
    EXPECT_THAT(r.err, HasSubstr("trigger"));
  }
}

TEST_F(AgentrtOperatorCliTest, Read_OnlyThePageIsReadFromAHugeDatabase) {
  Waiting("r");
  // Many runs, and rows off the page that a full read would choke on: a goal of 20 MB, a
  // status nobody wrote, decisions that are not JSON.
  Sql("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) "
      "INSERT INTO runs (id, goal, status, limits_json, created_at) "
      "SELECT 'old' || i, 'old goal', 'COMPLETED', '{}', "
      "'2020-01-01T00:00:00.000000000Z' FROM n");
  Sql("UPDATE runs SET goal = hex(zeroblob(10000000)), status = '?\?\?' WHERE id = 'old5'");
  Sql("UPDATE steps SET decision_json = 'not json' WHERE idx = 0");
  ProcessResult runs = Agentrt({"runs", "--db", db_, "--limit", "3"});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  EXPECT_THAT(runs.out, HasSubstr("... 19998 more run(s); rerun with --offset 3 to see them "
                                  "(showing 3 of 20001)"));
  ProcessResult huge = Agentrt({"runs", "--db", db_, "--limit", "1", "--offset", "19996"});
  ASSERT_EQ(huge.exit_code, 0) << huge.err;
  EXPECT_LT(huge.out.size(), 1000u) << "the goal is shown clipped";
  ProcessResult show = Agentrt({"show", "r", "--db", db_, "--limit", "1"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_THAT(show.out, HasSubstr("(showing 1 of 2)"));
}

}  // namespace
}  // namespace agentrt
