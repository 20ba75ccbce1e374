// Finding the program a launch names in this process's PATH (internal/look_path.h).
#include "runtime/world/internal/look_path.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/test_folder.h"

namespace agentrt::world::internal {
namespace {

namespace fs = std::filesystem;

void MakeFile(const fs::path& path, mode_t mode) {
  std::ofstream(path) << "#!/bin/sh\n";
  ::chmod(path.c_str(), mode);
}

TEST(LookPathTest, TakesTheFirstExecutableFileInPathOrder) {
  fs::path first = test_support::TestFolder() / "first";
  fs::path second = test_support::TestFolder() / "second";
  fs::create_directories(first);
  fs::create_directories(second);
  MakeFile(first / "plain", 0644);         // no execute bit: not a program
  fs::create_directories(first / "prog");  // a folder: not a program
  MakeFile(second / "plain", 0755);
  MakeFile(second / "prog", 0700);
  std::string path = first.string() + ":" + second.string() + "/";
  EXPECT_EQ(*LookPath("prog", path), (second / "prog").string());
  EXPECT_EQ(*LookPath("plain", path), (second / "plain").string());
}

TEST(LookPathTest, SkipsFoldersThatAreNotAbsolute) {
  fs::path folder = test_support::TestFolder();
  MakeFile(folder / "prog", 0755);
  std::string relative = fs::relative(folder, fs::current_path()).string();
  ASSERT_NE(relative.front(), '/');
  absl::StatusOr<std::string> found = LookPath("prog", relative + "::.");
  EXPECT_EQ(found.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(found.status().message(), ::testing::HasSubstr("\"prog\""));
}

TEST(LookPathTest, ANameWithASlashIsUsedAsItIs) {
  EXPECT_EQ(*LookPath("./prog", ""), "./prog");
  EXPECT_EQ(*LookPath("/no/such/prog", "/bin"), "/no/such/prog");
  EXPECT_EQ(LookPath("", "/bin").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(LookPath("agentrt-no-such-program-7f3a", "").status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace agentrt::world::internal
