// ReadOwned: a file an operator owns is read only when nobody else could have written it, and
// the checks are of the file that was opened (docs/mcp.md, "Classify").
#include "runtime/base/owned_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"

namespace agentrt {
namespace {

using test_support::TestFile;

std::string WriteWithMode(const std::string& name, mode_t mode) {
  std::string path = TestFile(name);
  { std::ofstream(path, std::ios::binary) << "{\"ok\":true}"; }
  EXPECT_EQ(::chmod(path.c_str(), mode), 0);
  return path;
}

TEST(FileModeStringTest, WritesThePermissionBitsAsTenCharacters) {
  struct Row {
    mode_t mode;
    const char* text;
  };
  for (const Row& row : {Row{0600, "-rw-------"}, Row{0644, "-rw-r--r--"}, Row{0620, "-rw--w----"},
                         Row{0602, "-rw-----w-"}, Row{0666, "-rw-rw-rw-"}, Row{0664, "-rw-rw-r--"},
                         Row{0646, "-rw-r--rw-"}, Row{0777, "-rwxrwxrwx"}, Row{0, "----------"},
                         Row{S_IFREG | 04755, "-rwxr-xr-x"}}) {
    SCOPED_TRACE(row.text);
    EXPECT_EQ(FileModeString(row.mode), row.text);
  }
}

TEST(ReadOwnedTest, ReadsAFileOnlyItsOwnerCanWrite) {
  for (mode_t mode : {0600, 0644, 0444, 0400}) {
    SCOPED_TRACE(FileModeString(mode));
    std::string path = WriteWithMode("file" + std::to_string(mode), mode);
    absl::StatusOr<std::string> bytes = ReadOwned(path);
    ASSERT_OK(bytes);
    EXPECT_EQ(*bytes, "{\"ok\":true}");
  }
}

TEST(ReadOwnedTest, RefusesAFileOthersCanWriteNamingThePathAndTheMode) {
  for (mode_t mode : {0620, 0602, 0666, 0664, 0646}) {
    SCOPED_TRACE(FileModeString(mode));
    std::string path = WriteWithMode("file" + std::to_string(mode), mode);
    absl::StatusOr<std::string> bytes = ReadOwned(path);
    EXPECT_EQ(bytes.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_EQ(bytes.status().message(),
              path + " has mode " + FileModeString(mode) +
                  ", which lets its group or others write it: chmod go-w it");
  }
}

TEST(ReadOwnedTest, RefusesADirectory) {
  std::string path = TestFile("folder");
  std::filesystem::create_directory(path);
  absl::StatusOr<std::string> bytes = ReadOwned(path);
  EXPECT_EQ(bytes.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bytes.status().message(), path + " is not a regular file");
}

TEST(ReadOwnedTest, RefusesAFifoWithoutWaitingForAWriter) {
  std::string path = TestFile("fifo");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  absl::StatusOr<std::string> bytes = ReadOwned(path);
  EXPECT_EQ(bytes.status().message(), path + " is not a regular file");
}

TEST(ReadOwnedTest, ChecksTheFileALinkNames) {
  std::string target = WriteWithMode("target", 0666);
  std::string link = TestFile("link");
  std::filesystem::create_symlink(target, link);
  absl::StatusOr<std::string> bytes = ReadOwned(link);
  EXPECT_THAT(bytes.status().message(), HasSubstr("has mode -rw-rw-rw-"));
}

TEST(ReadOwnedTest, RefusesAFileAnotherUserOwns) {
  if (::geteuid() != 0) GTEST_SKIP() << "giving a file away needs root";
  std::string path = WriteWithMode("theirs", 0644);
  ASSERT_EQ(::chown(path.c_str(), 65534, 65534), 0);
  absl::StatusOr<std::string> bytes = ReadOwned(path);
  EXPECT_EQ(bytes.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(bytes.status().message(),
            path + " (mode -rw-r--r--) is owned by uid 65534, not by the current user");
}

TEST(ReadOwnedTest, OpenErrorsKeepTheirKind) {
  absl::StatusOr<std::string> missing = ReadOwned(TestFile("missing"));
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("open " + TestFile("missing") + ": "));
}

TEST(ReadOwnedTest, RefusesAFileLargerThanTheBound) {
  std::string path = WriteWithMode("big", 0600);
  EXPECT_EQ(ReadOwned(path, 4).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_OK(ReadOwned(path, 11));
}

}  // namespace
}  // namespace agentrt
