// sim/swarm_report.h: a shard's report as JSON, read back strictly, merged with the other
// shards' into the whole swarm's, and as JUnit.
#include "sim/swarm_report.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.h"

namespace agentrt::sim {
namespace {

using test_support::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Shard `index` of 3 over two scenario files and 9 seeds, failing the seeds in `failing`.
SwarmReport Shard(std::int64_t index, const std::vector<std::pair<int, std::int64_t>>& failing) {
  SwarmReport r;
  r.files = {"a.textproto", "b.textproto"};
  r.scenarios = {"a", "b"};
  r.seeds = 9;
  r.first_seed = 1;
  r.shard_count = 3;
  r.shards = {index};
  r.plays = 6;
  for (auto [file, seed] : failing) {
    r.failures.push_back({r.scenarios[file], r.files[file], seed, absl::StrCat("why ", seed)});
  }
  r.reach.statuses = {{"COMPLETED", 5}, {"FAILED", 1}};
  r.reach.with_effects = 4;
  r.reach.restarted = 1;
  r.reach.disk_faults = index;
  r.wall_ms = 10;
  return r;
}

TEST(SwarmReportTest, AReportReadsBackAsItWasWritten) {
  SwarmReport r = Shard(1, {{0, 4}, {1, 7}});
  r.unreadable = {"c.textproto:3: no"};
  std::string text = ReportJson(r);
  absl::StatusOr<SwarmReport> back = ParseReport(text);
  ASSERT_OK(back);
  EXPECT_EQ(ReportJson(*back), text);
  EXPECT_THAT(text, HasSubstr(R"("shrink":"agentrt sim shrink b.textproto --seed 7")"));
}

TEST(SwarmReportTest, MergedShardsAreTheWholeSwarmInOrderWithMissingShardsNamed) {
  std::vector<SwarmReport> shards = {Shard(2, {{0, 2}, {1, 5}}), Shard(0, {{1, 3}})};
  absl::StatusOr<SwarmReport> merging = MergeReports(shards, {"s2.json", "s0.json"});
  ASSERT_OK(merging);
  SwarmReport& merged = *merging;
  EXPECT_THAT(merged.shards, ElementsAre(0, 2));
  EXPECT_THAT(merged.missing_shards, ElementsAre(1));
  EXPECT_FALSE(ReportPassed(merged));
  EXPECT_EQ(merged.plays, 12);
  EXPECT_EQ(merged.wall_ms, 20);
  EXPECT_EQ(merged.reach.statuses["COMPLETED"], 10u);
  EXPECT_EQ(merged.reach.disk_faults, 2u);
  // By scenario, then seed: where each shard put them does not matter.
  ASSERT_EQ(merged.failures.size(), 3u);
  EXPECT_EQ(merged.failures[0].seed, 2);
  EXPECT_EQ(merged.failures[0].file, "a.textproto");
  EXPECT_EQ(merged.failures[1].seed, 3);
  EXPECT_EQ(merged.failures[2].seed, 5);
  shards.push_back(Shard(1, {}));
  absl::StatusOr<SwarmReport> whole = MergeReports(shards, {"s2", "s0", "s1"});
  ASSERT_OK(whole);
  EXPECT_TRUE(whole->missing_shards.empty());
  EXPECT_EQ(whole->plays, 18);
}

TEST(SwarmReportTest, ReportsOfAnotherSwarmOrTheSameShardTwiceAreRefusedByName) {
  SwarmReport other = Shard(1, {});
  other.seeds = 10;
  EXPECT_THAT(MergeReports({Shard(0, {}), other}, {"x.json", "y.json"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("y.json is of another swarm than x.json: its seeds differ")));
  other = Shard(1, {});
  other.files[1] = "c.textproto";
  EXPECT_THAT(MergeReports({Shard(0, {}), other}, {"x.json", "y.json"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("scenario files differ")));
  other = Shard(1, {});
  other.shard_count = 4;
  EXPECT_THAT(MergeReports({Shard(0, {}), other}, {"x.json", "y.json"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("shard counts differ")));
  EXPECT_THAT(MergeReports({Shard(0, {}), Shard(0, {})}, {"x.json", "y.json"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("shard 0/3 is in both x.json and y.json")));
  EXPECT_THAT(MergeReports({}, {}), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(MergeReports({Shard(0, {})}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("0 names for 1 reports")));
}

// A report comes from another machine: each field is checked and a wrong one named.
TEST(SwarmReportTest, AMalformedReportIsRefusedNamingTheField) {
  std::string good = ReportJson(Shard(1, {{0, 4}}));
  struct Case {
    std::string from, to, error;
  };
  std::vector<Case> cases = {
      {R"("format":"agentrt.sim.swarm/1")", R"("format":"agentrt.sim.swarm/2")",
       "format is \"agentrt.sim.swarm/2\", not \"agentrt.sim.swarm/1\""},
      {R"("seed":4)", R"("seed":"4")", "failures[0].seed is a string, not a number"},
      {R"("seed":4)", R"("seed":4.5)", "failures[0].seed is 4.5, not an integer"},
      {R"("plays":6)", R"("plays":-1)", "plays is -1, not an integer of at least 0"},
      {R"("shards":[1])", R"("shards":[3])", "shards[0] is not a shard index below shard_count 3"},
      {R"("scenarios":["a","b"])", R"("scenarios":["a"])", "scenarios has 1 names for 2 files"},
      {R"("file":"a.textproto","name")", R"("file":"z.textproto","name")",
       "failures[0].file \"z.textproto\" is not one of the report's files"},
      {R"("with_effects":4)", R"("with_effects":null)", "reach.with_effects is missing"},
      {R"("COMPLETED":5)", R"("COMPLETED":true)",
       "reach.statuses.COMPLETED is a boolean, not a number"},
      {R"("wall_ms":10)", R"("wall_ms":[])", "wall_ms is an array, not a number"},
  };
  for (const Case& c : cases) {
    ASSERT_THAT(good, HasSubstr(c.from));
    std::string bad = absl::StrReplaceAll(good, {{c.from, c.to}});
    EXPECT_THAT(ParseReport(bad), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.error)))
        << bad;
  }
  EXPECT_THAT(ParseReport("[]"), StatusIs(absl::StatusCode::kInvalidArgument,
                                          HasSubstr("the report is an array, not an object")));
  EXPECT_FALSE(ParseReport("{\"format\":").ok());
}

TEST(SwarmReportTest, JunitHasACasePerScenarioFailingSeedAndMissingShardEscaped) {
  SwarmReport r = Shard(0, {{1, 3}});
  r.failures[0].difference = "expected <a> & \"b\"\n";
  r.missing_shards = {1, 2};
  r.shards = {0};
  std::string xml = ReportJunit(r);
  EXPECT_THAT(xml, HasSubstr(R"(tests="5" failures="3")"));
  EXPECT_THAT(xml, HasSubstr(R"(name="a, seeds 1..9" file="a.textproto")"));
  EXPECT_THAT(xml, HasSubstr(R"(<failure message="expected &lt;a&gt; &amp; &quot;b&quot;)"));
  EXPECT_THAT(xml, HasSubstr("reproduce: agentrt sim shrink b.textproto --seed 3"));
  EXPECT_THAT(xml, HasSubstr(R"(name="shard 2/3")"));
  EXPECT_THAT(xml, ::testing::Not(HasSubstr("\"b\"\n")));
}

}  // namespace
}  // namespace agentrt::sim
