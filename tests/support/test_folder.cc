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

// Gives the owner every permission on `dir` and on each folder under it: a test that made a
// folder read-only (the file helpers' tests do, to make writes fail) would otherwise keep its
// entries from being removed.
void GrantOwnerAll(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::add, ec);
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) GrantOwnerAll(it->path());
  }
}

// Removes the folder of each test as it ends, whatever the test left in it.
class RemoveTestFolders final : public ::testing::EmptyTestEventListener {
 public:
  void OnTestEnd(const ::testing::TestInfo& test) override {
    const std::filesystem::path folder = FolderOf(test);
    std::error_code ec;
    std::filesystem::remove_all(folder, ec);
    if (!ec) return;
    GrantOwnerAll(folder);
    std::filesystem::remove_all(folder, ec);
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
