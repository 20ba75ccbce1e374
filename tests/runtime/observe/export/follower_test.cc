#include "runtime/observe/export/follower.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/observe/export/cursor.h"
#include "runtime/observe/export/jsonl_sink.h"
#include "runtime/observe/trace/format.h"
#include "runtime/observe/trace/writer.h"
#include "runtime/records/schema.h"
#include "runtime/world/clock.h"
#include "tests/support/real_files.h"
#include "tests/support/status_matchers.h"
#include "tests/support/tamper.h"
#include "tests/support/test_folder.h"
#include "tests/support/test_store.h"

extern char** environ;

namespace agentrt::exporter {
namespace {

namespace fs = std::filesystem;

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<std::int64_t> Range(std::int64_t from, std::int64_t to) {
  std::vector<std::int64_t> out;
  for (std::int64_t s = from; s <= to; ++s) out.push_back(s);
  return out;
}

// A ManualClock that counts the follower's waits, so a test can wait for the follower to be
// idle (waiting for its next poll) without sleeping, and sees how long it meant to wait.
class WatchedClock final : public world::ClockWrapper {
 public:
  WatchedClock() : ClockWrapper(manual_) {}  // binds the member, used only once it is built
  bool WaitUntil(absl::Notification& done, absl::Time deadline) const override {
    {
      absl::MutexLock lock(&mu_);
      ++waits_;
      last_interval_ = deadline - manual_.Now();
    }
    return manual_.WaitUntil(done, deadline);
  }
  void Advance(absl::Duration d) { manual_.Advance(d); }
  // Blocks until the follower has begun its n-th wait.
  void AwaitWaits(int n) const {
    absl::MutexLock lock(&mu_);
    auto reached = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return waits_ >= n; };
    mu_.Await(absl::Condition(&reached));
  }
  absl::Duration last_interval() const {
    absl::MutexLock lock(&mu_);
    return last_interval_;
  }

 private:
  world::ManualClock manual_{kStart};
  mutable absl::Mutex mu_;
  mutable int waits_ ABSL_GUARDED_BY(mu_) = 0;
  mutable absl::Duration last_interval_ ABSL_GUARDED_BY(mu_);
};

// A cursor that records every save.
class RecordingCursor final : public Cursor {
 public:
  absl::StatusOr<std::int64_t> Load() override { return seq_; }
  absl::Status Save(std::int64_t seq) override {
    seq_ = seq;
    saves.push_back(seq);
    return absl::OkStatus();
  }
  std::vector<std::int64_t> saves;

 private:
  std::int64_t seq_ = 0;
};

// Follower options built in one expression.
class Opts {
 public:
  explicit Opts(store::Store* store) { options_.store = store; }
  Opts& Run(std::string run) {
    options_.run_id = std::move(run);
    return *this;
  }
  Opts& WithCursor(Cursor* cursor) {
    options_.cursor = cursor;
    return *this;
  }
  Opts& Interval(absl::Duration d) {
    options_.interval = d;
    return *this;
  }
  Opts& Page(std::int64_t size) {
    options_.page_size = size;
    return *this;
  }
  Opts& Once() {
    options_.once = true;
    return *this;
  }
  operator FollowerOptions() const { return options_; }

