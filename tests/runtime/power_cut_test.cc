// Durable intent (docs/architecture.md, "The store"; ADR 10): the store commits with
// synchronous=NORMAL, so a power cut may lose the last commits — but never the record that a call
// whose effect cannot be taken back started, because that commit is synced before the call runs.
// Proven with a VFS that forgets every write not synced (power_cut_vfs.h): it cuts the power
// at every write of a scripted run with side effects; each
// disk it leaves is reopened and the run resumed, and then no side effect has run twice, what
// was synced is there, the chain verifies and the file opened.
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/approvals.h"
#include "runtime/driver.h"
#include "runtime/events.h"
#include "runtime/records/rows.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/schema.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "tests/runtime/store/power_cut_vfs.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"

namespace agentrt {
namespace {

namespace fs = std::filesystem;

constexpr absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

// Pays (a side effect the world keeps: once it happened, it happened) or looks (read-only).
class WorldTool final : public Tool {
 public:
  WorldTool(std::string name, SideEffect effect, std::vector<std::string>* effects)
      : name_(std::move(name)), effect_(effect), effects_(effects) {}
  ToolSpec Spec() const override {
    return ToolSpec{
        name_,
        "A call of the scripted world.",
        R"({"type":"object","properties":{"call":{"type":"string"}},"required":["call"]})",
        effect_,
        absl::Seconds(10),
        false};
  }
  absl::StatusOr<ToolResult> Call(const ToolCall& call) override {
    if (effect_ != SideEffect::kReadOnly) effects_->push_back(call.args);
    return ToolResult{R"({"ok":true})", name_ + " done"};
  }

 private:
  std::string name_;
  SideEffect effect_;
  std::vector<std::string>* effects_;
};

// Decides by step index, so a resumed run follows the same script.
class IndexedAgent final : public Agent {
 public:
  explicit IndexedAgent(std::vector<Decision> script) : script_(std::move(script)) {}
  absl::StatusOr<Decision> Decide(const StepInput& input) override {
    std::size_t index = static_cast<std::size_t>(input.run.step_count - 1);
    return index < script_.size() ? script_[index] : script_.back();
  }

 private:
  std::vector<Decision> script_;
};

std::vector<Decision> Script(std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<Decision> script;
  for (int i = 0; i < 12; ++i) {
    Decision d;
    d.kind = "tool_call";
    d.tool = random() % 3 == 0 ? "look" : "pay";
    d.args = R"({"call":"c)" + std::to_string(i) + R"("})";
    script.push_back(d);
  }
  Decision done;
  done.kind = "complete";
  script.push_back(done);
  return script;
}

// One world: a store over `options`, the two tools, the agent, a driver.
struct World {
  World(const std::string& db, store::StoreOptions options, std::uint64_t seed,
        world::ManualClock& lease_clock)
      : agent(Script(seed)) {
    absl::StatusOr<std::unique_ptr<store::Store>> opened = records::OpenStore(db, clock, options);
    open = opened.status();
    if (!opened.ok()) return;
    store = *std::move(opened);
    DriverOptions o;
    o.agent = &agent;
    o.policy = policy.get();
    o.tools = {&pay, &look};
    o.scheduler = &lease_clock;
    driver = *Driver::Create(*store, clock, entropy, o);
  }

  world::ManualClock clock{kStart};
  world::SeededEntropy entropy{99};
  std::vector<std::string> effects;
  WorldTool pay{"pay", SideEffect::kLocalMutation, &effects};
  WorldTool look{"look", SideEffect::kReadOnly, &effects};
  IndexedAgent agent;
  std::unique_ptr<Policy> policy = DefaultPolicy();
  absl::Status open;
  std::unique_ptr<store::Store> store;
  std::unique_ptr<Driver> driver;
};

class PowerCutTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test_support::TestFolder(); }

