#include "tests/support/test_folder.h"

#include <unistd.h>

#include <system_error>

#include "gtest/gtest.h"

namespace agentrt::test_support {
namespace {

std::filesystem::path FolderOf(const ::testing::TestInfo& test) {
  std::string name = std::string(test.test_suite_name()) + "_" + test.name();
  for (char& c : name) {
    if (c == '/') c = '_';  // parameterized names
  }
  return std::filesystem::path(::testing::TempDir()) /
         ("agentrt_" + std::to_string(::getpid()) + "_" + name);
}

// Removes the folder of each test as it ends.
class RemoveTestFolders final : public ::testing::EmptyTestEventListener {
 public:
  void OnTestEnd(const ::testing::TestInfo& test) override {
    std::error_code ignored;
    std::filesystem::remove_all(FolderOf(test), ignored);
  }
};

// Registered when this file is linked in, which using TestFolder does.
const bool kRegistered = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new RemoveTestFolders);
  return true;
}();

}  // namespace

std::filesystem::path TestFolder() {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path folder =
      test != nullptr ? FolderOf(*test)
                      : std::filesystem::path(::testing::TempDir()) /
                            ("agentrt_" + std::to_string(::getpid()) + "_outside_a_test");
  std::filesystem::create_directories(folder);
  return folder;
}

std::string TestFile(std::string_view name) { return (TestFolder() / name).string(); }

}  // namespace agentrt::test_support
