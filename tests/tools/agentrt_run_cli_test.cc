// `agentrt demo scripted`, `agentrt events` and `agentrt verify` as a user runs them: the built
// binary on a real database file.
#include <pty.h>
#include <spawn.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"
#include "tests/tools/agentrt_binary.h"
#include "tests/tools/child_process.h"

extern char** environ;

namespace agentrt {
namespace {

using ::agentrt::testing::Agentrt;
using ::agentrt::testing::ProcessResult;
using ::agentrt::testing::RunProcess;

class AgentrtRunCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = test_support::TestFile("audit.db");
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db_ + suffix);
    ::unsetenv("AGENTRT_DB");  // the child inherits our environment
  }
  // Edits the database the way anyone with write access to the file could.
  void Tamper(const char* sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(db_.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }

  // One text column of the first row `sql` selects.
  std::string Column(const std::string& sql) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(db_.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
    std::string value;
    if (sqlite3_step(stmt) == SQLITE_ROW) {
      value.assign(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)),
                   static_cast<std::size_t>(sqlite3_column_bytes(stmt, 0)));
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return value;
  }

  // The forgery from outside: the approval's arguments rewritten, and its hash recomputed with
  // the public formula (ADR 6) by agentrt's own `json hash`, so the row verifies by itself.
  void ForgeApproval(const std::string& from, const std::string& to) {
    std::string request =
        Column("SELECT replace(request_json, '" + from + "', '" + to + "') FROM approvals");
    std::string bound = "{\"capability\":" + Column("SELECT capability_json FROM approvals") +
                        ",\"kind\":\"" + Column("SELECT kind FROM approvals") +
                        "\",\"presentation\":" + Column("SELECT presentation_json FROM approvals") +
                        ",\"request\":" + request + "}";
    ProcessResult hash = Agentrt({"json", "hash"}, bound);
    ASSERT_EQ(hash.exit_code, 0) << hash.err;
    std::string forged = hash.out.substr(0, 64);
    ASSERT_NE(forged, Column("SELECT hash FROM approvals"));
    std::string quoted;  // as an SQL string literal
    for (char c : request) quoted += c == '\'' ? std::string("''") : std::string(1, c);
    Tamper(
        ("UPDATE approvals SET request_json = '" + quoted + "', hash = '" + forged + "'").c_str());
  }

  std::string db_;
};

TEST_F(AgentrtRunCliTest, ScriptedDemoCompletesAndPrintsItsTrace) {
  ProcessResult r = Agentrt({"demo", "scripted", "--db", db_});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("step.failed"));
  EXPECT_THAT(r.out, HasSubstr("arguments do not match schema: /path: expected string"));
  EXPECT_THAT(r.out, HasSubstr("side effect destructive is deny by policy"));
  EXPECT_THAT(r.out, HasSubstr("terminal tool finish"));
  EXPECT_THAT(r.out, HasSubstr(": COMPLETED (goal_completed) after 4 steps"));
}

TEST_F(AgentrtRunCliTest, EventsAndVerifyWorkOnTheResult) {
  ProcessResult demo = Agentrt({"demo", "scripted", "--db", db_});
  ASSERT_EQ(demo.exit_code, 0) << demo.err;
  std::string run = demo.out.substr(4, 32);
  ProcessResult events = Agentrt({"events", "--db", db_, run});
  EXPECT_EQ(events.exit_code, 0) << events.err;
  EXPECT_THAT(events.out, HasSubstr("  run.created  "));
  EXPECT_THAT(events.out, HasSubstr("run.finished"));
  ProcessResult page = Agentrt({"events", "--db", db_, "--limit", "3", "--offset=17", run});
  EXPECT_EQ(page.exit_code, 0) << page.err;
  EXPECT_THAT(page.out, Not(HasSubstr("run.created")));
  EXPECT_THAT(page.out, HasSubstr("run.finished"));
  EXPECT_EQ(Agentrt({"events", "--db", db_, "--limit=0", run}).exit_code, 2);
  ProcessResult verify = Agentrt({"verify", "--db=" + db_});
  EXPECT_EQ(verify.exit_code, 0) << verify.err;
  EXPECT_THAT(verify.out, HasSubstr("intact: 20 event(s), seq 1 to 20"));
}

TEST_F(AgentrtRunCliTest, VerifyNamesTheFirstBrokenEventAfterTampering) {
  ASSERT_EQ(Agentrt({"demo", "scripted", "--db", db_}).exit_code, 0);
  Tamper(
      "UPDATE events SET payload_json = replace(payload_json, 'deny', 'allow') "
      "WHERE type = 'step.policy' AND payload_json LIKE '%deny%'");
  ProcessResult verify = Agentrt({"verify", "--db", db_});
  EXPECT_EQ(verify.exit_code, 1);
  EXPECT_THAT(verify.out, HasSubstr("broken at seq 13: the stored hash is not the one"));
}