 private:
  FollowerOptions options_;
};

class FollowerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_support::TestFolder();
    // A file, or a schema of the test server in the suite's "[postgres]" registration.
    path_ = test_support::TestDatabase("audit.db");
    cursor_path_ = (dir_ / "export.cursor").string();
    absl::StatusOr<std::unique_ptr<store::Store>> writer = records::OpenStore(path_, clock_);
    ASSERT_OK(writer);
    writer_ = *std::move(writer);
  }
  void TearDown() override { writer_.reset(); }

  // Appends `count` events to `run` (created on first use) in one transaction.
  void Append(const std::string& run, int count, std::string_view type = "test.event") {
    ASSERT_OK(writer_->Write([&](store::Transaction& tx) -> absl::Status {
      if (absl::Status row = test_support::PlantRunIn(tx, run); !row.ok()) return row;
      for (int i = 0; i < count; ++i) {
        absl::StatusOr<store::Event> e =
            tx.AppendEvent(run, i % 2 ? "step-1" : "", kStart + absl::Seconds(i), type,
                           absl::StrCat("{\"i\":", i, "}"));
        if (!e.ok()) return e.status();
      }
      return absl::OkStatus();
    }));
  }

  std::unique_ptr<store::Store> OpenReader() {
    absl::StatusOr<std::unique_ptr<store::Store>> reader =
        records::OpenExistingStore(path_, /*read_only=*/true);
    EXPECT_OK(reader);
    return reader.ok() ? *std::move(reader) : nullptr;
  }

  // Follows once from `cursor` and returns the seqs delivered.
  std::vector<std::int64_t> FollowOnce(store::Store& reader, Cursor* cursor,
                                       std::int64_t page_size = 0, std::string run = "") {
    FollowerOptions options;
    options.store = &reader;
    options.cursor = cursor;
    options.page_size = page_size;
    options.run_id = std::move(run);
    options.once = true;
    absl::StatusOr<Follower> follower = Follower::Create(options, clock_);
    EXPECT_OK(follower);
    std::vector<std::int64_t> seqs;
    absl::Status followed = follower->Follow([&](const store::Event& e) {
      seqs.push_back(e.seq);
      return absl::OkStatus();
    });
    EXPECT_OK(followed);
    return seqs;
  }

  fs::path dir_;
  std::string path_;
  std::string cursor_path_;
  world::ManualClock clock_{kStart};
  std::unique_ptr<store::Store> writer_;
};

TEST_F(FollowerTest, DeliversEveryRunInCommitOrder) {
  Append("run-a", 2);  // 1-2
  Append("run-b", 3);  // 3-5
  Append("run-a", 1);  // 6
  Append("run-c", 1);  // 7
  Append("run-b", 2);  // 8-9
  auto reader = OpenReader();
  std::vector<store::Event> delivered;
  FollowerOptions options;
  options.store = reader.get();
  options.once = true;
  options.page_size = 4;
  absl::StatusOr<Follower> follower = Follower::Create(options, clock_);
  ASSERT_OK(follower);
  ASSERT_OK(follower->Follow([&](const store::Event& e) {
    delivered.push_back(e);
    return absl::OkStatus();
  }));
  std::vector<std::string> runs;
  std::vector<std::int64_t> seqs;
  for (const store::Event& e : delivered) {
    runs.push_back(e.run_id);
    seqs.push_back(e.seq);
  }
  EXPECT_THAT(seqs, ElementsAreArray(Range(1, 9)));
  EXPECT_THAT(runs, ElementsAre("run-a", "run-a", "run-b", "run-b", "run-b", "run-a", "run-c",
                                "run-b", "run-b"));
  // Delivered as stored, hash included.
  absl::StatusOr<std::vector<store::Event>> stored = writer_->ListEvents("");
  ASSERT_OK(stored);
  for (std::size_t i = 0; i < stored->size(); ++i) {
    EXPECT_EQ(delivered[i].hash, (*stored)[i].hash);
    EXPECT_EQ(delivered[i].payload_json, (*stored)[i].payload_json);
    EXPECT_EQ(delivered[i].step_id, (*stored)[i].step_id);
  }
  // One run: only its events, still in commit order; the cursor is the last seq delivered.
  MemCursor cursor;
  EXPECT_THAT(FollowOnce(*reader, &cursor, 2, "run-b"), ElementsAre(3, 4, 5, 8, 9));
  EXPECT_EQ(cursor.seq(), 9);
  MemCursor a_cursor;
  EXPECT_THAT(FollowOnce(*reader, &a_cursor, 0, "run-a"), ElementsAre(1, 2, 6));
  EXPECT_EQ(a_cursor.seq(), 6);
  EXPECT_THAT(FollowOnce(*reader, &a_cursor, 0, "run-a"), IsEmpty());
}

