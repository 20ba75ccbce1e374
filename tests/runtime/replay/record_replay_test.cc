// Recording a model's answers into a cassette and replaying them without the model
// (docs/architecture.md, "Record and replay").
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/replay/cassette_file.h"
#include "runtime/replay/cassette_recorder.h"
#include "runtime/replay/model_key.h"
#include "runtime/replay/proto/cassette.pb.h"
#include "runtime/replay/recording_model.h"
#include "runtime/replay/replay_cursor.h"
#include "runtime/replay/replaying_model.h"
#include "sim/scripted_model.h"
#include "tests/runtime/model_fixtures.h"
#include "tests/support/real_files.h"
#include "tests/support/status_matchers.h"

namespace agentrt::replay {
namespace {

using ::agentrt::model_fixtures::Answer;
using ::agentrt::model_fixtures::Ask;
using ::agentrt::model_fixtures::TempDirTest;

using ::agentrt::sim::ScriptedModel;
using namespace std::string_literals;

constexpr absl::Time kNoDeadline = absl::InfiniteFuture();

std::string TextOf(const absl::StatusOr<ModelResponse>& response) {
  return response.ok() ? response->text : "error: " + std::string(response.status().message());
}

const v1::ModelExchange& ModelAt(const Cassette& cassette, std::size_t i) {
  return cassette.exchange(i).model();
}

// Records `requests` against a scripted model answering `answers` in order.
Cassette Record(const std::vector<ModelRequest>& requests,
                const std::vector<ModelResponse>& answers, const std::string& name = "scripted") {
  ScriptedModel inner(answers, {}, name);
  CassetteRecorder recorder;
  RecordingModel recording(inner, recorder);
  for (const ModelRequest& request : requests) {
    absl::StatusOr<ModelResponse> response = recording.Generate(request, kNoDeadline);
    EXPECT_OK(response);
  }
  return recorder.cassette();
}

class ReplayTest : public TempDirTest {};

TEST_F(ReplayTest, RecordThenReplayAnswersByRequestAndRefusesTheUnrecorded) {
  Cassette cassette = Record({Ask("capital of France?"), Ask("capital of Peru?")},
                             {Answer("Paris"), Answer("Lima")});
  ASSERT_EQ(cassette.size(), 2u);
  EXPECT_EQ(ModelAt(cassette, 0).key(), ModelKey("scripted", Ask("capital of France?")));
  EXPECT_EQ(ModelAt(cassette, 0).ordinal(), 1u);

  ReplayingModel replay("scripted", cassette);
  EXPECT_EQ(replay.Name(), "scripted");
  // By key, not by position: the other order gives the same answers.
  EXPECT_EQ(TextOf(replay.Generate(Ask("capital of Peru?"), kNoDeadline)), "Lima");
  absl::StatusOr<ModelResponse> paris = replay.Generate(Ask("capital of France?"), kNoDeadline);
  ASSERT_OK(paris);
  EXPECT_EQ(paris->text, "Paris");
  EXPECT_EQ(paris->stop_reason, "end_turn");
  EXPECT_EQ(paris->usage.input_tokens, 10);
  EXPECT_EQ(paris->usage.output_tokens, 2);

  absl::StatusOr<ModelResponse> unrecorded = replay.Generate(Ask("capital of Chad?"), kNoDeadline);
  EXPECT_EQ(unrecorded.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(unrecorded.status().message(),
            "replay: no recorded response for this request (key " +
                std::string(KeyPrefix(ModelKey("scripted", Ask("capital of Chad?")))) + ")");
  EXPECT_EQ(ClassifyModelError(unrecorded.status()).kind, ModelErrorKind::kPermanent);

  // The model's name is part of the key: another model's replay has nothing recorded.
  ReplayingModel other("other-model", cassette);
  EXPECT_EQ(other.Generate(Ask("capital of France?"), kNoDeadline).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(ReplayTest, RawBytesRoundTripByteForByte) {
  // Not UTF-8, HTML-ish characters, U+2028, indentation and a trailing newline: a replay that
  // re-encoded the bytes in any way (JSON escaping, re-indenting) would change them.
  const std::string raw =
      "{\n  \"text\": \"<b>a & b</b>\xE2\x80\xA8\",\n"
      "  \"bin\": \"\xFF\xFE\x00\x80\"\n}\n"s;
  ASSERT_NE(raw.find('\0'), std::string::npos);
  Cassette cassette = Record({Ask("q")}, {Answer("a <>&", raw)});
  EXPECT_EQ(ModelAt(cassette, 0).raw(), raw);

  ASSERT_OK(WriteCassette(test_support::RealFiles(), Path("raw.cassette"), cassette));
  absl::StatusOr<std::unique_ptr<ReplayingModel>> replay =
      ReplayingModel::OpenKeyed("scripted", test_support::RealFiles(), Path("raw.cassette"));
  ASSERT_OK(replay);
  absl::StatusOr<ModelResponse> response = (*replay)->Generate(Ask("q"), kNoDeadline);
  ASSERT_OK(response);
  EXPECT_EQ(response->raw, raw);
  EXPECT_EQ(response->text, "a <>&");
}

TEST_F(ReplayTest, IdenticalRequestsKeepTheirOrderAndTheOverflowIsUnrecorded) {
  Cassette cassette = Record({Ask("roll a die"), Ask("roll a die"), Ask("other")},
                             {Answer("4"), Answer("2"), Answer("o")});
  ASSERT_EQ(cassette.size(), 3u);
  EXPECT_EQ(ModelAt(cassette, 0).ordinal(), 1u);
  EXPECT_EQ(ModelAt(cassette, 1).ordinal(), 2u);
  EXPECT_EQ(ModelAt(cassette, 1).key(), ModelAt(cassette, 0).key());

  ReplayingModel replay("scripted", cassette);
  EXPECT_EQ(TextOf(replay.Generate(Ask("roll a die"), kNoDeadline)), "4");
  EXPECT_EQ(TextOf(replay.Generate(Ask("other"), kNoDeadline)), "o");
  EXPECT_EQ(TextOf(replay.Generate(Ask("roll a die"), kNoDeadline)), "2");
  absl::StatusOr<ModelResponse> third = replay.Generate(Ask("roll a die"), kNoDeadline);
  EXPECT_EQ(third.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(third.status().message(),
            "replay: no recorded response for this request (key " +
                std::string(KeyPrefix(ModelKey("scripted", Ask("roll a die")))) +
                "): recorded 2 times, requested 3");
  EXPECT_EQ(replay.served(), 3u);
}

TEST_F(ReplayTest, ReRecordingInANewRecorderReplacesTheKeysWholeSequence) {
  const std::string path = Path("run.cassette");
  {
    ScriptedModel inner({Answer("old 1"), Answer("old 2"), Answer("kept")});
    absl::StatusOr<std::unique_ptr<CassetteRecorder>> recorder =
        CassetteRecorder::Open(test_support::RealFiles(), path, {.notes = "first"});
    ASSERT_OK(recorder);
    RecordingModel recording(inner, **recorder);
    ASSERT_OK(recording.Generate(Ask("same"), kNoDeadline));
    ASSERT_OK(recording.Generate(Ask("same"), kNoDeadline));
    ASSERT_OK(recording.Generate(Ask("untouched"), kNoDeadline));
  }
  {
    // A new session asks "same" once: its shorter sequence replaces both old recordings.
    ScriptedModel inner({Answer("new 1")});
    absl::StatusOr<std::unique_ptr<CassetteRecorder>> recorder =
        CassetteRecorder::Open(test_support::RealFiles(), path, {.notes = "second"});
    ASSERT_OK(recorder);
    RecordingModel recording(inner, **recorder);
    ASSERT_OK(recording.Generate(Ask("same"), kNoDeadline));
  }
  absl::StatusOr<Cassette> cassette = ReadCassette(test_support::RealFiles(), path);
  ASSERT_OK(cassette);
  // Appended, never rewritten: both sessions are in the file, in order.
  ASSERT_EQ(cassette->sessions().size(), 2u);
  EXPECT_EQ(cassette->sessions()[1].notes, "second");
  ASSERT_EQ(cassette->size(), 4u);
  EXPECT_EQ(cassette->session_of(3), 1u);
  EXPECT_EQ(ModelAt(*cassette, 3).ordinal(), 1u);

  ReplayingModel replay("scripted", *cassette);
  EXPECT_EQ(TextOf(replay.Generate(Ask("same"), kNoDeadline)), "new 1");
  EXPECT_THAT(TextOf(replay.Generate(Ask("same"), kNoDeadline)),
              HasSubstr("recorded 1 times, requested 2"));
  EXPECT_EQ(TextOf(replay.Generate(Ask("untouched"), kNoDeadline)), "kept");
}

TEST_F(ReplayTest, FailedCallsAreRecordedWithTheirKindAndNeverServedByKey) {
  ScriptedModel inner({Answer("unused"), Answer("ok")},
                      {ServedError("overloaded after work", {5, 1, 0})});
  CassetteRecorder recorder;
  RecordingModel recording(inner, recorder);
  EXPECT_EQ(recording.Name(), "scripted");

  absl::StatusOr<ModelResponse> failed = recording.Generate(Ask("q"), kNoDeadline);
  EXPECT_EQ(failed.status().message(), "overloaded after work");
  ModelErrorInfo info = ClassifyModelError(failed.status());
  EXPECT_EQ(info.kind, ModelErrorKind::kServed);
  ASSERT_TRUE(info.usage.has_value());
  EXPECT_EQ(info.usage->input_tokens, 5);
  ASSERT_EQ(recorder.cassette().size(), 1u);
  EXPECT_TRUE(ModelAt(recorder.cassette(), 0).has_error());
  EXPECT_EQ(ModelAt(recorder.cassette(), 0).ordinal(), 0u);

  ASSERT_OK(recording.Generate(Ask("q"), kNoDeadline));
  Cassette cassette = recorder.cassette();
  ASSERT_EQ(cassette.size(), 2u);
  EXPECT_EQ(ModelAt(cassette, 1).ordinal(), 1u);
  // By key, only what the model answered is served.
  EXPECT_EQ(TextOf(ReplayingModel("scripted", cassette).Generate(Ask("q"), kNoDeadline)), "ok");

  // In strict order the failure comes back first, with its kind and usage.
  ReplayCursor cursor(cassette);
  ReplayingModel strict("scripted", cursor);
  absl::StatusOr<ModelResponse> again = strict.Generate(Ask("q"), kNoDeadline);
  EXPECT_EQ(again.status(), failed.status());
  ModelErrorInfo replayed = ClassifyModelError(again.status());
  EXPECT_EQ(replayed.kind, ModelErrorKind::kServed);
  ASSERT_TRUE(replayed.usage.has_value());
  EXPECT_EQ(replayed.usage->input_tokens, 5);
  EXPECT_EQ(TextOf(strict.Generate(Ask("q"), kNoDeadline)), "ok");
  EXPECT_OK(cursor.Finish());
}

TEST_F(ReplayTest, EveryCallIsOnDiskBeforeItReturnsInAnOwnerOnlyFile) {
  const std::string path = Path("run.cassette");
  {
    ScriptedModel inner({Answer("one"), Answer("two"), Answer("three")}, {}, "m");
    absl::StatusOr<std::unique_ptr<CassetteRecorder>> recorder =
        CassetteRecorder::Create(test_support::RealFiles(), path, {.created_by = "agentrt test"});
    ASSERT_OK(recorder);
    // Created at once, with its header and no exchange.
    absl::StatusOr<Cassette> empty = ReadCassette(test_support::RealFiles(), path);
    ASSERT_OK(empty);
    EXPECT_EQ(empty->size(), 0u);
    EXPECT_EQ(empty->header().created_by, "agentrt test");
    // Recording never mixes runs: a second Create on the file is refused.
    EXPECT_EQ(CassetteRecorder::Create(test_support::RealFiles(), path, {}).status().code(),
              absl::StatusCode::kAlreadyExists);

    RecordingModel recording(inner, **recorder);
    for (int i = 1; i <= 3; ++i) {
      ASSERT_OK(recording.Generate(Ask("q" + std::to_string(i)), kNoDeadline));
      // What is on disk after each call is the whole cassette so far: a crash at this point
      // would lose nothing recorded.
      absl::StatusOr<Cassette> on_disk = ReadCassette(test_support::RealFiles(), path);
      ASSERT_OK(on_disk);
      EXPECT_EQ(on_disk->size(), static_cast<std::size_t>(i));
      EXPECT_EQ(on_disk->torn(), "");
    }
    ASSERT_OK((*recorder)->SetChainHead({7, std::string(64, 'a')}));
  }
  EXPECT_THAT(Files(), ElementsAre("run.cassette"));  // no temporary file left
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  absl::StatusOr<std::unique_ptr<ReplayingModel>> replay =
      ReplayingModel::OpenKeyed("m", test_support::RealFiles(), path);
  ASSERT_OK(replay);
  EXPECT_EQ(TextOf((*replay)->Generate(Ask("q2"), kNoDeadline)), "two");
  EXPECT_EQ(TextOf((*replay)->Generate(Ask("q1"), kNoDeadline)), "one");
  EXPECT_EQ(TextOf((*replay)->Generate(Ask("q3"), kNoDeadline)), "three");
  absl::StatusOr<Cassette> cassette = ReadCassette(test_support::RealFiles(), path);
  ASSERT_OK(cassette);
  EXPECT_EQ(cassette->chain_head().seq, 7);
  EXPECT_EQ(cassette->chain_head().hash, std::string(64, 'a'));
}

// A call whose recording cannot be written returns the write's error rather than an answer the
// cassette does not hold; the file keeps every whole exchange before it, and the reader names
// the torn end; every later call fails the same way.
TEST_F(ReplayTest, ACallWhoseRecordingFailsReturnsTheErrorAndTheFileKeepsEveryWholeExchange) {
  const std::string path = Path("run.cassette");
  ScriptedModel inner({Answer("small"), Answer(std::string(64 * 1024, 'x')), Answer("later")}, {},
                      "m");
  absl::StatusOr<std::unique_ptr<CassetteRecorder>> recorder =
      CassetteRecorder::Create(test_support::RealFiles(), path, {});
  ASSERT_OK(recorder);
  RecordingModel recording(inner, **recorder);
  ASSERT_OK(recording.Generate(Ask("q1"), kNoDeadline));
  struct stat before;
  ASSERT_EQ(::stat(path.c_str(), &before), 0);
  // The file system refuses files past a few bytes more than the cassette holds now, as a full
  // disk would: the next save cannot be written.
  struct rlimit saved;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  struct sigaction ignore = {}, previous;
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGXFSZ, &ignore, &previous), 0);
  struct rlimit tight = saved;
  tight.rlim_cur = static_cast<rlim_t>(before.st_size) + 16;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &tight), 0);
  absl::StatusOr<ModelResponse> failed = recording.Generate(Ask("q2"), kNoDeadline);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &saved), 0);
  ASSERT_EQ(::sigaction(SIGXFSZ, &previous, nullptr), 0);
  ASSERT_THAT(failed, StatusIs(absl::StatusCode::kOutOfRange));
  EXPECT_THAT(failed.status().message(), HasSubstr("cassette " + path + ": write: "));
  absl::StatusOr<Cassette> on_disk = ReadCassette(test_support::RealFiles(), path);
  ASSERT_OK(on_disk);
  ASSERT_EQ(on_disk->size(), 1u);  // the first exchange, whole; nothing of the second
  EXPECT_THAT(on_disk->torn(), HasSubstr("record 3 at byte "));
  EXPECT_THAT(failed.status().message(), HasSubstr((*recorder)->status().message()));
  EXPECT_EQ(recording.Generate(Ask("q3"), kNoDeadline).status(), failed.status());
  EXPECT_THAT(Files(), ElementsAre("run.cassette"));
}

