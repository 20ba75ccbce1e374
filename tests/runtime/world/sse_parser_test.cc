// The SSE parser against every rule of sse_parser.h, one table row a rule, and the property that
// matters for a streamed body: however the bytes are cut into chunks, the events are the same.
#include "runtime/world/sse_parser.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.h"

namespace agentrt::world {
namespace {

using namespace std::string_literals;

SseEvent Event(std::string data, std::string type = "message", std::string id = "") {
  return SseEvent{std::move(type), std::move(data), std::move(id)};
}

// What a parser made of a whole stream: the events Feed returned, then Finish's.
struct Parsed {
  std::vector<SseEvent> fed;
  std::vector<SseEvent> finished;
  std::string last_event_id;
  std::optional<std::int64_t> retry_ms;
};

// Parses `stream` cut at `cuts` (offsets, ascending), then finishes it.
Parsed ParseInChunks(std::string_view stream, const std::vector<std::size_t>& cuts) {
  SseParser parser;
  Parsed parsed;
  std::size_t from = 0;
  std::vector<std::size_t> ends = cuts;
  ends.push_back(stream.size());
  for (std::size_t to : ends) {
    absl::StatusOr<std::vector<SseEvent>> events = parser.Feed(stream.substr(from, to - from));
    EXPECT_OK(events);
    if (events.ok()) parsed.fed.insert(parsed.fed.end(), events->begin(), events->end());
    from = to;
  }
  absl::StatusOr<std::vector<SseEvent>> events = parser.Finish();
  EXPECT_OK(events);
  if (events.ok()) parsed.finished = *events;
  parsed.last_event_id = parser.last_event_id();
  parsed.retry_ms = parser.retry_ms();
  return parsed;
}

Parsed Parse(std::string_view stream) { return ParseInChunks(stream, {}); }

struct Row {
  std::string name;
  std::string stream;
  std::vector<SseEvent> fed;       // the events Feed returns for the whole stream
  std::vector<SseEvent> finished;  // then Finish's
  std::string last_event_id = "";
  std::optional<std::int64_t> retry_ms = std::nullopt;
};

const std::vector<Row>& Rows() {
  static const auto* rows = new std::vector<Row>{
      {"LineFeeds", "data: a\n\n", {Event("a")}, {}},
      {"CrLfs", "data: a\r\n\r\n", {Event("a")}, {}},
      {"CarriageReturns", "data: a\r\r", {Event("a")}, {}},
      {"MixedLineEndings", "data: a\r\ndata: b\rdata: c\n\r\n", {Event("a\nb\nc")}, {}},
      {"ByteOrderMarkSkipped",
       "\xEF\xBB\xBF"
       "data: a\n\n",
       {Event("a")},
       {}},
      {"ByteOrderMarkOnlyAtTheStart",
       "data: a\n\n\xEF\xBB\xBF"
       "data: b\n\n",
       {Event("a")},
       {}},
      {"SecondByteOrderMarkIsContent",
       "\xEF\xBB\xBF\xEF\xBB\xBF"
       "data: a\n\n",
       {},
       {}},
      {"PartialByteOrderMarkIsContent",
       "\xEF\xBB"
       "data: a\n\n",
       {},
       {}},
      {"CommentIgnored", ": ping\n\ndata: a\n: keep-alive\ndata: b\n\n", {Event("a\nb")}, {}},
      {"CommentOnlyStream", ":\n:\n\n", {}, {}},
      {"EventNamesTheType", "event: update\ndata: x\n\n", {Event("x", "update")}, {}},
      {"TypeResetAfterDispatch",
       "event: update\ndata: x\n\ndata: y\n\n",
       {Event("x", "update"), Event("y")},
       {}},
      {"EmptyEventNameIsMessage", "event:\ndata: x\n\n", {Event("x")}, {}},
      {"OneSpaceRemoved", "data:  two\n\n", {Event(" two")}, {}},
      {"NoSpaceNeeded", "data:tight\n\n", {Event("tight")}, {}},
      {"TabKept", "data:\tt\n\n", {Event("\tt")}, {}},
      {"ColonInTheValue", "data: a:b: c\n\n", {Event("a:b: c")}, {}},
      {"BareFieldHasAnEmptyValue", "data\ndata\n\n", {Event("\n")}, {}},
      {"DataLinesJoined", "data: {\"a\":\r\ndata: 1}\r\n\r\n", {Event("{\"a\":\n1}")}, {}},
      {"EmptyDataNotDispatched", "data:\n\n", {}, {}},
      {"EventWithoutDataNotDispatched", "event: update\n\ndata: y\n\n", {Event("y")}, {}},
      {"PrimingEventSetsTheIdOnly",
       "id: p1\ndata: \n\nevent: message\ndata: {}\n\n",
       {Event("{}", "message", "p1")},
       {},
       "p1"},
      {"IdKeptAcrossEvents",
       "id: 1\ndata: a\n\ndata: b\n\n",
       {Event("a", "message", "1"), Event("b", "message", "1")},
       {},
       "1"},
      {"IdWithNulIgnored",
       "id: 1\ndata: a\n\nid: 2\0x\ndata: b\n\n"s,
       {Event("a", "message", "1"), Event("b", "message", "1")},
       {},
       "1"},
      {"EmptyIdClearsIt",
       "id: 1\ndata: a\n\nid\ndata: b\n\n",
       {Event("a", "message", "1"), Event("b")},
       {},
       ""},
      {"RetryDigits", "retry: 3000\n", {}, {}, "", 3000},
      {"RetryWithUnitIgnored", "retry: 3s\n", {}, {}, "", std::nullopt},
      {"RetryNegativeIgnored", "retry: -1\n", {}, {}, "", std::nullopt},
      {"RetryEmptyIgnored", "retry:\n", {}, {}, "", std::nullopt},
      {"RetryTooLargeIgnored", "retry: 99999999999999999999\n", {}, {}, "", std::nullopt},
      {"RetryLaterBadValueKeepsTheLast", "retry: 12\nretry: x\n", {}, {}, "", 12},
      {"UnknownFieldIgnored", "foo: bar\ndata: a\n\n", {Event("a")}, {}},
      {"FieldNamesAreCaseSensitive", "Data: a\n\n", {}, {}},
      {"SpaceBeforeColonIsPartOfTheName", "data : a\n\n", {}, {}},
      {"UnterminatedLineDispatchedAtFinish", "data: a", {}, {Event("a")}},
      {"UnterminatedEventDispatchedAtFinish", "data: a\n", {}, {Event("a")}},
      {"CarriageReturnAtTheEnd", "event: x\ndata: a\r", {}, {Event("a", "x")}},
      {"NothingPendingAtFinish", "data: a\n\n", {Event("a")}, {}},
      // The SSE shapes real servers send.
      {"McpCrLfWithEventAndId",
       "event: message\r\nid: 1\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n\r\n",
       {Event("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", "message", "1")},
       {},
       "1"},
      {"McpPingAndSplitData",
       ": ping\n\ndata: {\"jsonrpc\":\"2.0\",\ndata: \"id\":1,\"result\":{}}\n\n",
       {Event("{\"jsonrpc\":\"2.0\",\n\"id\":1,\"result\":{}}")},
       {}},
      {"McpUnterminated",
       "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}",
       {},
       {Event("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}")}},
      {"McpOtherEventTypeKeptForTheCaller",
       "event: other\ndata: {\"not\":\"it\"}\n\ndata: {\"ok\":1}\n\n",
       {Event("{\"not\":\"it\"}", "other"), Event("{\"ok\":1}")},
       {}},
  };
  return *rows;
}

TEST(SseParserTest, EveryRuleOnTheWholeStream) {
  for (const Row& row : Rows()) {
    SCOPED_TRACE(row.name);
    Parsed parsed = Parse(row.stream);
    EXPECT_EQ(parsed.fed, row.fed);
    EXPECT_EQ(parsed.finished, row.finished);
    EXPECT_EQ(parsed.last_event_id, row.last_event_id);
    EXPECT_EQ(parsed.retry_ms, row.retry_ms);
  }
}

// Property: cutting a stream anywhere, once or twice, or feeding it a byte at a time, gives the
// events of the whole stream. Events may complete in a later chunk, never differ.
std::vector<SseEvent> All(const Parsed& p) {
  std::vector<SseEvent> all = p.fed;
  all.insert(all.end(), p.finished.begin(), p.finished.end());
  return all;
}

void ExpectSameAsWhole(const std::string& stream, const std::vector<std::size_t>& cuts,
                       const Parsed& whole) {
  Parsed chunked = ParseInChunks(stream, cuts);
  std::string where;
  for (std::size_t cut : cuts) where += std::to_string(cut) + " ";
  EXPECT_EQ(All(chunked), All(whole)) << "cut at " << where;
  EXPECT_EQ(chunked.finished, whole.finished) << "cut at " << where;
  EXPECT_EQ(chunked.last_event_id, whole.last_event_id) << "cut at " << where;
  EXPECT_EQ(chunked.retry_ms, whole.retry_ms) << "cut at " << where;
}

TEST(SseParserTest, EverySplitGivesTheEventsOfTheWhole) {
  for (const Row& row : Rows()) {
    SCOPED_TRACE(row.name);
    const std::string& s = row.stream;
    Parsed whole = Parse(s);
    for (std::size_t i = 0; i <= s.size(); ++i) {
      ExpectSameAsWhole(s, {i}, whole);
      for (std::size_t j = i; j <= s.size() && s.size() <= 48; ++j) {
        ExpectSameAsWhole(s, {i, j}, whole);
      }
    }
    std::vector<std::size_t> every_byte;
    for (std::size_t i = 1; i < s.size(); ++i) every_byte.push_back(i);
    ExpectSameAsWhole(s, every_byte, whole);
  }
}

TEST(SseParserTest, CrAtAChunksEndAndLfInTheNextAreOneLineEnding) {
  SseParser parser;
  EXPECT_THAT(*parser.Feed("data: a\r"), IsEmpty());
  // Were the LF a second line ending, this would be the empty line that dispatches.
  EXPECT_THAT(*parser.Feed("\n"), IsEmpty());
  EXPECT_THAT(*parser.Feed("\n"), ElementsAre(Event("a")));
}

TEST(SseParserTest, ByteOrderMarkSplitAcrossChunksIsSkipped) {
  SseParser parser;
  EXPECT_THAT(*parser.Feed("\xEF"), IsEmpty());
  EXPECT_THAT(*parser.Feed("\xBB"), IsEmpty());
  EXPECT_THAT(*parser.Feed("\xBF"
                           "data: a\n\n"),
              ElementsAre(Event("a")));
}

TEST(SseParserTest, FinishStartsANewStreamKeepingTheIdAndRetry) {
  SseParser parser;
  EXPECT_THAT(*parser.Feed("retry: 50\nid: 5\ndata: a"), IsEmpty());
  EXPECT_THAT(*parser.Finish(), ElementsAre(Event("a", "message", "5")));
  EXPECT_THAT(*parser.Finish(), IsEmpty());
  // The new stream may open with a byte order mark again.
  EXPECT_THAT(*parser.Feed("\xEF\xBB\xBF"
                           "data: b\n\n"),
              ElementsAre(Event("b", "message", "5")));
  EXPECT_EQ(parser.retry_ms(), 50);
}

TEST(SseParserTest, ALineOfExactlyTheBoundIsAccepted) {
  SseParser parser(/*max_event_bytes=*/8);
  EXPECT_THAT(*parser.Feed("data: 12\n\n"), ElementsAre(Event("12")));
}

TEST(SseParserTest, ALineOverTheBoundIsRefusedAndStaysRefused) {
  SseParser parser(/*max_event_bytes=*/8);
  absl::StatusOr<std::vector<SseEvent>> events = parser.Feed("data: 123\n\n");
  EXPECT_EQ(events.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(events.status().message(), HasSubstr("line is longer than 8 bytes"));
  EXPECT_EQ(parser.Feed("data: 1\n\n").status(), events.status());
  EXPECT_EQ(parser.Finish().status(), events.status());
}

TEST(SseParserTest, ALineThatNeverEndsIsRefusedAtTheByteOverTheBound) {
  SseParser parser(/*max_event_bytes=*/10);
  for (int i = 0; i < 10; ++i) ASSERT_OK(parser.Feed("x")) << i;
  EXPECT_EQ(parser.Feed("x").status().code(), absl::StatusCode::kResourceExhausted);
}

TEST(SseParserTest, CommentsCountAgainstTheLineBound) {
  SseParser parser(/*max_event_bytes=*/4);
  EXPECT_EQ(parser.Feed(": keep-alive\n").status().code(), absl::StatusCode::kResourceExhausted);
}

TEST(SseParserTest, DataOfExactlyTheBoundIsAcceptedAndOneMoreIsRefused) {
  // Each line is within the bound; the joined data is what passes it.
  SseParser exact(/*max_event_bytes=*/11);
  EXPECT_THAT(*exact.Feed("data:12345\ndata:12345\n\n"), ElementsAre(Event("12345\n12345")));

  SseParser over(/*max_event_bytes=*/10);
  absl::StatusOr<std::vector<SseEvent>> events = over.Feed("data:12345\ndata:12345\n\n");
  EXPECT_EQ(events.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(events.status().message(), HasSubstr("data is longer than 10 bytes"));
}

TEST(SseParserTest, AnUnterminatedLineOverTheBoundIsRefusedAtFinishToo) {
  SseParser parser(/*max_event_bytes=*/10);
  ASSERT_OK(parser.Feed("data:12345\ndata:12345"));
  EXPECT_EQ(parser.Finish().status().code(), absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace agentrt::world