  // What a cut at one write left: the disk (one of the durable states, by sync count) and what
  // had happened in the world by then.
  struct Cut {
    int write = 0;
    int generation = 0;           // syncs before the cut
    std::size_t effects = 0;      // side effects that had happened
    std::int64_t synced_seq = 0;  // the newest event known committed at the last sync
  };

  // Runs the scripted run once over the power-cut VFS, noting a cut at every write and keeping
  // every durable state the run went through.
  std::vector<Cut> Record(std::uint64_t seed, std::vector<std::string>* effects_out) {
    fs::path dir = Dir(seed);
    absl::StatusOr<std::unique_ptr<testing::PowerCutVfs>> vfs =
        testing::PowerCutVfs::Register("agentrt-power-cut");
    EXPECT_OK(vfs);
    std::vector<Cut> cuts;
    int generation = 0;
    std::int64_t committed_seq = 0, synced_seq = 0;
    fs::path original = dir / "original";
    fs::create_directories(original);
    (*vfs)->SaveDurable((dir / "gen-0").string()).IgnoreError();  // nothing yet
    {
      world::ManualClock lease_clock(kStart);
      World w((original / "run.db").string(), {.vfs = (*vfs)->name()}, seed, lease_clock);
      EXPECT_OK(w.open);
      w.store->AddObserver([&](const store::Event& e) { committed_seq = e.seq; });
      (*vfs)->OnSync([&](const std::string&) {
        ++generation;
        synced_seq = committed_seq;
        EXPECT_OK((*vfs)->SaveDurable((dir / ("gen-" + std::to_string(generation))).string()));
      });
      (*vfs)->OnWrite([&](int index) {
        cuts.push_back(Cut{index, generation, w.effects.size(), synced_seq});
      });
      absl::StatusOr<agentrt::Run> run =
          w.driver->StartWithId("r", "pay what the script says", Limits{});
      EXPECT_OK(run);
      EXPECT_EQ(run->status, RunStatus::kCompleted);
      *effects_out = w.effects;
      (*vfs)->OnWrite(nullptr);
      (*vfs)->OnSync(nullptr);
    }
    return cuts;
  }