TEST_F(ReplayTest, ConcurrentIdenticalCallsGetDistinctOrdinalsAndAllReplay) {
  std::vector<ModelResponse> answers;
  for (int i = 0; i < 40; ++i) answers.push_back(Answer(std::to_string(i)));
  ScriptedModel inner(answers);
  CassetteRecorder recorder;
  RecordingModel recording(inner, recorder);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) EXPECT_OK(recording.Generate(Ask("same"), kNoDeadline));
    });
  }
  for (std::thread& t : threads) t.join();
  Cassette cassette = recorder.cassette();
  ASSERT_EQ(cassette.size(), 40u);
  for (std::size_t i = 0; i < 40; ++i) EXPECT_EQ(ModelAt(cassette, i).ordinal(), i + 1);
  ASSERT_OK(SerializeCassette(cassette));

  ReplayingModel replay("scripted", cassette);
  std::set<std::string> served;
  for (int i = 0; i < 40; ++i) served.insert(TextOf(replay.Generate(Ask("same"), kNoDeadline)));
  EXPECT_EQ(served.size(), 40u);
}

TEST_F(ReplayTest, StrictOrderStopsAtTheFirstRequestThatDiffersShowingBoth) {
  Cassette cassette =
      Record({Ask("a"), Ask("b"), Ask("a")}, {Answer("A1"), Answer("B"), Answer("A2")});
  ReplayCursor cursor(cassette);
  ReplayingModel strict("scripted", cursor);
  EXPECT_EQ(TextOf(strict.Generate(Ask("a"), kNoDeadline)), "A1");
  absl::StatusOr<ModelResponse> wrong = strict.Generate(Ask("a"), kNoDeadline);
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(wrong.status().message(),
              HasSubstr("replay: exchange 2 (model call) differs from the recording: "
                        "model.request_json at byte "));
  EXPECT_THAT(wrong.status().message(), HasSubstr(R"(recorded …)"));
  EXPECT_THAT(wrong.status().message(), HasSubstr(R"(\"text\":\"b\")"));
  EXPECT_THAT(wrong.status().message(), HasSubstr(R"(\"text\":\"a\")"));
  // The replay has stopped: even the request the recording expected now fails.
  EXPECT_EQ(strict.Generate(Ask("b"), kNoDeadline).status(), wrong.status());
  EXPECT_EQ(cursor.Finish(), wrong.status());

  // In order, every exchange is served, then nothing more.
  ReplayCursor in_order_cursor(cassette);
  ReplayingModel in_order("scripted", in_order_cursor);
  EXPECT_EQ(TextOf(in_order.Generate(Ask("a"), kNoDeadline)), "A1");
  EXPECT_EQ(TextOf(in_order.Generate(Ask("b"), kNoDeadline)), "B");
  EXPECT_EQ(TextOf(in_order.Generate(Ask("a"), kNoDeadline)), "A2");
  EXPECT_OK(in_order_cursor.Finish());
  absl::StatusOr<ModelResponse> more = in_order.Generate(Ask("a"), kNoDeadline);
  EXPECT_EQ(more.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(more.status().message(),
              HasSubstr("replay: the recording has no exchange 4; the run asks for model call"));
}

TEST_F(ReplayTest, TextThatIsNotUtf8IsRecordedAsReplacementCharactersWhileRawStaysExact) {
  // A JSON string cannot hold bytes that are not UTF-8: the structured response keeps U+FFFD in
  // their place (one stable form, so the exchange reads back), and the provider's own bytes are
  // kept exactly in raw.
  Cassette cassette = Record({Ask("q")}, {Answer("bad \xFF text", "raw \xFF bytes")});
  ReplayingModel replay("scripted", cassette);
  absl::StatusOr<ModelResponse> r = replay.Generate(Ask("q"), kNoDeadline);
  ASSERT_OK(r);
  EXPECT_EQ(r->text, "bad \xEF\xBF\xBD text");
  EXPECT_EQ(r->raw, "raw \xFF bytes");
}

TEST_F(ReplayTest, ARecorderOnAFolderThatDoesNotExistFailsAtOpenNamingThePath) {
  std::string path = Path("missing/run.cassette");
  absl::StatusOr<std::unique_ptr<CassetteRecorder>> recorder =
      CassetteRecorder::Create(test_support::RealFiles(), path, {});
  EXPECT_EQ(recorder.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(recorder.status().message(), HasSubstr(path));
}

}  // namespace
}  // namespace agentrt::replay