TEST_F(FollowerTest, ReadOnlyLeavesTheFileUntouched) {
  if (test_support::OnTestServer()) GTEST_SKIP() << "a server's database is no file";
  Append("run-a", 30);
  writer_.reset();  // the last writer closed: the WAL is checkpointed into the file
  struct stat before;
  ASSERT_EQ(::stat(path_.c_str(), &before), 0);
  std::string bytes = ReadFile(path_);
  {
    auto reader = OpenReader();
    FileCursor cursor(test_support::RealFiles(), cursor_path_);
    EXPECT_THAT(FollowOnce(*reader, &cursor, 7), SizeIs(30));
    EXPECT_THAT(FollowOnce(*reader, &cursor, 7), IsEmpty());
    absl::StatusOr<Follower> follower =
        Follower::Create(Opts(reader.get()).WithCursor(&cursor), clock_);
    ASSERT_OK(follower);
    EXPECT_EQ(follower->Head()->seq, 30);
  }
  struct stat after;
  ASSERT_EQ(::stat(path_.c_str(), &after), 0);
  EXPECT_EQ(ReadFile(path_), bytes);
  EXPECT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
  EXPECT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
  EXPECT_EQ(after.st_mode, before.st_mode);
  // SQLite's WAL mode needs its shared-memory index even to read, so a read-only connection
  // to a closed database creates the -wal and -shm sidecars (0600, like the file). Nothing is
  // written through them: the WAL stays empty.
  if (fs::exists(path_ + "-wal")) {
    EXPECT_EQ(fs::file_size(path_ + "-wal"), 0u);
    struct stat wal;
    ASSERT_EQ(::stat((path_ + "-wal").c_str(), &wal), 0);
    EXPECT_EQ(wal.st_mode & 077, 0u);
  }
}

TEST_F(FollowerTest, PagesALargeTable) {
  Append("run-a", 1250);
  Append("run-b", 1250);
  auto reader = OpenReader();
  RecordingCursor cursor;
  std::vector<std::int64_t> seqs = FollowOnce(*reader, &cursor, 500);
  EXPECT_THAT(seqs, ElementsAreArray(Range(1, 2500)));
  // One save a page: the reads were pages of 500.
  EXPECT_THAT(cursor.saves, ElementsAre(500, 1000, 1500, 2000, 2500));
  // The default page is 500 too; a page size over the cap is cut to 10000.
  RecordingCursor default_page;
  FollowOnce(*reader, &default_page);
  EXPECT_THAT(default_page.saves, ElementsAre(500, 1000, 1500, 2000, 2500));
  Append("run-c", 10000);
  RecordingCursor capped;
  FollowOnce(*reader, &capped, 1'000'000);
  EXPECT_THAT(capped.saves, ElementsAre(10000, 12500));
}

TEST_F(FollowerTest, ExactlyOnceAcrossRestarts) {
  std::map<std::int64_t, int> times;
  auto deliver = [&](std::int64_t seq) { ++times[seq]; };
  Append("run-a", 10);
  {
    auto reader = OpenReader();
    FileCursor cursor(test_support::RealFiles(), cursor_path_);
    for (std::int64_t s : FollowOnce(*reader, &cursor, 3)) deliver(s);
  }
  EXPECT_EQ(ReadFile(cursor_path_), "10\n");
  Append("run-b", 5);
  {
    auto reader = OpenReader();
    FileCursor cursor(test_support::RealFiles(), cursor_path_);
    EXPECT_THAT(FollowOnce(*reader, &cursor, 3), ElementsAre(11, 12, 13, 14, 15));
  }
  for (std::int64_t s : Range(11, 15)) deliver(s);
  // A stop asked for in the middle of a page: the cursor keeps exactly what was delivered.
  Append("run-a", 10);  // 16-25
  {
    auto reader = OpenReader();
    FileCursor cursor(test_support::RealFiles(), cursor_path_);
    absl::StatusOr<Follower> follower =
        Follower::Create(Opts(reader.get()).WithCursor(&cursor).Page(8), clock_);
    ASSERT_OK(follower);
    absl::Notification stop;
    absl::Status followed = follower->Follow(
        [&](const store::Event& e) {
          deliver(e.seq);
          if (e.seq == 19) {
            stop.Notify();
            clock_.Wake();
          }
          return absl::OkStatus();
        },
        &stop);
    EXPECT_OK(followed);
  }
  EXPECT_EQ(ReadFile(cursor_path_), "19\n");
  // A sink that fails: the cursor keeps what it took before the failure.
  {
    auto reader = OpenReader();
    FileCursor cursor(test_support::RealFiles(), cursor_path_);
    absl::StatusOr<Follower> follower =
        Follower::Create(Opts(reader.get()).WithCursor(&cursor).Once(), clock_);
    ASSERT_OK(follower);
    absl::Status followed = follower->Follow([&](const store::Event& e) -> absl::Status {
      if (e.seq == 22) return absl::UnavailableError("the collector is down");
      deliver(e.seq);
      return absl::OkStatus();
    });
    EXPECT_EQ(followed, absl::UnavailableError("the collector is down"));
  }
  EXPECT_EQ(ReadFile(cursor_path_), "21\n");
  {
    auto reader = OpenReader();
    FileCursor cursor(test_support::RealFiles(), cursor_path_);
    for (std::int64_t s : FollowOnce(*reader, &cursor, 2)) deliver(s);
  }
  ASSERT_THAT(times, SizeIs(25));
  for (const auto& [seq, n] : times) EXPECT_EQ(n, 1) << "seq " << seq;
  EXPECT_EQ(times.begin()->first, 1);
  EXPECT_EQ(times.rbegin()->first, 25);
}

