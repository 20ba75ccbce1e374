// Response -> decision: every stop reason, the first tool use only, and
// the bounds of the reason and of the note naming the tool uses not executed.
#include "runtime/render/decide.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/utf8.h"
#include "tests/support/status_matchers.h"

namespace agentrt::render {
namespace {

ToolUse Use(std::string name, std::string args = "") {
  return ToolUse{"id_" + name, std::move(name), std::move(args)};
}

ModelResponse Response(std::string stop, std::string text, std::vector<ToolUse> uses = {}) {
  ModelResponse r;
  r.stop_reason = std::move(stop);
  r.text = std::move(text);
  r.tool_uses = std::move(uses);
  return r;
}

TEST(DecideTest, StopReasonsAndToolCall) {
  // Refusal fails the run, whatever else came back.
  Decision d = Decide(Response("refusal", "I can't help with that.", {Use("read")}));
  EXPECT_EQ(d.kind, "fail");
  EXPECT_EQ(d.message, "the model declined to continue (refusal)");
  EXPECT_THAT(d.tool, IsEmpty());

  d = Decide(Response("model_context_window_exceeded", ""));
  EXPECT_EQ(d.kind, "fail");
  EXPECT_THAT(d.message, HasSubstr("context window"));
  EXPECT_THAT(d.message, HasSubstr("model_context_window_exceeded"));

  // A reply cut by the output cap is never executed, even with a whole tool use in it.
  d = Decide(Response("max_tokens", "Let me", {Use("delete", R"({"path":"/"})")}));
  EXPECT_EQ(d.kind, "truncated");
  EXPECT_EQ(d.reason, "the reply hit the output token cap; the tool call was not executed");
  EXPECT_THAT(d.tool, IsEmpty());
  EXPECT_THAT(d.args, IsEmpty());

  // No tool use: the trimmed text is the reason.
  d = Decide(Response("end_turn", "  \n All done.\t\n"));
  EXPECT_EQ(d.kind, "no_tool_call");
  EXPECT_EQ(d.reason, "All done.");
  d = Decide(Response("end_turn", std::string(600, 'x')));
  EXPECT_EQ(d.reason, std::string(497, 'x') + "…");

  // One tool use: proposed as is; no arguments become {}.
  d = Decide(Response("tool_use", " Reading. ", {Use("read", R"({"path":"a"})")}));
  EXPECT_EQ(d.kind, "tool_call");
  EXPECT_EQ(d.tool, "read");
  EXPECT_EQ(d.args, R"({"path":"a"})");
  EXPECT_EQ(d.reason, "Reading.");
  d = Decide(Response("", "", {Use("list")}));  // an unknown or absent stop reason: the uses count
  EXPECT_EQ(d.kind, "tool_call");
  EXPECT_EQ(d.args, "{}");
  EXPECT_THAT(d.reason, IsEmpty());
  EXPECT_THAT(d.origin, IsEmpty());  // the agent marks origin (model_agent.h)

  // Several: the first only, the rest named.
  d = Decide(Response("tool_use", "Let me look.",
                      {Use("read", R"({"path":"a"})"), Use("write"), Use("delete")}));
  EXPECT_EQ(d.tool, "read");
  EXPECT_EQ(d.args, R"({"path":"a"})");
  EXPECT_EQ(d.reason, "Let me look. [2 further tool call(s) not executed: write, delete]");
  d = Decide(Response("tool_use", "", {Use("read"), Use("write")}));
  EXPECT_EQ(d.reason, "[1 further tool call(s) not executed: write]");
}

TEST(DecideTest, FurtherCallsNoteIsBounded) {
  // Names of 70 bytes are cut to 64 (61 + "…"). The prefix is 38 bytes, so 211 remain for
  // names: three fit (64 + 66 + 66 = 196); a fourth would not, and it and the rest become ", …".
  const std::string prefix = "[5 further tool call(s) not executed: ";
  ASSERT_EQ(prefix.size(), 38u);
  std::vector<ToolUse> uses = {Use("first")};
  std::vector<std::string> cut;
  for (char c = 'a'; c < 'f'; ++c) {
    uses.push_back(Use(std::string(70, c)));
    cut.push_back(std::string(61, c) + "…");
  }
  Decision d = Decide(Response("tool_use", "", uses));
  const std::string note = prefix + cut[0] + ", " + cut[1] + ", " + cut[2] + ", …]";
  EXPECT_EQ(d.reason, note);
  EXPECT_EQ(note.size(), 240u);
  EXPECT_LE(note.size(), 250u);

  // A name that would fit, but leave no room for the mark before a name after it, is elided:
  // 196 + 13 bytes would fit the 211, the mark after them would not.
  std::vector<ToolUse> tight(uses.begin(), uses.begin() + 4);
  tight.push_back(Use("abcdefghijk"));
  tight.push_back(Use("last"));
  d = Decide(Response("tool_use", "", tight));
  EXPECT_EQ(d.reason, note);
  EXPECT_LE(d.reason.size(), 250u);

  // The last name needs no room for the mark: three further names all fit.
  uses.resize(4);
  d = Decide(Response("tool_use", "", uses));
  const std::string three =
      "[3 further tool call(s) not executed: " + cut[0] + ", " + cut[1] + ", " + cut[2] + "]";
  EXPECT_EQ(d.reason, three);

  // The text gives way to the note; the whole is exactly the 500-byte budget.
  d = Decide(Response("tool_use", std::string(1000, 'x'), uses));
  EXPECT_EQ(d.reason.size(), 500u);
  EXPECT_EQ(d.reason, std::string(500 - three.size() - 1 - 3, 'x') + "… " + three);

  // UTF-8 text and names are never cut inside a character.
  std::string wide;
  for (int i = 0; i < 400; ++i) wide += "日";
  std::vector<ToolUse> wide_uses = {Use("read")};
  for (int i = 0; i < 30; ++i) wide_uses.push_back(Use(wide.substr(0, 3 * 40)));  // 120 bytes
  d = Decide(Response("tool_use", wide, wide_uses));
  EXPECT_LE(d.reason.size(), 500u);
  EXPECT_TRUE(json::IsValidUtf8(d.reason));
  EXPECT_THAT(d.reason, EndsWith(", …]"));
  EXPECT_THAT(d.reason, HasSubstr("[30 further tool call(s) not executed: "));
  // Each name cut to 64 bytes: 20 characters (60 bytes) and the mark (3).
  EXPECT_THAT(d.reason, HasSubstr(": " + wide.substr(0, 60) + "…, "));
  const std::size_t note_at = d.reason.find("[30 further");
  EXPECT_LE(d.reason.size() - note_at, 250u);
}

}  // namespace
}  // namespace agentrt::render
