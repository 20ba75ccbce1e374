#include <unistd.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <streambuf>
#include <thread>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/intake.h"
#include "runtime/observe/trace/format.h"
#include "runtime/observe/trace/writer.h"
#include "runtime/records/schema.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "tests/support/lines.h"
#include "tests/support/status_matchers.h"
#include "tests/support/tamper.h"
#include "tests/support/test_folder.h"

namespace agentrt::trace {
namespace {

namespace fs = std::filesystem;
using ::agentrt::test_support::Lines;

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);  // 2027-01-15 08:00:00 UTC

store::Event MakeEvent(std::string type, std::string payload, std::string step = "") {
  return store::Event{7,
                      "run-1",
                      std::move(step),
                      "2027-01-15T08:00:00.120000000Z",
                      std::move(type),
                      std::move(payload),
                      "abc"};
}

// A stream whose every write fails, as a closed pipe does.
class BrokenBuffer : public std::streambuf {
 protected:
  int overflow(int) override { return traits_type::eof(); }
  std::streamsize xsputn(const char*, std::streamsize) override { return 0; }
};

// A real database file in a fresh directory.
class TraceStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_support::TestFolder();
    absl::StatusOr<std::unique_ptr<store::Store>> opened =
        records::OpenStore((dir_ / "audit.db").string(), clock_);
    ASSERT_OK(opened);
    store_ = *std::move(opened);
    ASSERT_OK(test_support::Tamper(*store_, "a run with no events",
                                   "INSERT INTO runs (id, goal, status, limits_json, created_at) "
                                   "VALUES ('run-1', 'g', 'RUNNING', '{}', '')"));
  }
  void TearDown() override { store_.reset(); }
  absl::Status Append(std::string_view type, std::string_view payload, absl::Time at = kStart) {
    return store_->Write([&](store::Transaction& tx) {
      return tx.AppendEvent("run-1", "", at, type, payload).status();
    });
  }

  fs::path dir_;
  world::ManualClock clock_{kStart};
  std::unique_ptr<store::Store> store_;
};

TEST(TextLineTest, AlignedLine) {
  EXPECT_EQ(TextLine(MakeEvent("run.created", R"({"goal":"g"})")),
            "2027-01-15 08:00:00.120 +0000  run.created            {\"goal\":\"g\"}\n");
  // Every type starts its payload in the same column; a longer type pushes it, with one space.
  std::string a = TextLine(MakeEvent("run.started", "{}"));
  std::string b = TextLine(MakeEvent("step.tool_finished", "{}"));
  EXPECT_EQ(a.find('{'), b.find('{'));
  EXPECT_EQ(a.find('{'), 31u + kTypeColumns + 1);
  EXPECT_THAT(TextLine(MakeEvent("a.type.longer.than.twenty.two", "{}")),
              HasSubstr("  a.type.longer.than.twenty.two {}"));
}

TEST(TextLineTest, TimeIsShownInTheChosenZoneNeverTheMachines) {
  TextOptions options;
  options.zone = absl::FixedTimeZone(-5 * 3600);
  EXPECT_THAT(TextLine(MakeEvent("run.started", "{}"), options),
              ::testing::StartsWith("2027-01-15 03:00:00.120 -0500  run.started"));
  store::Event odd = MakeEvent("run.started", "{}");
  odd.at = "yesterday\x1b[2J";
  EXPECT_THAT(TextLine(odd), ::testing::StartsWith("yesterday\\x1b[2J  run.started"));
}

TEST(TextLineTest, HostileTextIsEscapedAndStaysOneLine) {
  store::Event e = MakeEvent("step.tool\nfinished",
                             "{\"summary\":\"ok\x1b[2J\x1b]0;owned\x07\r\nFAKE LINE "
                             "\xE2\x80\xAEtxt.exe\xE2\x80\x8B\xC2\x9B\"}");
  std::string line = TextLine(e);
  ASSERT_THAT(Lines(line), SizeIs(1));
  EXPECT_THAT(line, HasSubstr("step.tool finished"));
  EXPECT_THAT(line, HasSubstr("ok\\x1b[2J\\x1b]0;owned\\x07  FAKE LINE \\u{202e}txt.exe\\u{200b}"
                              "\\x9b"));
  for (char c : line.substr(0, line.size() - 1)) {
    EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f) << int(c);
  }
}

