// The store's contract on both engines (runtime/store/store.h): a SQLite file, and a PostgreSQL
// server (each test's own schema on the throwaway server tools/dev/postgres started; the
// "postgres" cases skip when the suite runs without one). The same writes give the same chain,
// byte for byte, on both; each engine refuses what the other refuses; and the server's own
// failures (a restart, a killed connection) lose nothing committed and half-write nothing.
#include <libpq-fe.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/driver.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/store/internal/postgres.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "tests/support/status_matchers.h"
#include "tests/support/tamper.h"
#include "tests/support/test_folder.h"
#include "tests/support/test_store.h"

namespace agentrt::store {
namespace {

using test_support::StatusIs;
using ::testing::HasSubstr;

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

enum class Engine { kSqlite, kServer };

std::string EngineName(const ::testing::TestParamInfo<Engine>& info) {
  return info.param == Engine::kSqlite ? "sqlite" : "postgres";
}

// Runs `sql` on the server at `url` in a connection of its own (what another process, or the
// server's operator, does). Returns the first column of the first row ("" when none).
std::string OnServerAt(const std::string& url, const std::string& sql) {
  PGconn* conn = PQconnectdb(url.c_str());
  PGresult* r = PQexec(conn, sql.c_str());
  EXPECT_TRUE(PQresultStatus(r) == PGRES_TUPLES_OK || PQresultStatus(r) == PGRES_COMMAND_OK)
      << PQresultErrorMessage(r);
  std::string out = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0 && PQnfields(r) > 0
                        ? PQgetvalue(r, 0, 0)
                        : "";
  PQclear(r);
  PQfinish(conn);
  return out;
}

// OnServerAt on the test server.
std::string OnServer(const std::string& sql) {
  return OnServerAt(std::getenv("AGENTRT_TEST_POSTGRES"), sql);
}

class EnginesTest : public ::testing::TestWithParam<Engine> {
 protected:
  void SetUp() override {
    if (GetParam() == Engine::kServer && !test_support::OnTestServer()) {
      GTEST_SKIP() << "no test server (the suite's [postgres] registration has one)";
    }
    path_ = GetParam() == Engine::kSqlite ? test_support::TestFile("audit.db")
                                          : test_support::NewServerDatabase();
  }

  std::unique_ptr<Store> Open() {
    absl::StatusOr<std::unique_ptr<Store>> store = records::OpenStore(path_, clock_);
    EXPECT_OK(store);
    return store.ok() ? *std::move(store) : nullptr;
  }

  // A run row and `payloads.size()` events for it, in one transaction.
  static absl::Status WriteRun(Store& store, const std::string& run,
                               const std::vector<std::string>& payloads) {
    return store.Write([&](Transaction& tx) -> absl::Status {
      absl::Status planted = test_support::PlantRunIn(tx, run);
      if (!planted.ok()) return planted;
      for (std::size_t i = 0; i < payloads.size(); ++i) {
        absl::StatusOr<Event> e =
            tx.AppendEvent(run, i % 2 == 0 ? "" : "step-1",
                           kStart + absl::Seconds(static_cast<int>(i)), "test.event", payloads[i]);
        if (!e.ok()) return e.status();
      }
      return absl::OkStatus();
    });
  }

  // The story every engine is told: two runs, short and long payloads, characters of one to
  // four bytes, a payload over the page cap and one over the verifier's inline read.
  static std::vector<std::string> Payloads() {
    // Ten bytes, four characters: the engines count a payload's cap in characters, its chain
    // in bytes.
    std::string mid;
    for (int i = 0; i < 500; ++i) mid += "é𝄞a✓";
    std::string long_text;
    for (int i = 0; i < 40; ++i) long_text += mid;
    return {"{}", R"({"text":"grüße 😀"})", absl::StrCat(R"({"long":")", long_text, R"("})"),
            absl::StrCat(R"({"mid":")", mid, R"("})"), R"({"n":1})"};
  }

  // The head the same story gives in SQLite, in memory: the reference every engine must meet.
  static ChainHead ReferenceHead() {
    world::ManualClock clock(kStart);
    std::unique_ptr<Store> memory = *records::OpenStoreInMemory(clock);
    EXPECT_OK(WriteRun(*memory, "run-a", Payloads()));
    EXPECT_OK(WriteRun(*memory, "run-b", {R"({"b":true})"}));
    return *memory->Head();
  }

