// The proxy's startup checks (mcp/proxy/open.h, reach_check.h) on real files, and the index's
// rows without runs (runtime/records/proxy_calls.h): reference/mcp.md §8.4, §10.10, §10.12.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "mcp/proxy/open.h"
#include "mcp/proxy/proxy_policy.h"
#include "mcp/proxy/reach_check.h"
#include "mcp/proxy/request_key.h"
#include "runtime/driver.h"
#include "runtime/records/proxy_calls.h"
#include "runtime/world/environment.h"
#include "runtime/world/real_filesystem.h"
#include "tests/mcp/proxy/proxy_harness.h"
#include "tests/support/status_matchers.h"

namespace agentrt::proxy::testing {
namespace {

using ::testing::UnorderedElementsAre;

namespace fs = std::filesystem;

TEST(ReachCandidatesTest, ReadsCommonSpellings) {
  EXPECT_THAT(ReachCandidates("--root=/srv/x", "/home/me"), ElementsAre("--root=/srv/x", "/srv/x"));
  EXPECT_THAT(ReachCandidates("-r/srv/x", "/home/me"), ElementsAre("-r/srv/x", "/srv/x"));
  EXPECT_THAT(ReachCandidates("--root:/srv/x", "/home/me"), ElementsAre("--root:/srv/x", "/srv/x"));
  EXPECT_THAT(ReachCandidates("FILE:///srv/x", "/home/me"),
              UnorderedElementsAre("FILE:///srv/x", "///srv/x", "/srv/x"));
  EXPECT_THAT(ReachCandidates("~", "/home/me"), ElementsAre("/home/me"));
  EXPECT_THAT(ReachCandidates("~/proxy", "/home/me"), ElementsAre("/home/me/proxy"));
  EXPECT_THAT(ReachCandidates("~nobody", "/home/me"), ElementsAre("~nobody"));
  EXPECT_THAT(ReachCandidates("--", "/home/me"), ElementsAre("--"));
}

class ReachTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = test_support::TestFolder() / "home";
    fs::create_directories(root_ / "agentrt");
    fs::create_directories(root_ / "sandbox");
    config_.path = (root_ / "agentrt" / "config.json").string();
    std::ofstream(config_.path) << "{}";
    config_.database = (root_ / "agentrt" / "proxy.db").string();  // not made yet
    mcp::ServerConfig s;
    s.name = "bank";
    s.manifest = (root_ / "agentrt" / "bank.json").string();
    config_.servers.push_back(s);
  }
  absl::Status Check(std::string arg, bool skip = false) {
    config_.servers[0].command = {"server", std::move(arg)};
    config_.servers[0].skip_path_check = skip;
    world::FixedEnvironment env({{"HOME", root_.string()}});
    return CheckReach(config_, files_, &env);
  }

  fs::path root_;
  mcp::Config config_;
  world::RealFilesystem files_;
};

TEST_F(ReachTest, RefusesWhatReachesTheProxysFiles) {
  std::string dir = (root_ / "agentrt").string();
  fs::create_directory_symlink(root_ / "agentrt", root_ / "link");
  for (const std::string& arg :
       {dir, dir + "/", (root_ / "link").string(), "--root=" + dir, "-r" + dir, "file://" + dir,
        "--root=file://" + dir, root_.string(), std::string("/"), config_.database,
        std::string("~"), std::string("~/agentrt"),
        (root_ / "sandbox" / ".." / "agentrt").string()}) {
    absl::Status s = Check(arg);
    EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("skip_path_check")))
        << arg;
    EXPECT_THAT(s.message(), HasSubstr("which the proxy's policy and approvals depend on")) << arg;
  }
  EXPECT_OK(Check(dir, /*skip=*/true));
}

TEST_F(ReachTest, AcceptsWhatReachesElsewhere) {
  for (const std::string& arg :
       {(root_ / "sandbox").string(), std::string("~/sandbox"), std::string("--flag"),
        std::string("not-a-path"), std::string("-v"), std::string("-p8080"),
        std::string("--port=8080"), std::string("http://localhost:8080/x"), std::string("a:b"),
        std::string("--"), std::string("-"), std::string("~nobody")}) {
    EXPECT_OK(Check(arg)) << arg;
  }
}

TEST(DatabaseFileTest, RefusesALinkAFolderAndAFileOthersMayWrite) {
  world::RealFilesystem files;
  fs::path dir = test_support::TestFolder();
  EXPECT_OK(CheckDatabaseFile(files, (dir / "absent.db").string()));
  std::ofstream((dir / "real.db").string()) << "";
  ::chmod((dir / "real.db").c_str(), 0600);
  EXPECT_OK(CheckDatabaseFile(files, (dir / "real.db").string()));
  fs::create_symlink(dir / "real.db", dir / "link.db");
  EXPECT_THAT(CheckDatabaseFile(files, (dir / "link.db").string()),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("symbolic link")));
  EXPECT_THAT(CheckDatabaseFile(files, dir.string()),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("not a regular file")));
  ::chmod((dir / "real.db").c_str(), 0646);
  EXPECT_THAT(CheckDatabaseFile(files, (dir / "real.db").string()),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("database: "), HasSubstr("0646"))));
}

