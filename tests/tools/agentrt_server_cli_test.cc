// The operator commands against a PostgreSQL server (docs/scale-out.md): the runs are written by
// a consumer's driver in this process, and `agentrt runs`, `show`, `events`, `export`, `verify`,
// `approve` and `recheck` read and decide them from processes of their own, as an operator on
// another host would; the consumer's own store sees each decision at once. Runs only in the suite's
// "[postgres]" registration (tests/support/test_store.h); skipped elsewhere.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/approvals.h"
#include "runtime/records/run_reader.h"
#include "tests/support/status_matchers.h"
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

TEST_F(AgentrtServerCliTest, AnUnreachableServerIsAnErrorThatKeepsItsPasswordSecret) {
  ProcessResult r =
      Agentrt({"runs", "--db", "postgresql://ops:s3cret@127.0.0.1:1/none?connect_timeout=2"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("postgres: connect"));
  EXPECT_THAT(r.err + r.out, Not(HasSubstr("s3cret")));
}

}  // namespace
}  // namespace agentrt