// A real child process follows the database and is SIGKILLed right after its sink took an
// event, before the cursor was saved; a fresh follower then goes on from the saved cursor.
TEST_F(FollowerTest, AtLeastOnceAfterAHardKill) {
  Append("run-a", 7);
  Append("run-b", 7);  // 14 events; pages of 4: 1-4, 5-8, 9-12, 13-14
  struct Case {
    std::int64_t kill_after;
    std::int64_t saved;  // what the cursor holds after the kill
  };
  for (Case c : {Case{6, 4}, Case{8, 4}, Case{9, 8}, Case{2, 0}}) {
    SCOPED_TRACE(absl::StrCat("killed after seq ", c.kill_after));
    fs::remove(cursor_path_);
    int to_child[2], from_child[2];
    ASSERT_EQ(pipe2(to_child, O_CLOEXEC), 0);
    ASSERT_EQ(pipe2(from_child, O_CLOEXEC), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
    std::vector<std::string> args = {AGENTRT_EXPORT_CHILD, path_, cursor_path_, "4"};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid;
    ASSERT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    ::close(to_child[0]);
    ::close(from_child[1]);
    FILE* lines = ::fdopen(from_child[0], "r");
    std::vector<std::int64_t> first;
    char line[64];
    while (std::fgets(line, sizeof(line), lines) != nullptr) {
      long long seq = 0;
      ASSERT_EQ(std::sscanf(line, "seq %lld", &seq), 1) << line;
      first.push_back(seq);
      if (seq == c.kill_after) break;
      ASSERT_EQ(::write(to_child[1], "x", 1), 1);
    }
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));
    ASSERT_EQ(WTERMSIG(status), SIGKILL);
    std::fclose(lines);
    ::close(to_child[1]);
    EXPECT_THAT(first, ElementsAreArray(Range(1, c.kill_after)));
    FileCursor cursor(test_support::RealFiles(), cursor_path_);
    EXPECT_EQ(*cursor.Load(), c.saved);
    auto reader = OpenReader();
    std::vector<std::int64_t> second = FollowOnce(*reader, &cursor, 4);
    EXPECT_THAT(second, ElementsAreArray(Range(c.saved + 1, 14)));
    // Redelivered: what the child took after its last save, never more than one page.
    std::int64_t again = c.kill_after - c.saved;
    EXPECT_LE(again, 4);
    EXPECT_GE(again, 1);
  }
}

