// The file helpers every part shares: atomic replacement, whole writes, bounded reads.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/base/atomic_file.h"
#include "runtime/base/file_util.h"
#include "runtime/base/write_all.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"

namespace agentrt {
namespace {

namespace fs = std::filesystem;

class FilesTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test_support::TestFolder(); }

  std::string File(const std::string& name) const { return (dir_ / name).string(); }

  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const fs::directory_entry& e : fs::directory_iterator(dir_)) {
      names.push_back(e.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  static std::string Contents(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  fs::path dir_;
};

TEST_F(FilesTest, WriteFileAtomicallyReplacesTheFileWhole0600AndLeavesNoTemporary) {
  std::string path = File("state");
  { std::ofstream(path, std::ios::binary) << "old contents that are longer"; }
  ::chmod(path.c_str(), 0644);
  ASSERT_OK(WriteFileAtomically(path, std::string("new\0bytes", 9), "state file"));
  EXPECT_EQ(Contents(path), std::string("new\0bytes", 9));
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_THAT(Names(), ElementsAre("state"));
}

TEST_F(FilesTest, WriteFileAtomicallyReplacesASymlinkRatherThanWritingThroughIt) {
  std::string victim = File("victim");
  { std::ofstream(victim, std::ios::binary) << "keep"; }
  std::string link = File("link");
  fs::create_symlink(victim, link);
  ASSERT_OK(WriteFileAtomically(link, "written", "state file"));
  EXPECT_EQ(Contents(victim), "keep");
  EXPECT_FALSE(fs::is_symlink(link));
  EXPECT_EQ(Contents(link), "written");
}

TEST_F(FilesTest, WriteFileAtomicallyNamesWhatAndWhereWhenItFails) {
  std::string missing = File("no-such-folder/state");
  absl::Status status = WriteFileAtomically(missing, "x", "cassette");
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("write cassette " + missing));
  EXPECT_THAT(status.message(), HasSubstr("create a temporary file"));

  if (::geteuid() != 0) {  // root writes into a read-only folder anyway
    std::string path = File("state");
    { std::ofstream(path, std::ios::binary) << "old"; }
    fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
    status = WriteFileAtomically(path, "new", "cassette");
    EXPECT_EQ(status.code(), absl::StatusCode::kPermissionDenied);
    fs::permissions(dir_, fs::perms::owner_all);
    EXPECT_EQ(Contents(path), "old");
  }
  EXPECT_THAT(Names(), ::testing::Each(::testing::Not(HasSubstr(".tmp"))));
}

TEST_F(FilesTest, WriteAllWritesEveryByteThroughShortWrites) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  // More than a pipe holds at once: the writer must go on after short writes while the reader
  // drains it.
  std::string bytes(1 << 20, 'a');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>('a' + i % 26);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(fds[0]);
    ::_exit(WriteAll(fds[1], bytes).ok() ? 0 : 1);
  }
  ::close(fds[1]);
  std::string read;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) read.append(buffer, n);
  ::close(fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(read, bytes);
}

TEST_F(FilesTest, WriteAllReportsTheFailedWrite) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[0]);
  ::signal(SIGPIPE, SIG_IGN);
  absl::Status status = WriteAll(fds[1], "lost");
  ::close(fds[1]);
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(status.message(), HasSubstr("write"));
}

TEST_F(FilesTest, ReadFileIsBoundedAndNamesThePath) {
  std::string path = File("input");
  { std::ofstream(path, std::ios::binary) << "12345"; }
  EXPECT_EQ(*ReadFile(path, 5), "12345");
  absl::StatusOr<std::string> big = ReadFile(path, 4);
  EXPECT_EQ(big.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(big.status().message(), HasSubstr(path));
  absl::StatusOr<std::string> missing = ReadFile(File("missing"));
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr(File("missing")));
}

}  // namespace
}  // namespace agentrt
