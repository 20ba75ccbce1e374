// What a tool's answer means for its step and run (runtime/engine/tool_outcome.h), without a
// store: each kind of answer, and that the two questions are asked only when they matter.
#include "runtime/engine/tool_outcome.h"

#include "absl/strings/escaping.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sha256.h"
#include "runtime/status_payloads.h"
#include "tests/support/status_matchers.h"

namespace agentrt::internal {
namespace {

using Ending = ToolOutcome::Ending;

// The two questions, counting how often each was asked.
struct Questions {
  bool cancelled = false;
  bool expired = false;
  int cancelled_asked = 0;
  int expired_asked = 0;

  ToolOutcome Classify(const absl::StatusOr<ToolResult>& result, bool terminal = false) {
    return ClassifyToolResult(
        result, "deploy", terminal,
        [&] {
          ++cancelled_asked;
          return cancelled;
        },
        [&] {
          ++expired_asked;
          return expired;
        });
  }
};

std::string ContentOf(const ToolOutcome& outcome) { return outcome.observation.content; }

TEST(ToolOutcomeTest, AResultIsCanonicalAndHashedAndAsksNothing) {
  Questions q;
  ToolOutcome outcome = q.Classify(ToolResult{R"({ "b": 1, "a": 2 })", "two keys"});
  EXPECT_EQ(outcome.ending, Ending::kDone);
  EXPECT_EQ(outcome.observation.kind, ObservationKind::kToolResult);
  EXPECT_EQ(outcome.observation.content, R"({"a":2,"b":1})");
  EXPECT_EQ(outcome.observation.summary, "two keys");
  EXPECT_EQ(outcome.observation.content_hash, json::Sha256Hex(R"({"a":2,"b":1})"));
  EXPECT_EQ(q.cancelled_asked + q.expired_asked, 0)
      << "a success reads no clock (a recorded run replays its readings in order)";
}

TEST(ToolOutcomeTest, BlankContentIsAnEmptyObjectAndATerminalToolCompletesTheRun) {
  Questions q;
  ToolOutcome outcome = q.Classify(ToolResult{" \n", ""}, /*terminal=*/true);
  EXPECT_EQ(outcome.ending, Ending::kCompleteRun);
  EXPECT_EQ(outcome.observation.content, "{}");
}

TEST(ToolOutcomeTest, ContentThatIsNotJsonFailsTheStepKeepingTheBytes) {
  Questions q;
  ToolOutcome text = q.Classify(ToolResult{"not json", ""}, /*terminal=*/true);
  EXPECT_EQ(text.ending, Ending::kFailed) << "a terminal tool's unusable answer completes nothing";
  EXPECT_EQ(text.observation.kind, ObservationKind::kToolError);
  EXPECT_THAT(ContentOf(text), HasSubstr(R"("failure":"invalid_content")"));
  EXPECT_THAT(ContentOf(text), HasSubstr(R"("content":"not json")"));
  EXPECT_THAT(text.observation.summary, HasSubstr("deploy returned content is not usable JSON"));

  ToolOutcome binary = q.Classify(ToolResult{std::string("\xff\xfe", 2), ""});
  EXPECT_THAT(ContentOf(binary),
              HasSubstr(absl::StrCat(R"("content_base64":")", absl::Base64Escape("\xff\xfe"))));
}

TEST(ToolOutcomeTest, AnErrorFailsTheStepAndAsksWhetherTheCallExpired) {
  Questions q;
  ToolOutcome outcome = q.Classify(absl::UnavailableError("disk full"));
  EXPECT_EQ(outcome.ending, Ending::kFailed);
  EXPECT_THAT(ContentOf(outcome), HasSubstr(R"("failure":"error")"));
  EXPECT_EQ(outcome.observation.summary, "deploy error: disk full");
  EXPECT_EQ(q.cancelled_asked, 1);
  EXPECT_EQ(q.expired_asked, 1);

  q.expired = true;
  ToolOutcome late = q.Classify(absl::UnavailableError("disk full"));
  EXPECT_THAT(ContentOf(late), HasSubstr(R"("failure":"timeout")"))
      << "an error once the deadline passed is a timeout";
  EXPECT_EQ(late.observation.summary, "deploy timeout: disk full");
}

TEST(ToolOutcomeTest, DeadlineExceededIsATimeoutWithoutReadingTheClock) {
  Questions q;
  ToolOutcome outcome = q.Classify(absl::DeadlineExceededError("slow"));
  EXPECT_THAT(ContentOf(outcome), HasSubstr(R"("failure":"timeout")"));
  EXPECT_EQ(q.expired_asked, 0);
}

TEST(ToolOutcomeTest, APanicSaysSoByItsPayloadNotItsWords) {
  Questions q;
  absl::Status panic = absl::InternalError("boom");
  panic.SetPayload(ToAbsl(payload::kToolPanic), absl::Cord());
  EXPECT_EQ(q.Classify(panic).observation.summary, "deploy panicked");
  EXPECT_EQ(q.Classify(absl::InternalError("panic: boom")).observation.summary,
            "deploy error: panic: boom");
}

TEST(ToolOutcomeTest, AbortRunFailsTheRunWithTheToolsDetailEvenWhenCancelled) {
  Questions q;
  q.cancelled = true;
  ToolOutcome outcome = q.Classify(AbortRun("credentials revoked"));
  EXPECT_EQ(outcome.ending, Ending::kAbortRun);
  EXPECT_EQ(outcome.abort_detail, "credentials revoked");
  EXPECT_THAT(ContentOf(outcome), HasSubstr(R"("failure":"abort")"));
  EXPECT_EQ(outcome.observation.summary, "deploy aborted the run: credentials revoked");
  EXPECT_EQ(q.expired_asked, 0);
}

TEST(ToolOutcomeTest, AnErrorAfterCancellationInterruptsTheStepOutcomeUnknown) {
  Questions q;
  q.cancelled = true;
  ToolOutcome outcome = q.Classify(absl::CancelledError("stopped"));
  EXPECT_EQ(outcome.ending, Ending::kInterrupted);
  EXPECT_EQ(outcome.observation.kind, ObservationKind::kInterrupted);
  EXPECT_THAT(ContentOf(outcome), HasSubstr(R"("failure":"cancelled")"));
  EXPECT_THAT(ContentOf(outcome), HasSubstr(R"("previous_status":"executing")"));
  EXPECT_EQ(outcome.observation.summary, "deploy was cancelled; its outcome is unknown");
  EXPECT_EQ(q.expired_asked, 0);

  ToolOutcome answered = q.Classify(ToolResult{"{}", ""});
  EXPECT_EQ(answered.ending, Ending::kDone) << "a call that answered is not interrupted";
}

}  // namespace
}  // namespace agentrt::internal