TEST(TextLineTest, PayloadCapCutsOnACharacterAndSaysHowMuchIsLeft) {
  TextOptions options;
  options.max_payload_bytes = 10;
  // "é" is two bytes at offsets 9-10: the cut backs off before it.
  std::string line = TextLine(MakeEvent("e", "{\"x\":\"abc\xC3\xA9xyz\"}"), options);
  EXPECT_THAT(line, HasSubstr(" {\"x\":\"abc...[7 more bytes]\n"));
  EXPECT_THAT(TextLine(MakeEvent("e", "{}"), options), HasSubstr(" {}\n"));
}

TEST(JsonlLineTest, RecordShapeIsByteStable) {
  EXPECT_EQ(JsonlLine(MakeEvent("run.created", R"({"goal":"g"})")),
            R"({"seq":7,"run_id":"run-1","at":"2027-01-15T08:00:00.120000000Z",)"
            R"("type":"run.created","payload":{"goal":"g"}})"
            "\n");
  EXPECT_EQ(JsonlLine(MakeEvent("step.started", R"({"index":0})", "step-1")),
            R"({"seq":7,"run_id":"run-1","step_id":"step-1",)"
            R"("at":"2027-01-15T08:00:00.120000000Z","type":"step.started","payload":{"index":0}})"
            "\n");
  // The stored hash is not part of the record.
  store::Event e = MakeEvent("run.started", "{}");
  std::string before = JsonlLine(e);
  e.hash = "different";
  EXPECT_EQ(JsonlLine(e), before);
}

TEST(JsonlLineTest, InvalidPayloadIsKeptAsAStringNeverDropped) {
  for (const std::string& payload : {std::string("not json\n{"), std::string("{\"a\":1,\"a\":2}"),
                                     std::string("{\"x\":\"\xFF\xFE\"}")}) {
    SCOPED_TRACE(payload);
    std::string line = JsonlLine(MakeEvent("step.decided", payload));
    ASSERT_THAT(Lines(line), SizeIs(1));
    absl::StatusOr<json::Document> doc = json::Parse(line.substr(0, line.size() - 1));
    ASSERT_OK(doc) << line;
    std::optional<json::Value> kept = doc->root().Find("payload");
    ASSERT_TRUE(kept.has_value());
    ASSERT_TRUE(kept->is_string());
    ASSERT_TRUE(doc->root().Find("invalid_payload").has_value());
    EXPECT_TRUE(doc->root().Find("invalid_payload")->bool_value());
    if (payload[0] == 'n') {
      EXPECT_EQ(kept->string_value(), payload);
    }
  }
  EXPECT_THAT(JsonlLine(MakeEvent("e", "{\"x\":\"\xFF\"}")),
              HasSubstr("\"payload\":\"{\\\"x\\\":\\\"\xEF\xBF\xBD\\\"}\""));
}

TEST(JsonlLineTest, PayloadWithLineBreaksBecomesOneCompactLine) {
  std::string line = JsonlLine(MakeEvent("e", "{\n  \"b\": 1,\n  \"a\": \"x\\ny\"\n}"));
  EXPECT_THAT(line, HasSubstr(R"("payload":{"a":"x\ny","b":1}})"));
  EXPECT_THAT(Lines(line), SizeIs(1));
  EXPECT_THAT(line, Not(HasSubstr("invalid_payload")));
}