class IndexTest : public ProxyHarness {
 protected:
  absl::StatusOr<bool> Claim(std::string_view key, std::string_view run_id,
                             std::int64_t seen_open) {
    bool claimed = false;
    absl::Status s = store_->Write([&](store::Transaction& tx) -> absl::Status {
      absl::StatusOr<bool> ok = rows::ClaimProxyCall(tx,
                                                     {.session = "test",
                                                      .request_key = key,
                                                      .tool = "bank_balance",
                                                      .side_effect = "read_only",
                                                      .run_id = run_id,
                                                      .at = "2027-01-15T08:00:00.000000000Z"},
                                                     seen_open);
      if (!ok.ok()) return ok.status();
      claimed = *ok;
      return absl::OkStatus();
    });
    if (!s.ok()) return s;
    return claimed;
  }
};

TEST_F(IndexTest, ARowWithoutARunIsBegunUnderItsId) {
  Open();
  std::string key = *RequestKey("bank_balance", R"({"account":"A-1"})");
  ASSERT_THAT(Claim(key, "test.never-begun", 0), IsOkAndHolds(true));
  EXPECT_EQ(Call("bank_balance", R"({"account":"A-1"})").text, "account A-1 holds 120.00 EUR");
  EXPECT_THAT(RunIds(), ElementsAre("test.never-begun"));
}

// A claimant that stalled between its claim and its Begin: another call began the run under the
// claimed row's id meanwhile, so the late Begin is refused and one run stands.
TEST_F(IndexTest, ALateBeginLeavesNoRunBehind) {
  Open();
  std::string key = *RequestKey("bank_balance", R"({"account":"A-1"})");
  ASSERT_THAT(Claim(key, "test.stalled", 0), IsOkAndHolds(true));
  EXPECT_EQ(Call("bank_balance", R"({"account":"A-1"})").text, "account A-1 holds 120.00 EUR");
  ProxyPolicy policy(settings_.policy, tools_, settings_.policy_id);
  TerminalTool balance(&balance_);
  DriverOptions options;
  options.policy = &policy;
  options.tools = {&balance};
  options.lease_owner = "stalled";
  options.scheduler = &clock_;
  absl::StatusOr<std::unique_ptr<Driver>> late = Driver::Create(*store_, clock_, entropy_, options);
  ASSERT_OK(late);
  EXPECT_THAT((*late)->Begin("test.stalled", "call bank_balance").status(),
              StatusIs(absl::StatusCode::kAlreadyExists));
  EXPECT_THAT(RunIds(), ElementsAre("test.stalled"));
}

TEST_F(IndexTest, AClaimIsACompareAndSetOnTheOpenRow) {
  Open();
  ASSERT_THAT(Claim("k", "test.a", 0), IsOkAndHolds(true));
  // A claimant that saw no open row, or another one, comes second and writes nothing.
  EXPECT_THAT(Claim("k", "test.b", 0), IsOkAndHolds(false));
  std::vector<rows::ProxyCall> rows;
  ASSERT_OK(store_->Read([&](store::Transaction& tx) -> absl::Status {
    absl::StatusOr<std::vector<rows::ProxyCall>> r =
        rows::ProxyCallsForKey(tx, "test", "k", "", 10);
    if (!r.ok()) return r.status();
    rows = *std::move(r);
    return absl::OkStatus();
  }));
  ASSERT_THAT(rows, SizeIs(1));
  EXPECT_EQ(rows[0].run_id, "test.a");
  EXPECT_THAT(Claim("k", "test.c", rows[0].id + 99), IsOkAndHolds(false));
  EXPECT_THAT(Claim("k", "test.c", rows[0].id), IsOkAndHolds(true));
}

TEST_F(IndexTest, ARowWithoutARunIsSettledOnlyWhileItHasNone) {
  Open();
  ASSERT_THAT(Claim("k1", "test.empty", 0), IsOkAndHolds(true));
  Call("bank_balance", R"({"account":"other"})");
  std::vector<rows::ProxyCall> rows;
  ASSERT_OK(store_->Read([&](store::Transaction& tx) -> absl::Status {
    absl::StatusOr<std::vector<rows::ProxyCall>> r = rows::UnsettledProxyCalls(tx, "test", 10);
    if (!r.ok()) return r.status();
    rows = *std::move(r);
    return absl::OkStatus();
  }));
  ASSERT_THAT(rows, SizeIs(2));
  auto settle = [&](const rows::ProxyCall& row) {
    bool settled = false;
    EXPECT_OK(store_->Write([&](store::Transaction& tx) -> absl::Status {
      absl::StatusOr<bool> s =
          rows::SettleUnbegunProxyCall(tx, row.id, "2027-01-15T08:00:00.000000000Z");
      if (!s.ok()) return s.status();
      settled = *s;
      return absl::OkStatus();
    }));
    return settled;
  };
  EXPECT_EQ(rows[0].run_id, "test.empty");
  EXPECT_TRUE(settle(rows[0]));
  EXPECT_FALSE(settle(rows[1]));  // its run exists: never "none" by this statement
}

}  // namespace
}  // namespace agentrt::proxy::testing
