// One vocabulary: every event type and end reason the runtime writes is defined once
// (runtime/events.h, runtime/reasons.h) and documented (docs/formats/events.md,
// docs/formats/database.md). Stories that together write every event type are run over real
// stores; what they wrote, the lists and the documentation must agree, and so must the golden
// trace's types.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/approvals.h"
#include "runtime/driver.h"
#include "runtime/events.h"
#include "runtime/reasons.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "tests/runtime/post_tool.h"
#include "tests/support/status_matchers.h"
#include "tests/support/tamper.h"
#include "tests/support/test_store.h"

namespace agentrt {
namespace {

using ::agentrt::scripted::Call;
using ::agentrt::scripted::Complete;
using ::agentrt::scripted::Fail;
using ::testing::IsSubsetOf;

constexpr absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

std::string ReadSource(const std::string& relative) {
  std::ifstream in(std::filesystem::path(AGENTRT_SOURCE_DIR) / relative, std::ios::binary);
  EXPECT_TRUE(in.good()) << relative;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The rows of the table under `heading` in a Markdown file, each as (its first backticked
// word, the whole row).
std::vector<std::pair<std::string, std::string>> TableRows(const std::string& relative,
                                                           const std::string& heading) {
  std::string text = ReadSource(relative);
  std::size_t at = text.find("\n" + heading + "\n");
  EXPECT_NE(at, std::string::npos) << relative << " has no section " << heading;
  std::vector<std::pair<std::string, std::string>> rows;
  if (at == std::string::npos) return rows;
  std::size_t end = text.find("\n## ", at + 1);
  for (absl::string_view line :
       absl::StrSplit(absl::string_view(text).substr(at, end - at), '\n')) {
    if (!absl::StartsWith(line, "| `")) continue;
    std::size_t close = line.find('`', 3);
    rows.emplace_back(std::string(line.substr(3, close - 3)), std::string(line));
  }
  return rows;
}

std::vector<std::string> Keys(const std::vector<std::pair<std::string, std::string>>& rows) {
  std::vector<std::string> keys;
  for (const auto& [key, row] : rows) keys.push_back(key);
  return keys;
}

class ReadTool final : public Tool {
 public:
  explicit ReadTool(std::string name, SideEffect effect = SideEffect::kReadOnly)
      : name_(std::move(name)), effect_(effect) {}
  ToolSpec Spec() const override {
    return ToolSpec{name_, "Reads.", R"({"type":"object"})", effect_, absl::Seconds(5), false};
  }
  absl::StatusOr<ToolResult> Call(const ToolCall&) override {
    return ToolResult{R"({"text":"same"})", "read"};
  }

 private:
  std::string name_;
  SideEffect effect_;
};

// An agent that asks the model at its first step (failing once, then answering) and then
// follows its script.
class Agent final : public agentrt::Agent {
 public:
  explicit Agent(std::vector<Decision> script, bool ask = false)
      : script_(std::move(script)), ask_(ask) {}
  absl::StatusOr<Decision> Decide(const StepInput& input) override {
    if (ask_ && input.steps.empty()) {
      EXPECT_THAT(input.model->Generate(ModelRequest{}),
                  Not(IsOk()));  // a served error: not retried
      EXPECT_OK(input.model->Generate(ModelRequest{}));
    }
    if (next_ >= script_.size()) return absl::UnavailableError("the script ran out");
    return script_[next_++];
  }

 private:
  std::vector<Decision> script_;
  std::size_t next_ = 0;
  bool ask_;
};

class OnceServedModel final : public Model {
 public:
  std::string Name() const override { return "m"; }
  absl::StatusOr<ModelResponse> Generate(const ModelRequest&, absl::Time) override {
    if (calls_++ == 0) return ServedError("bad request", Usage{3, 0, 0});
    ModelResponse r;
    r.stop_reason = "end_turn";
    r.usage = Usage{3, 1, 0};
    return r;
  }

 private:
  int calls_ = 0;
};

// Every story's store, and what it wrote.
class VocabularyTest : public ::testing::Test {
 protected:
  struct World {
    world::ManualClock clock{kStart};
    world::ManualClock lease_clock{kStart};
    world::SeededEntropy entropy{3};
    std::unique_ptr<store::Store> store = *test_support::OpenTestStore(clock);
    ReadTool read{"read"};
    ReadTool wipe{"wipe", SideEffect::kDestructive};
    testing::PostTool post;
    OnceServedModel model;
    std::unique_ptr<Policy> policy = DefaultPolicy();

    std::unique_ptr<Driver> NewDriver(agentrt::Agent* agent) {
      DriverOptions options;
      options.agent = agent;
      options.policy = policy.get();
      options.tools = {&read, &wipe, &post};
      options.scheduler = &lease_clock;
      options.model.model = &model;
      options.model.prices = Free({"m"});
      return *Driver::Create(*store, clock, entropy, options);
    }
  };

  // Runs `story` in a fresh world and keeps the types and reasons it wrote.
  void Story(const std::function<void(World&)>& story) {
    World w;
    story(w);
    std::vector<store::Event> events = *w.store->ListEvents("");
    for (const store::Event& e : events) {
      types_.insert(e.type);
      if (e.type == event::kRunFinished) {
        std::string payload = e.payload_json;
        std::size_t at = payload.find(R"("reason":")");
        ASSERT_NE(at, std::string::npos);
        at += 10;
        reasons_.insert(payload.substr(at, payload.find('"', at) - at));
      }
    }
  }

  void RunAll() {
    // Allowed calls, a denial, then the agent gives up.
    Story([](World& w) {
      Agent agent({Call("read", "{}"), Call("wipe", "{}"), Fail("gave up")});
      ASSERT_OK(w.NewDriver(&agent)->StartWithId("r", "read", Limits{}));
    });
    // A model call that fails once, then the goal completes.
    Story([](World& w) {
      Agent agent({Complete()}, /*ask=*/true);
      ASSERT_OK(w.NewDriver(&agent)->StartWithId("r", "ask", Limits{}));
    });
    // The same call and observation again and again.
    Story([](World& w) {
      Agent agent({Call("read", "{}"), Call("read", "{}"), Call("read", "{}")});
      Limits limits;
      limits.loop_threshold = 2;
      ASSERT_OK(w.NewDriver(&agent)->StartWithId("r", "loop", limits));
    });
    // A step limit.
    Story([](World& w) {
      Agent agent({Call("read", "{}"), Call("read", R"({"n":2})")});
      Limits limits;
      limits.max_steps = 1;
      ASSERT_OK(w.NewDriver(&agent)->StartWithId("r", "limit", limits));
    });
    // A pause for a human, a grant and the resumed call.
    Story([](World& w) {
      Agent agent({Call("post", R"({"to":"ops"})"), Complete()});
      std::unique_ptr<Driver> driver = w.NewDriver(&agent);
      ASSERT_OK(driver->StartWithId("r", "post", Limits{}));
      absl::StatusOr<Approval> approved =
          Approve(*w.store, w.clock, "r", PendingApproval(*w.store, "r")->id, Decider{"ops", ""});
      ASSERT_OK(approved);
      ASSERT_OK(driver->Resume("r"));
    });
    // A process that died during a side effect: the lease is taken over, the step marked
    // interrupted, an operator asked, and the operator rejects.
    Story([](World& w) {
      Agent agent({Call("post", R"({"to":"ops"})")});
      ASSERT_OK(w.NewDriver(&agent)->StartWithId("r", "crash", Limits{}));
      ASSERT_OK(w.store->Write([](store::Transaction& tx) -> absl::Status {
        for (const char* sql :
             {"DELETE FROM approvals", "UPDATE steps SET status = 'executing', policy_json = ''",
              "UPDATE runs SET status = 'RUNNING', lease_owner = 'dead/1', "
              "lease_expires_at = '2000-01-01T00:00:00.000000000Z'"}) {
          if (absl::StatusOr<std::int64_t> n =
                  test_support::TamperIn(tx, "a crash while posting", sql);
              !n.ok()) {
            return n.status();
          }
        }
        return absl::OkStatus();
      }));
      Agent after({Complete()});
      ASSERT_OK(w.NewDriver(&after)->Resume("r"));
      absl::StatusOr<Approval> rejected =
          Reject(*w.store, w.clock, "r", PendingApproval(*w.store, "r")->id,
                 Decider{"ops", "it went out"});
      ASSERT_OK(rejected);
    });
  }

  std::set<std::string> types_;
  std::set<std::string> reasons_;
};

TEST_F(VocabularyTest, TheRuntimeWritesExactlyTheListedEventTypes) {
  RunAll();
  std::set<std::string> listed(event::kAll.begin(), event::kAll.end());
  EXPECT_EQ(listed.size(), event::kAll.size()) << "a type is listed twice";
  EXPECT_EQ(types_, listed);  // nothing unlisted is written, and no listed type is dead
  EXPECT_THAT(reasons_,
              IsSubsetOf(std::set<std::string>(reason::kAll.begin(), reason::kAll.end())));
}

TEST_F(VocabularyTest, EveryEventTypeIsDocumentedInTheListsOrder) {
  EXPECT_THAT(Keys(TableRows("docs/formats/events.md", "## Event types")),
              ElementsAreArray(event::kAll.begin(), event::kAll.end()));
}

TEST_F(VocabularyTest, EveryReasonIsDocumentedInTheListsOrderAndLimitsAreMarked) {
  std::vector<std::pair<std::string, std::string>> rows =
      TableRows("docs/formats/database.md", "## Run statuses and end reasons");
  EXPECT_THAT(Keys(rows), ElementsAreArray(reason::kAll.begin(), reason::kAll.end()));
  for (const auto& [key, row] : rows) {
    EXPECT_EQ(absl::EndsWith(row, "(limit) |"), reason::IsLimit(key)) << row;
  }
}

TEST_F(VocabularyTest, TheGoldenTracesTypesAreListed) {
  std::set<std::string> listed(event::kAll.begin(), event::kAll.end());
  std::string golden = ReadSource("tests/golden/driver_scripted_trace.txt");
  int lines = 0;
  for (absl::string_view line : absl::StrSplit(golden, '\n', absl::SkipEmpty())) {
    std::vector<absl::string_view> fields = absl::StrSplit(line, ' ');
    ASSERT_GE(fields.size(), 3u) << line;
    EXPECT_TRUE(listed.contains(std::string(fields[2]))) << fields[2];
    ++lines;
  }
  EXPECT_GT(lines, 0);
}

}  // namespace
}  // namespace agentrt