  std::string path_;
  world::ManualClock clock_{kStart};
};

INSTANTIATE_TEST_SUITE_P(Engines, EnginesTest, ::testing::Values(Engine::kSqlite, Engine::kServer),
                         EngineName);

TEST_P(EnginesTest, TheSameWritesMakeTheSameChainOnEveryEngine) {
  {
    std::unique_ptr<Store> store = Open();
    ASSERT_OK(WriteRun(*store, "run-a", Payloads()));
    ASSERT_OK(WriteRun(*store, "run-b", {R"({"b":true})"}));
  }
  std::unique_ptr<Store> store = Open();  // as another process would find it
  absl::StatusOr<ChainHead> head = store->Head();
  ASSERT_OK(head);
  ChainHead reference = ReferenceHead();
  EXPECT_EQ(head->seq, reference.seq);
  EXPECT_EQ(head->hash, reference.hash);
  // Long fields, of many-byte characters, are verified in chunks on every engine.
  absl::StatusOr<ChainReport> chain = store->VerifyEvents();
  ASSERT_OK(chain);
  EXPECT_FALSE(chain->broken.has_value()) << chain->broken->detail;
  EXPECT_EQ(chain->checked, 6);
  EXPECT_EQ(chain->hash, reference.hash);
  absl::StatusOr<std::vector<Event>> events = store->ListEvents("run-a");
  ASSERT_OK(events);
  ASSERT_EQ(events->size(), 5u);
  EXPECT_EQ((*events)[1].payload_json, Payloads()[1]);
  EXPECT_TRUE((*events)[2].payload_json == Payloads()[2]);
  EXPECT_EQ((*events)[3].step_id, "step-1");
  EXPECT_EQ((*events)[4].at, "2027-01-15T08:00:04.000000000Z");
  // A page caps a long payload the same way everywhere.
  absl::StatusOr<Store::EventPage> page = store->ListEventsPage("run-a", 2, 2);
  ASSERT_OK(page);
  EXPECT_EQ(page->total, 5);
  ASSERT_EQ(page->events.size(), 2u);
  const std::string& capped = page->events[0].payload_json;
  EXPECT_TRUE(absl::StrContains(capped, R"("length":80011,"truncated":true)"))
      << capped.substr(capped.size() > 80 ? capped.size() - 80 : 0);
  EXPECT_LT(capped.size(), 300'000u);
  EXPECT_TRUE(page->events[1].payload_json == Payloads()[3]);
  absl::StatusOr<std::vector<Event>> after = store->ListEventsAfter("", 4, 10);
  ASSERT_OK(after);
  ASSERT_EQ(after->size(), 2u);
  EXPECT_EQ((*after)[1].run_id, "run-b");
  EXPECT_EQ(*store->StoredHash(6), reference.hash);
}

TEST_P(EnginesTest, AnEditedEventBreaksTheChainWhereItWasEdited) {
  std::unique_ptr<Store> store = Open();
  ASSERT_OK(WriteRun(*store, "run-a", Payloads()));
  ASSERT_OK(test_support::Tamper(*store, "a long payload edited",
                                 "UPDATE events SET payload_json = ?1 WHERE seq = 3",
                                 {std::string_view(R"({"long":"x"})")}));
  absl::StatusOr<ChainReport> chain = store->VerifyEvents();
  ASSERT_OK(chain);
  ASSERT_TRUE(chain->broken.has_value());
  EXPECT_EQ(chain->broken->seq, 3);
}

TEST_P(EnginesTest, TheNewestEventsDeletedAreReportedAndTheirSeqsNeverReused) {
  std::unique_ptr<Store> store = Open();
  ASSERT_OK(WriteRun(*store, "run-a", {"{}", "{}", "{}"}));
  ASSERT_OK(
      test_support::Tamper(*store, "the newest event deleted", "DELETE FROM events WHERE seq = 3"));
  absl::StatusOr<ChainReport> chain = store->VerifyEvents();
  ASSERT_OK(chain);
  ASSERT_TRUE(chain->broken.has_value());
  EXPECT_THAT(chain->broken->detail, HasSubstr("the log once reached seq 3"));
  ASSERT_OK(WriteRun(*store, "run-b", {"{}"}));
  EXPECT_EQ(store->Head()->seq, 4);
}

TEST_P(EnginesTest, ARolledBackWriteLeavesNothingAndNoGap) {
  std::unique_ptr<Store> store = Open();
  ASSERT_OK(WriteRun(*store, "run-a", {"{}"}));
  absl::Status failed = store->Write([](Transaction& tx) -> absl::Status {
    absl::StatusOr<Event> e = tx.AppendEvent("run-a", "", kStart, "test.event", "{}");
    if (!e.ok()) return e.status();
    return absl::InternalError("changed my mind");
  });
  EXPECT_THAT(failed, StatusIs(absl::StatusCode::kInternal, HasSubstr("changed my mind")));
  // A write that fails inside the engine (a constraint) rolls back too.
  EXPECT_THAT(store->Write([](Transaction& tx) -> absl::Status {
    absl::StatusOr<Event> e = tx.AppendEvent("run-a", "", kStart, "test.event", "{}");
    if (!e.ok()) return e.status();
    return tx.AppendEvent("no-such-run", "", kStart, "test.event", "{}").status();
  }),
              StatusIs(absl::StatusCode::kAlreadyExists));
  ASSERT_OK(WriteRun(*store, "run-b", {"{}"}));
  absl::StatusOr<std::vector<Event>> events = store->ListEvents("");
  ASSERT_OK(events);
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[1].seq, 2);
  EXPECT_FALSE(store->VerifyEvents()->broken.has_value());
}

TEST_P(EnginesTest, ObserversSeeEventsOnceCommittedAndInOrder) {
  std::unique_ptr<Store> store = Open();
  std::vector<std::int64_t> seen;
  store->AddObserver([&](const Event& e) { seen.push_back(e.seq); });
  ASSERT_OK(WriteRun(*store, "run-a", {"{}", "{}"}));
  EXPECT_FALSE(store
                   ->Write([](Transaction& tx) -> absl::Status {
                     EXPECT_OK(tx.AppendEvent("run-a", "", kStart, "test.event", "{}").status());
                     return absl::AbortedError("no");
                   })
                   .ok());
  ASSERT_OK(WriteRun(*store, "run-b", {"{}"}));
  EXPECT_THAT(seen, ::testing::ElementsAre(1, 2, 3));
}

TEST_P(EnginesTest, AViewOrATriggerInTheSchemaIsRefused) {
  { Open(); }
  std::unique_ptr<Store> store = Open();
  ASSERT_OK(test_support::Tamper(*store, "a view", "CREATE VIEW disguise AS SELECT * FROM runs"));
  store.reset();
  EXPECT_THAT(records::OpenStore(path_, clock_),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("holds a view named \"disguise\", which agentrt never creates")));
}

TEST_P(EnginesTest, ADatabaseOfALaterVersionIsRefused) {
  std::unique_ptr<Store> store = Open();
  ASSERT_OK(test_support::Tamper(*store, "a later build's migration",
                                 "INSERT INTO schema_migrations (version, applied_at) "
                                 "VALUES (99, '')"));
  store.reset();
  EXPECT_THAT(records::OpenStore(path_, clock_),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("is at schema version 99, newer than this build knows")));
  EXPECT_THAT(records::OpenExistingStore(path_, /*read_only=*/true),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("schema version 99")));
}

