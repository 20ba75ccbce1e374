// Schema fuzzing (docs/testkit.md): valid arguments are deterministic, bounded and
// accepted by the driver; near misses are refused by it; Check tells a panic from an error.
// Run against the real filesystem server's schemas and hand-written ones.
#include "testkit/schema_fuzz.h"

#include <csignal>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/tool_registry.h"
#include "tests/support/status_matchers.h"
#include "tests/testkit/product.h"

namespace agentrt::testkit {
namespace {

struct NamedSchema {
  std::string name;
  std::string schema;
};

// Every tool's input schema as @modelcontextprotocol/server-filesystem lists them.
std::vector<NamedSchema> FilesystemSchemas() {
  std::ifstream in(std::string(AGENTRT_SOURCE_DIR) +
                   "/fixtures/schemas/server-filesystem-tools.json");
  std::stringstream bytes;
  bytes << in.rdbuf();
  absl::StatusOr<json::Document> doc = json::Parse(bytes.str());
  EXPECT_OK(doc);
  std::vector<NamedSchema> out;
  if (!doc.ok()) return out;
  for (std::size_t i = 0; i < doc->root().size(); ++i) {
    json::Value tool = doc->root().element(i);
    out.push_back({std::string(tool.Find("name")->string_value()),
                   json::WriteCanonical(*tool.Find("inputSchema"))});
  }
  return out;
}

// Hand-written schemas with what tool schemas use beyond the filesystem server's.
std::vector<NamedSchema> HandWrittenSchemas() {
  return {
      {"pay", product::kPaySchema},
      {"write", product::kWriteSchema},
      {"ticket",
       R"({"type":"object","properties":{
            "id":{"type":"string","pattern":"^[A-Z]{2,4}-[0-9]{1,5}$"},
            "priority":{"type":"integer","minimum":1,"maximum":5},
            "ratio":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1},
            "tags":{"type":"array","items":{"type":"string","minLength":1,"maxLength":8},
                    "minItems":1,"maxItems":3,"uniqueItems":true},
            "step":{"type":"integer","multipleOf":5},
            "owner":{"$ref":"#/$defs/person"},
            "when":{"type":"string","format":"date-time"}},
          "required":["id","priority","owner"],
          "additionalProperties":false,
          "$defs":{"person":{"type":"object","properties":{"name":{"type":"string"},
                   "email":{"type":"string","format":"email"}},"required":["name"],
                   "additionalProperties":false}}})"},
      {"either",
       R"({"type":"object","properties":{"target":{"anyOf":[{"type":"string","maxLength":4},
            {"type":"integer","minimum":100}]}},"required":["target"]})"},
      {"draft4",
       R"({"$schema":"http://json-schema.org/draft-04/schema#","type":"object",
           "properties":{"n":{"type":"number","minimum":0,"exclusiveMinimum":true,
           "maximum":10}},"required":["n"]})"},
      {"tuple",
       R"({"type":"object","properties":{"point":{"type":"array","prefixItems":[
           {"type":"number"},{"type":"number"}],"items":false,"minItems":2}},
           "required":["point"]})"},
  };
}

std::vector<NamedSchema> AllSchemas() {
  std::vector<NamedSchema> all = FilesystemSchemas();
  for (NamedSchema& s : HandWrittenSchemas()) all.push_back(std::move(s));
  return all;
}

RecordedSpec SpecFor(const NamedSchema& s) {
  absl::StatusOr<RecordedSpec> spec = RecordSpec(
      ToolSpec{s.name, "fuzzed", s.schema, SideEffect::kReadOnly, absl::Seconds(5), false});
  EXPECT_OK(spec);
  return *spec;
}