TEST(JsonlLineTest, HostileFieldsAreEscapedInsideTheJson) {
  store::Event e = MakeEvent("run\nstarted", "{}", "st\x1b[2Jep");
  e.run_id = "r\"1\\";
  std::string line = JsonlLine(e);
  ASSERT_THAT(Lines(line), SizeIs(1));
  EXPECT_THAT(line, HasSubstr(R"("run_id":"r\"1\\")"));
  EXPECT_THAT(line, HasSubstr(R"("step_id":"st\u001b[2Jep")"));
  EXPECT_THAT(line, HasSubstr(R"("type":"run\nstarted")"));
  EXPECT_OK(json::Parse(line.substr(0, line.size() - 1)));
}

TEST_F(TraceStoreTest, OneObjectPerEvent) {
  std::ostringstream out;
  JsonlWriter writer(out);
  store_->AddObserver(writer.Observer());
  ASSERT_OK(Append("run.started", "{}"));
  ASSERT_OK(Append("step.started", R"({"index":0})", kStart + absl::Milliseconds(5)));
  ASSERT_OK(Append("run.finished", R"({"status":"COMPLETED"})"));
  std::vector<std::string> lines = Lines(out.str());
  ASSERT_THAT(lines, SizeIs(3));
  for (std::size_t i = 0; i < lines.size(); ++i) {
    absl::StatusOr<json::Document> doc = json::Parse(lines[i]);
    ASSERT_OK(doc) << lines[i];
    EXPECT_EQ(doc->root().Find("seq")->number_literal(), std::to_string(i + 1));
  }
  EXPECT_EQ(lines[1], R"({"seq":2,"run_id":"run-1","at":"2027-01-15T08:00:00.005000000Z",)"
                      R"("type":"step.started","payload":{"index":0}})");
  EXPECT_OK(writer.status());
}

TEST_F(TraceStoreTest, ObserverAndEventsReadBackWriteTheSameLines) {
  std::ostringstream live_text, live_jsonl;
  TextWriter text(live_text);
  JsonlWriter jsonl(live_jsonl);
  store_->AddObserver(text.Observer());
  store_->AddObserver(jsonl.Observer());
  ASSERT_OK(Append("run.started", "{}"));
  ASSERT_OK(Append("step.decided", R"({"args":{"path":"\u202e"},"kind":"tool_call"})"));
  std::ostringstream read_text, read_jsonl;
  TextWriter text_again(read_text);
  JsonlWriter jsonl_again(read_jsonl);
  absl::StatusOr<std::vector<store::Event>> events = store_->ListEvents("run-1");
  ASSERT_OK(events);
  for (const store::Event& e : *events) {
    ASSERT_OK(text_again.Write(e));
    ASSERT_OK(jsonl_again.Write(e));
  }
  EXPECT_EQ(read_text.str(), live_text.str());
  EXPECT_EQ(read_jsonl.str(), live_jsonl.str());
  EXPECT_THAT(Lines(read_text.str()), SizeIs(2));
}

TEST_F(TraceStoreTest, ConcurrentEventsStayWhole) {
  std::ostringstream text_out, jsonl_out;
  TextWriter text(text_out);
  JsonlWriter jsonl(jsonl_out);
  store_->AddObserver(text.Observer());
  store_->AddObserver(jsonl.Observer());
  // Observers run after the commit, outside the store's lock: writes from several threads
  // reach the writers at the same time. Large payloads make a torn line likely if unguarded.
  constexpr int kThreads = 6, kEach = 40;
  std::string filler(20000, 'x');
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        std::string payload = "{\"t\":" + std::to_string(t) + ",\"fill\":\"" + filler + "\"}";
        ASSERT_OK(Append("concurrent.event", payload));
      }
    });
  }
  // And the same writers used directly from other threads at once.
  std::vector<std::thread> direct;
  for (int t = 0; t < 2; ++t) {
    direct.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) {
        store::Event e = MakeEvent("direct.event", "{\"fill\":\"" + filler + "\"}");
        ASSERT_OK(text.Write(e));
        ASSERT_OK(jsonl.Write(e));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (std::thread& t : direct) t.join();
  constexpr std::size_t kTotal = (kThreads + 2) * kEach;
  std::vector<std::string> jsonl_lines = Lines(jsonl_out.str());
  ASSERT_THAT(jsonl_lines, SizeIs(kTotal));
  std::set<std::string> seqs;
  for (const std::string& line : jsonl_lines) {
    absl::StatusOr<json::Document> doc = json::Parse(line);
    ASSERT_OK(doc);
    ASSERT_TRUE(doc->root().Find("payload")->Find("fill").has_value());
    if (doc->root().Find("type")->string_value() == "concurrent.event") {
      seqs.insert(std::string(doc->root().Find("seq")->number_literal()));
    }
  }
  EXPECT_THAT(seqs, SizeIs(kThreads * kEach));
  std::vector<std::string> text_lines = Lines(text_out.str());
  ASSERT_THAT(text_lines, SizeIs(kTotal));
  for (const std::string& line : text_lines) {
    ASSERT_THAT(line, MatchesRegex("2027-01-15 08:00:00\\.[0-9]{3} \\+0000  "
                                   "(concurrent|direct)\\.event +\\{.*\"\\}"));
    ASSERT_TRUE(line.ends_with(filler + "\"}")) << line.substr(0, 80);
    ASSERT_EQ(line.find(filler), line.rfind(filler)) << "two lines ran together";
  }
}

TEST_F(TraceStoreTest, FirstWriteErrorIsKept) {
  BrokenBuffer broken;
  std::ostream out(&broken);
  TextWriter writer(out);
  store_->AddObserver(writer.Observer());
  ASSERT_OK(Append("run.started", "{}"));  // the store's write is not affected
  absl::Status status = writer.status();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(status.message(), HasSubstr("writing a line to the output failed"));
  out.clear();  // even if the stream recovers, the first error stays the report
  EXPECT_EQ(writer.Write(MakeEvent("e", "{}")), status);
  JsonlWriter jsonl(out);
  EXPECT_EQ(jsonl.Write(MakeEvent("e", "{}")).code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace agentrt::trace