TEST_P(EnginesTest, AReadOnlyStoreReadsAndNeverWrites) {
  {
    std::unique_ptr<Store> store = Open();
    ASSERT_OK(WriteRun(*store, "run-a", {"{}"}));
  }
  absl::StatusOr<std::unique_ptr<Store>> reader = records::OpenExistingStore(path_, true);
  ASSERT_OK(reader);
  EXPECT_EQ((*reader)->Head()->seq, 1);
  EXPECT_THAT((*reader)->Write([](Transaction&) { return absl::OkStatus(); }),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("read-only")));
}

TEST_P(EnginesTest, ADurableWriteIsCommittedAndTheChainGoesOn) {
  std::unique_ptr<Store> store = Open();
  ASSERT_OK(store->Write(
      [](Transaction& tx) -> absl::Status {
        absl::Status planted = test_support::PlantRunIn(tx, "run-a");
        if (!planted.ok()) return planted;
        return tx.AppendEvent("run-a", "", kStart, "tool.intent", "{}").status();
      },
      WriteOptions{.durable = true}));
  ASSERT_OK(WriteRun(*store, "run-a", {"{}"}));
  EXPECT_EQ(store->Head()->seq, 2);
  EXPECT_FALSE(store->VerifyEvents()->broken.has_value());
}

