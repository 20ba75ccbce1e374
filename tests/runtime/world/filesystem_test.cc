// The promises of world/filesystem.h, held by both filesystems a test can hand in: the real one
// (in the test's own folder) and the tests' one in memory. What only one of them can do (plant a
// failure, own a file as another user) has tests of its own below.
#include "runtime/world/filesystem.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/base/string_view.h"
#include "runtime/world/real_filesystem.h"
#include "tests/support/memory_filesystem.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"

namespace agentrt::world {
namespace {

using ::agentrt::test_support::MemoryFilesystem;

constexpr std::size_t kLimit = 1 << 20;

// One filesystem under test and the way a test puts files on it.
class Disk {
 public:
  virtual ~Disk() = default;
  virtual Filesystem& fs() = 0;
  virtual std::string Path(const std::string& name) = 0;
  virtual void Put(const std::string& name, const std::string& bytes, std::uint32_t mode) = 0;
  virtual void Folder(const std::string& name) = 0;
  virtual void Link(const std::string& name, const std::string& target) = 0;
};

class RealDisk final : public Disk {
 public:
  Filesystem& fs() override { return fs_; }
  std::string Path(const std::string& name) override { return test_support::TestFile(name); }
  void Put(const std::string& name, const std::string& bytes, std::uint32_t mode) override {
    std::ofstream(Path(name), std::ios::binary) << bytes;
    ::chmod(Path(name).c_str(), mode);
  }
  void Folder(const std::string& name) override { ::mkdir(Path(name).c_str(), 0700); }
  void Link(const std::string& name, const std::string& target) override {
    ASSERT_EQ(::symlink(Path(target).c_str(), Path(name).c_str()), 0);
  }

 private:
  RealFilesystem fs_;
};

class MemoryDisk final : public Disk {
 public:
  MemoryDisk() { fs_.AddFolder("/t"); }
  Filesystem& fs() override { return fs_; }
  std::string Path(const std::string& name) override { return "/t/" + name; }
  void Put(const std::string& name, const std::string& bytes, std::uint32_t mode) override {
    fs_.AddFile(Path(name), bytes, mode);
  }
  void Folder(const std::string& name) override { fs_.AddFolder(Path(name)); }
  void Link(const std::string& name, const std::string& target) override {
    fs_.AddLink(Path(name), Path(target));
  }

 private:
  MemoryFilesystem fs_{static_cast<std::uint32_t>(::geteuid())};
};

class FilesystemTest : public ::testing::TestWithParam<std::string> {
 protected:
  FilesystemTest()
      : disk_(GetParam() == "real" ? std::unique_ptr<Disk>(std::make_unique<RealDisk>())
                                   : std::make_unique<MemoryDisk>()) {}
  Filesystem& fs() { return disk_->fs(); }
  std::string Path(const std::string& name) { return disk_->Path(name); }
  std::unique_ptr<Disk> disk_;
};

TEST_P(FilesystemTest, ReadsAFileWhole_RefusesOneOverTheLimitAndNamesAMissingOne) {
  disk_->Put("a.txt", "hello", 0600);
  EXPECT_THAT(fs().ReadFile(Path("a.txt"), kLimit), IsOkAndHolds("hello"));
  EXPECT_THAT(fs().ReadFile(Path("a.txt"), 4), StatusIs(absl::StatusCode::kOutOfRange));
  EXPECT_THAT(fs().ReadFile(Path("none.txt"), kLimit),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr(Path("none.txt"))));
}

TEST_P(FilesystemTest, ReadsAnOperatorsFileOnlyWhenNobodyElseCouldHaveWrittenIt) {
  disk_->Put("mine.json", "{}", 0644);
  disk_->Put("shared.json", "{}", 0664);
  disk_->Folder("dir");
  EXPECT_THAT(fs().ReadOwned(Path("mine.json"), kLimit), IsOkAndHolds("{}"));
  EXPECT_THAT(fs().ReadOwned(Path("shared.json"), kLimit),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("has mode -rw-rw-r--, which lets its group or others write it")));
  EXPECT_THAT(fs().ReadOwned(Path("dir"), kLimit),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("is not a regular file")));
}

