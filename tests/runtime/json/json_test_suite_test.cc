// Runs every file of the JSONTestSuite parsing corpus through strict intake: y_ files must be
// accepted, n_ files refused, and each i_ file (implementation-defined) is decided here on
// purpose; the same table is in docs/formats/json.md.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "tests/support/status_matchers.h"

namespace agentrt::json {
namespace {

namespace fs = std::filesystem;

const fs::path kParsingDir = fs::path(AGENTRT_SHARED_DIR) / "testdata/jsontestsuite/test_parsing";

// true = accepted, false = refused. Every i_ file of the corpus must appear here.
const std::map<std::string, bool>& ImplementationDefinedDecisions() {
  static const auto* decisions = new std::map<std::string, bool>{
      // Exponents within ±10,000 are numbers; canonical form keeps their digits.
      {"i_number_double_huge_neg_exp.json", true},
      {"i_number_neg_int_huge_exp.json", true},
      {"i_number_pos_double_huge_exp.json", true},
      {"i_number_too_big_neg_int.json", true},
      {"i_number_too_big_pos_int.json", true},
      {"i_number_very_big_negative_int.json", true},
      // Exponents beyond ±10,000 are refused as absurd.
      {"i_number_huge_exp.json", false},
      {"i_number_real_neg_overflow.json", false},
      {"i_number_real_pos_overflow.json", false},
      {"i_number_real_underflow.json", false},
      // Lone or malformed surrogate escapes are refused.
      {"i_object_key_lone_2nd_surrogate.json", false},
      {"i_string_1st_surrogate_but_2nd_missing.json", false},
      {"i_string_1st_valid_surrogate_2nd_invalid.json", false},
      {"i_string_incomplete_surrogate_and_escape_valid.json", false},
      {"i_string_incomplete_surrogate_pair.json", false},
      {"i_string_incomplete_surrogates_escape_valid.json", false},
      {"i_string_invalid_lonely_surrogate.json", false},
      {"i_string_invalid_surrogate.json", false},
      {"i_string_inverted_surrogates_U+1D11E.json", false},
      {"i_string_lone_second_surrogate.json", false},
      // Invalid UTF-8, and text that is not UTF-8 at all, is refused.
      {"i_string_UTF-16LE_with_BOM.json", false},
      {"i_string_UTF-8_invalid_sequence.json", false},
      {"i_string_UTF8_surrogate_U+D800.json", false},
      {"i_string_invalid_utf-8.json", false},
      {"i_string_iso_latin_1.json", false},
      {"i_string_lone_utf8_continuation_byte.json", false},
      {"i_string_not_in_unicode_range.json", false},
      {"i_string_overlong_sequence_2_bytes.json", false},
      {"i_string_overlong_sequence_6_bytes.json", false},
      {"i_string_overlong_sequence_6_bytes_null.json", false},
      {"i_string_truncated-utf-8.json", false},
      {"i_string_utf16BE_no_BOM.json", false},
      {"i_string_utf16LE_no_BOM.json", false},
      // Nesting past 256 levels is refused.
      {"i_structure_500_nested_arrays.json", false},
      // A byte order mark is refused (RFC 8259 §8.1: senders must not add one).
      {"i_structure_UTF-8_BOM_empty_object.json", false},
  };
  return *decisions;
}

std::string ReadFileOrDie(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<fs::path> CorpusFiles() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(kParsingDir)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(JsonTestSuiteTest, CorpusIsPresent) {
  ASSERT_TRUE(fs::is_directory(kParsingDir)) << kParsingDir;
  EXPECT_GT(CorpusFiles().size(), 300u);
}

// RFC 8259 lets a parser accept duplicate keys, so the corpus lists them as y_; agentrt refuses
// them on purpose (two readers of the same bytes could see different values). These are the
// only y_ files refused, each for that reason and no other.
const std::set<std::string> kRefusedForDuplicateKeys = {
    "y_object_duplicated_key.json",
    "y_object_duplicated_key_and_value.json",
};

TEST(JsonTestSuiteTest, YesFilesWithDuplicateKeysAreRefusedForThatReason) {
  for (const std::string& name : kRefusedForDuplicateKeys) {
    SCOPED_TRACE(name);
    absl::StatusOr<Document> doc = Parse(ReadFileOrDie(kParsingDir / name));
    ASSERT_THAT(doc, Not(IsOk()));
    EXPECT_THAT(doc.status().message(), testing::HasSubstr("duplicate object key"));
  }
}

TEST(JsonTestSuiteTest, EveryOtherYesFileIsAcceptedAndCanonicalizesToAFixedPoint) {
  int checked = 0;
  for (const fs::path& path : CorpusFiles()) {
    std::string name = path.filename().string();
    if (!name.starts_with("y_") || kRefusedForDuplicateKeys.contains(name)) continue;
    SCOPED_TRACE(name);
    absl::StatusOr<std::string> canonical = Canonicalize(ReadFileOrDie(path));
    ASSERT_OK(canonical);
    absl::StatusOr<std::string> again = Canonicalize(*canonical);
    ASSERT_OK(again);
    EXPECT_EQ(*again, *canonical);
    ++checked;
  }
  EXPECT_GT(checked, 90);
}

TEST(JsonTestSuiteTest, EveryNoFileIsRefusedWithAByteOffset) {
  int checked = 0;
  for (const fs::path& path : CorpusFiles()) {
    std::string name = path.filename().string();
    if (!name.starts_with("n_")) continue;
    SCOPED_TRACE(name);
    absl::StatusOr<Document> doc = Parse(ReadFileOrDie(path));
    ASSERT_THAT(doc, StatusIs(absl::StatusCode::kInvalidArgument, testing::HasSubstr(" at byte ")));
    ++checked;
  }
  EXPECT_GT(checked, 180);
}

TEST(JsonTestSuiteTest, EveryImplementationDefinedFileIsDecidedOnPurpose) {
  const auto& decisions = ImplementationDefinedDecisions();
  int checked = 0;
  for (const fs::path& path : CorpusFiles()) {
    std::string name = path.filename().string();
    if (!name.starts_with("i_")) continue;
    SCOPED_TRACE(name);
    auto decision = decisions.find(name);
    ASSERT_NE(decision, decisions.end()) << "new i_ file: decide it and add it to the table";
    absl::StatusOr<Document> doc = Parse(ReadFileOrDie(path));
    EXPECT_EQ(doc.ok(), decision->second) << doc.status();
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(decisions.size()));
}

}  // namespace
}  // namespace agentrt::json