// --- The server's own failures ---------------------------------------------------------------

class ServerTest : public EnginesTest {
 protected:
  void SetUp() override {
    if (!test_support::OnTestServer()) GTEST_SKIP() << "no test server";
    path_ = test_support::NewServerDatabase();
  }

  // The server process serving `store`'s connection.
  static std::string BackendOf(Store& store) {
    absl::StatusOr<std::vector<SqlRow>> pid =
        test_support::Peek(store, "the connection's server process", "SELECT pg_backend_pid()");
    EXPECT_OK(pid);
    return pid.ok() && !pid->empty() ? (*pid)[0][0] : "0";
  }
};

TEST_F(ServerTest, TextWithANulByteIsRefusedNotCutShort) {
  std::unique_ptr<Store> store = Open();
  ASSERT_OK(WriteRun(*store, "run-a", {"{}"}));
  std::string with_nul("{\"a\":\"x\0y\"}", 11);
  EXPECT_THAT(store->Write([&](Transaction& tx) {
    return tx.AppendEvent("run-a", "", kStart, "test.event", with_nul).status();
  }),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("holds a NUL byte")));
  EXPECT_EQ(store->Head()->seq, 1);
}

TEST_F(ServerTest, AKilledConnectionFailsItsTransactionWholeAndTheNextOneConnectsAgain) {
  std::unique_ptr<Store> store = Open();
  ASSERT_OK(WriteRun(*store, "run-a", {"{}"}));
  std::string backend = BackendOf(*store);
  absl::Status killed_mid_write = store->Write([&](Transaction& tx) -> absl::Status {
    absl::StatusOr<Event> e = tx.AppendEvent("run-a", "", kStart, "test.event", "{}");
    if (!e.ok()) return e.status();
    // Between this transaction's statements, the server ends its connection.
    EXPECT_EQ(OnServer(absl::StrCat("SELECT pg_terminate_backend(", backend, ")")), "t");
    return tx.AppendEvent("run-a", "", kStart, "test.event", "{}").status();
  });
  EXPECT_THAT(killed_mid_write, StatusIs(absl::StatusCode::kUnavailable));
  // Nothing of it was kept; the next write connects again and extends the chain with no gap.
  ASSERT_OK(WriteRun(*store, "run-b", {"{}"}));
  EXPECT_NE(BackendOf(*store), backend);
  absl::StatusOr<std::vector<Event>> events = store->ListEvents("");
  ASSERT_OK(events);
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[1].run_id, "run-b");
  EXPECT_EQ((*events)[1].seq, 2);
  EXPECT_FALSE(store->VerifyEvents()->broken.has_value());
  // Killed while idle: found at the next BEGIN, before anything was sent, and connected again.
  OnServer(absl::StrCat("SELECT pg_terminate_backend(", BackendOf(*store), ")"));
  ASSERT_OK(WriteRun(*store, "run-c", {"{}"}));
  EXPECT_EQ(store->Head()->seq, 3);
}