TEST(FuzzTest, ValidIsDeterministicAndBounded) {
  std::vector<NamedSchema> schemas = AllSchemas();
  ASSERT_THAT(schemas, SizeIs(14 + 6));
  for (const NamedSchema& s : schemas) {
    SCOPED_TRACE(s.name);
    RecordedSpec spec = SpecFor(s);
    absl::StatusOr<std::vector<std::string>> first = Valid(s.schema, 7, 30);
    ASSERT_OK(first);
    EXPECT_EQ(*Valid(s.schema, 7, 30), *first);  // same seed, same bytes
    if (first->size() > 1) {
      EXPECT_NE(*Valid(s.schema, 8, 30), *first);
    }
    EXPECT_EQ(std::set<std::string>(first->begin(), first->end()).size(), first->size());
    for (const std::string& args : *first) {
      EXPECT_OK(CheckArgs(spec, args)) << args;
      EXPECT_EQ(*json::Canonicalize(args), args);
      EXPECT_LE(args.size(), FuzzOptions{}.max_bytes);
    }
    // Bounded: tighter bounds give smaller documents, still all valid.
    FuzzOptions small;
    small.max_bytes = 120;
    small.max_string = 4;
    small.max_items = 1;
    small.max_depth = 1;
    absl::StatusOr<std::vector<std::string>> tight = Valid(s.schema, 7, 10, small);
    ASSERT_OK(tight);
    for (const std::string& args : *tight) {
      EXPECT_LE(args.size(), 120u);
      EXPECT_OK(CheckArgs(spec, args)) << args;
    }
  }
  // A schema with few documents gives what there is, a schema with none is an error.
  EXPECT_THAT(*Valid(R"({"enum":[1,2]})", 1, 10), SizeIs(2));
  EXPECT_THAT(Valid("false", 1, 3).status().message(), HasSubstr("no document the schema accepts"));
  EXPECT_THAT(Valid("{", 1, 3).status().message(), HasSubstr("the schema is not JSON"));
}

TEST(FuzzTest, DrawsStringsForTheSchemasPatterns) {
  std::string schema = R"({"type":"object","properties":{"id":{"type":"string",
      "pattern":"^(?:INC|CHG)-[0-9]{3}\\.[a-f]+$"}},"required":["id"]})";
  absl::StatusOr<std::vector<std::string>> docs = Valid(schema, 3, 20);
  ASSERT_OK(docs);
  EXPECT_THAT(*docs, SizeIs(20));
  for (const std::string& d : *docs) {
    EXPECT_TRUE(absl::StrContains(d, "INC-") || absl::StrContains(d, "CHG-")) << d;
  }
}

TEST(FuzzTest, InvalidCoversTheBoundaryAndNearMisses) {
  NamedSchema ticket = HandWrittenSchemas()[2];
  RecordedSpec spec = SpecFor(ticket);
  absl::StatusOr<std::vector<NearMiss>> misses = Invalid(ticket.schema, 5);
  ASSERT_OK(misses);
  std::vector<std::string> what;
  for (const NearMiss& m : *misses) {
    what.push_back(m.what);
    // Every near miss is refused by the driver's acceptance, with a reason.
    absl::Status refused = CheckArgs(spec, m.args);
    EXPECT_THAT(refused, Not(IsOk())) << m.what << ": " << m.args;
    EXPECT_THAT(refused.message(), HasSubstr("arguments do not match schema")) << m.what;
  }
  for (const char* expected : {
           "missing required \"id\" at the top",
           "missing required \"owner\" at the top",
           "missing required \"name\" at /owner",
           "extra property \"unexpected_property\" at the top",
           "extra property \"unexpected_property\" at /owner",
           "wrong type (number for string) at /id",
           "wrong type (string for integer) at /priority",
           "wrong type (number for integer) at /priority",
           "number below its minimum 1 at /priority",
           "number above its maximum 5 at /priority",
           "string outside its pattern at /id",
           "an array instead of the arguments",
           "wrong type (null for object) at the top",
           "a string instead of the arguments",
       }) {
    EXPECT_THAT(what, Contains(expected));
  }
  // The same seed gives the same near misses.
  std::vector<std::string> again;
  std::vector<NearMiss> second = *Invalid(ticket.schema, 5);
  for (const NearMiss& m : second) again.push_back(m.what + m.args);
  std::vector<std::string> first;
  for (const NearMiss& m : *misses) first.push_back(m.what + m.args);
  EXPECT_EQ(again, first);

  // Boundaries of the payment schema: just past each bound, the enum missed, a memo one
  // character too long (when drawn).
  NamedSchema pay = HandWrittenSchemas()[0];
  RecordedSpec pay_spec = SpecFor(pay);
  std::set<std::string> pay_what;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    std::vector<NearMiss> pay_misses = *Invalid(pay.schema, seed);
    for (const NearMiss& m : pay_misses) {
      pay_what.insert(m.what);
      EXPECT_THAT(CheckArgs(pay_spec, m.args), Not(IsOk())) << m.args;
    }
  }
  EXPECT_THAT(pay_what, Contains("number below its minimum 0 at /amount"));
  EXPECT_THAT(pay_what, Contains("number above its maximum 10000 at /amount"));
  EXPECT_THAT(pay_what, Contains("value outside its enum at /currency"));
  EXPECT_THAT(pay_what, Contains("string longer than maxLength 40 at /memo"));

  // Exclusive bounds (2020-12 numbers and draft-04 booleans) are missed at the bound itself.
  std::set<std::string> exclusive;
  std::vector<NearMiss> ticket_misses = *Invalid(ticket.schema, 11);
  std::vector<NearMiss> draft4_misses = *Invalid(HandWrittenSchemas()[4].schema, 1);
  for (const NearMiss& m : ticket_misses) exclusive.insert(m.what);
  for (const NearMiss& m : draft4_misses) exclusive.insert(m.what);
  EXPECT_THAT(exclusive, Contains("number at its exclusive minimum 0 at /n"));
  EXPECT_THAT(exclusive, Contains("number above its maximum 10 at /n"));

  // Nested arrays of objects: the filesystem server's edit_file.
  for (const NamedSchema& s : FilesystemSchemas()) {
    if (s.name != "edit_file") continue;
    RecordedSpec edit = SpecFor(s);
    std::set<std::string> edit_what;
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
      std::vector<NearMiss> edit_misses = *Invalid(s.schema, seed);
      for (const NearMiss& m : edit_misses) {
        edit_what.insert(m.what);
        EXPECT_THAT(CheckArgs(edit, m.args), Not(IsOk())) << m.args;
      }
    }
    EXPECT_THAT(edit_what, Contains("missing required \"oldText\" at /edits/0"));
    EXPECT_THAT(edit_what, Contains("wrong type (string for array) at /edits"));
    EXPECT_THAT(edit_what, Contains("wrong type (string for boolean) at /dryRun"));
  }
}

