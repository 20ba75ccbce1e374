// The cassette file: framed records that read back exactly, a cut at any byte of the last
// record that keeps everything before it, and what a replay could not trust refused naming the
// file, the record or the exchange (docs/formats/cassette.md).
#include "runtime/replay/cassette.h"

#include <fstream>
#include <functional>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "runtime/base/crc32c.h"
#include "runtime/base/string_view.h"
#include "runtime/replay/cassette_file.h"
#include "runtime/replay/cassette_recorder.h"
#include "runtime/replay/cassette_text.h"
#include "runtime/replay/internal/exchange_kinds.h"
#include "runtime/replay/model_key.h"
#include "runtime/replay/proto/cassette.pb.h"
#include "runtime/replay/replay_cursor.h"
#include "runtime/replay/replaying_model.h"
#include "tests/runtime/model_fixtures.h"
#include "tests/support/memory_filesystem.h"
#include "tests/support/real_files.h"
#include "tests/support/status_matchers.h"

namespace agentrt::replay {
namespace {

using ::agentrt::model_fixtures::Answer;
using ::agentrt::model_fixtures::Ask;
using ::agentrt::model_fixtures::TempDirTest;

v1::Exchange ModelCall(const std::string& question, const std::string& answer,
                       std::uint32_t ordinal = 1) {
  v1::Exchange e;
  v1::ModelExchange* m = e.mutable_model();
  m->set_model("m");
  m->set_request_json(ModelRequestJson(Ask(question)));
  m->set_key(ModelKeyOfJson("m", m->request_json()));
  m->set_ordinal(ordinal);
  m->set_response_json(ModelResponseJson(Answer(answer)));
  m->set_raw("raw:" + answer);
  return e;
}

// One exchange of every kind, numbered as a session would number them.
std::vector<v1::Exchange> OneOfEachKind() {
  std::vector<v1::Exchange> all;
  v1::Exchange e;
  e.mutable_clock()->set_clock("run");
  e.mutable_clock()->set_now(1'767'225'600'000'000'001);
  all.push_back(e);
  e.Clear();
  e.mutable_clock()->set_clock("run");
  e.mutable_clock()->mutable_wait()->set_deadline(INT64_MAX);
  e.mutable_clock()->mutable_wait()->set_notified(true);
  all.push_back(e);
  e.Clear();
  e.mutable_entropy()->set_source("ids");
  e.mutable_entropy()->set_size(4);
  e.mutable_entropy()->set_data(std::string("\x00\xFF\x10\x7F", 4));
  all.push_back(e);
  e.Clear();
  e.mutable_environment()->set_name("PATH");
  e.mutable_environment()->set_set(true);
  e.mutable_environment()->set_value("/usr/bin:/bin");
  all.push_back(e);
  e.Clear();
  e.mutable_scheduler()->set_scheduler("lease");
  e.mutable_scheduler()->mutable_scheduled()->set_task(1);
  e.mutable_scheduler()->mutable_scheduled()->set_at(5);
  e.mutable_scheduler()->mutable_scheduled()->set_period(10'000'000'000);
  all.push_back(e);
  e.Clear();
  v1::ProcessLaunch* launch = e.mutable_launch();
  launch->set_process(1);
  launch->add_argv("node");
  launch->add_argv("server.js");
  launch->add_env("PATH=/usr/bin");
  launch->set_dir("/srv");
  launch->set_stderr_sink(true);
  launch->set_pid(4242);
  all.push_back(e);
  e.Clear();
  e.mutable_stdio()->set_process(1);
  e.mutable_stdio()->mutable_write()->set_data("{\"jsonrpc\":\"2.0\"}\n");
  e.mutable_stdio()->mutable_write()->set_deadline(7);
  all.push_back(e);
  e.Clear();
  e.mutable_stdio()->set_process(1);
  e.mutable_stdio()->set_stderr_chunk("warming up\n");
  all.push_back(e);
  e.Clear();
  e.mutable_stdio()->set_process(1);
  e.mutable_stdio()->mutable_read()->set_max_bytes(65536);
  e.mutable_stdio()->mutable_read()->set_data("{\"id\":1}\n");
  all.push_back(e);
  e.Clear();
  e.mutable_scheduler()->set_scheduler("lease");
  e.mutable_scheduler()->mutable_firing()->set_task(1);
  e.mutable_scheduler()->mutable_firing()->set_again(true);
  *e.mutable_scheduler()->mutable_firing()->add_nested() = all[0];
  all.push_back(e);
  e.Clear();
  e.mutable_stdio()->set_process(1);
  e.mutable_stdio()->mutable_close_stdin();
  all.push_back(e);
  e.Clear();
  e.mutable_exit()->set_process(1);
  e.mutable_exit()->mutable_wait()->mutable_status()->set_code(0);
  all.push_back(e);
  e.Clear();
  e.mutable_exit()->set_process(1);
  e.mutable_exit()->mutable_close()->set_signal(9);
  all.push_back(e);
  e.Clear();
  v1::HttpSend* send = e.mutable_http()->mutable_send();
  send->set_method("POST");
  send->set_url("http://127.0.0.1:8080/mcp");
  send->add_headers()->set_name("Accept");
  send->mutable_headers(0)->set_value("application/json, text/event-stream");
  send->set_body("{}");
  send->set_max_body_bytes(16 << 20);
  send->set_response(1);
  send->set_status(200);
  all.push_back(e);
  e.Clear();
  e.mutable_http()->mutable_read()->set_response(1);
  e.mutable_http()->mutable_read()->set_data("data: {}\n\n");
  all.push_back(e);
  e.Clear();
  e.mutable_http()->mutable_close()->set_response(1);
  all.push_back(e);
  e.Clear();
  e.mutable_scheduler()->set_scheduler("lease");
  e.mutable_scheduler()->mutable_cancelled()->set_task(1);
  e.mutable_scheduler()->mutable_cancelled()->set_result(true);
  all.push_back(e);
  all.push_back(ModelCall("q", "a"));
  return all;
}

// A framed file: the magic, then each record.
std::string File(const std::vector<v1::Record>& records) {
  std::string out(kCassetteMagic);
  for (const v1::Record& r : records) out += FrameRecord(r);
  return out;
}

v1::Record Header(std::uint32_t version = kCassetteFormatVersion) {
  v1::Record r;
  r.mutable_header()->set_format_version(version);
  r.mutable_header()->set_created_by("test");
  return r;
}

v1::Record ExchangeRecord(const v1::Exchange& e) {
  v1::Record r;
  *r.mutable_exchange() = e;
  return r;
}

class CassetteFileTest : public TempDirTest {
 protected:
  std::string WriteBytes(const std::string& name, const std::string& bytes) {
    std::ofstream(Path(name), std::ios::binary) << bytes;
    return Path(name);
  }
  std::string Contents(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
  }
};

TEST(Crc32cTest, MatchesTheStandardCheckValueAndMasksReversibly) {
  EXPECT_EQ(Crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(Crc32c(""), 0u);
  for (std::uint32_t crc : {0u, 1u, 0xE3069283u, 0xFFFFFFFFu}) {
    EXPECT_EQ(UnmaskCrc(MaskCrc(crc)), crc);
    EXPECT_NE(MaskCrc(crc), crc);
  }
}

TEST_F(CassetteFileTest, EveryKindOfExchangeReadsBackExactly) {
  Cassette cassette;
  cassette.StartSession({.created_by = "agentrt test",
                         .notes = "one of each kind",
                         .program = {"demo", "world", "--base-url", "http://127.0.0.1:1"},
                         .inputs = {{"config", "", "c.json", "{}"},
                                    {"manifest", "fs", "fs.json", std::string("\0\xFF", 2)}}});
  std::vector<v1::Exchange> all = OneOfEachKind();
  for (const v1::Exchange& e : all) ASSERT_OK(cassette.Add(e));
  ASSERT_OK(cassette.SetChainHead({42, std::string(64, 'f')}));

  ASSERT_OK(WriteCassette(test_support::RealFiles(), Path("c.cassette"), cassette));
  EXPECT_THAT(Files(), ElementsAre("c.cassette"));
  absl::StatusOr<Cassette> read = ReadCassette(test_support::RealFiles(), Path("c.cassette"));
  ASSERT_OK(read);
  EXPECT_EQ(read->header(), cassette.header());
  EXPECT_EQ(read->chain_head(), cassette.chain_head());
  EXPECT_EQ(read->torn(), "");
  EXPECT_FALSE(read->from_newer_build());
  ASSERT_EQ(read->size(), all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    SCOPED_TRACE(DescribeExchange(all[i]));
    EXPECT_EQ(read->exchange(i).SerializeAsString(), all[i].SerializeAsString());
    EXPECT_NE(OpOf(read->exchange(i)), Op::kUnknown);
  }
  // Writing it again gives the same bytes.
  EXPECT_EQ(*SerializeCassette(*read), Contents(Path("c.cassette")));
}

// The tables of internal/exchange_kinds.h are what OpOf, OpName, the checks and the text read:
// every kind has one row, in one table, whose proto path exists, and every exchange is read as
// the kind whose row names its fields.
TEST(ExchangeKindsTest, EveryKindHasOneRowWhosePathsAreFieldsOfTheProto) {
  std::set<std::string_view> names;
  for (int i = static_cast<int>(Op::kModel); i <= static_cast<int>(Op::kTaskFiring); ++i) {
    Op op = static_cast<Op>(i);
    int rows = 0;
    for (std::span<const internal::ExchangeKind> table : internal::AllExchanges()) {
      for (const internal::ExchangeKind& row : table) rows += row.op == op ? 1 : 0;
    }
    EXPECT_EQ(rows, 1) << "op " << i;
    EXPECT_TRUE(names.insert(OpName(op)).second) << OpName(op);
  }
  for (std::span<const internal::ExchangeKind> table : internal::AllExchanges()) {
    for (const internal::ExchangeKind& row : table) {
      SCOPED_TRACE(row.name);
      const google::protobuf::FieldDescriptor* kind =
          v1::Exchange::descriptor()->FindFieldByName(std::string(row.kind));
      ASSERT_NE(kind, nullptr);
      if (!row.call.empty()) {
        EXPECT_NE(kind->message_type()->FindFieldByName(std::string(row.call)), nullptr);
      }
      for (const internal::FieldRule& rule : row.fields) {
        if (rule.kind == internal::FieldKind::kNone) continue;
        const google::protobuf::Descriptor* message = v1::Exchange::descriptor();
        const google::protobuf::FieldDescriptor* field = nullptr;
        for (absl::string_view part : absl::StrSplit(ToAbsl(rule.path), '.')) {
          ASSERT_NE(message, nullptr) << rule.path;
          field = message->FindFieldByName(std::string(part));
          ASSERT_NE(field, nullptr) << rule.path;
          message = field->message_type();
        }
      }
    }
  }
  for (const v1::Exchange& e : OneOfEachKind()) {
    const internal::ExchangeKind* row = internal::KindOf(e);
    ASSERT_NE(row, nullptr) << e.ShortDebugString();
    EXPECT_EQ(internal::KindOf(row->op), row);
    EXPECT_EQ(OpOf(e), row->op);
  }
  EXPECT_EQ(internal::KindOf(v1::Exchange()), nullptr);
  EXPECT_EQ(OpName(Op::kUnknown), "a kind this build does not know");
  EXPECT_TRUE(IsDelivery(Op::kStderrChunk));
  EXPECT_TRUE(IsDelivery(Op::kTaskFiring));
  EXPECT_FALSE(IsDelivery(Op::kStdoutRead));
}

// How each kind prints, pinned: dumps and replay errors are read by people and compared by tests.
TEST(ExchangeKindsTest, EveryKindPrintsItsOneLine) {
  std::vector<std::string> lines;
  for (const v1::Exchange& e : OneOfEachKind()) lines.push_back(DescribeExchange(e, 16));
  EXPECT_THAT(
      lines,
      ElementsAre(
          R"(clock "run" now 2026-01-01T00:00:00.000000001Z)",
          R"(clock "run" wait until never: notified)", R"(entropy "ids" 4 bytes 00ff107f)",
          R"(environment "PATH": "/usr/bin:/bin")",
          R"(scheduler "lease" task 1 scheduled at 1970-01-01T00:00:00.000000005Z, every 10s)",
          R"(process start ["node" "server.js"], 1 environment variables, in "/srv", stderr to a sink -> process 1 (pid 4242))",
          R"(process 1 stdin write 18 B "{\"jsonrpc\":\"2.0\""…(+2 bytes))",
          R"(process 1 stderr 11 B "warming up\n")", R"(process 1 stdout read 9 B "{\"id\":1}\n")",
          R"(scheduler "lease" task 1 ran (to run again) with 1 exchanges inside)",
          R"(process 1 stdin closed: OK)", R"(process 1 ended: exit 0)",
          R"(process 1 closed: signal 9 (SIGKILL))",
          R"(HTTP "POST" "http://127.0.0.1"…(+9 bytes), 1 headers, body 2 B "{}" -> response 1: 200, 0 headers)",
          R"(response 1 body 10 B "data: {}\n\n")", R"(response 1 closed)",
          R"(scheduler "lease" task 1 cancelled (it was still scheduled))",
          R"(model "m" key d6d1cd112262 request 69 B ordinal 1 response 83 B raw 5 B "raw:a")"));
}

TEST_F(CassetteFileTest, ACutAtAnyByteOfTheLastRecordKeepsEveryRecordBeforeIt) {
  std::string whole = File(
      {Header(), ExchangeRecord(ModelCall("q1", "a1")), ExchangeRecord(ModelCall("q2", "a2"))});
  std::string two = File({Header(), ExchangeRecord(ModelCall("q1", "a1"))});
  for (std::size_t cut = two.size() + 1; cut < whole.size(); ++cut) {
    SCOPED_TRACE(cut);
    absl::StatusOr<Cassette> read = ParseCassette(whole.substr(0, cut), "cut.cassette");
    ASSERT_OK(read);
    EXPECT_EQ(read->size(), 1u);
    EXPECT_THAT(read->torn(), HasSubstr("record 3 at byte " + std::to_string(two.size())));
  }
  // A last record whose bytes were zeroed (a file extended before its data reached the disk).
  std::string zeroed = whole;
  std::fill(zeroed.begin() + static_cast<std::ptrdiff_t>(two.size() + 8), zeroed.end(), '\0');
  absl::StatusOr<Cassette> read = ParseCassette(zeroed, "zeroed.cassette");
  ASSERT_OK(read);
  EXPECT_EQ(read->size(), 1u);
  EXPECT_THAT(read->torn(), HasSubstr("does not match its checksum"));
  // A recorder does not append after a torn record, and leaves the file as it was.
  std::string path = WriteBytes("torn.cassette", whole.substr(0, whole.size() - 3));
  absl::StatusOr<std::unique_ptr<CassetteRecorder>> recorder =
      CassetteRecorder::Open(test_support::RealFiles(), path, {});
  EXPECT_EQ(recorder.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(recorder.status().message(), HasSubstr("its last record is torn"));
  EXPECT_EQ(Contents(path), whole.substr(0, whole.size() - 3));
}

TEST_F(CassetteFileTest, DamagedAndForeignFilesAreRefusedNamingTheFileAndTheRecord) {
  std::string valid = File(
      {Header(), ExchangeRecord(ModelCall("q1", "a1")), ExchangeRecord(ModelCall("q2", "a2"))});
  std::string damaged = valid;
  std::size_t second = File({Header()}).size();  // where record 2 starts
  damaged[second + 8 + 3] ^= 0x01;               // a byte inside record 2, not the last
  struct Case {
    std::string name;
    std::string bytes;
    absl::StatusCode code;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {"garbage.cassette", "\xFF\xFF\xFF\xFF not a cassette", absl::StatusCode::kDataLoss,
            "not a cassette (it does not start with the cassette magic"},
           {"empty.cassette", "", absl::StatusCode::kDataLoss, "not a cassette"},
           {"damaged.cassette", damaged, absl::StatusCode::kDataLoss,
            "record 2 at byte " + std::to_string(second) +
                " does not match its checksum: the file is damaged"},
           {"headless.cassette", File({ExchangeRecord(ModelCall("q", "a"))}),
            absl::StatusCode::kFailedPrecondition, "the first record is not a header"},
           {"v1.cassette", File({Header(1)}), absl::StatusCode::kFailedPrecondition,
            "record 1 at byte 8: format version 1 is not one this build reads (2)"},
       }) {
    SCOPED_TRACE(c.name);
    std::string path = WriteBytes(c.name, c.bytes);
    absl::StatusOr<Cassette> read = ReadCassette(test_support::RealFiles(), path);
    EXPECT_EQ(read.status().code(), c.code);
    EXPECT_THAT(read.status().message(), HasSubstr("cassette " + path + ": "));
    EXPECT_THAT(read.status().message(), HasSubstr(c.message));
    // A replay of it is refused before the first request, the same way, and a recorder
    // refuses to append to it and leaves it as it was.
    EXPECT_EQ(ReplayingModel::OpenKeyed("m", test_support::RealFiles(), path).status(),
              read.status());
    EXPECT_EQ(CassetteRecorder::Open(test_support::RealFiles(), path, {}).status(), read.status());
    EXPECT_EQ(Contents(path), c.bytes);
  }
}

TEST_F(CassetteFileTest, AMissingFileIsNotFoundNamingThePath) {
  absl::StatusOr<Cassette> read = ReadCassette(test_support::RealFiles(), Path("nope.cassette"));
  EXPECT_EQ(read.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(read.status().message(), HasSubstr(Path("nope.cassette")));
}

// The recorder writes through the filesystem it is handed: a cassette recorded on one in memory
// reads back from it, a second session appends to it, and a disk that fails an append fails the
// recording with the disk's reason.
TEST(CassetteRecorderFilesTest, RecordsAndAppendsThroughTheFilesystemItIsHanded) {
  test_support::MemoryFilesystem files;
  files.AddFolder("/c");
  {
    absl::StatusOr<std::unique_ptr<CassetteRecorder>> recorder =
        CassetteRecorder::Create(files, "/c/run.cassette", {.created_by = "first"});
    ASSERT_OK(recorder);
    ASSERT_OK((*recorder)->Record(ModelCall("q1", "a1")));
  }
  EXPECT_THAT(CassetteRecorder::Create(files, "/c/run.cassette", {}),
              StatusIs(absl::StatusCode::kAlreadyExists));
  {
    absl::StatusOr<std::unique_ptr<CassetteRecorder>> recorder =
        CassetteRecorder::Open(files, "/c/run.cassette", {.created_by = "second"});
    ASSERT_OK(recorder);
    ASSERT_OK((*recorder)->Record(ModelCall("q2", "a2")));
  }
  absl::StatusOr<Cassette> read = ReadCassette(files, "/c/run.cassette");
  ASSERT_OK(read);
  ASSERT_EQ(read->sessions().size(), 2u);
  EXPECT_EQ(read->sessions()[1].created_by, "second");
  ASSERT_EQ(read->size(), 2u);
  EXPECT_EQ(read->session_of(1), 1u);

  absl::StatusOr<std::unique_ptr<CassetteRecorder>> recorder =
      CassetteRecorder::Open(files, "/c/run.cassette", {});
  ASSERT_OK(recorder);
  files.Fail("/c/run.cassette", absl::DataLossError("the disk is gone"));
  EXPECT_THAT((*recorder)->Record(ModelCall("q3", "a3")),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("the disk is gone")));
  EXPECT_THAT((*recorder)->status(), StatusIs(absl::StatusCode::kDataLoss));
}

TEST_F(CassetteFileTest, ExchangesAReplayCouldNotTrustAreRefusedNamingTheExchange) {
  v1::Exchange good = ModelCall("q", "a");
  std::string good_key(KeyPrefix(good.model().key()));
  std::vector<v1::Exchange> kinds = OneOfEachKind();
  auto nth = [&](Op op) {
    for (const v1::Exchange& e : kinds) {
      if (OpOf(e) == op) return e;
    }
    return v1::Exchange();
  };
  struct Case {
    std::string name;
    std::vector<v1::Exchange> exchanges;  // the last one is refused
    std::string message;
  };
  auto edited = [&](v1::Exchange e, const std::function<void(v1::Exchange&)>& edit) {
    edit(e);
    return e;
  };
  for (const Case& c : std::vector<Case>{
           {"key of another request",
            {edited(
                good,
                [](v1::Exchange& e) { e.mutable_model()->set_key(ModelKey("m", Ask("other"))); })},
            "exchange 1 (model call \"m\"): key " +
                std::string(KeyPrefix(ModelKey("m", Ask("other")))) +
                " is not the key of its request (" + good_key + ")"},
           {"request edited, key kept",
            {edited(good,
                    [](v1::Exchange& e) {
                      e.mutable_model()->set_request_json(ModelRequestJson(Ask("edited")));
                    })},
            "is not the key of its request"},
           {"request not canonical",
            {edited(good,
                    [](v1::Exchange& e) {
                      e.mutable_model()->set_request_json(R"({ "messages": [] })");
                    })},
            "exchange 1 (model call \"m\"): request_json is not in canonical form"},
           {"response not readable",
            {edited(good, [](v1::Exchange& e) { e.mutable_model()->set_response_json("[1]"); })},
            "response_json does not read back"},
           {"no model name",
            {edited(good, [](v1::Exchange& e) { e.mutable_model()->clear_model(); })},
            "exchange 1 (model call \"\"): no model name"},
           {"ordinal gap",
            {good, edited(good, [](v1::Exchange& e) { e.mutable_model()->set_ordinal(3); })},
            "exchange 2 (model call \"m\"): key " + good_key +
                " has ordinal 3 where its sequence needs 2"},
           {"a failed call with an answer",
            {edited(good,
                    [](v1::Exchange& e) { e.mutable_model()->mutable_error()->set_code(14); })},
            "a failed call has an ordinal, a response or raw bytes"},
           {"an error that is OK",
            {edited(good,
                    [](v1::Exchange& e) {
                      e.mutable_model()->set_ordinal(0);
                      e.mutable_model()->clear_response_json();
                      e.mutable_model()->clear_raw();
                      e.mutable_model()->mutable_error();
                    })},
            "error has status code 0, not an error code"},
           {"an exchange of no kind",
            {v1::Exchange()},
            "exchange 1 (a kind this build does not "
            "know): no kind is set"},
           {"entropy of the wrong size",
            {edited(nth(Op::kEntropy), [](v1::Exchange& e) { e.mutable_entropy()->set_size(5); })},
            "the draw asked for 5 bytes but holds 4"},
           {"a process never started",
            {nth(Op::kStdinWrite)},
            "exchange 1 (stdin write): process 1 was never started"},
           {"a process numbered twice",
            {nth(Op::kLaunch), nth(Op::kLaunch)},
            "exchange 2 (process start): process 1 is numbered twice"},
           {"a read holding more than it asked for",
            {nth(Op::kLaunch),
             edited(nth(Op::kStdoutRead),
                    [](v1::Exchange& e) { e.mutable_stdio()->mutable_read()->set_max_bytes(2); })},
            "a read holds more bytes than it asked for"},
           {"a body read of no response",
            {nth(Op::kHttpRead)},
            "exchange 1 (HTTP body read): response 1 was never started"},
           {"a run of a task never scheduled",
            {nth(Op::kTaskFiring)},
            "exchange 1 (task run): task 1 was never started"},
           {"a run nesting a bad exchange",
            {nth(Op::kTaskScheduled),
             edited(
                 nth(Op::kTaskFiring),
                 [](v1::Exchange& e) { e.mutable_scheduler()->mutable_firing()->add_nested(); })},
            "exchange 2 (task run): its exchange 2: no kind is set"},
       }) {
    SCOPED_TRACE(c.name);
    std::vector<v1::Record> records = {Header()};
    for (const v1::Exchange& e : c.exchanges) records.push_back(ExchangeRecord(e));
    absl::StatusOr<Cassette> read = ParseCassette(File(records), "bad.cassette");
    EXPECT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(read.status().message(), HasSubstr("cassette bad.cassette: "));
    EXPECT_THAT(read.status().message(), HasSubstr(c.message));

    // Building one in memory refuses the same exchange, and keeps what came before.
    Cassette cassette;
    for (std::size_t i = 0; i + 1 < c.exchanges.size(); ++i) {
      ASSERT_OK(cassette.Add(c.exchanges[i]));
    }
    absl::Status added = cassette.Add(c.exchanges.back());
    EXPECT_EQ(added.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(added.message(), HasSubstr(c.message));
    EXPECT_EQ(cassette.size(), c.exchanges.size() - 1);
  }
}

// A run of task 1 with `runs` runs of it nested one inside the other, the innermost reading
// the clock: what a task moving a manual clock records.
v1::Exchange NestedRuns(int runs) {
  v1::Exchange e;
  e.mutable_clock()->set_clock("run");
  e.mutable_clock()->set_now(1);
  for (int i = 0; i < runs; ++i) {
    v1::Exchange run;
    run.mutable_scheduler()->set_scheduler("lease");
    run.mutable_scheduler()->mutable_firing()->set_task(1);
    *run.mutable_scheduler()->mutable_firing()->add_nested() = std::move(e);
    e = std::move(run);
  }
  return e;
}

// `cassette dump --json` prints each exchange with protobuf's JSON printer, which stops at 64
// levels of message: what the reader accepts it must be able to print, so task runs nest at
// most kMaxTaskNesting deep, in a file, in memory and in a recording.
TEST_F(CassetteFileTest, TaskRunsNestedPastTheLimitAreRefusedNamingTheExchange) {
  v1::Exchange scheduled = OneOfEachKind()[4];
  ASSERT_EQ(OpOf(scheduled), Op::kTaskScheduled);
  absl::StatusOr<Cassette> deepest = ParseCassette(
      File({Header(), ExchangeRecord(scheduled), ExchangeRecord(NestedRuns(kMaxTaskNesting))}),
      "deep.cassette");
  ASSERT_OK(deepest);
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  EXPECT_TRUE(
      google::protobuf::util::MessageToJsonString(deepest->exchange(1), &json, options).ok());
  EXPECT_THAT(json, HasSubstr(R"("now":"1")"));

  absl::StatusOr<Cassette> deeper = ParseCassette(
      File({Header(), ExchangeRecord(scheduled), ExchangeRecord(NestedRuns(kMaxTaskNesting + 1))}),
      "deep.cassette");
  EXPECT_EQ(deeper.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(deeper.status().message(),
              HasSubstr("cassette deep.cassette: exchange 2 (task run): its exchange 1: "));
  EXPECT_THAT(deeper.status().message(),
              HasSubstr("task runs nested more than 16 deep (the limit)"));
  Cassette in_memory;
  ASSERT_OK(in_memory.Add(scheduled));
  EXPECT_THAT(in_memory.Add(NestedRuns(kMaxTaskNesting + 1)).message(),
              HasSubstr("task runs nested more than 16 deep"));

  // A recording that nests deeper fails rather than write what no reader would accept.
  CassetteRecorder recorder;
  for (int i = 0; i <= kMaxTaskNesting; ++i) recorder.BeginTask();
  for (int i = 0; i <= kMaxTaskNesting; ++i) recorder.EndTask("lease", 1, false).IgnoreError();
  EXPECT_EQ(recorder.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(recorder.status().message(), HasSubstr("task runs nested more than 16 deep"));
  CassetteRecorder shallow;
  ASSERT_OK(shallow.Record(scheduled));
  for (int i = 0; i < kMaxTaskNesting; ++i) shallow.BeginTask();
  for (int i = 0; i < kMaxTaskNesting; ++i) EXPECT_OK(shallow.EndTask("lease", 1, false));
  EXPECT_OK(shallow.status());
}

TEST_F(CassetteFileTest, ABadChainHeadIsRefused) {
  for (const auto& [seq, hash, message] : std::vector<std::tuple<int, std::string, std::string>>{
           {3, "", "chain head: seq 3 has a hash that is not 64 lowercase hex digits"},
           {-1, "", "chain head: negative seq -1"},
           {0, "ab", "chain head: a hash without a seq"}}) {
    v1::Record head;
    head.mutable_chain_head()->set_seq(seq);
    head.mutable_chain_head()->set_hash(hash);
    absl::StatusOr<Cassette> read = ParseCassette(File({Header(), head}), "bad.cassette");
    EXPECT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(read.status().message(), HasSubstr(message));
  }
}

TEST_F(CassetteFileTest, ANewerBuildsExchangesAreReadAndReplayedUpToThemButNeverWrittenBack) {
  // A newer build's cassette: a model exchange, then an exchange of a kind this build does not
  // know (field 30), and a record of a kind it does not know.
  std::string bytes = File({Header(), ExchangeRecord(ModelCall("q", "a"))});
  // Record field 2 (an exchange) holding only field 30 (a varint): a kind this build does not
  // know.
  std::string payload("\x12\x03\xF0\x01\x01", 5);
  auto frame = [](const std::string& p) {
    std::string out;
    std::uint32_t length = static_cast<std::uint32_t>(p.size());
    std::uint32_t crc = MaskCrc(Crc32c(p));
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((length >> (8 * i)) & 0xFF));
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((crc >> (8 * i)) & 0xFF));
    return out + p;
  };
  bytes += frame(payload);
  bytes += frame(std::string("\x50\x07", 2));  // Record field 10 = 7
  absl::StatusOr<Cassette> read = ParseCassette(bytes, "newer.cassette");
  ASSERT_OK(read);
  EXPECT_TRUE(read->from_newer_build());
  ASSERT_EQ(read->size(), 2u);
  EXPECT_EQ(OpOf(read->exchange(1)), Op::kUnknown);

  // Keyed replay serves the model; strict replay stops at the unknown exchange.
  EXPECT_OK(ReplayingModel("m", *read).Generate(Ask("q"), absl::InfiniteFuture()));
  ReplayCursor cursor(*read);
  ReplayingModel strict("m", cursor);
  ASSERT_OK(strict.Generate(Ask("q"), absl::InfiniteFuture()));
  absl::StatusOr<ModelResponse> next = strict.Generate(Ask("q"), absl::InfiniteFuture());
  EXPECT_THAT(next.status().message(),
              HasSubstr("exchange 2 is of a kind this build does not know"));

  EXPECT_EQ(SerializeCassette(*read).status().code(), absl::StatusCode::kFailedPrecondition);
  std::string path = WriteBytes("newer.cassette", bytes);
  absl::StatusOr<std::unique_ptr<CassetteRecorder>> recorder =
      CassetteRecorder::Open(test_support::RealFiles(), path, {});
  EXPECT_EQ(recorder.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(recorder.status().message(), HasSubstr("written by a newer build"));
  EXPECT_EQ(Contents(path), bytes);  // untouched
}

}  // namespace
}  // namespace agentrt::replay
