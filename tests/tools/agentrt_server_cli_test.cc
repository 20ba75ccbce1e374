// The operator commands against a PostgreSQL server (docs/scale-out.md): the runs are written by
// a consumer's driver in this process, and `agentrt runs`, `show`, `events`, `export`, `verify`,
// `approve` and `recheck` read and decide them from processes of their own, as an operator on
// another host would; the consumer's own store sees each decision at once. Runs only in the suite's
// "[postgres]" registration (tests/support/test_store.h); skipped elsewhere.
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/approvals.h"
#include "runtime/records/run_reader.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"
#include "tests/support/test_store.h"
#include "tests/tools/agentrt_binary.h"
#include "tests/tools/child_process.h"
#include "tests/tools/run_database.h"

namespace agentrt {
namespace {

using ::agentrt::testing::Agentrt;
using ::agentrt::testing::ProcessResult;
using ::testing::HasSubstr;
using ::testing::Not;

class AgentrtServerCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!test_support::OnTestServer()) GTEST_SKIP() << "no test server";
    url_ = test_support::NewServerDatabase();
    runs_.emplace(url_);
    runs_->Drive("done", {scripted::Call("read", "{}"), scripted::Complete()});
    runs_->Waiting("waits");
  }

  std::string url_;
  std::optional<testing::RunDatabase> runs_;
};

TEST_F(AgentrtServerCliTest, OperatorCommandsReadAndDecideRunsAnotherProcessWrote) {
  ProcessResult runs = Agentrt({"runs", "--db", url_});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  EXPECT_THAT(runs.out, HasSubstr("waits"));
  EXPECT_THAT(runs.out, HasSubstr("WAITING_FOR_APPROVAL"));
  EXPECT_THAT(runs.out, HasSubstr("COMPLETED"));

  ProcessResult show = Agentrt({"show", "waits", "--db", url_});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_THAT(show.out, HasSubstr("APPROVAL WAITING"));
  EXPECT_THAT(show.out, HasSubstr("\"ops@example.com\""));

  ProcessResult events = Agentrt({"events", "waits", "--db", url_, "--json"});
  ASSERT_EQ(events.exit_code, 0) << events.err;
  EXPECT_THAT(events.out, HasSubstr("\"type\":\"approval.requested\""));

  ProcessResult exported = Agentrt({"export", "--db", url_, "--once"});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  std::vector<std::string> lines = absl::StrSplit(exported.out, '\n', absl::SkipEmpty());
  EXPECT_GT(lines.size(), 8u);
  EXPECT_THAT(lines.front(), HasSubstr("\"seq\":1,"));

  ProcessResult verify = Agentrt({"verify", "--db", url_});
  ASSERT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  EXPECT_THAT(verify.out, HasSubstr("intact"));
  EXPECT_THAT(verify.out, HasSubstr("agree with the chain"));

  ProcessResult approve = Agentrt({"approve", "waits", "--db", url_, "--by", "ops", "--yes"});
  ASSERT_EQ(approve.exit_code, 0) << approve.out << approve.err;
  EXPECT_THAT(approve.out, HasSubstr("approved by ops"));
  // Approved once: a second operator's approval finds nothing pending.
  EXPECT_NE(Agentrt({"approve", "waits", "--db", url_, "--by", "ops2", "--yes"}).exit_code, 0);

  // The consumer's driver, in this process, resumes what the operator approved.
  absl::StatusOr<std::unique_ptr<store::Store>> store = runs_->Open();
  ASSERT_OK(store);
  EXPECT_EQ(ReadRun(**store, "waits")->status, RunStatus::kWaitingForApproval);
  EXPECT_EQ(PendingApproval(**store, "waits").status().code(), absl::StatusCode::kNotFound);

  ProcessResult recheck = Agentrt({"recheck", "done", "--db", url_});
  EXPECT_EQ(recheck.exit_code, 0) << recheck.out << recheck.err;
  EXPECT_THAT(recheck.out, HasSubstr("same"));

  ProcessResult again = Agentrt({"verify", "--db", url_});
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_THAT(again.out, Not(HasSubstr("broken")));
}

// `sim run --db URL` keeps each play's database on the server, in a schema of its own, where
// the operator's commands find the same audit log: the chain verifies to the play's own head.
TEST_F(AgentrtServerCliTest, SimRunKeepsEachPlaysDatabaseOnTheServer) {
  // Named for this process: a schema the server kept from an earlier run is never reused.
  std::string name = absl::StrCat("kept_", ::getpid());
  std::string scenario = test_support::TestFile("kept.textproto");
  std::ofstream(scenario) << "name: \"" << name << "\"\n"
                          << R"(
servers {
  name: "fs"
  tools { name: "read" calls { text: "contents" } }
  rules_json: '{"read":{"side_effect":"read_only","timeout":"30s"}}'
}
agent {
  steps { call { tool: "fs_read" } }
  steps { complete_json: '{}' }
}
expect { status: "completed" }
)";
  std::string server = test_support::ServerUrl();
  ProcessResult run = Agentrt({"sim", "run", scenario, "--db", server, "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  std::size_t head_at = run.out.find("\"chain_head\":\"");
  ASSERT_NE(head_at, std::string::npos) << run.out;
  std::string head = run.out.substr(head_at + 14, 64);
  for (const std::string& schema : {"sim_" + name, "sim_" + name + "_2"}) {
    std::string url = absl::StrCat(server, server.find('?') == std::string::npos ? "?" : "&",
                                   "options=-csearch_path%3D", schema);
    ProcessResult verify = Agentrt({"verify", "--db", url});
    EXPECT_EQ(verify.exit_code, 0) << schema << verify.out << verify.err;
    EXPECT_THAT(verify.out, HasSubstr(head)) << schema;
    ProcessResult runs = Agentrt({"runs", "--db", url});
    EXPECT_THAT(runs.out, HasSubstr("COMPLETED")) << schema;
  }
  // Kept databases are never written over: the same scenario again fails, naming the schema.
  ProcessResult again = Agentrt({"sim", "run", scenario, "--db", server});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_THAT(again.err, HasSubstr("sim_" + name));
}

TEST_F(AgentrtServerCliTest, AnUnreachableServerIsAnErrorThatKeepsItsPasswordSecret) {
  ProcessResult r =
      Agentrt({"runs", "--db", "postgresql://ops:s3cret@127.0.0.1:1/none?connect_timeout=2"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("postgres: connect"));
  EXPECT_THAT(r.err + r.out, Not(HasSubstr("s3cret")));
}

}  // namespace
}  // namespace agentrt
