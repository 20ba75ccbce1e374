// A whole world recorded into one cassette and played back in exact order (runtime/replay): a
// run whose tools start a process and ask an HTTP server, whose lease heartbeat beats during a
// long tool call, and whose ids and times come from the world, replays to the same audit log
// with none of that world present; a replay that asks for anything else stops at the first
// difference, naming it.
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/base/file_util.h"
#include "runtime/driver.h"
#include "runtime/records/schema.h"
#include "runtime/replay/cassette_file.h"
#include "runtime/replay/cassette_recorder.h"
#include "runtime/replay/cassette_text.h"
#include "runtime/replay/proto/cassette.pb.h"
#include "runtime/replay/recording_network.h"
#include "runtime/replay/recording_world.h"
#include "runtime/replay/replay_cursor.h"
#include "runtime/replay/replaying_network.h"
#include "runtime/replay/replaying_world.h"
#include "runtime/scripted_agent.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "tests/support/fake_world.h"
#include "tests/support/real_files.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"
#include "tools/agentrt/demos/world_demo_tools.h"

namespace agentrt::replay {
namespace {

constexpr absl::Time kStart = absl::FromUnixSeconds(1'767'225'600);  // 2026-01-01T00:00:00Z

// A tool that takes 20 seconds of the run's clock: long enough for the lease heartbeat (every
// 10 s of a 30 s lease) to beat while it runs.
class WaitTool final : public Tool {
 public:
  ToolSpec Spec() const override {
    return {"wait",
            "Wait for the backup window.",
            R"({"type":"object"})",
            SideEffect::kReadOnly,
            absl::Minutes(1),
            false};
  }
  absl::StatusOr<ToolResult> Call(const ToolCall& call) override {
    absl::Notification never;
    call.clock->WaitUntil(never, call.clock->Now() + absl::Seconds(20));
    return ToolResult{R"({"waited":"20s"})", "waited"};
  }
};

class FinishTool final : public Tool {
 public:
  ToolSpec Spec() const override {
    return {"finish",
            "Report and end the run.",
            R"({"type":"object"})",
            SideEffect::kReadOnly,
            absl::Seconds(5),
            true};
  }
  absl::StatusOr<ToolResult> Call(const ToolCall& call) override {
    return ToolResult{R"({"done":true})", "done"};
  }
};

std::vector<Decision> Story() {
  return {scripted::Call("count_words", R"({"text":"the quick brown fox"})"),
          scripted::Call("fetch", R"({"path":"/motd"})"), scripted::Call("wait", "{}"),
          scripted::Call("finish", "{}")};
}

// Runs `script` in `w` over a fresh in-memory store (its migrations stamped by a clock of its
// own: the store's set-up is not part of the run) and returns the audit log's head.
absl::StatusOr<ChainHead> RunStory(const world::World& w, std::vector<Decision> script,
                                   RunStatus* status = nullptr) {
  world::ManualClock setup_clock(kStart);
  absl::StatusOr<std::unique_ptr<store::Store>> store = records::OpenStoreInMemory(setup_clock);
  if (!store.ok()) return store.status();
  cli::CountWordsTool count(*w.launcher);
  cli::FetchTool fetch(*w.network, "http://status.test");
  WaitTool wait;
  FinishTool finish;
  ScriptedAgent agent(std::move(script));
  std::unique_ptr<Policy> policy = DefaultPolicy();
  DriverOptions options;
  options.agent = &agent;
  options.policy = policy.get();
  options.tools = {&count, &fetch, &wait, &finish};
  options.scheduler = w.scheduler;
  absl::StatusOr<std::unique_ptr<Driver>> driver =
      Driver::Create(**store, *w.clock, *w.entropy, options);
  if (!driver.ok()) return driver.status();
  absl::StatusOr<Run> run = (*driver)->Start("Count, fetch, wait, finish");
  if (!run.ok()) return run.status();
  if (status != nullptr) *status = run->status;
  return (*store)->Head();
}

// The world a recording reads: one manual clock (the run's and the lease's) that moves a
// millisecond per reading and jumps through waits, seeded ids, the fake process and server.
struct FakeWorld {
  world::ManualClock clock{
      kStart, {.waits = world::ManualClock::Waits::kJump, .tick = absl::Milliseconds(1)}};
  world::SeededEntropy entropy{7};
  test_support::FakeLauncher launcher;
  test_support::FakeNetwork network;
  world::World world{&clock, &clock, &entropy, &launcher, &network};
};

struct Recording {
  Cassette cassette;
  ChainHead head;
};

Recording Record(std::vector<Decision> script = Story()) {
  FakeWorld real;
  CassetteRecorder recorder({.created_by = "agentrt test"});
  ChainHead head;
  {
    RecordingWorld recording(real.world, recorder);
    RunStatus status = RunStatus::kRunning;
    absl::StatusOr<ChainHead> recorded = RunStory(recording.world(), std::move(script), &status);
    EXPECT_OK(recorded);
    EXPECT_EQ(status, RunStatus::kCompleted);
    if (recorded.ok()) head = *recorded;
  }
  EXPECT_OK(recorder.SetChainHead(head));
  return {recorder.cassette(), head};
}

std::vector<Op> Ops(const Cassette& cassette) {
  std::vector<Op> ops;
  for (std::size_t i = 0; i < cassette.size(); ++i) ops.push_back(OpOf(cassette.exchange(i)));
  return ops;
}

// Replays `cassette` with `script` and returns the replay's verdict.
absl::Status Replay(const Cassette& cassette, std::vector<Decision> script = Story()) {
  ReplayingWorld replaying(cassette);
  absl::StatusOr<ChainHead> head = RunStory(replaying.world(), std::move(script));
  // A replay that stopped says why first: the run's own error follows from it.
  if (!replaying.cursor().status().ok()) return replaying.cursor().status();
  if (!head.ok()) return head.status();
  return replaying.Finish(*head);
}

// A copy of `cassette` with exchange `index` changed by `edit`.
Cassette Edited(const Cassette& cassette, std::size_t index,
                const std::function<void(v1::Exchange&)>& edit) {
  Cassette out;
  out.StartSession(cassette.header());
  for (std::size_t i = 0; i < cassette.size(); ++i) {
    v1::Exchange e = cassette.exchange(i);
    if (i == index) edit(e);
    EXPECT_OK(out.Add(e));
  }
  EXPECT_OK(out.SetChainHead(cassette.chain_head()));
  return out;
}

std::size_t IndexOf(const Cassette& cassette, Op op) {
  for (std::size_t i = 0; i < cassette.size(); ++i) {
    if (OpOf(cassette.exchange(i)) == op) return i;
  }
  ADD_FAILURE() << "no " << OpName(op);
  return 0;
}

TEST(WorldReplayTest, ARecordedRunReplaysToTheSameAuditLogWithNoWorldPresent) {
  Recording recording = Record();
  ASSERT_GT(recording.head.seq, 0);
  std::vector<Op> ops = Ops(recording.cassette);
  // Everything the run touched is in the cassette, in one order.
  for (Op op : {Op::kClockNow, Op::kEntropy, Op::kTaskScheduled, Op::kLaunch, Op::kStdinWrite,
                Op::kStdinClose, Op::kStdoutRead, Op::kWait, Op::kHttpSend, Op::kHttpRead,
                Op::kClockWait, Op::kTaskFiring, Op::kTaskCancelled}) {
    EXPECT_THAT(ops, ::testing::Contains(op)) << OpName(op);
  }
  // The heartbeat beat during the wait, and its own clock reading is inside its run.
  const v1::Exchange& run =
      recording.cassette.exchange(IndexOf(recording.cassette, Op::kTaskFiring));
  ASSERT_GE(run.scheduler().firing().nested_size(), 1);
  EXPECT_EQ(run.scheduler().firing().nested(0).clock().clock(), kLeaseScheduler);
  EXPECT_LT(IndexOf(recording.cassette, Op::kTaskFiring),
            IndexOf(recording.cassette, Op::kClockWait));

  // Replayed: no fake process, server, clock or entropy exists; the audit log is the same.
  ReplayingWorld replaying(recording.cassette);
  RunStatus status = RunStatus::kRunning;
  absl::StatusOr<ChainHead> head = RunStory(replaying.world(), Story(), &status);
  ASSERT_OK(head);
  EXPECT_EQ(status, RunStatus::kCompleted);
  EXPECT_EQ(*head, recording.head);
  EXPECT_OK(replaying.Finish(*head)) << replaying.cursor().status();
  // Every exchange was served, those inside the heartbeat's runs included.
  std::size_t all = recording.cassette.size();
  for (std::size_t i = 0; i < recording.cassette.size(); ++i) {
    if (OpOf(recording.cassette.exchange(i)) == Op::kTaskFiring) {
      all += recording.cassette.exchange(i).scheduler().firing().nested_size();
    }
  }
  EXPECT_EQ(replaying.cursor().served(), all);
}

TEST(WorldReplayTest, ARecordedRunReplaysFromItsFile) {
  Recording recording = Record();
  std::string path = test_support::TestFile("run.cassette");
  ASSERT_OK(WriteCassette(test_support::RealFiles(), path, recording.cassette));
  absl::StatusOr<Cassette> read = ReadCassette(test_support::RealFiles(), path);
  ASSERT_OK(read);
  EXPECT_OK(Replay(*read));
}

TEST(WorldReplayTest, OneChangedByteOfARecordedRequestStopsTheReplayNamingIt) {
  Recording recording = Record();
  std::size_t write = IndexOf(recording.cassette, Op::kStdinWrite);
  Cassette edited = Edited(recording.cassette, write, [](v1::Exchange& e) {
    std::string data = e.stdio().write().data();
    data[4] = 'Q';  // "the quick brown fox" was recorded as "the Quick brown fox"
    e.mutable_stdio()->mutable_write()->set_data(data);
  });
  absl::Status replayed = Replay(edited);
  EXPECT_EQ(replayed.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(replayed.message(),
            absl::StrCat("replay: exchange ", write + 1,
                         " (stdin write) differs from the recording: stdio.write.data: recorded "
                         "\"the Quick brown fox\", requested \"the quick brown fox\""));
}

TEST(WorldReplayTest, AChangedUrlOrEnvironmentIsNamedToo) {
  Recording recording = Record();
  std::size_t send = IndexOf(recording.cassette, Op::kHttpSend);
  absl::Status url = Replay(Edited(recording.cassette, send, [](v1::Exchange& e) {
    e.mutable_http()->mutable_send()->set_url("http://status.test/motD");
  }));
  EXPECT_THAT(url.message(), HasSubstr("(HTTP request) differs from the recording: http.send.url: "
                                       "recorded \"http://status.test/motD\", requested "
                                       "\"http://status.test/motd\""));
  std::size_t launch = IndexOf(recording.cassette, Op::kLaunch);
  absl::Status env = Replay(Edited(recording.cassette, launch, [](v1::Exchange& e) {
    e.mutable_launch()->add_env("SECRET=1");
  }));
  EXPECT_THAT(env.message(), HasSubstr("(process start) differs from the recording: launch.env: "
                                       "recorded 3 entries, requested 2"));
}

TEST(WorldReplayTest, ARunThatAsksInAnotherOrderStopsAtTheFirstDifference) {
  Recording recording = Record();
  std::vector<Decision> other = Story();
  std::swap(other[0], other[1]);  // fetch before count_words
  absl::Status replayed = Replay(recording.cassette, other);
  EXPECT_EQ(replayed.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(replayed.message()), StartsWith("replay: exchange "));
  EXPECT_THAT(replayed.message(),
              HasSubstr("differs from the recording: recorded process start (process start "
                        "[\"wc\" \"-w\"]"));
  EXPECT_THAT(replayed.message(), HasSubstr("requested HTTP request (HTTP \"GET\""));
}

TEST(WorldReplayTest, ExchangesLeftOverWhenTheRunEndsAreAnError) {
  // A recording with one exchange more than the run asks for.
  Recording two_steps = Record({Story()[0], Story()[3]});
  Cassette padded = two_steps.cassette;
  v1::Exchange extra;
  extra.mutable_clock()->set_clock(kRunClock);
  extra.mutable_clock()->set_now(1);
  ASSERT_OK(padded.Add(extra));
  absl::Status left = Replay(padded, {Story()[0], Story()[3]});
  EXPECT_EQ(left.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(left.message(),
            absl::StrCat("replay: the run ended with 1 recorded exchanges it never asked for, "
                         "from exchange ",
                         padded.size(), " (clock \"run\" now 1970-01-01T00:00:00.000000001Z)"));
}

TEST(WorldReplayTest, ACassetteCutMidRecordReplaysUpToTheCutAndSaysWhere) {
  Recording recording = Record();
  std::string path = test_support::TestFile("cut.cassette");
  ASSERT_OK(WriteCassette(test_support::RealFiles(), path, recording.cassette));
  absl::StatusOr<std::string> bytes = ReadFile(path);
  ASSERT_OK(bytes);
  // Drop the chain head record and the middle of the exchange before it.
  std::string head_record = FrameRecord([&] {
    v1::Record r;
    r.mutable_chain_head()->set_seq(recording.head.seq);
    r.mutable_chain_head()->set_hash(recording.head.hash);
    return r;
  }());
  std::string cut = bytes->substr(0, bytes->size() - head_record.size() - 5);
  absl::StatusOr<Cassette> read = ParseCassette(cut, "cut.cassette");
  ASSERT_OK(read);
  EXPECT_EQ(read->size(), recording.cassette.size() - 1);
  EXPECT_THAT(read->torn(), HasSubstr("is cut: "));
  ReplayingWorld replaying(*read);
  RunStory(replaying.world(), Story()).IgnoreError();
  absl::Status finished = replaying.cursor().status();
  EXPECT_EQ(finished.code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(finished.message(), HasSubstr("(the recording was cut: record "));
}

TEST(WorldReplayTest, StderrChunksReachTheSinkWhereTheyWereRecorded) {
  test_support::FakeLauncher fake;
  CassetteRecorder recorder;
  std::vector<std::string> seen;
  {
    RecordingLauncher launcher(fake, recorder);
    absl::StatusOr<std::unique_ptr<world::Process>> wc = launcher.Start(
        {.argv = {"wc"}, .stderr_sink = [&](std::string_view b) { seen.emplace_back(b); }});
    ASSERT_OK(wc);
    ASSERT_OK((*wc)->CloseStdin());
  }
  ASSERT_EQ(seen, std::vector<std::string>{"wc: counting\n"});
  Cassette cassette = recorder.cassette();
  // The chunk came while the process was starting; it is recorded after the start.
  EXPECT_EQ(Ops(cassette), (std::vector<Op>{Op::kLaunch, Op::kStderrChunk, Op::kStdinClose}));

  ReplayCursor cursor(cassette);
  ReplayingLauncher replaying(cursor);
  std::vector<std::string> replayed;
  absl::StatusOr<std::unique_ptr<world::Process>> wc = replaying.Start(
      {.argv = {"wc"}, .stderr_sink = [&](std::string_view b) { replayed.emplace_back(b); }});
  ASSERT_OK(wc);
  EXPECT_TRUE(replayed.empty());  // delivered where it was recorded: before the next call
  ASSERT_OK((*wc)->CloseStdin());
  EXPECT_EQ(replayed, seen);
  EXPECT_OK(cursor.Finish());
}

// A recorded run reads this machine's variables; its replay, on any machine, reads the
// recorded values, and a read of another variable stops it.
TEST(WorldReplayTest, EnvironmentReadsReplayWithTheRecordedValues) {
  world::FixedEnvironment here({{"PATH", "/opt/here/bin"}, {"EMPTY", ""}});
  CassetteRecorder recorder;
  {
    RecordingEnvironment recording(here, recorder);
    EXPECT_EQ(recording.Get("PATH"), "/opt/here/bin");
    EXPECT_EQ(recording.Get("EMPTY"), "");
    EXPECT_EQ(recording.Get("UNSET"), std::nullopt);
  }
  ReplayCursor cursor(recorder.cassette());
  ReplayingEnvironment replaying(cursor);
  EXPECT_EQ(replaying.Get("PATH"), "/opt/here/bin");
  EXPECT_EQ(replaying.Get("EMPTY"), "");
  EXPECT_EQ(replaying.Get("UNSET"), std::nullopt);
  EXPECT_OK(cursor.Finish());

  ReplayCursor other(recorder.cassette());
  ReplayingEnvironment asks_else(other);
  EXPECT_EQ(asks_else.Get("HOME"), std::nullopt);
  EXPECT_EQ(other.status().message(),
            "replay: exchange 1 (environment read) differs from the recording: "
            "environment.name: recorded \"PATH\", requested \"HOME\"");
}

// A task's run recorded between two clock readings is held back to the next call that may run
// a task (not a reading or a draw, which may be inside a store transaction), and its own
// readings come from its run.
TEST(WorldReplayTest, ATaskRunIsHeldBackPastReadingsAndServedItsOwnExchanges) {
  world::ManualClock clock(kStart);
  world::SeededEntropy seeded(1);
  CassetteRecorder recorder;
  std::vector<std::string> log;
  {
    RecordingScheduler scheduler(clock, recorder, kLeaseScheduler);
    RecordingClock run_clock(clock, recorder, kRunClock);
    RecordingEntropy entropy(seeded, recorder, kIds);
    scheduler.RunAt(kStart + absl::Seconds(1), [&] {
      log.push_back("task at " + absl::FormatTime(scheduler.clock().Now(), absl::UTCTimeZone()));
    });
    clock.Advance(absl::Seconds(2));  // the task runs here, on this thread
    run_clock.Now();
    entropy.NewId();
    absl::Notification done;
    done.Notify();
    run_clock.WaitUntil(done, kStart + absl::Seconds(3));
  }
  Cassette cassette = recorder.cassette();
  EXPECT_EQ(Ops(cassette), (std::vector<Op>{Op::kTaskScheduled, Op::kTaskFiring, Op::kClockNow,
                                            Op::kEntropy, Op::kClockWait}));

  log.clear();
  ReplayCursor cursor(cassette);
  ReplayingScheduler scheduler(cursor, kLeaseScheduler);
  ReplayingClock run_clock(cursor, kRunClock);
  ReplayingEntropy entropy(cursor, kIds);
  scheduler.RunAt(kStart + absl::Seconds(1), [&] {
    log.push_back("task at " + absl::FormatTime(scheduler.clock().Now(), absl::UTCTimeZone()));
  });
  EXPECT_EQ(run_clock.Now(), kStart + absl::Seconds(2));
  entropy.NewId();
  EXPECT_TRUE(log.empty());  // held back past the reading and the draw
  absl::Notification never;
  EXPECT_TRUE(run_clock.WaitUntil(never, kStart + absl::Seconds(3)));  // recorded: notified
  EXPECT_THAT(log, ::testing::ElementsAre("task at 2026-01-01T00:00:01+00:00"));
  EXPECT_OK(cursor.Finish()) << cursor.status();
}

TEST(WorldReplayTest, ATaskScheduledForAnotherTimeStopsTheReplay) {
  world::ManualClock clock(kStart);
  CassetteRecorder recorder;
  {
    RecordingScheduler scheduler(clock, recorder, kLeaseScheduler);
    scheduler.RunAt(kStart, [] {});
    clock.Advance(absl::ZeroDuration());
  }
  ReplayCursor cursor(recorder.cassette());
  ReplayingScheduler scheduler(cursor, kLeaseScheduler);
  // Scheduled at another time: the first exchange differs.
  scheduler.RunAt(kStart + absl::Seconds(1), [] {});
  EXPECT_THAT(cursor.status().message(),
              HasSubstr("exchange 1 (task scheduled) differs from the recording: scheduler."
                        "scheduled.at: recorded 2026-01-01T00:00:00.000000000Z, requested "
                        "2026-01-01T00:00:01.000000000Z"));
}

// A key travels in a header; a cassette holds the header's name with its value redacted, on
// both sides, so a recording never holds the secret and replays under another key.
TEST(WorldReplayTest, CredentialHeadersAreRecordedRedactedAndReplayWithoutTheKey) {
  test_support::FakeNetwork real;
  CassetteRecorder recorder;
  RecordingNetwork recording(real, recorder);
  auto request = [](std::string_view key) {
    world::HttpRequest r;
    r.method = "POST";
    r.url = "http://model.test/v1/messages";
    r.headers = {{"x-api-key", std::string(key)},
                 {"Authorization", "Bearer " + std::string(key)},
                 {"Content-Type", "application/json"}};
    r.body = "{}";
    return r;
  };
  ASSERT_OK(recording.Send(request("sk-recorded-secret"), kStart + absl::Minutes(1)));
  Cassette cassette = recorder.cassette();
  absl::StatusOr<std::string> bytes = SerializeCassette(cassette);
  ASSERT_OK(bytes);
  EXPECT_THAT(*bytes, Not(HasSubstr("sk-recorded-secret")));
  const v1::HttpSend& sent = cassette.exchange(0).http().send();
  ASSERT_EQ(sent.headers_size(), 3);
  EXPECT_EQ(sent.headers(0).value(), "[redacted]");
  EXPECT_EQ(sent.headers(1).value(), "[redacted]");
  EXPECT_EQ(sent.headers(2).value(), "application/json");

  ReplayCursor cursor(cassette);
  ReplayingNetwork replaying(cursor);
  EXPECT_OK(replaying.Send(request("another-key-entirely"), kStart + absl::Minutes(1)));
  // What is not a credential still has to match.
  ReplayCursor again(cassette);
  ReplayingNetwork strict(again);
  world::HttpRequest other = request("sk-recorded-secret");
  other.headers[2].second = "text/plain";
  EXPECT_THAT(strict.Send(other, kStart + absl::Minutes(1)),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("headers")));
}

}  // namespace
}  // namespace agentrt::replay
