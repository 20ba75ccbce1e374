// The tools a driver may call (runtime/tool_registry.h): checked once at registration,
// recorded canonical, and a changed spec compiled once however often it is asked for.
#include "runtime/tool_registry.h"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.h"

namespace agentrt {
namespace {

class SpecTool final : public Tool {
 public:
  ToolSpec Spec() const override {
    ++asked;
    return spec;
  }
  absl::StatusOr<ToolResult> Call(const ToolCall&) override { return ToolResult{}; }
  ToolSpec spec{"read",           "Read.", R"({ "type" : "object" })", SideEffect::kReadOnly,
                absl::Seconds(5), false};
  mutable int asked = 0;
};

TEST(ToolRegistryTest, ARegisteredSchemaIsKeptCanonical) {
  SpecTool tool;
  absl::StatusOr<ToolRegistry> registry = ToolRegistry::Create({&tool});
  ASSERT_OK(registry);
  ASSERT_EQ(registry->specs().size(), 1u);
  EXPECT_EQ(registry->specs()[0].spec.input_schema, R"({"type":"object"})");
  EXPECT_THAT(registry->specs()[0].json, HasSubstr(R"("input_schema":{"type":"object"})"));
}

// The spec as registered is found without recompiling (its compiled schema is the registered
// one); a changed spec is compiled once and then found again by its fields, or by its canonical
// form when spelled differently.
TEST(ToolRegistryTest, ACurrentSpecIsCompiledOncePerSpec) {
  SpecTool tool;
  ToolRegistry registry = *ToolRegistry::Create({&tool});
  const RecordedSpec* registered = *registry.Current(&tool);
  EXPECT_EQ(registered->hash, registry.specs()[0].hash);
  EXPECT_EQ(registered->schema, registry.specs()[0].schema);  // compiled at registration only
  EXPECT_EQ(*registry.Current(&tool), registered);

  tool.spec.description = "Read, now differently.";
  absl::StatusOr<const RecordedSpec*> changed = registry.Current(&tool);
  ASSERT_OK(changed);
  EXPECT_NE((*changed)->hash, registered->hash);
  EXPECT_NE((*changed)->schema, registered->schema);
  EXPECT_EQ(*registry.Current(&tool), *changed);  // the same object: compiled once
  // The same changed spec spelled another way is the same recorded spec, schema and all.
  tool.spec.input_schema = R"({"type":"object"})";
  EXPECT_EQ(*registry.Current(&tool), *changed);
  EXPECT_EQ((*registry.Current(&tool))->schema, (*changed)->schema);
  // And the spec as first registered is still the registered one.
  tool.spec.description = "Read.";
  EXPECT_EQ(*registry.Current(&tool), registered);
}

TEST(ToolRegistryTest, AChangedSpecTheRulesRefuseIsAnError) {
  SpecTool tool;
  ToolRegistry registry = *ToolRegistry::Create({&tool});
  tool.spec.input_schema = R"({"type":"object","properties":{"x":{"$ref":"http://elsewhere/"}}})";
  absl::StatusOr<const RecordedSpec*> refused = registry.Current(&tool);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("tool \"read\": input schema refused: "));
}

// A SpecCache records each spec as given once: registries sharing it hold the very recorded
// spec (schema and all), a spec that differs in any field is recorded apart, and what it
// records is what RecordSpec records.
TEST(SpecCacheTest, RegistriesSharingACacheCompileEachSpecOnce) {
  SpecCache cache;
  SpecTool tool;
  ToolRegistry first = *ToolRegistry::Create({&tool}, &cache);
  ToolRegistry second = *ToolRegistry::Create({&tool}, &cache);
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(first.specs()[0].schema, second.specs()[0].schema);  // one compilation
  EXPECT_EQ(*first.Current(&tool), *second.Current(&tool));      // the same recorded spec
  absl::StatusOr<RecordedSpec> alone = RecordSpec(tool.spec);
  ASSERT_OK(alone);
  EXPECT_EQ(first.specs()[0].json, alone->json);
  EXPECT_EQ(first.specs()[0].hash, alone->hash);
  EXPECT_EQ(first.specs()[0].spec.input_schema, alone->spec.input_schema);

  // Any field changed is another spec, recorded apart; a registry's Current records it through
  // the cache too.
  tool.spec.timeout = absl::Seconds(6);
  absl::StatusOr<const RecordedSpec*> changed = second.Current(&tool);
  ASSERT_OK(changed);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_NE((*changed)->hash, first.specs()[0].hash);
  absl::StatusOr<std::shared_ptr<const RecordedSpec>> again = cache.Record(tool.spec);
  ASSERT_OK(again);
  EXPECT_EQ(again->get(), *changed);
}

// A refused spec is refused through the cache with RecordSpec's error, each time, and kept out.
TEST(SpecCacheTest, ARefusedSpecIsRefusedAsRecordSpecRefusesIt) {
  SpecCache cache;
  SpecTool tool;
  tool.spec.input_schema = R"({"minLength":"two"})";
  absl::Status alone = RecordSpec(tool.spec).status();
  ASSERT_EQ(alone.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(cache.Record(tool.spec).status(), alone);
  EXPECT_EQ(cache.Record(tool.spec).status(), alone);
  EXPECT_EQ(ToolRegistry::Create({&tool}, &cache).status(), alone);
  EXPECT_EQ(cache.size(), 0u);
}

}  // namespace
}  // namespace agentrt

namespace agentrt {
namespace {

// CheckToolSpec refuses exactly what registering with a driver refuses, with the same reason.
TEST(CheckToolSpecTest, RefusesWhatADriverRefusesWithItsReason) {
  ToolSpec good{"read",           "Read.", R"({"type":"object"})", SideEffect::kReadOnly,
                absl::Seconds(5), false};
  EXPECT_OK(CheckToolSpec(good));
  for (auto [edit, reason] : std::vector<std::pair<std::function<void(ToolSpec&)>, std::string>>{
           {[](ToolSpec& s) { s.name = "read a file"; }, "the name must be 1 to 128 characters"},
           {[](ToolSpec& s) { s.timeout = absl::ZeroDuration(); }, "timeout is required"},
           {[](ToolSpec& s) { s.input_schema = R"({"minLength":"two"})"; }, "input schema refused"},
           {[](ToolSpec& s) { s.input_schema = R"({"$ref":"http://example.test/x"})"; },
            "input schema refused"}}) {
    ToolSpec spec = good;
    edit(spec);
    SCOPED_TRACE(reason);
    absl::Status checked = CheckToolSpec(spec);
    EXPECT_EQ(checked.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(checked.message()), HasSubstr(reason));
    SpecTool tool;
    tool.spec = spec;
    EXPECT_EQ(ToolRegistry::Create({&tool}).status(), checked);
  }
}

}  // namespace
}  // namespace agentrt