  // Restores the disk a cut left, resumes the run and checks the invariants. The operator,
  // asked about a side effect whose outcome is unknown, rejects it: nothing runs again.
  void Check(std::uint64_t seed, const Cut& cut, const std::vector<std::string>& recorded) {
    SCOPED_TRACE(absl::StrCat("seed ", seed, ", power cut at write ", cut.write, " (after sync ",
                              cut.generation, ")"));
    fs::path disk = Dir(seed) / ("cut-" + std::to_string(cut.write));
    fs::remove_all(disk);
    fs::copy(Dir(seed) / ("gen-" + std::to_string(cut.generation)), disk,
             fs::copy_options::recursive);
    world::ManualClock lease_clock(kStart + absl::Hours(1));  // the dead owner's lease lapsed
    World w((disk / "run.db").string(), {}, seed, lease_clock);
    ASSERT_OK(w.open) << "the file does not open";
    absl::StatusOr<store::ChainReport> chain = w.store->VerifyEvents();
    ASSERT_OK(chain);
    EXPECT_FALSE(chain->broken.has_value()) << chain->broken->detail;
    absl::StatusOr<store::ChainHead> head = w.store->Head();
    ASSERT_OK(head);
    EXPECT_GE(head->seq, cut.synced_seq) << "a synced commit was lost";

    std::vector<std::string> before(recorded.begin(),
                                    recorded.begin() + static_cast<long>(cut.effects));
    absl::StatusOr<agentrt::Run> run = ReadRun(*w.store, "r");
    if (!run.ok()) {
      EXPECT_TRUE(absl::IsNotFound(run.status())) << run.status();
      EXPECT_THAT(before, ::testing::IsEmpty()) << "an effect happened for a run the disk lost";
      return;
    }
    // Every effect that happened has its start on the disk.
    std::vector<Step> steps = *ReadSteps(*w.store, "r");
    std::multiset<std::string> started;
    for (const Step& s : steps) {
      if (s.decision && s.decision->tool == "pay" && s.status != StepStatus::kDeciding &&
          s.status != StepStatus::kAwaitingApproval) {
        started.insert(s.decision->args);
      }
    }
    for (const std::string& effect : before) {
      EXPECT_TRUE(started.contains(effect)) << "the start of " << effect << " was lost";
    }
    // The tables and the log agree at every cut: each commit wrote a state change and its
    // events together (a step's row, the run's count of steps and step.started in one; a
    // step's end and its event in one; a tool's start and step.tool_started in one).
    absl::StatusOr<std::vector<store::Event>> events = w.store->ListEvents("r");
    ASSERT_OK(events);
    std::map<std::string, std::size_t> logged;
    for (const store::Event& e : *events) ++logged[e.type];
    std::map<StepStatus, std::size_t> statuses;
    for (const Step& s : steps) ++statuses[s.status];
    EXPECT_EQ(static_cast<std::size_t>(run->step_count), steps.size());
    EXPECT_EQ(logged[std::string(event::kStepStarted)], steps.size());
    EXPECT_EQ(
        logged[std::string(event::kStepToolFinished)] + logged[std::string(event::kStepFailed)],
        statuses[StepStatus::kDone] + statuses[StepStatus::kFailed]);
    EXPECT_EQ(logged[std::string(event::kStepInterrupted)], statuses[StepStatus::kInterrupted]);
    EXPECT_GE(logged[std::string(event::kStepToolStarted)], statuses[StepStatus::kExecuting]);
    // Resume to the end.
    for (int attempt = 0; attempt < 4 && !IsTerminal(run->status); ++attempt) {
      if (run->status == RunStatus::kWaitingForApproval) {
        absl::StatusOr<Approval> pending = PendingApproval(*w.store, "r");
        ASSERT_OK(pending);
        ASSERT_EQ(pending->kind, kInterruptedSideEffectKind);
        ASSERT_OK(Reject(*w.store, w.clock, "r", pending->id, Decider{"ops", "unknown"}));
      } else {
        run = w.driver->Resume("r");
        ASSERT_OK(run);
      }
      run = ReadRun(*w.store, "r");
      ASSERT_OK(run);
    }
    EXPECT_TRUE(IsTerminal(run->status)) << ToString(run->status);
    std::map<std::string, int> executions;
    for (const std::string& e : before) ++executions[e];
    for (const std::string& e : w.effects) ++executions[e];
    for (const auto& [call, n] : executions) EXPECT_EQ(n, 1) << call << " ran " << n << " times";
    EXPECT_FALSE(w.store->VerifyEvents()->broken.has_value());
    fs::remove_all(disk);
  }

  fs::path Dir(std::uint64_t seed) const { return dir_ / ("seed-" + std::to_string(seed)); }

  fs::path dir_;
};