TEST_F(FollowerTest, LiveRunAndStopOnCancel) {
  Append("run-a", 2);
  auto reader = OpenReader();
  WatchedClock clock;
  FileCursor cursor(test_support::RealFiles(), cursor_path_);
  absl::StatusOr<Follower> follower =
      Follower::Create(Opts(reader.get()).WithCursor(&cursor), clock);
  ASSERT_OK(follower);
  absl::Mutex mu;
  std::vector<std::int64_t> seen;
  absl::Notification stop;
  absl::Status followed;
  std::thread follow([&] {
    followed = follower->Follow(
        [&](const store::Event& e) {
          absl::MutexLock lock(&mu);
          seen.push_back(e.seq);
          return absl::OkStatus();
        },
        &stop);
  });
  auto seen_now = [&] {
    absl::MutexLock lock(&mu);
    return seen;
  };
  clock.AwaitWaits(1);  // caught up, waiting for the next poll
  EXPECT_THAT(seen_now(), ElementsAre(1, 2));
  EXPECT_EQ(clock.last_interval(), kDefaultInterval);
  Append("run-b", 3);  // written while the follower runs
  clock.Advance(kDefaultInterval);
  clock.AwaitWaits(2);
  EXPECT_THAT(seen_now(), ElementsAre(1, 2, 3, 4, 5));
  EXPECT_EQ(ReadFile(cursor_path_), "5\n");
  Append("run-a", 1);
  clock.Advance(absl::Milliseconds(100));  // not yet time to poll
  Append("run-a", 1);
  clock.Advance(absl::Milliseconds(150));
  clock.AwaitWaits(3);
  EXPECT_THAT(seen_now(), ElementsAre(1, 2, 3, 4, 5, 6, 7));
  stop.Notify();
  clock.Wake();
  follow.join();
  EXPECT_OK(followed);
  EXPECT_EQ(ReadFile(cursor_path_), "7\n");
}