TEST_P(FilesystemTest, ReadsASecretOnlyWhenNobodyElseCouldReadIt) {
  disk_->Put("key", "k", 0600);
  disk_->Put("readable", "k", 0640);
  disk_->Put("world", "k", 0604);
  disk_->Put("shared", "k", 0620);
  EXPECT_THAT(fs().ReadPrivate(Path("key"), kLimit), IsOkAndHolds("k"));
  EXPECT_THAT(fs().ReadPrivate(Path("readable"), kLimit),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("has mode -rw-r-----, which lets its group or others read it: "
                                 "chmod 600 it")));
  EXPECT_THAT(fs().ReadPrivate(Path("world"), kLimit),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("chmod 600")));
  EXPECT_THAT(fs().ReadPrivate(Path("shared"), kLimit),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("write it")));
  EXPECT_THAT(fs().ReadPrivate(Path("none"), kLimit), StatusIs(absl::StatusCode::kNotFound));
}

TEST_P(FilesystemTest, WritesAtomicallyAFileOnlyItsOwnerReads) {
  ASSERT_OK(fs().WriteAtomically(Path("out.json"), "first", "manifest"));
  ASSERT_OK(fs().WriteAtomically(Path("out.json"), "second", "manifest"));
  EXPECT_THAT(fs().ReadFile(Path("out.json"), kLimit), IsOkAndHolds("second"));
  absl::StatusOr<FileInfo> info = fs().Stat(Path("out.json"));
  ASSERT_OK(info);
  EXPECT_EQ(info->type, FileInfo::Type::kRegular);
  EXPECT_EQ(info->mode, 0600u);
  EXPECT_EQ(info->size, 6u);
  EXPECT_EQ(info->owner, fs().user());
  EXPECT_THAT(fs().WriteAtomically(Path("no/such/folder.json"), "x", "manifest"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("manifest")));
}

TEST_P(FilesystemTest, LstatSeesALinkThatStatFollows) {
  disk_->Put("db", "", 0600);
  disk_->Link("link", "db");
  EXPECT_THAT(fs().Lstat(Path("link")),
              IsOkAndHolds(::testing::Field(&FileInfo::type, FileInfo::Type::kSymlink)));
  EXPECT_THAT(fs().Stat(Path("link")),
              IsOkAndHolds(::testing::Field(&FileInfo::type, FileInfo::Type::kRegular)));
  EXPECT_THAT(fs().Lstat(Path("gone")), StatusIs(absl::StatusCode::kNotFound));
}

TEST_P(FilesystemTest, ListsAFolderSortedAndSetsModes) {
  disk_->Folder("d");
  disk_->Put("d/b", "", 0600);
  disk_->Put("d/a", "", 0644);
  disk_->Folder("d/c");
  EXPECT_THAT(fs().List(Path("d")), IsOkAndHolds(ElementsAre("a", "b", "c")));
  ASSERT_OK(fs().SetMode(Path("d/a"), 0600));
  EXPECT_THAT(fs().Stat(Path("d/a")), IsOkAndHolds(::testing::Field(&FileInfo::mode, 0600u)));
  EXPECT_THAT(fs().List(Path("nowhere")), StatusIs(absl::StatusCode::kNotFound));
}