TEST_F(PowerCutTest, APowerCutAtAnyWriteNeverRunsASideEffectTwiceAndLosesNothingSynced) {
  int checked = 0;
  for (std::uint64_t seed : {1u, 2u}) {
    std::vector<std::string> recorded;
    std::vector<Cut> cuts = Record(seed, &recorded);
    ASSERT_GE(cuts.size(), 100u);
    ASSERT_FALSE(recorded.empty());
    for (const Cut& cut : cuts) {
      Check(seed, cut, recorded);
      ++checked;
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_GE(checked, 200);
  std::cout << "power cuts checked: " << checked << "\n";
}

TEST_F(PowerCutTest, ADurableWriteIsSyncedAndAnOrdinaryOneIsNot) {
  absl::StatusOr<std::unique_ptr<testing::PowerCutVfs>> vfs =
      testing::PowerCutVfs::Register("agentrt-power-cut");
  ASSERT_OK(vfs);
  world::ManualClock clock(kStart);
  auto write = [](store::Store& store, std::string id, store::WriteOptions options) {
    return store.Write(
        [&](store::Transaction& tx) {
          return rows::InsertRun(tx, {.id = id,
                                      .goal = "g",
                                      .limits_json = "{}",
                                      .created_at = "2027-01-15T08:00:00.000000000Z"});
        },
        options);
  };
  for (store::Durability durability : {store::Durability::kNormal, store::Durability::kFull}) {
    SCOPED_TRACE(durability == store::Durability::kNormal ? "normal" : "full");
    fs::path db = dir_ / (durability == store::Durability::kNormal ? "normal.db" : "full.db");
    std::unique_ptr<store::Store> store =
        *records::OpenStore(db.string(), clock, {.durability = durability, .vfs = (*vfs)->name()});
    int before = (*vfs)->syncs();
    ASSERT_OK(write(*store, "ordinary", {}));
    int after_ordinary = (*vfs)->syncs();
    ASSERT_OK(write(*store, "durable", {.durable = true}));
    int after_durable = (*vfs)->syncs();
    ASSERT_OK(write(*store, "ordinary-again", {}));
    if (durability == store::Durability::kNormal) {
      EXPECT_EQ(after_ordinary, before);          // NORMAL: no sync at a commit
      EXPECT_GT(after_durable, after_ordinary);   // but the durable one is synced
      EXPECT_EQ((*vfs)->syncs(), after_durable);  // and NORMAL comes back after it
    } else {
      EXPECT_GT(after_ordinary, before);  // FULL: every commit is synced anyway
      EXPECT_GT((*vfs)->syncs(), after_durable);
    }
  }
  // A store in memory has nothing to sync; a durable write is an ordinary one.
  std::unique_ptr<store::Store> memory = *records::OpenStoreInMemory(clock);
  EXPECT_OK(write(*memory, "durable", {.durable = true}));
}

TEST_F(PowerCutTest, AModelCallIsOnDiskBeforeTheModelIsCalled) {
  absl::StatusOr<std::unique_ptr<testing::PowerCutVfs>> vfs =
      testing::PowerCutVfs::Register("agentrt-power-cut");
  ASSERT_OK(vfs);
  struct Probe final : Model, Agent {
    explicit Probe(testing::PowerCutVfs& v) : vfs(v) {}
    std::string Name() const override { return "probe"; }
    absl::StatusOr<ModelResponse> Generate(const ModelRequest&, absl::Time) override {
      syncs_at_call = vfs.syncs();
      ModelResponse r;
      r.stop_reason = "end_turn";
      return r;
    }
    absl::StatusOr<Decision> Decide(const StepInput& input) override {
      syncs_before = vfs.syncs();
      if (absl::StatusOr<ModelResponse> r = input.model->Generate(ModelRequest{}); !r.ok()) {
        return r.status();
      }
      Decision done;
      done.kind = "complete";
      return done;
    }
    testing::PowerCutVfs& vfs;
    int syncs_before = -1, syncs_at_call = -1;
  } probe(**vfs);
  world::ManualClock clock(kStart);
  world::SeededEntropy entropy(1);
  std::unique_ptr<store::Store> store =
      *records::OpenStore((dir_ / "model.db").string(), clock, {.vfs = (*vfs)->name()});
  std::unique_ptr<Policy> policy = DefaultPolicy();
  DriverOptions options;
  options.agent = &probe;
  options.policy = policy.get();
  options.scheduler = &clock;
  options.model.model = &probe;
  options.model.prices = Free({"probe"});
  std::unique_ptr<Driver> driver = *Driver::Create(*store, clock, entropy, options);
  ASSERT_OK(driver->StartWithId("r", "ask", Limits{}));
  EXPECT_GT(probe.syncs_at_call, probe.syncs_before) << "model.dispatched was not synced first";
}

}  // namespace
}  // namespace agentrt