// The server crashes (an immediate stop: no checkpoint, no clean shutdown) and comes back. As
// SQLite's NORMAL on a power cut: under kNormal the last ordinary commits may be lost, a durable
// one never, nor anything committed before it; under kFull nothing committed is lost. The store
// connects again by itself.
TEST_F(ServerTest, AServerCrashLosesNoDurableCommitNorAnyCommitBeforeIt) {
  test_support::OwnServer server;
  if (server.url().empty()) GTEST_SKIP() << "the test server is not one tools/dev/postgres made";
  for (Durability durability : {Durability::kNormal, Durability::kFull}) {
    SCOPED_TRACE(durability == Durability::kFull ? "kFull" : "kNormal");
    path_ = server.NewSchema(durability == Durability::kFull ? "on_full" : "on_normal");
    absl::StatusOr<std::unique_ptr<Store>> store =
        records::OpenStore(path_, clock_, {.durability = durability});
    ASSERT_OK(store);
    ASSERT_OK(WriteRun(**store, "run-a", {"{}", "{}"}));
    // The record that an irreversible effect starts is durable whatever the setting.
    ASSERT_OK((*store)->Write(
        [](Transaction& tx) {
          return tx.AppendEvent("run-a", "", kStart, "tool.intent", "{}").status();
        },
        WriteOptions{.durable = durability == Durability::kNormal}));
    ASSERT_TRUE(server.Crash());
    ASSERT_OK(WriteRun(**store, "run-b", {"{}"}));
    EXPECT_EQ((*store)->Head()->seq, 4);
    EXPECT_FALSE((*store)->VerifyEvents()->broken.has_value());
  }
}

// The server may give a write up to break a deadlock: the store runs it again, whole, and
// nothing of the first attempt is kept. The deadlock: another session holds a run's row and
// then waits for the writers' lock, while the store's write, holding that lock, waits for the
// row; the store's write waited first, so the server ends it (deadlock_timeout 50 ms).
TEST_F(ServerTest, AWriteTheServerGaveUpInADeadlockIsRunAgainWhole) {
  std::string url = absl::StrCat(path_, "%20-cdeadlock_timeout%3D50ms");
  absl::StatusOr<std::unique_ptr<Store>> store = records::OpenStore(url, clock_);
  ASSERT_OK(store);
  ASSERT_OK(WriteRun(**store, "run-a", {"{}"}));
  PGconn* other = PQconnectdb(path_.c_str());
  ASSERT_EQ(PQstatus(other), CONNECTION_OK);
  auto exec = [&](const std::string& sql) {
    PGresult* r = PQexec(other, sql.c_str());
    ExecStatusType status = PQresultStatus(r);
    PQclear(r);
    return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
  };
  ASSERT_TRUE(exec("BEGIN"));
  ASSERT_TRUE(exec("UPDATE runs SET goal = goal WHERE id = 'run-a'"));
  int attempts = 0;
  absl::Status written;
  std::thread writer([&] {
    written = (*store)->Write([&](Transaction& tx) -> absl::Status {
      ++attempts;
      absl::StatusOr<Event> e = tx.AppendEvent("run-a", "", kStart, "test.event", "{}");
      if (!e.ok()) return e.status();
      return test_support::TamperIn(tx, "the run's row",
                                    "UPDATE runs SET goal = 'g2' "
                                    "WHERE id = 'run-a'")
          .status();
    });
  });
  // Wait on the event, not the clock: the store's write is waiting for the row.
  std::string waiting;
  for (int polls = 0; waiting != "1" && polls < 100'000; ++polls) {
    waiting = OnServer(
        "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
        "AND query LIKE 'UPDATE runs SET goal = ''g2''%'");
  }
  EXPECT_EQ(waiting, "1") << "the store's write never waited for the row";
  // Now the other session waits for the writers' lock: a cycle, which the server breaks.
  EXPECT_TRUE(
      exec("SELECT pg_advisory_xact_lock(('x' || substr(md5('agentrt:' || "
           "current_schema()), 1, 16))::bit(64)::bigint)"));
  EXPECT_TRUE(exec("COMMIT"));
  writer.join();
  PQfinish(other);
  EXPECT_OK(written);
  EXPECT_EQ(attempts, 2);
  absl::StatusOr<std::vector<Event>> events = (*store)->ListEvents("run-a");
  ASSERT_OK(events);
  ASSERT_EQ(events->size(), 2u);  // the first attempt's event was not kept
  EXPECT_EQ((*events)[1].seq, 2);
  EXPECT_FALSE((*store)->VerifyEvents()->broken.has_value());
}

// --- A driver on a server whose connection is killed --------------------------------------

