// Steps -> messages: the whole conversation, the window of recent
// results, the content cap, the hooks, the nudges and the interrupted answer.
#include "runtime/render/messages.h"

#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/sanitize.h"
#include "runtime/json/utf8.h"
#include "runtime/records/stored_forms.h"
#include "runtime/scripted_agent.h"
#include "tests/runtime/render/dump.h"
#include "tests/support/status_matchers.h"

namespace agentrt::render {
namespace {

using ::agentrt::scripted::Call;

Decision Kind(std::string kind, std::string reason = "") {
  Decision d;
  d.kind = std::move(kind);
  d.reason = std::move(reason);
  return d;
}

Observation Result(std::string content, std::string summary) {
  Observation o;
  o.kind = ObservationKind::kToolResult;
  o.content = std::move(content);
  o.summary = std::move(summary);
  return o;
}

Observation Invalid(std::string error) {
  return MakeObservation(ObservationKind::kInvalidDecision, {{"error", error}},
                         "invalid decision: " + error);
}

Step MakeStep(int index, std::optional<Decision> decision,
              std::optional<Observation> observation = std::nullopt) {
  Step s;
  s.id = "s" + std::to_string(index);
  s.run_id = "run-1";
  s.index = index;
  s.status = StepStatus::kDone;
  s.decision = std::move(decision);
  s.observation = std::move(observation);
  return s;
}

StepInput Input(std::vector<Step> steps) {
  StepInput in;
  in.run.id = "run-1";
  in.run.goal = "summarize a.txt";
  in.steps = std::move(steps);
  return in;
}

RenderOptions Options() {
  RenderOptions o;
  o.opening = [](const StepInput& in) { return "Goal: " + in.run.goal; };
  return o;
}

std::vector<std::string> Render(const StepInput& input, const RenderOptions& options) {
  absl::StatusOr<std::vector<Message>> messages = Messages(input, options);
  EXPECT_OK(messages);
  return messages.ok() ? Dump(*messages) : std::vector<std::string>{};
}

TEST(MessagesTest, WholeSequence) {
  StepInput input = Input({
      MakeStep(0, Call("read", R"({ "path" : "a.txt" })", "Reading the file first."),
               Result(R"({"text":"hello"})", "read 5 bytes")),
      MakeStep(
          1, Call("delete", R"({"path":"a.txt"})"),
          MakeObservation(ObservationKind::kPolicyDenied,
                          {{"reason", "destructive"}, {"tool", "delete"}}, "denied: destructive")),
      MakeStep(2, Kind("no_tool_call", "I think we are done."),
               Invalid("the reply contained no tool call")),
      MakeStep(3, Call("list", ""), Result("{}", "0 entries")),
  });

  EXPECT_THAT(
      Render(input, Options()),
      ElementsAre(
          "user: text:Goal: summarize a.txt",
          R"(assistant: text:Reading the file first. | tool_use:step_0:read:{"path":"a.txt"})",
          R"(user: tool_result:step_0:{"text":"hello"})",
          R"(assistant: tool_use:step_1:delete:{"path":"a.txt"})",
          R"(user: tool_result:step_1:error:{"reason":"destructive","tool":"delete"})",
          "assistant: text:I think we are done.",
          "user: text:Your reply contained no executable tool call. Respond with exactly one tool "
          "call.",
          "assistant: tool_use:step_3:list:{}",  // no arguments render as {}
          "user: tool_result:step_3:{}"));

  // No steps: only the opening.
  EXPECT_THAT(Render(Input({}), Options()), ElementsAre("user: text:Goal: summarize a.txt"));
}

TEST(MessagesTest, RecentWindowAndContentCap) {
  RenderOptions defaults;
  EXPECT_EQ(defaults.recent_results, 6);
  EXPECT_EQ(defaults.max_content_bytes, 24000u);

  auto read = [](int i, std::string content) {
    return MakeStep(i, Call("read", R"({"path":"f)" + std::to_string(i) + R"("})"),
                    Result(std::move(content), "summary " + std::to_string(i)));
  };
  RenderOptions options = Options();
  options.recent_results = 2;
  options.max_content_bytes = 20;
  StepInput input = Input({read(0, R"({"n":0})"), read(1, R"({"n":1})"), read(2, R"({"n":2})"),
                           read(3, R"({"text":"longer than twenty bytes"})")});
  std::vector<std::string> lines = Render(input, options);
  ASSERT_EQ(lines.size(), 9u);
  EXPECT_EQ(lines[2], "user: tool_result:step_0:[summary] summary 0");  // outside the window
  EXPECT_EQ(lines[4], "user: tool_result:step_1:[summary] summary 1");
  EXPECT_EQ(lines[6], R"(user: tool_result:step_2:{"n":2})");           // recent, whole
  EXPECT_EQ(lines[8], "user: tool_result:step_3:[summary] summary 3");  // recent, over the cap

  // Exactly at the cap is still whole.
  options.max_content_bytes = std::string(R"({"text":"longer than twenty bytes"})").size();
  EXPECT_EQ(Render(input, options)[8],
            R"(user: tool_result:step_3:{"text":"longer than twenty bytes"})");

  // The default window: of seven results, the oldest is summarised and six are whole.
  std::vector<Step> seven;
  for (int i = 0; i < 7; ++i) seven.push_back(read(i, R"({"n":1})"));
  lines = Render(Input(seven), Options());
  EXPECT_EQ(lines[2], "user: tool_result:step_0:[summary] summary 0");
  for (int i = 1; i < 7; ++i)
    EXPECT_EQ(lines[2 + 2 * i], "user: tool_result:step_" + std::to_string(i) + R"(:{"n":1})");

  // No window: everything by summary.
  options.recent_results = 0;
  lines = Render(input, options);
  EXPECT_EQ(lines[6], "user: tool_result:step_2:[summary] summary 2");
}

TEST(MessagesTest, SkipsTheStepBeingDecided) {
  Step interrupted_while_deciding =
      MakeStep(1, std::nullopt,
               MakeObservation(ObservationKind::kInterrupted, {{"previous_status", "deciding"}},
                               "step interrupted while deciding"));
  interrupted_while_deciding.status = StepStatus::kInterrupted;
  Step being_decided = MakeStep(3, std::nullopt);
  being_decided.status = StepStatus::kDeciding;

  RenderOptions options = Options();
  options.recent_results = 2;
  StepInput input = Input(
      {MakeStep(0, Call("read", R"({"path":"a"})"), Result(R"({"n":0})", "zero")),
       interrupted_while_deciding,
       MakeStep(2, Call("read", R"({"path":"b"})"), Result(R"({"n":2})", "two")), being_decided});
  // Neither undecided step is rendered nor counted: both decided steps are in the window of 2.
  EXPECT_THAT(Render(input, options), ElementsAre("user: text:Goal: summarize a.txt",
                                                  R"(assistant: tool_use:step_0:read:{"path":"a"})",
                                                  R"(user: tool_result:step_0:{"n":0})",
                                                  R"(assistant: tool_use:step_2:read:{"path":"b"})",
                                                  R"(user: tool_result:step_2:{"n":2})"));
}

TEST(MessagesTest, HooksOverrideAndFallBack) {
  StepInput input =
      Input({MakeStep(0, Call("read", R"({"path":"a"})"), Result(R"({"n":0})", "zero")),
             MakeStep(1, Call("read", R"({"path":"b"})"), Result(R"({"n":1})", "one"))});
  std::vector<std::string> seen;
  RenderOptions options = Options();
  options.recent_results = 1;
  // A provider's own ids for the steps it knows; "" falls back to step_<index>.
  options.tool_use_id = [](const Step& s) { return s.index == 0 ? std::string("toolu_01") : ""; };
  // A provider's raw turn for step 0 (thinking included); nothing for step 1.
  options.assistant = [](const Step& s) -> std::optional<Message> {
    if (s.index != 0) return std::nullopt;
    ContentBlock thinking;
    thinking.type = "thinking";
    thinking.text = "hmm";
    return Message{"assistant", {thinking}};
  };
  // Its own block for step 0; a block without a type (step 1) falls back.
  options.observation = [&](const Step& s, std::string_view id,
                            bool full) -> std::optional<ContentBlock> {
    seen.push_back(std::string(id) + (full ? " full" : " summary"));
    ContentBlock b;
    if (s.index == 0) {
      b.type = "text";
      b.text = "custom answer to " + std::string(id);
    }
    return b;
  };
  EXPECT_THAT(Render(input, options),
              ElementsAre("user: text:Goal: summarize a.txt", "assistant: thinking:hmm",
                          "user: text:custom answer to toolu_01",
                          R"(assistant: tool_use:step_1:read:{"path":"b"})",
                          R"(user: tool_result:step_1:{"n":1})"));
  EXPECT_THAT(seen, ElementsAre("toolu_01 summary", "step_1 full"));

  // The opening is required: refused, not crashed.
  absl::StatusOr<std::vector<Message>> refused = Messages(input, RenderOptions{});
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("opening is required"));
}

TEST(MessagesTest, DeniedAndTruncatedNudges) {
  Decision complete_bad = Kind("complete");
  complete_bad.result = "{oops";
  StepInput input = Input({
      MakeStep(0,
               Kind("truncated",
                    "the reply hit the output token cap; the tool call was not "
                    "executed"),
               Invalid("the reply was cut off by the output cap before a tool call")),
      MakeStep(1, Kind("no_tool_call"), Invalid("the reply contained no tool call")),
      MakeStep(2, Call("", R"({"path":"a"})", "no name"), Invalid("tool_call without a tool name")),
      MakeStep(3, complete_bad, Invalid("result is not usable JSON: bad")),
      MakeStep(4, Call("rm", R"({"path":"/"})"),
               MakeObservation(ObservationKind::kPolicyDenied,
                               {{"reason", "destructive"}, {"tool", "rm"}}, "denied: destructive")),
  });
  EXPECT_THAT(
      Render(input, Options()),
      ElementsAre(
          "user: text:Goal: summarize a.txt",
          "assistant: text:the reply hit the output token cap; the tool call was not executed",
          "user: text:Your reply hit the output token cap, so nothing was executed. Respond with "
          "one short tool call.",
          "assistant: text:(no tool call)",
          "user: text:Your reply contained no executable tool call. Respond with exactly one tool "
          "call.",
          "assistant: text:no name",
          "user: text:Your reply was not an executable tool call (invalid decision: tool_call "
          "without a tool name). Respond with exactly one valid tool call.",
          "assistant: text:(no tool call)",
          "user: text:Your reply was not an executable tool call (invalid decision: result is not "
          "usable JSON: bad). Respond with exactly one valid tool call.",
          R"(assistant: tool_use:step_4:rm:{"path":"/"})",
          R"(user: tool_result:step_4:error:{"reason":"destructive","tool":"rm"})"));

  // Without an observation there is no summary to quote.
  EXPECT_EQ(DefaultObservation(MakeStep(5, Kind("plan")), "step_5", true, 100).text,
            "Your reply was not an executable tool call. Respond with exactly one valid tool "
            "call.");
}

TEST(MessagesTest, InterruptedResultAsksAgain) {
  Step step =
      MakeStep(0, Call("charge", R"({"amount":5})"),
               MakeObservation(ObservationKind::kInterrupted, {{"previous_status", "executing"}},
                               "step interrupted while executing"));
  step.status = StepStatus::kInterrupted;
  EXPECT_THAT(Render(Input({step}), Options()),
              ElementsAre("user: text:Goal: summarize a.txt",
                          R"(assistant: tool_use:step_0:charge:{"amount":5})",
                          "user: tool_result:step_0:error:" + std::string(kInterruptedText)));
  // Summarised or not, the answer is the same: the outcome is unknown, ask again.
  ContentBlock old = DefaultObservation(step, "step_0", false, 24000);
  EXPECT_EQ(old.content, kInterruptedText);
  EXPECT_THAT(std::string(kInterruptedText), HasSubstr("interrupted"));
  EXPECT_THAT(std::string(kInterruptedText), HasSubstr("outcome is unknown"));
  EXPECT_THAT(std::string(kInterruptedText), HasSubstr("request the tool again"));
  EXPECT_THAT(std::string(kInterruptedText), HasSubstr("already applied"));
}

TEST(MessagesTest, ArgumentsRenderCanonicalOrOutOfBand) {
  EXPECT_EQ(Args(Call("t", R"({ "b" : 1.0, "a" : [ ] })")), R"({"a":[],"b":1})");
  EXPECT_EQ(Args(Call("t", "")), "{}");
  EXPECT_EQ(Args(Call("t", " \n ")), "{}");
  EXPECT_EQ(Args(Call("t", R"({"path": )")), R"({"invalid_json":"{\"path\": "})");
  EXPECT_EQ(Args(Call("t", "\xff{")), R"({"invalid_json_base64":"/3s="})");
}

// render uses json::Truncate: the mark "…" counts 3 bytes, the
// cut backs off to a character boundary, below 3 bytes the cut is unmarked, never over n.
TEST(TruncateTest, MarksTheCut) {
  EXPECT_EQ(json::Truncate("hello", 5), "hello");
  EXPECT_EQ(json::Truncate("hello world", 8), "hello…");
  EXPECT_EQ(json::Truncate("日本語です", 8), "日…");  // 5 bytes left for text: one 3-byte char
  EXPECT_EQ(json::Truncate("abcd", 3), "…");
  EXPECT_EQ(json::Truncate("abcd", 2), "ab");
  EXPECT_EQ(json::Truncate("abcd", 0), "");
  EXPECT_EQ(json::Truncate("abcd", -5), "");
  const std::string text = "aé日😀 mixed ünïcödé 文字 🎉🎉";
  for (int n = -1; n <= static_cast<int>(text.size()) + 1; ++n) {
    SCOPED_TRACE(n);
    std::string cut = json::Truncate(text, n);
    EXPECT_LE(cut.size(), static_cast<std::size_t>(std::max(n, 0)));
    EXPECT_TRUE(json::IsValidUtf8(cut));
    if (n >= static_cast<int>(text.size())) {
      EXPECT_EQ(cut, text);
    } else if (n >= 3) {
      EXPECT_TRUE(cut.size() >= 3 && cut.substr(cut.size() - 3) == "…");
      EXPECT_EQ(text.rfind(cut.substr(0, cut.size() - 3), 0), 0u);  // a prefix of the text
    }
  }
}

}  // namespace
}  // namespace agentrt::render