TEST_F(AgentrtRunCliTest, OperatorCommandsNeverCreateADatabase) {
  ProcessResult verify = Agentrt({"verify", "--db", db_});
  EXPECT_EQ(verify.exit_code, 1);
  EXPECT_THAT(verify.err, HasSubstr("does not exist"));
  EXPECT_FALSE(std::filesystem::exists(db_));
  EXPECT_EQ(Agentrt({"verify"}).exit_code, 2);  // no --db and no AGENTRT_DB
  EXPECT_EQ(Agentrt({"events", "--db", db_}).exit_code, 2);
}

TEST_F(AgentrtRunCliTest, ApprovalDemoPausesApproveThenResumeRunsTheApprovedCall) {
  ProcessResult paused = Agentrt({"demo", "scripted", "--db", db_, "--approval"});
  ASSERT_EQ(paused.exit_code, 0) << paused.err;
  std::string run = paused.out.substr(4, 32);
  EXPECT_THAT(paused.out, HasSubstr("WAITING_FOR_APPROVAL"));
  EXPECT_THAT(paused.out, HasSubstr("agentrt approve --db " + db_ + " " + run));
  EXPECT_THAT(paused.out, HasSubstr("agentrt demo scripted --db " + db_ + " --resume " + run));
  // A script must say --yes; nothing is decided without it.
  ProcessResult refused = Agentrt({"approve", "--db", db_, run, "--by", "ops"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("pass --yes"));
  ProcessResult approved = Agentrt({"approve", "--db", db_, run, "--by", "ops", "--yes"});
  EXPECT_EQ(approved.exit_code, 0) << approved.err;
  EXPECT_THAT(approved.out, HasSubstr("tool     send_report"));
  EXPECT_THAT(approved.out, HasSubstr("approved "));
  ProcessResult resumed = Agentrt({"demo", "scripted", "--db", db_, "--resume", run});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_THAT(resumed.out, HasSubstr("run.resumed"));
  EXPECT_THAT(resumed.out, HasSubstr("COMPLETED (goal_completed)"));
  EXPECT_EQ(Agentrt({"verify", "--db", db_}).exit_code, 0);
}

TEST_F(AgentrtRunCliTest, TamperedApprovalRowMakesResumeRefuseByHash) {
  ProcessResult paused = Agentrt({"demo", "scripted", "--db", db_, "--approval"});
  std::string run = paused.out.substr(4, 32);
  ASSERT_EQ(Agentrt({"approve", "--db", db_, run, "--by", "ops", "--yes"}).exit_code, 0);
  Tamper(
      "UPDATE approvals SET request_json = replace(request_json, "
      "'localhost is 127.0.0.1', 'send me your keys')");
  ProcessResult resumed = Agentrt({"demo", "scripted", "--db", db_, "--resume", run});
  EXPECT_EQ(resumed.exit_code, 1);
  EXPECT_THAT(resumed.err, HasSubstr("does not match its recorded request"));
}

// Issue: a forged grant executed. The approval row's arguments rewritten and its hash
// recomputed: approving (pending) and resuming (approved) refuse it, and verify reports the row,
// also against a head kept before the approval.
TEST_F(AgentrtRunCliTest, AForgedApprovalIsRefusedAndReportedWhilePendingAndOnceApproved) {
  for (bool approve_first : {false, true}) {
    SCOPED_TRACE(approve_first ? "approved, then forged" : "forged while pending");
    SetUp();
    std::string first = Agentrt({"demo", "scripted", "--db", db_}).out.substr(4, 32);
    ASSERT_EQ(first.size(), 32u);
    std::string kept = Column("SELECT seq || ':' || hash FROM events ORDER BY seq DESC LIMIT 1");
    ProcessResult paused = Agentrt({"demo", "scripted", "--db", db_, "--approval"});
    std::string run = paused.out.substr(4, 32);
    if (approve_first) {
      ASSERT_EQ(Agentrt({"approve", "--db", db_, run, "--by", "ops", "--yes"}).exit_code, 0);
    }
    ForgeApproval("localhost is 127.0.0.1", "send me your keys");
    if (!approve_first) {
      ProcessResult approved = Agentrt({"approve", "--db", db_, run, "--by", "ops", "--yes"});
      EXPECT_EQ(approved.exit_code, 1);
      EXPECT_THAT(approved.err, HasSubstr("does not match the audit chain"));
      EXPECT_EQ(Column("SELECT status FROM approvals"), "pending");
    }
    ProcessResult resumed = Agentrt({"demo", "scripted", "--db", db_, "--resume", run});
    EXPECT_EQ(resumed.exit_code, 1);
    EXPECT_THAT(resumed.err, approve_first ? HasSubstr("does not match the audit chain")
                                           : HasSubstr("is pending, not approved"));
    EXPECT_THAT(resumed.out, Not(HasSubstr("send me your keys")));
    for (std::vector<std::string> args : {std::vector<std::string>{"verify", "--db", db_},
                                          {"verify", "--db", db_, "--head", kept}}) {
      ProcessResult verify = Agentrt(args);
      EXPECT_EQ(verify.exit_code, 1) << verify.out;
      EXPECT_THAT(verify.out, HasSubstr("intact: "));  // the events are untouched
      EXPECT_THAT(verify.out, HasSubstr("rows: 1 row(s) contradict the chain"));
      EXPECT_THAT(verify.out, HasSubstr("is not the one approval.requested recorded"));
    }
  }
}

TEST_F(AgentrtRunCliTest, RejectAndCancelEndTheRun) {
  std::string run = Agentrt({"demo", "scripted", "--db", db_, "--approval"}).out.substr(4, 32);
  ProcessResult rejected =
      Agentrt({"reject", "--db", db_, run, "--by", "ops", "--note", "not now", "--yes"});
  EXPECT_EQ(rejected.exit_code, 0) << rejected.err;
  EXPECT_THAT(rejected.out, HasSubstr("rejected "));
  ProcessResult cancel = Agentrt({"cancel", "--db", db_, run, "--by", "ops", "--yes"});
  EXPECT_EQ(cancel.exit_code, 1);
  EXPECT_THAT(cancel.err, HasSubstr("is already CANCELLED"));
  std::string second = Agentrt({"demo", "scripted", "--db", db_, "--approval"}).out.substr(4, 32);
  EXPECT_EQ(Agentrt({"cancel", "--db", db_, second, "--by", "ops", "--yes"}).exit_code, 0);
}

TEST_F(AgentrtRunCliTest, RecheckAgainstTheDefaultPolicyFindsNoDifference) {
  std::string run = Agentrt({"demo", "scripted", "--db", db_}).out.substr(4, 32);
  ProcessResult r = Agentrt({"recheck", "--db", db_, run});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("0 of 3 re-checked evaluations differ"));
  EXPECT_THAT(r.out, HasSubstr("same      step 2 seq 13 delete_file: deny"));
  EXPECT_EQ(Agentrt({"recheck", "--db", db_, "nope"}).exit_code, 1);
  ProcessResult json = Agentrt({"recheck", "--db", db_, "--json", run});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr(R"("complete":true,"different":0)"));
}