TEST_F(FollowerTest, OptionsAreCheckedAndBounded) {
  auto reader = OpenReader();
  EXPECT_THAT(Follower::Create(FollowerOptions{}, clock_).status().message(),
              HasSubstr("no store"));
  absl::Status negative =
      Follower::Create(Opts(reader.get()).Interval(absl::Seconds(-1)), clock_).status();
  EXPECT_EQ(negative.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(negative.message(), HasSubstr("interval -1s is negative"));
  EXPECT_THAT(Follower::Create(Opts(reader.get()).Page(-5), clock_).status().message(),
              HasSubstr("page size -5 is negative"));
  // An interval over a minute waits a minute.
  Append("run-a", 1);
  WatchedClock clock;
  absl::StatusOr<Follower> follower =
      Follower::Create(Opts(reader.get()).Interval(absl::Hours(1)), clock);
  ASSERT_OK(follower);
  absl::Notification stop;
  std::thread follow([&] {
    EXPECT_OK(follower->Follow([](const store::Event&) { return absl::OkStatus(); }, &stop));
  });
  clock.AwaitWaits(1);
  EXPECT_EQ(clock.last_interval(), kMaxInterval);
  stop.Notify();
  clock.Wake();
  follow.join();
}

TEST_F(FollowerTest, HeadIsTheCursorsSeqAndItsStoredHash) {
  Append("run-a", 3);
  Append("run-b", 2);
  auto reader = OpenReader();
  FileCursor cursor(test_support::RealFiles(), cursor_path_);
  absl::StatusOr<Follower> follower = Follower::Create(
      {.store = reader.get(), .run_id = "run-a", .cursor = &cursor, .once = true}, clock_);
  ASSERT_OK(follower);
  absl::StatusOr<store::ChainHead> head = follower->Head();
  ASSERT_OK(head);
  EXPECT_EQ(head->seq, 0);
  EXPECT_EQ(head->hash, "");
  ASSERT_OK(follower->Follow([](const store::Event&) { return absl::OkStatus(); }));
  head = follower->Head();
  ASSERT_OK(head);
  EXPECT_EQ(head->seq, 3);
  EXPECT_EQ(head->hash, (*writer_->ListEvents(""))[2].hash);
  // The kept event was deleted: the head cannot be read, by name.
  ASSERT_OK(
      test_support::Tamper(*writer_, "the kept event deleted", "DELETE FROM events WHERE seq = 3"));
  EXPECT_EQ(follower->Head().status().code(), absl::StatusCode::kNotFound);
}

TEST_F(FollowerTest, JsonlSinkMatchesTrace) {
  std::ostringstream live;
  trace::JsonlWriter observer(live);
  writer_->AddObserver(observer.Observer());
  Append("run-a", 3);
  ASSERT_OK(writer_->Write([](store::Transaction& tx) {
    return tx
        .AppendEvent("run-a", "step-9", kStart, "step.decided",
                     R"({"args":{"p":"\u202e\n"},"kind":"tool_call"})")
        .status();
  }));
  auto reader = OpenReader();
  std::ostringstream exported;
  JsonlSink sink(exported);
  absl::StatusOr<Follower> follower = Follower::Create(Opts(reader.get()).Page(2).Once(), clock_);
  ASSERT_OK(follower);
  ASSERT_OK(follower->Follow(sink));
  std::string expected;
  absl::StatusOr<std::vector<store::Event>> stored = reader->ListEvents("");
  ASSERT_OK(stored);
  for (const store::Event& e : *stored) expected += trace::JsonlLine(e);
  EXPECT_EQ(exported.str(), expected);
  EXPECT_EQ(exported.str(), live.str());
  EXPECT_THAT(exported.str(), HasSubstr(R"("step_id":"step-9")"));
}

TEST_F(FollowerTest, AFailedWriteStopsTheFollowerBeforeTheCursorPassesIt) {
  Append("run-a", 3);
  auto reader = OpenReader();
  std::ostringstream out;
  out.setstate(std::ios::badbit);
  JsonlSink sink(out);
  MemCursor cursor;
  absl::StatusOr<Follower> follower =
      Follower::Create(Opts(reader.get()).WithCursor(&cursor).Once(), clock_);
  ASSERT_OK(follower);
  EXPECT_EQ(follower->Follow(sink).code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(cursor.seq(), 0);
}

TEST_F(FollowerTest, FileCursorFormatAndRefusals) {
  FileCursor cursor(test_support::RealFiles(), cursor_path_);
  EXPECT_EQ(*cursor.Load(), 0);  // missing: nothing delivered yet
  ASSERT_OK(cursor.Save(42));
  EXPECT_EQ(ReadFile(cursor_path_), "42\n");
  struct stat st;
  ASSERT_EQ(::stat(cursor_path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600);
  for (const fs::directory_entry& entry : fs::directory_iterator(dir_)) {
    EXPECT_THAT(entry.path().filename().string(), ::testing::Not(HasSubstr(".tmp")))
        << "a temporary file was left beside the cursor";
  }
  EXPECT_EQ(*cursor.Load(), 42);
  EXPECT_EQ(cursor.Save(-1).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(*cursor.Load(), 42);
  for (const char* content :
       {"", "abc\n", "12 \n", "+5\n", "5\n\n", "0x10\n", "99999999999999999999\n", "1\x1b[2J\n"}) {
    SCOPED_TRACE(content);
    { std::ofstream(cursor_path_, std::ios::binary | std::ios::trunc) << content; }
    absl::StatusOr<std::int64_t> loaded = cursor.Load();
    EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(loaded.status().message(), HasSubstr("cursor file " + cursor_path_));
    EXPECT_THAT(loaded.status().message(), ::testing::Not(HasSubstr("\x1b")));
  }
  { std::ofstream(cursor_path_, std::ios::binary | std::ios::trunc) << "-3\n"; }
  EXPECT_THAT(cursor.Load().status().message(), HasSubstr("holds -3, and a seq is never negative"));
  { std::ofstream(cursor_path_, std::ios::binary | std::ios::trunc) << std::string(65, '7'); }
  EXPECT_THAT(cursor.Load().status().message(),
              HasSubstr("cursor file " + cursor_path_ + " holds more than 64 bytes"));
  { std::ofstream(cursor_path_, std::ios::binary | std::ios::trunc) << "17"; }
  EXPECT_EQ(*cursor.Load(), 17);  // the newline is optional on reading
  // A follower refuses to start from a cursor it cannot read.
  Append("run-a", 1);
  { std::ofstream(cursor_path_, std::ios::binary | std::ios::trunc) << "junk\n"; }
  auto reader = OpenReader();
  absl::StatusOr<Follower> follower =
      Follower::Create(Opts(reader.get()).WithCursor(&cursor).Once(), clock_);
  ASSERT_OK(follower);
  bool called = false;
  absl::Status followed = follower->Follow([&](const store::Event&) {
    called = true;
    return absl::OkStatus();
  });
  EXPECT_THAT(followed.message(), HasSubstr("cursor file " + cursor_path_));
  EXPECT_FALSE(called);
}

}  // namespace
}  // namespace agentrt::exporter