TEST_P(FilesystemTest, AppendsToANewFileOnlyAndNeverThroughALink) {
  absl::StatusOr<std::unique_ptr<AppendableFile>> file =
      fs().CreateAppendable(Path("c.cassette"), "cassette");
  ASSERT_OK(file);
  ASSERT_OK((*file)->Append("ab"));
  ASSERT_OK((*file)->Append("cd"));
  ASSERT_OK((*file)->Sync());
  EXPECT_THAT(fs().ReadFile(Path("c.cassette"), kLimit), IsOkAndHolds("abcd"));
  EXPECT_THAT(fs().Stat(Path("c.cassette")),
              IsOkAndHolds(::testing::Field(&FileInfo::mode, 0600u)));

  // A second create of the name, and a create through a link (even a dangling one), refuse.
  EXPECT_THAT(fs().CreateAppendable(Path("c.cassette"), "cassette"),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("cassette")));
  disk_->Link("dangling", "nothing-here");
  EXPECT_THAT(fs().CreateAppendable(Path("dangling"), "cassette"),
              StatusIs(absl::StatusCode::kAlreadyExists));
  EXPECT_THAT(fs().Lstat(Path("nothing-here")), StatusIs(absl::StatusCode::kNotFound));

  // Reopened, it grows at its end; a missing file cannot be reopened.
  absl::StatusOr<std::unique_ptr<AppendableFile>> again =
      fs().OpenAppendable(Path("c.cassette"), "cassette");
  ASSERT_OK(again);
  ASSERT_OK((*again)->Append("ef"));
  EXPECT_THAT(fs().ReadFile(Path("c.cassette"), kLimit), IsOkAndHolds("abcdef"));
  EXPECT_THAT(fs().OpenAppendable(Path("gone.cassette"), "cassette"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr(Path("gone.cassette"))));
}

INSTANTIATE_TEST_SUITE_P(BothFilesystems, FilesystemTest, ::testing::Values("real", "memory"),
                         [](const auto& info) { return info.param; });

TEST(MemoryFilesystemTest, APlantedFailureFailsEveryCallOnItsPathUntilCleared) {
  MemoryFilesystem fs;
  fs.AddFolder("/t");
  fs.AddFile("/t/m.json", "{}");
  fs.Fail("/t/m.json", absl::UnavailableError("disk gone"));
  EXPECT_THAT(fs.ReadOwned("/t/m.json", kLimit),
              StatusIs(absl::StatusCode::kUnavailable, "disk gone"));
  EXPECT_THAT(fs.WriteAtomically("/t/m.json", "x", "manifest"),
              StatusIs(absl::StatusCode::kUnavailable));
  fs.Fail("/t/m.json", absl::OkStatus());
  EXPECT_THAT(fs.ReadOwned("/t/m.json", kLimit), IsOkAndHolds("{}"));
}

TEST(MemoryFilesystemTest, AnOperatorsFileOwnedByAnotherUserIsRefused) {
  MemoryFilesystem fs(/*user=*/1000);
  fs.AddFile("/rules.json", "{}", 0600, /*owner=*/0);
  EXPECT_THAT(fs.ReadOwned("/rules.json", kLimit),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "/rules.json (mode -rw-------) is owned by uid 0, not by the current user"));
}

TEST(FilesystemWrapperTest, AWrapperThatOverridesOneCallForwardsTheRest) {
  class NoWrites final : public FilesystemWrapper {
   public:
    using FilesystemWrapper::FilesystemWrapper;
    absl::Status WriteAtomically(const std::string& path, std::string_view,
                                 std::string_view what) override {
      return absl::PermissionDeniedError(absl::StrCat(ToAbsl(what), " ", path, ": read-only"));
    }
  };
  MemoryFilesystem target;
  target.AddFolder("/t");
  target.AddFile("/t/a", "bytes");
  NoWrites fs(target);
  EXPECT_THAT(fs.ReadFile("/t/a", kLimit), IsOkAndHolds("bytes"));
  EXPECT_THAT(fs.List("/t"), IsOkAndHolds(ElementsAre("a")));
  EXPECT_EQ(fs.user(), target.user());
  EXPECT_THAT(fs.WriteAtomically("/t/b", "x", "cassette"),
              StatusIs(absl::StatusCode::kPermissionDenied, "cassette /t/b: read-only"));
  EXPECT_THAT(target.Stat("/t/b"), StatusIs(absl::StatusCode::kNotFound));
}

}  // namespace
}  // namespace agentrt::world