TEST(FuzzTest, CheckPassesTheConsumersSchemas) {
  for (const NamedSchema& s : AllSchemas()) {
    SCOPED_TRACE(s.name);
    product::EchoTool tool(s.name, SideEffect::kReadOnly, s.schema);
    absl::StatusOr<Report> report = Check(tool);
    ASSERT_OK(report);
    EXPECT_TRUE(report->ok()) << report->Text();
    EXPECT_GT(report->checked, 0);
    EXPECT_THAT(report->notes, Contains(HasSubstr("0 errors, 0 panics")));
  }
}

// Throws on text with a quote in it, errors on text with a slash: a throw is a panic (a
// failure), an error is the tool's answer (counted, not a failure).
class FragileTool : public Tool {
 public:
  ToolSpec Spec() const override {
    return ToolSpec{"fragile",
                    "Breaks on quotes.",
                    product::kPathSchema,
                    SideEffect::kReadOnly,
                    absl::Seconds(5),
                    false};
  }
  absl::StatusOr<ToolResult> Call(const ToolCall& call) override {
    std::string path = product::Member(call.args, "path");
    if (absl::StrContains(path, "\"")) throw std::runtime_error("unescaped quote in a shell line");
    if (absl::StrContains(path, "/")) return absl::NotFoundError("no such file");
    if (absl::StrContains(path, "\\") && crash_) std::raise(SIGSEGV);
    return ToolResult{"{}", "ok"};
  }
  bool crash_ = false;
};

TEST(FuzzTest, CheckReportsAPanicNotAnError) {
  FragileTool tool;
  CheckOptions options;
  options.calls = 200;
  absl::StatusOr<Report> report = Check(tool, options);
  ASSERT_OK(report);
  EXPECT_FALSE(report->ok());
  for (const auto& row : report->failures) {
    EXPECT_THAT(row[0], HasSubstr("\\\""));  // only the quoted paths
    EXPECT_EQ(row[1], "panic");
    EXPECT_EQ(row[2], "threw: unescaped quote in a shell line");
  }
  ASSERT_THAT(report->notes, SizeIs(1));
  EXPECT_THAT(report->notes[0], HasSubstr(" errors, "));
  EXPECT_THAT(report->notes[0], ::testing::Not(HasSubstr(" 0 errors")));  // errors were met
  EXPECT_THAT(report->Text(), HasSubstr("| panic"));

  // Isolated, a tool that crashes its process is a panic too, and the test goes on.
  tool.crash_ = true;
  options.isolate = true;
  options.calls = 100;
  absl::StatusOr<Report> isolated = Check(tool, options);
  ASSERT_OK(isolated);
  // The child dies by SIGSEGV; under AddressSanitizer it reports the signal and exits with an
  // error code instead. Either way the call's process ended without answering: a panic.
  bool crashed = false;
  for (const auto& row : isolated->failures) {
    crashed |=
        row[1] == "panic" && absl::StrContains(row[2], "the call's process") &&
        (absl::StrContains(row[2], "killed by signal 11") || absl::StrContains(row[2], "exited"));
  }
  EXPECT_TRUE(crashed) << isolated->Text();
}

}  // namespace
}  // namespace agentrt::testkit
