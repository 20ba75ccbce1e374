// The readable layout of canonical JSON used for manifests: only whitespace is added, so the
// layout reads back to the same canonical bytes.
#include "mcp/indented_json.h"

#include <string>

#include "gtest/gtest.h"
#include "runtime/json/canonical_json.h"
#include "tests/support/status_matchers.h"

namespace agentrt::mcp {
namespace {

TEST(IndentCanonicalTest, PutsEachMemberAndElementOnItsOwnLine) {
  EXPECT_EQ(IndentCanonical(R"({"a":[1,{}],"b":{"c":[]},"d":"x"})"),
            "{\n"
            "  \"a\": [\n"
            "    1,\n"
            "    {}\n"
            "  ],\n"
            "  \"b\": {\n"
            "    \"c\": []\n"
            "  },\n"
            "  \"d\": \"x\"\n"
            "}");
  EXPECT_EQ(IndentCanonical("{}"), "{}");
  EXPECT_EQ(IndentCanonical("[]"), "[]");
  EXPECT_EQ(IndentCanonical("1e+400"), "1e+400");
}

TEST(IndentCanonicalTest, LeavesStringsAlone) {
  const std::string canonical = R"({"k,:{[":"v\"},:[]{\\","z":["\\\"",""]})";
  std::string indented = IndentCanonical(canonical);
  EXPECT_EQ(
      indented,
      "{\n  \"k,:{[\": \"v\\\"},:[]{\\\\\",\n  \"z\": [\n    \"\\\\\\\"\",\n    \"\"\n  ]\n}");
  absl::StatusOr<std::string> back = json::Canonicalize(indented);
  ASSERT_OK(back);
  EXPECT_EQ(*back, canonical);
}

}  // namespace
}  // namespace agentrt::mcp
