// The minimal environment of an MCP stdio server (docs/mcp.md, "The configuration"), and what a
// real child started with it sees.
#include "runtime/world/child_env.h"

#include <stdlib.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/world/clock.h"
#include "runtime/world/environment.h"
#include "runtime/world/real_launcher.h"
#include "tests/support/status_matchers.h"

namespace agentrt::world {
namespace {

EnvLookup Host(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(ChildEnvTest, IsMinimalAndExplicit) {
  EnvLookup unix_host = Host({{"PATH", "/bin"},
                              {"HOME", "/home/op"},
                              {"TMPDIR", "/tmp/op"},
                              {"AWS_SECRET_ACCESS_KEY", "secret"},
                              {"GITHUB_TOKEN", "token"},
                              {"LANG", "C"}});
  // darwin, nothing named: the base names only.
  EXPECT_THAT(MinimalChildEnv(EnvFlavour::kUnix, unix_host, {}, {}),
              ElementsAre("PATH=/bin", "HOME=/home/op", "TMPDIR=/tmp/op"));
  // linux, inherit [LANG, UNSET], env [API_KEY=k, PATH=/opt/bin, EMPTY=].
  EXPECT_THAT(MinimalChildEnv(EnvFlavour::kUnix, unix_host, {"LANG", "UNSET"},
                              {"API_KEY=k", "PATH=/opt/bin", "EMPTY="}),
              ElementsAre("PATH=/opt/bin", "HOME=/home/op", "TMPDIR=/tmp/op", "LANG=C", "API_KEY=k",
                          "EMPTY="));
  // windows: Path replaces PATH in its slot, in its own spelling.
  EnvLookup windows_host = Host({{"PATH", "C:\\Windows"},
                                 {"SystemRoot", "C:\\Windows"},
                                 {"USERPROFILE", "C:\\Users\\op"},
                                 {"GITHUB_TOKEN", "token"}});
  EXPECT_THAT(MinimalChildEnv(EnvFlavour::kWindows, windows_host, {}, {"Path=D:\\bin"}),
              ElementsAre("Path=D:\\bin", "SystemRoot=C:\\Windows", "USERPROFILE=C:\\Users\\op"));
  // An empty environment is an empty list (a launcher gives the child no variables at all).
  EXPECT_THAT(MinimalChildEnv(EnvFlavour::kUnix, Host({}), {}, {}), IsEmpty());
}

TEST(ChildEnvTest, ALaterEntryReplacesAnEarlierOneInItsPlace) {
  EXPECT_THAT(MinimalChildEnv(EnvFlavour::kUnix, Host({{"HOME", "/h"}, {"LANG", "C"}}), {"LANG"},
                              {"A=1", "B=2", "A=3", "LANG=fr"}),
              ElementsAre("HOME=/h", "LANG=fr", "A=3", "B=2"));
}

TEST(ChildEnvTest, NamesMatchWithoutRegardToCaseOnlyOnWindows) {
  EnvLookup host = Host({{"PATH", "/bin"}});
  EXPECT_THAT(MinimalChildEnv(EnvFlavour::kUnix, host, {}, {"Path=/opt"}),
              ElementsAre("PATH=/bin", "Path=/opt"));
  EXPECT_THAT(MinimalChildEnv(EnvFlavour::kWindows, host, {}, {"Path=/opt", "path=/x"}),
              ElementsAre("path=/x"));
}

TEST(ChildEnvTest, SetButEmptyCountsAsSet) {
  EXPECT_THAT(MinimalChildEnv(EnvFlavour::kUnix, Host({{"HOME", ""}, {"X", ""}}), {"X"}, {}),
              ElementsAre("HOME=", "X="));
}

TEST(ChildEnvTest, MalformedEntriesAreRefused) {
  EXPECT_OK(CheckEnvEntry("EMPTY="));
  EXPECT_OK(CheckEnvEntry("A=b=c"));
  EXPECT_OK(CheckInheritName("LANG"));
  absl::Status no_equals = CheckEnvEntry("NOEQUALS");
  EXPECT_EQ(no_equals.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(no_equals.message(), "Env entry \"NOEQUALS\" is not NAME=value");
  EXPECT_EQ(CheckEnvEntry("=v").message(), "Env entry \"=v\" is not NAME=value");
  absl::Status with_equals = CheckInheritName("A=B");
  EXPECT_EQ(with_equals.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(with_equals.message(), "InheritEnv entry \"A=B\" is not a variable name");
  EXPECT_EQ(CheckInheritName("").message(), "InheritEnv entry \"\" is not a variable name");
  EXPECT_EQ(CheckEnvEntry("a\"\\\n\x1b").message(),
            "Env entry \"a\\\"\\\\\\n\\x1b\" is not NAME=value");
}

// Sets a variable of this process for one test, and puts back what was there.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const char* value) : name_(name) {
    if (const char* old = ::getenv(name)) old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedVariable() {
    if (old_.has_value()) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(ChildEnvTest, ProcessEnvironmentReadsThisProcess) {
  ScopedVariable set("AGENTRT_TEST_SET", "value");
  ScopedVariable empty("AGENTRT_TEST_EMPTY", "");
  ProcessEnvironment process;
  EnvLookup lookup = LookupOf(process);
  EXPECT_EQ(lookup("AGENTRT_TEST_SET"), "value");
  EXPECT_EQ(lookup("AGENTRT_TEST_EMPTY"), "");
  EXPECT_EQ(lookup("AGENTRT_TEST_NEVER_SET"), std::nullopt);
  EXPECT_EQ(HostEnvFlavour(), EnvFlavour::kUnix);
}

TEST(ChildEnvTest, ServerGetsOnlyTheEnvironmentItIsGiven) {
  ScopedVariable secret("AGENTRT_TEST_SECRET", "s3cret");
  ScopedVariable passed("AGENTRT_TEST_PASSED", "yes");
  std::vector<std::string> expected;
  for (const char* base : {"PATH", "HOME", "TMPDIR"}) {
    if (const char* value = ::getenv(base)) expected.push_back(std::string(base) + "=" + value);
  }
  expected.push_back("AGENTRT_TEST_PASSED=yes");
  expected.push_back("EXPLICIT=1");

  RealClock clock;
  RealLauncher launcher(clock);
  ProcessEnvironment process;
  absl::StatusOr<std::unique_ptr<Process>> child =
      launcher.Start({.argv = {AGENTRT_LAUNCH_CHILD, "env"},
                      .env = MinimalChildEnv(HostEnvFlavour(), LookupOf(process),
                                             {"AGENTRT_TEST_PASSED"}, {"EXPLICIT=1"})});
  ASSERT_OK(child);
  std::string printed;
  for (;;) {
    absl::StatusOr<std::string> bytes = (*child)->Read(clock.Now() + absl::Seconds(30));
    ASSERT_OK(bytes);
    if (bytes->empty()) break;
    printed += *bytes;
  }
  std::vector<std::string> lines = absl::StrSplit(printed, '\n', absl::SkipEmpty());
  EXPECT_EQ(lines, expected);
}

}  // namespace
}  // namespace agentrt::world