// "post": a local mutation (allowed by the default policy, and recorded durably before it runs)
// that counts its effects and first runs `before`.
class PostTool final : public Tool {
 public:
  explicit PostTool(std::function<void()> before) : before_(std::move(before)) {}
  ToolSpec Spec() const override {
    return ToolSpec{
        "post", "Post.", R"({"type":"object"})", SideEffect::kLocalMutation, absl::Seconds(10),
        false};
  }
  absl::StatusOr<ToolResult> Call(const ToolCall&) override {
    if (before_) before_();
    ++effects;
    return ToolResult{R"({"posted":true})", "posted"};
  }
  int effects = 0;

 private:
  std::function<void()> before_;
};

class ServerDriverTest : public ServerTest {
 protected:
  absl::StatusOr<agentrt::Run> Drive(Store& store, PostTool& post,
                                     std::optional<std::string> resume = std::nullopt) {
    ScriptedAgent agent({scripted::Call("post", "{}"), scripted::Complete()});
    std::unique_ptr<Policy> policy = DefaultPolicy();
    DriverOptions options;
    options.agent = &agent;
    options.policy = policy.get();
    options.tools = {&post};
    options.scheduler = &lease_clock_;
    absl::StatusOr<std::unique_ptr<Driver>> driver =
        Driver::Create(store, clock_, entropy_, options);
    if (!driver.ok()) return driver.status();
    return resume ? (*driver)->Resume(*resume) : (*driver)->StartWithId("run-1", "post once");
  }

  world::ManualClock lease_clock_{kStart};
  world::SeededEntropy entropy_{5};
};

// Killed between the durable record of the call's start and its effect: the connection is found
// dropped at the next write's BEGIN, before anything of it was sent, and connected again; the run
// goes on and completes, the effect made once and recorded once.
TEST_F(ServerDriverTest, AConnectionKilledBetweenTheIntentAndTheEffectIsConnectedAgain) {
  std::unique_ptr<Store> store = Open();
  std::string backend = BackendOf(*store);
  PostTool post([&] {
    EXPECT_EQ(OnServer(absl::StrCat("SELECT pg_terminate_backend(", backend, ")")), "t");
  });
  absl::StatusOr<agentrt::Run> run = Drive(*store, post);
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kCompleted);
  EXPECT_EQ(post.effects, 1);
  EXPECT_NE(BackendOf(*store), backend);
  EXPECT_FALSE(store->VerifyEvents()->broken.has_value());
}

// Killed inside the write that records the effect's outcome (a trigger ends the connection's own
// server process as the outcome's event is inserted): that write fails whole, the loop stops,
// and its lease decides who goes on. Once it has lapsed, another driver takes the run over and,
// the outcome of an effect that cannot be taken back being unknown, puts it to an operator. The
// effect was made once and is never made again.
TEST_F(ServerDriverTest, AConnectionKilledAfterTheEffectLeavesTheRunToItsLease) {
  std::unique_ptr<Store> store = Open();
  ASSERT_OK(test_support::Tamper(*store, "a server process that ends itself at the outcome",
                                 "CREATE FUNCTION die() RETURNS trigger LANGUAGE plpgsql AS $$ "
                                 "BEGIN IF NEW.type = 'step.tool_finished' THEN "
                                 "PERFORM pg_terminate_backend(pg_backend_pid()); END IF; "
                                 "RETURN NEW; END $$"));
  ASSERT_OK(test_support::Tamper(*store, "the trigger",
                                 "CREATE TRIGGER die BEFORE INSERT ON events "
                                 "FOR EACH ROW EXECUTE FUNCTION die()"));
  PostTool post(nullptr);
  absl::StatusOr<agentrt::Run> run = Drive(*store, post);
  EXPECT_THAT(run, StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_EQ(post.effects, 1);
  ASSERT_OK(test_support::Tamper(*store, "the trigger gone", "DROP TRIGGER die ON events"));
  absl::StatusOr<std::vector<Event>> events = store->ListEvents("run-1");
  ASSERT_OK(events);
  EXPECT_EQ(events->back().type, "step.tool_started");  // nothing of the failed write

  // Another driver, on a connection of its own, once the lease has lapsed.
  lease_clock_.Advance(absl::Minutes(5));
  clock_.Advance(absl::Minutes(5));
  absl::StatusOr<std::unique_ptr<Store>> other = records::OpenStore(path_, clock_);
  ASSERT_OK(other);
  PostTool again(nullptr);
  absl::StatusOr<agentrt::Run> resumed = Drive(**other, again, "run-1");
  ASSERT_OK(resumed);
  EXPECT_EQ(resumed->status, RunStatus::kWaitingForApproval);
  EXPECT_EQ(again.effects, 0);
  EXPECT_FALSE((*other)->VerifyEvents()->broken.has_value());
}

// The server crashes in the middle of a run, while a call whose effect cannot be taken back is
// under way: the durable record of its start survived, and with it everything before; the next
// write finds the connection gone at its BEGIN and connects to the server come back; the run
// completes, the effect made and recorded once, the chain whole.
TEST_F(ServerDriverTest, AServerCrashedMidRunLosesNothingTheRunNeeds) {
  test_support::OwnServer server;
  if (server.url().empty()) GTEST_SKIP() << "the test server is not one tools/dev/postgres made";
  path_ = server.NewSchema("mid_run");
  std::unique_ptr<Store> store = Open();
  PostTool post([&] { EXPECT_TRUE(server.Crash()); });
  absl::StatusOr<agentrt::Run> run = Drive(*store, post);
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kCompleted);
  EXPECT_EQ(post.effects, 1);
  absl::StatusOr<std::vector<Event>> events = store->ListEvents("run-1");
  ASSERT_OK(events);
  std::vector<std::string> types;
  for (const Event& e : *events) types.push_back(e.type);
  EXPECT_THAT(types, ::testing::Contains("step.tool_started"));
  EXPECT_THAT(types, ::testing::Contains("step.tool_finished"));
  EXPECT_EQ(types.back(), "run.finished");
  EXPECT_FALSE(store->VerifyEvents()->broken.has_value());
}