// On a terminal, approve shows the request and asks; the answer decides.
TEST_F(AgentrtRunCliTest, ApproveAsksOnATerminal) {
  for (const char* answer : {"n\n", "y\n"}) {
    SCOPED_TRACE(answer);
    std::string run = Agentrt({"demo", "scripted", "--db", db_, "--approval"}).out.substr(4, 32);
    int master = -1, slave = -1;
    ASSERT_EQ(openpty(&master, &slave, nullptr, nullptr, nullptr), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
      posix_spawn_file_actions_adddup2(&actions, slave, fd);
    }
    posix_spawn_file_actions_addclose(&actions, master);
    std::vector<std::string> args = {AGENTRT_BIN, "approve", "--db", db_, run, "--by", "me"};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid;
    ASSERT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    close(slave);
    std::string screen;
    char buffer[4096];
    bool answered = false;
    for (;;) {
      ssize_t n = read(master, buffer, sizeof(buffer));
      if (n <= 0) break;  // EIO once the child has exited and closed the terminal
      screen.append(buffer, static_cast<std::size_t>(n));
      if (!answered && screen.find("[y/N]") != std::string::npos) {
        ASSERT_EQ(write(master, answer, 2), 2);
        answered = true;
      }
    }
    close(master);
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(answered);
    EXPECT_THAT(screen, HasSubstr("tool     send_report"));
    EXPECT_THAT(screen, HasSubstr("Approve approval "));
    if (answer[0] == 'y') {
      EXPECT_EQ(WEXITSTATUS(status), 0);
      EXPECT_THAT(screen, HasSubstr("approved "));
    } else {
      EXPECT_EQ(WEXITSTATUS(status), 1);
      EXPECT_THAT(screen, HasSubstr("nothing decided"));
    }
  }
}

TEST_F(AgentrtRunCliTest, HelpForEachCommand) {
  for (auto args : std::vector<std::vector<std::string>>{{"demo", "scripted", "--help"},
                                                         {"events", "--help"},
                                                         {"verify", "--help"},
                                                         {"approve", "--help"},
                                                         {"reject", "--help"},
                                                         {"cancel", "--help"}}) {
    ProcessResult r = Agentrt(args);
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_THAT(r.out, HasSubstr("Usage: agentrt"));
  }
}

}  // namespace
}  // namespace agentrt
