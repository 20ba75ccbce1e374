// Annotations: what a server claims about a tool, recorded as received and able only to refuse
// (docs/mcp.md, "Check").
#include "mcp/annotations.h"

#include <optional>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/intake.h"
#include "tests/support/status_matchers.h"

namespace agentrt::mcp {
namespace {

absl::StatusOr<Annotations> Parse(std::string_view text) {
  absl::StatusOr<json::Document> document = json::Parse(text);
  if (!document.ok()) return document.status();
  return ParseAnnotations(document->root());
}

Annotations Claims(std::string_view text) {
  absl::StatusOr<Annotations> a = Parse(text);
  EXPECT_OK(a);
  return a.value_or(Annotations{});
}

TEST(AnnotationsTest, ReadsTheHintsByTheirExactKeysAndKeepsTheObject) {
  Annotations a =
      Claims(R"({"readOnlyHint":true,"destructiveHint":false,"openWorldHint":true,"title":"Read",)"
             R"("ReadOnlyHint":false,"x-vendor":{"b":1,"a":2}})");
  EXPECT_EQ(a.read_only_hint, true);
  EXPECT_EQ(a.destructive_hint, false);
  EXPECT_EQ(a.idempotent_hint, std::nullopt);
  EXPECT_EQ(a.open_world_hint, true);
  EXPECT_EQ(a.title, "Read");
  EXPECT_EQ(a.json, R"({"ReadOnlyHint":false,"destructiveHint":false,"openWorldHint":true,)"
                    R"("readOnlyHint":true,"title":"Read","x-vendor":{"a":2,"b":1}})");
}

TEST(AnnotationsTest, NullIsNoClaim) {
  Annotations a = Claims(R"({"readOnlyHint":null,"title":null})");
  EXPECT_EQ(a.read_only_hint, std::nullopt);
  EXPECT_EQ(a.title, std::nullopt);
}

TEST(AnnotationsTest, RefusesAHintThatIsNotABooleanNamingIt) {
  struct Row {
    const char* json;
    const char* error;
  };
  for (const Row& row : {
           Row{R"({"readOnlyHint":"true"})", "annotation \"readOnlyHint\" is not a boolean"},
           Row{R"({"destructiveHint":0})", "annotation \"destructiveHint\" is not a boolean"},
           Row{R"({"idempotentHint":[]})", "annotation \"idempotentHint\" is not a boolean"},
           Row{R"({"openWorldHint":{}})", "annotation \"openWorldHint\" is not a boolean"},
           Row{R"({"title":1})", "annotation \"title\" is not a string"},
           Row{R"([])", "annotations are not a JSON object"},
           Row{R"("readOnly")", "annotations are not a JSON object"},
       }) {
    SCOPED_TRACE(row.json);
    absl::StatusOr<Annotations> a = Parse(row.json);
    EXPECT_EQ(a.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(a.status().message(), row.error);
  }
}

TEST(HintMismatchTest, AClaimCanOnlyContradictTheOperator) {
  struct Row {
    SideEffect rule;
    std::optional<std::string> annotations;  // nullopt: the server sent none
    const char* want;
  };
  const char* kNotReadOnly = "classified read_only, but the server does not claim readOnlyHint";
  for (const Row& row : {
           Row{SideEffect::kReadOnly, std::nullopt, ""},
           Row{SideEffect::kDestructive, std::nullopt, ""},
           Row{SideEffect::kReadOnly, R"({"readOnlyHint":true})", ""},
           Row{SideEffect::kReadOnly, R"({})", kNotReadOnly},
           Row{SideEffect::kReadOnly, R"({"readOnlyHint":false})", kNotReadOnly},
           Row{SideEffect::kReadOnly, R"({"destructiveHint":true})", kNotReadOnly},
           Row{SideEffect::kReadOnly, R"({"readOnlyHint":true,"destructiveHint":true})", ""},
           Row{SideEffect::kLocalMutation, R"({"destructiveHint":true})",
               "classified local_mutation, but the server claims destructiveHint"},
           Row{SideEffect::kRemoteMutation, R"({"destructiveHint":true})",
               "classified remote_mutation, but the server claims destructiveHint"},
           Row{SideEffect::kLocalMutation, R"({"readOnlyHint":true,"destructiveHint":true})", ""},
           Row{SideEffect::kLocalMutation, R"({})", ""},
           Row{SideEffect::kLocalMutation, R"({"destructiveHint":false})", ""},
           Row{SideEffect::kDestructive, R"({"destructiveHint":true})", ""},
           Row{SideEffect::kDestructive, R"({"readOnlyHint":true})", ""},
       }) {
    SCOPED_TRACE(std::string(ToString(row.rule)) + " " + row.annotations.value_or("none"));
    std::optional<Annotations> claims;
    if (row.annotations) claims = Claims(*row.annotations);
    EXPECT_EQ(HintMismatch(row.rule, claims), row.want);
  }
}

}  // namespace
}  // namespace agentrt::mcp