// Statements are written with ?N; a server reads $N. Quoted text and names keep what they hold.
TEST(ServerSqlTest, NumbersParametersOutsideQuotedTextOnly) {
  EXPECT_EQ(internal::ServerSql("SELECT '?1', \"?2\", ?3 FROM t WHERE a = ?10 AND b = 'it''s ?4'"),
            "SELECT '?1', \"?2\", $3 FROM t WHERE a = $10 AND b = 'it''s ?4'");
  EXPECT_EQ(internal::ServerSql("SELECT ? , ?x"), "SELECT ? , ?x");  // no number: not a parameter
}

TEST(RedactedUrlTest, APasswordNeverReachesAnError) {
  EXPECT_EQ(RedactedUrl("postgresql://ops:s3cret@db.example/agentrt?sslmode=require"),
            "postgresql://ops:***@db.example/agentrt?sslmode=require");
  EXPECT_EQ(RedactedUrl("postgres://ops@db.example/agentrt"), "postgres://ops@db.example/agentrt");
  EXPECT_EQ(RedactedUrl("postgresql:///agentrt?host=/run/pg&password=s3cret&sslmode=require"),
            "postgresql:///agentrt?host=/run/pg&password=***&sslmode=require");
  EXPECT_EQ(RedactedUrl("postgresql://db/agentrt?password=s3cret"),
            "postgresql://db/agentrt?password=***");
  EXPECT_EQ(RedactedUrl("postgresql://ops:pw@db/agentrt?passwordless=1"),
            "postgresql://ops:***@db/agentrt?passwordless=1");
  EXPECT_EQ(RedactedUrl("postgresql:///agentrt?host=/run/pg"),
            "postgresql:///agentrt?host=/run/pg");
  EXPECT_TRUE(IsServerUrl("postgres://x"));
  EXPECT_TRUE(IsServerUrl("postgresql://x"));
  EXPECT_FALSE(IsServerUrl("postgres.db"));
  EXPECT_FALSE(IsServerUrl("./postgresql://x"));
}

TEST(ServerUnreachableTest, AServerThatIsNotThereIsAnErrorNamingIt) {
  world::ManualClock clock(kStart);
  EXPECT_THAT(
      records::OpenStore("postgresql://nobody:pw@127.0.0.1:1/none?connect_timeout=2", clock),
      StatusIs(absl::StatusCode::kUnavailable, HasSubstr("postgres: connect")));
}

}  // namespace
}  // namespace agentrt::store
