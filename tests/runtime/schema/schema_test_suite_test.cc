// Runs the official JSON Schema Test Suite (testdata/json-schema-test-suite; the upstream commit
// is in its VERSION file) through the validator, the way the suite's README describes:
//   - every file under remotes/ is registered as http://localhost:1234/<relative path>;
//   - each draft folder is compiled with that draft as the default (the suite's schemas for
//     2019-09 and 2020-12 also name it in `$schema`; draft-04..07 schemas rely on the default);
//   - every file at the top of a draft folder is required: each of its cases must pass, unless
//     it is listed, with a reason, in kKnownRequiredFailures;
//   - every file under optional/ is run too, and each of its cases must pass unless it is
//     listed in schema_suite_optional_failures.txt (what the validator does not do: assert
//     formats, ECMA-262 regular expressions, ...).
// A listed case that passes fails the test as well as an unlisted one that fails: each list says
// exactly what the validator gets wrong today, so a regression and a fix both show.
// Each case is checked with both IsValid and Validate: the fast path and the reporting path must
// agree with the suite and with each other, and Validate reports errors exactly when invalid.
#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/document.h"
#include "runtime/json/intake.h"
#include "runtime/schema/schema.h"
#include "tests/support/status_matchers.h"

namespace agentrt::schema {
namespace {

namespace fs = std::filesystem;

const fs::path kSuiteDir = fs::path(AGENTRT_SHARED_DIR) / "testdata/json-schema-test-suite";

// The suite's README: a `$ref` to http://localhost:1234/foo/bar/baz.json must resolve to the file
// remotes/foo/bar/baz.json.
constexpr std::string_view kRemotesBaseUri = "http://localhost:1234/";

// Required cases the validator is known to fail, each keyed
//   "<draft folder>/<file>/<group description>/<test description>"
// e.g. "draft2020-12/ref.json/root pointer ref/match", and each with a comment saying why. A
// required file that strict intake refuses is one failure keyed "<draft folder>/<file>". An
// entry whose case passes (or no longer exists) fails its draft's test, so the table cannot keep
// excuses nobody needs any more.
const std::set<std::string, std::less<>> kKnownRequiredFailures = {};

// The optional cases the validator is known to fail, keyed as above, one a line; grouped under
// comments ('#') that say why.
const fs::path kKnownOptionalFailuresFile =
    fs::path(AGENTRT_SOURCE_DIR) / "tests/runtime/schema/schema_suite_optional_failures.txt";

struct DraftFolder {
  std::string_view name;  // folder under tests/, as in the keys above
  Draft draft;
  // Top-level files in the vendored snapshot: fewer means the harness lost files, not that the
  // suite shrank.
  std::size_t min_required_files;
};

constexpr DraftFolder kDraftFolders[] = {
    {"draft4", Draft::k4, 30},
    {"draft6", Draft::k6, 36},
    {"draft7", Draft::k7, 37},
    {"draft2019-09", Draft::k2019_09, 46},
    {"draft2020-12", Draft::k2020_12, 46},
};

// Files under remotes/ in the vendored snapshot.
constexpr std::size_t kMinRemotes = 79;

const DraftFolder& Folder(Draft draft) {
  for (const DraftFolder& folder : kDraftFolders) {
    if (folder.draft == draft) return folder;
  }
  return kDraftFolders[0];  // unreachable: every Draft has a folder above
}

std::string Join(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view part : parts) out.append(part);
  return out;
}

std::string_view BoolText(bool b) { return b ? "true" : "false"; }

std::optional<std::string> ReadFileBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// The suite's remotes, loaded once for every test of this binary.
struct Remotes {
  Registry registry;
  std::size_t loaded = 0;
  std::vector<std::string> errors;  // files that could not be read or registered
};

const Remotes& SuiteRemotes() {
  static const Remotes* const remotes = [] {
    auto* r = new Remotes;
    const fs::path dir = kSuiteDir / "remotes";
    if (!fs::is_directory(dir)) {
      r->errors.push_back(Join({"no remotes directory at ", dir.string()}));
      return r;
    }
    std::vector<fs::path> paths;
    for (const fs::directory_entry& entry : fs::recursive_directory_iterator(dir)) {
      if (entry.is_regular_file()) paths.push_back(entry.path());
    }
    std::sort(paths.begin(), paths.end());
    for (const fs::path& path : paths) {
      const std::string uri = Join({kRemotesBaseUri, fs::relative(path, dir).generic_string()});
      std::optional<std::string> bytes = ReadFileBytes(path);
      if (!bytes) {
        r->errors.push_back(Join({uri, ": cannot read ", path.string()}));
        continue;
      }
      absl::Status added = r->registry.Add(uri, *bytes);
      if (!added.ok()) {
        r->errors.push_back(Join({uri, ": ", added.ToString()}));
        continue;
      }
      ++r->loaded;
    }
    return r;
  }();
  return *remotes;
}

enum class Section { kRequired, kOptional };

// SuiteFiles lists a draft's test files, relative to its folder and sorted: the top-level *.json
// files (required), or every *.json file under optional/, at any depth (optional).
std::vector<fs::path> SuiteFiles(const DraftFolder& folder, Section section) {
  const fs::path draft_dir = kSuiteDir / "tests" / folder.name;
  std::vector<fs::path> files;
  auto consider = [&](const fs::directory_entry& entry) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") {
      files.push_back(fs::relative(entry.path(), draft_dir));
    }
  };
  if (section == Section::kRequired) {
    if (!fs::is_directory(draft_dir)) return files;
    for (const fs::directory_entry& entry : fs::directory_iterator(draft_dir)) consider(entry);
  } else {
    if (!fs::is_directory(draft_dir / "optional")) return files;
    for (const fs::directory_entry& entry :
         fs::recursive_directory_iterator(draft_dir / "optional")) {
      consider(entry);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

struct CaseFailure {
  std::string key;            // as in kKnownRequiredFailures
  std::string line;           // "<file>: <group> / <test>: expected valid=X got Y"
  bool file_refused = false;  // intake refused the whole file, so none of its cases ran
};

struct RunResult {
  int passed = 0;
  int total = 0;
  std::vector<CaseFailure> failures;
  // The suite did not read the way this harness expects (unreadable file, a group without
  // `schema` or `tests`, ...): a broken harness, never excused by kKnownRequiredFailures.
  std::vector<std::string> harness_errors;

  void Add(RunResult other) {
    passed += other.passed;
    total += other.total;
    for (CaseFailure& failure : other.failures) failures.push_back(std::move(failure));
    for (std::string& error : other.harness_errors) harness_errors.push_back(std::move(error));
  }
};

std::optional<json::Value> Member(json::Value object, std::string_view key) {
  if (!object.is_object()) return std::nullopt;
  return object.Find(key);
}

std::optional<std::string_view> StringMember(json::Value object, std::string_view key) {
  std::optional<json::Value> value = Member(object, key);
  if (!value || !value->is_string()) return std::nullopt;
  return value->string_value();
}

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

// Judge returns what the validator got wrong about one case, or "" when it agrees with the suite.
std::string Judge(const absl::StatusOr<Schema>& schema, json::Value data, bool expected) {
  if (!schema.ok()) {
    return Join({"compile error: ", ToStd(schema.status().message())});
  }
  const bool fast = schema->IsValid(data);
  const ValidationResult full = schema->Validate(data);
  if (fast != full.valid) {
    return Join({"IsValid=", BoolText(fast), " but Validate.valid=", BoolText(full.valid)});
  }
  if (full.valid != expected) {
    if (full.valid) return "true";
    if (full.errors.empty()) return "false (and no error reported)";
    return Join({"false (", FirstLine(full.Summary()), ")"});
  }
  if (full.valid && !full.errors.empty()) {
    return Join({"true but Validate reported errors: ", FirstLine(full.Summary())});
  }
  if (!full.valid && full.errors.empty()) return "false but Validate reported no error";
  return "";
}

// RunFile runs every case of one suite file, `relative` to the draft folder.
RunResult RunFile(const DraftFolder& folder, const fs::path& relative,
                  const CompileOptions& options) {
  const std::string file = Join({folder.name, "/", relative.generic_string()});
  RunResult result;
  std::optional<std::string> bytes = ReadFileBytes(kSuiteDir / "tests" / folder.name / relative);
  if (!bytes) {
    result.harness_errors.push_back(Join({file, ": cannot be read"}));
    return result;
  }
  absl::StatusOr<json::Document> document = json::Parse(*bytes);
  if (!document.ok()) {
    // Strict intake refuses some JSON that the suite's authors consider fine (duplicate keys,
    // say): then not one case of the file can run, and the file is one failure.
    result.total = 1;
    result.failures.push_back({file,
                               Join({file, ": refused by intake, no case of it ran: ",
                                     ToStd(document.status().message())}),
                               /*file_refused=*/true});
    return result;
  }
  const json::Value root = document->root();
  if (!root.is_array()) {
    result.harness_errors.push_back(Join({file, ": not an array of test groups"}));
    return result;
  }
  for (std::size_t g = 0; g < root.size(); ++g) {
    const json::Value group = root.element(g);
    std::optional<std::string_view> group_description = StringMember(group, "description");
    std::optional<json::Value> schema_value = Member(group, "schema");
    std::optional<json::Value> tests = Member(group, "tests");
    if (!group_description || !schema_value || !tests || !tests->is_array()) {
      result.harness_errors.push_back(Join(
          {file, ": group #", std::to_string(g), " is not {description, schema, tests: [...]}"}));
      continue;
    }
    // The DOM keeps no source text, so the schema goes to Compile in canonical form: the same
    // schema, but with its keys sorted and its numbers in canonical spelling (2.0 becomes 2).
    const absl::StatusOr<Schema> schema =
        Schema::Compile(json::WriteCanonical(*schema_value), options);
    for (std::size_t t = 0; t < tests->size(); ++t) {
      const json::Value test = tests->element(t);
      std::optional<std::string_view> test_description = StringMember(test, "description");
      std::optional<json::Value> data = Member(test, "data");
      std::optional<json::Value> valid = Member(test, "valid");
      if (!test_description || !data || !valid || !valid->is_bool()) {
        result.harness_errors.push_back(
            Join({file, ": ", *group_description, ": test #", std::to_string(t),
                  " is not {description, data, valid: bool}"}));
        continue;
      }
      ++result.total;
      const bool expected = valid->bool_value();
      const std::string wrong = Judge(schema, *data, expected);
      if (wrong.empty()) {
        ++result.passed;
        continue;
      }
      result.failures.push_back({Join({file, "/", *group_description, "/", *test_description}),
                                 Join({file, ": ", *group_description, " / ", *test_description,
                                       ": expected valid=", BoolText(expected), " got ", wrong})});
    }
  }
  return result;
}

// The keys of kKnownOptionalFailuresFile, read once; a line that cannot be read is an error.
struct KnownFailures {
  std::set<std::string, std::less<>> keys;
  std::vector<std::string> errors;
};

const KnownFailures& KnownOptionalFailures() {
  static const KnownFailures* const known = [] {
    auto* k = new KnownFailures;
    std::optional<std::string> bytes = ReadFileBytes(kKnownOptionalFailuresFile);
    if (!bytes) {
      k->errors.push_back(Join({"cannot read ", kKnownOptionalFailuresFile.string()}));
      return k;
    }
    std::istringstream lines(*bytes);
    std::string line;
    for (int n = 1; std::getline(lines, line); ++n) {
      if (line.empty() || line.starts_with("#")) continue;
      if (!k->keys.insert(line).second) {
        k->errors.push_back(Join({"line ", std::to_string(n), " repeats ", line}));
      }
    }
    return k;
  }();
  return *known;
}

// ExpectFailuresAsKnown fails the test once for every case of `run` that failed and is not in
// `known`, and once for every key of `known` under `folder` that did not fail: the list must
// name exactly the cases that fail. `list` names the list in the messages.
void ExpectFailuresAsKnown(const DraftFolder& folder, const RunResult& run,
                           const std::set<std::string, std::less<>>& known, std::string_view list) {
  std::set<std::string, std::less<>> failed_keys;
  for (const CaseFailure& failure : run.failures) {
    failed_keys.insert(failure.key);
    if (!known.contains(failure.key)) {
      ADD_FAILURE() << failure.line << "\n(a regression, or a case " << list << " should list as \""
                    << failure.key << "\")";
    }
  }
  const std::string prefix = Join({folder.name, "/"});
  for (const std::string& key : known) {
    if (!key.starts_with(prefix)) continue;
    EXPECT_TRUE(failed_keys.contains(key))
        << list << " entry passes or names no case; remove it: " << key;
  }
}

CompileOptions SuiteOptions(const DraftFolder& folder) {
  CompileOptions options;
  options.registry = &SuiteRemotes().registry;
  options.default_draft = folder.draft;
  return options;
}

void RunRequired(Draft draft) {
  const DraftFolder& folder = Folder(draft);
  const Remotes& remotes = SuiteRemotes();
  ASSERT_THAT(remotes.errors, IsEmpty());
  ASSERT_GE(remotes.loaded, kMinRemotes);
  const std::vector<fs::path> files = SuiteFiles(folder, Section::kRequired);
  ASSERT_GE(files.size(), folder.min_required_files) << kSuiteDir / "tests" / folder.name;

  const CompileOptions options = SuiteOptions(folder);
  RunResult run;
  for (const fs::path& file : files) run.Add(RunFile(folder, file, options));
  EXPECT_THAT(run.harness_errors, IsEmpty());
  EXPECT_GT(run.total, 0);

  ExpectFailuresAsKnown(folder, run, kKnownRequiredFailures, "kKnownRequiredFailures");

  std::cout << "required " << folder.name << ": " << run.passed << "/" << run.total << " passed";
  if (!run.failures.empty()) std::cout << " (" << run.failures.size() << " failures)";
  std::cout << std::endl;
  ::testing::Test::RecordProperty("required_passed", run.passed);
  ::testing::Test::RecordProperty("required_total", run.total);
}

// Optional files hold what a validator may leave out (format is an annotation here, and some
// files assume arbitrary-precision or ECMA-262 behaviour): what ours leaves out is listed in
// kKnownOptionalFailuresFile, and any other failure, or a listed case that passes, fails.
void RunOptional(Draft draft) {
  const DraftFolder& folder = Folder(draft);
  const Remotes& remotes = SuiteRemotes();
  ASSERT_THAT(remotes.errors, IsEmpty());
  ASSERT_GE(remotes.loaded, kMinRemotes);
  const KnownFailures& known = KnownOptionalFailures();
  ASSERT_THAT(known.errors, IsEmpty());
  const std::vector<fs::path> files = SuiteFiles(folder, Section::kOptional);
  ASSERT_FALSE(files.empty()) << kSuiteDir / "tests" / folder.name / "optional";

  const CompileOptions options = SuiteOptions(folder);
  RunResult run;
  for (const fs::path& file : files) {
    RunResult one = RunFile(folder, file, options);
    std::cout << "optional " << folder.name << "/" << file.generic_string() << ": " << one.passed
              << "/" << one.total << " passed\n";
    run.Add(std::move(one));
  }
  EXPECT_THAT(run.harness_errors, IsEmpty());
  EXPECT_GT(run.total, 0);
  ExpectFailuresAsKnown(folder, run, known.keys, kKnownOptionalFailuresFile.filename().string());

  std::cout << "optional " << folder.name << ": " << run.passed << "/" << run.total << " passed"
            << std::endl;
  ::testing::Test::RecordProperty("optional_passed", run.passed);
  ::testing::Test::RecordProperty("optional_total", run.total);
}

TEST(SchemaTestSuiteTest, ReadsEveryDraftAndEveryRemote) {
  const Remotes& remotes = SuiteRemotes();
  EXPECT_THAT(remotes.errors, IsEmpty());
  EXPECT_GE(remotes.loaded, kMinRemotes);
  for (const DraftFolder& folder : kDraftFolders) {
    SCOPED_TRACE(folder.name);
    // At least 30 per draft (draft4 has exactly 30), and no fewer than the snapshot holds.
    EXPECT_GE(SuiteFiles(folder, Section::kRequired).size(), folder.min_required_files);
    EXPECT_THAT(SuiteFiles(folder, Section::kOptional), Not(IsEmpty()));
  }
}

TEST(SchemaTestSuiteTest, KnownFailuresNameADraftFolder) {
  for (const std::string& key : kKnownRequiredFailures) {
    const bool names_folder = std::any_of(std::begin(kDraftFolders), std::end(kDraftFolders),
                                          [&](const DraftFolder& folder) {
                                            return key.starts_with(Join({folder.name, "/"}));
                                          });
    EXPECT_TRUE(names_folder) << key;
  }
  const KnownFailures& optional = KnownOptionalFailures();
  EXPECT_THAT(optional.errors, IsEmpty());
  for (const std::string& key : optional.keys) {
    const bool names_folder = std::any_of(
        std::begin(kDraftFolders), std::end(kDraftFolders), [&](const DraftFolder& folder) {
          return key.starts_with(Join({folder.name, "/optional/"}));
        });
    EXPECT_TRUE(names_folder) << kKnownOptionalFailuresFile.filename().string() << ": " << key;
  }
}

TEST(SchemaTestSuiteTest, Draft4Required) { RunRequired(Draft::k4); }
TEST(SchemaTestSuiteTest, Draft6Required) { RunRequired(Draft::k6); }
TEST(SchemaTestSuiteTest, Draft7Required) { RunRequired(Draft::k7); }
TEST(SchemaTestSuiteTest, Draft2019_09Required) { RunRequired(Draft::k2019_09); }
TEST(SchemaTestSuiteTest, Draft2020_12Required) { RunRequired(Draft::k2020_12); }

TEST(SchemaTestSuiteTest, Draft4Optional) { RunOptional(Draft::k4); }
TEST(SchemaTestSuiteTest, Draft6Optional) { RunOptional(Draft::k6); }
TEST(SchemaTestSuiteTest, Draft7Optional) { RunOptional(Draft::k7); }
TEST(SchemaTestSuiteTest, Draft2019_09Optional) { RunOptional(Draft::k2019_09); }
TEST(SchemaTestSuiteTest, Draft2020_12Optional) { RunOptional(Draft::k2020_12); }

}  // namespace
}  // namespace agentrt::schema
