// The non-virtual parts of file_system.h: path helpers, RemoveTreeByParts and
// FileSystemWrapper.
#include "spillway/vfs/file_system.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "spillway/vfs/posix_file_system.h"
#include "spillway/vfs/status.h"
#include "support/file_helpers.h"
#include "support/mock_file_system.h"
#include "support/temp_dir.h"

namespace spillway {
namespace {

// Interfaces are used through pointers; a copy would slice.
static_assert(!std::is_copy_constructible_v<FileSystem>);
static_assert(!std::is_copy_assignable_v<FileSystem>);
static_assert(!std::is_copy_constructible_v<WritableFile>);
static_assert(!std::is_copy_assignable_v<WritableFile>);

using ::testing::_;
using ::testing::AnyNumber;
using ::testing::ByMove;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::NiceMock;
using ::testing::Return;
using ::testing::StrictMock;

// --- Paths ----------------------------------------------------------------------------

TEST(ValidatePathTest, AcceptsAbsoluteNormalPaths) {
  for (const std::string_view path : {"/", "/a", "/a/b", "/tmp/datafusion-Ab3", "/.hidden", "/a/.b",
                                      "/a/..b", "/...", "/a b/c", "/a/b/c/d/e"}) {
    EXPECT_TRUE(ValidatePath(path).ok()) << path;
  }
}

TEST(ValidatePathTest, RejectsEverythingElseAsInvalidArgument) {
  const std::vector<std::string> bad = {
      "",    "a",    "a/b",   "./a",  "/a/",     "//",     "/a//b",   "/.",
      "/..", "/a/.", "/a/..", "/./a", "/../etc", "/a/./b", "/a/../b", std::string("/a\0b", 4)};
  for (const std::string& path : bad) {
    const Status status = ValidatePath(path);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << "\"" << path << "\"";
  }
  // The error names the path.
  EXPECT_THAT(ValidatePath("relative/path").message(), HasSubstr("relative/path"));
}

TEST(PathHelpersTest, ParentPathAndBaseName) {
  EXPECT_EQ(ParentPath("/a/b"), "/a");
  EXPECT_EQ(ParentPath("/a/b/c"), "/a/b");
  EXPECT_EQ(ParentPath("/a"), "/");
  EXPECT_EQ(BaseName("/a/b"), "b");
  EXPECT_EQ(BaseName("/a"), "a");
  EXPECT_EQ(BaseName("/tmp/datafusion-x"), "datafusion-x");
}

TEST(PathHelpersTest, JoinPath) {
  EXPECT_EQ(JoinPath("/", "a"), "/a");
  EXPECT_EQ(JoinPath("/a", "b"), "/a/b");
  EXPECT_EQ(JoinPath("/a/b", "c.spill"), "/a/b/c.spill");
}

TEST(PathHelpersTest, SplitAndJoinAreInverse) {
  for (const std::string path : {"/a", "/a/b", "/x/y/z", "/tmp/datafusion-1/spill-2"}) {
    EXPECT_EQ(JoinPath(ParentPath(path), BaseName(path)), path);
    EXPECT_TRUE(ValidatePath(ParentPath(path)).ok()) << path;
  }
}

// --- RemoveTreeByParts ----------------------------------------------------------------

// A decorator that records the calls RemoveTreeByParts makes, as "ListDir /t".
class RecordingFileSystem final : public FileSystemWrapper {
 public:
  using FileSystemWrapper::FileSystemWrapper;

  StatusOr<std::vector<DirEntry>> ListDir(const std::string& path) override {
    calls.push_back("ListDir " + path);
    return FileSystemWrapper::ListDir(path);
  }
  Status RemoveFile(const std::string& path) override {
    calls.push_back("RemoveFile " + path);
    return FileSystemWrapper::RemoveFile(path);
  }
  Status RemoveDir(const std::string& path) override {
    calls.push_back("RemoveDir " + path);
    return FileSystemWrapper::RemoveDir(path);
  }
  Status RemoveTree(const std::string& path) override {
    calls.push_back("RemoveTree " + path);
    return FileSystemWrapper::RemoveTree(path);
  }

  std::vector<std::string> calls;
};

using test_support::WriteNewFile;

class RemoveTreeByPartsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(root_.ok()) << root_.error();
    ASSERT_TRUE(outside_.ok()) << outside_.error();
    PosixFileSystemOptions options;
    options.root = root_.path();
    real_ = NewPosixFileSystem(options);
    fs_ = std::make_unique<RecordingFileSystem>(real_);
  }

  // /t/{a, b/{c}, d/, link -> a directory outside the tree}
  void MakeTree() {
    ASSERT_TRUE(real_->CreateDir("/t").ok());
    ASSERT_TRUE(WriteNewFile(*real_, "/t/a", "1").ok());
    ASSERT_TRUE(real_->CreateDir("/t/b").ok());
    ASSERT_TRUE(WriteNewFile(*real_, "/t/b/c", "2").ok());
    ASSERT_TRUE(real_->CreateDir("/t/d").ok());
    ASSERT_EQ(::mkdir((outside_.path() + "/target").c_str(), 0700), 0);
    ASSERT_EQ(::symlink((outside_.path() + "/target").c_str(), (root_.path() + "/t/link").c_str()),
              0);
  }

  bool HostExists(const std::string& host_path) {
    struct stat st;
    return ::lstat(host_path.c_str(), &st) == 0;
  }

  test_support::TempDir root_;
  test_support::TempDir outside_;
  std::shared_ptr<FileSystem> real_;
  std::unique_ptr<RecordingFileSystem> fs_;
};

TEST_F(RemoveTreeByPartsTest, OneListPerDirectoryOneRemovePerEntryInNameOrder) {
  ASSERT_NO_FATAL_FAILURE(MakeTree());
  ASSERT_TRUE(RemoveTreeByParts(*fs_, "/t").ok());

  EXPECT_THAT(fs_->calls, ElementsAre("ListDir /t", "RemoveFile /t/a", "ListDir /t/b",
                                      "RemoveFile /t/b/c", "RemoveDir /t/b", "ListDir /t/d",
                                      "RemoveDir /t/d", "RemoveFile /t/link", "RemoveDir /t"));
  EXPECT_FALSE(real_->Exists("/t"));
  // The link went as a link: its target is untouched.
  EXPECT_TRUE(HostExists(outside_.path() + "/target"));
}

TEST_F(RemoveTreeByPartsTest, AFileOrASymlinkIsRemovedAsItself) {
  ASSERT_NO_FATAL_FAILURE(MakeTree());
  ASSERT_TRUE(RemoveTreeByParts(*fs_, "/t/a").ok());
  ASSERT_TRUE(RemoveTreeByParts(*fs_, "/t/link").ok());
  EXPECT_THAT(fs_->calls, ElementsAre("ListDir /t/a", "RemoveFile /t/a", "ListDir /t/link",
                                      "RemoveFile /t/link"));
  EXPECT_FALSE(real_->Exists("/t/a"));
  EXPECT_FALSE(real_->Exists("/t/link"));
  EXPECT_TRUE(real_->Exists("/t/b/c"));
  EXPECT_TRUE(HostExists(outside_.path() + "/target"));
}

TEST_F(RemoveTreeByPartsTest, AMissingPathIsTheListingsEnoent) {
  const Status status = RemoveTreeByParts(*fs_, "/nope");
  EXPECT_TRUE(status.IsErrno(ENOENT)) << status.ToString();
  EXPECT_EQ(status.path(), "/nope");
  EXPECT_THAT(fs_->calls, ElementsAre("ListDir /nope"));
}

TEST_F(RemoveTreeByPartsTest, StopsAtTheFirstErrorAndKeepsWhatWasRemoved) {
  ASSERT_NO_FATAL_FAILURE(MakeTree());
  auto mock = std::make_shared<NiceMock<MockFileSystem>>();
  mock->DelegateTo(real_);
  const Status failure = Status::FromErrno(EIO, "remove", "/t/b/c");
  // Later expectations take precedence: every other RemoveFile reaches the real tree.
  EXPECT_CALL(*mock, RemoveFile(_)).Times(AnyNumber());
  EXPECT_CALL(*mock, RemoveFile("/t/b/c")).WillOnce(Return(failure));
  // Nothing after the failure is attempted.
  EXPECT_CALL(*mock, RemoveFile("/t/link")).Times(0);
  EXPECT_CALL(*mock, RemoveDir(_)).Times(0);

  EXPECT_EQ(RemoveTreeByParts(*mock, "/t"), failure);
  EXPECT_FALSE(real_->Exists("/t/a"));
  EXPECT_TRUE(real_->Exists("/t/b/c"));
  EXPECT_TRUE(real_->Exists("/t/d"));
  EXPECT_TRUE(real_->Exists("/t/link"));
}

// --- FileSystemWrapper ----------------------------------------------------------------

TEST(FileSystemWrapperTest, HoldsItsTarget) {
  auto target = std::make_shared<StrictMock<MockFileSystem>>();
  FileSystemWrapper wrapper(target);
  EXPECT_EQ(&wrapper.target(), target.get());
  EXPECT_EQ(wrapper.shared_target(), target);
}

// A decorator in the intended style: it overrides one call and inherits the rest.
class SuffixedTempDir final : public FileSystemWrapper {
 public:
  using FileSystemWrapper::FileSystemWrapper;
  std::string TempDir() override { return FileSystemWrapper::TempDir() + "/DECORATED"; }
};

TEST(FileSystemWrapperTest, ADecoratorForwardsEveryCallItDoesNotOverride) {
  using FileOr = StatusOr<std::unique_ptr<WritableFile>>;
  auto target = std::make_shared<StrictMock<MockFileSystem>>();
  SuffixedTempDir decorator(target);
  FileSystem& fs = decorator;

  auto created = std::make_unique<NiceMock<MockWritableFile>>("/d/f");
  auto unique = std::make_unique<NiceMock<MockWritableFile>>("/d/u-1");
  auto opened = std::make_unique<NiceMock<MockWritableFile>>("/d/g");
  WritableFile* const created_raw = created.get();
  WritableFile* const unique_raw = unique.get();
  WritableFile* const opened_raw = opened.get();
  const std::vector<DirEntry> entries = {{"f", FileType::kRegular}};
  const FileStat stat{FileType::kRegular, 12, 0600};

  EXPECT_CALL(*target, CreateDir("/d")).WillOnce(Return(Status::FromErrno(EEXIST, "mkdir", "/d")));
  EXPECT_CALL(*target, CreateUniqueDir("/d", "p-"))
      .WillOnce(Return(StatusOr<std::string>("/d/p-1")));
  EXPECT_CALL(*target, CreateFile("/d/f")).WillOnce(Return(ByMove(FileOr(std::move(created)))));
  EXPECT_CALL(*target, CreateUniqueFile("/d", "u-"))
      .WillOnce(Return(ByMove(FileOr(std::move(unique)))));
  EXPECT_CALL(*target, OpenForAppend("/d/g")).WillOnce(Return(ByMove(FileOr(std::move(opened)))));
  EXPECT_CALL(*target, ReadFile("/d/f")).WillOnce(Return(StatusOr<std::string>("contents")));
  EXPECT_CALL(*target, ListDir("/d")).WillOnce(Return(StatusOr<std::vector<DirEntry>>(entries)));
  EXPECT_CALL(*target, Stat("/d/f")).WillOnce(Return(StatusOr<FileStat>(stat)));
  EXPECT_CALL(*target, RemoveFile("/d/f")).WillOnce(Return(OkStatus()));
  EXPECT_CALL(*target, RemoveDir("/d"))
      .WillOnce(Return(Status::FromErrno(ENOTEMPTY, "rmdir", "/d")));
  EXPECT_CALL(*target, RemoveTree("/d")).WillOnce(Return(OkStatus()));
  EXPECT_CALL(*target, SetPermissions("/d", 0500u)).WillOnce(Return(OkStatus()));
  EXPECT_CALL(*target, TempDir()).WillOnce(Return("/scratch"));

  EXPECT_EQ(fs.CreateDir("/d"), Status::FromErrno(EEXIST, "mkdir", "/d"));
  StatusOr<std::string> unique_dir = fs.CreateUniqueDir("/d", "p-");
  ASSERT_TRUE(unique_dir.ok());
  EXPECT_EQ(*unique_dir, "/d/p-1");
  // Files come back as the target's own objects, not copies or wrappers.
  FileOr file = fs.CreateFile("/d/f");
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(file->get(), created_raw);
  FileOr unique_file = fs.CreateUniqueFile("/d", "u-");
  ASSERT_TRUE(unique_file.ok());
  EXPECT_EQ(unique_file->get(), unique_raw);
  FileOr reopened = fs.OpenForAppend("/d/g");
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ(reopened->get(), opened_raw);
  StatusOr<std::string> contents = fs.ReadFile("/d/f");
  ASSERT_TRUE(contents.ok());
  EXPECT_EQ(*contents, "contents");
  StatusOr<std::vector<DirEntry>> listed = fs.ListDir("/d");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(*listed, entries);
  StatusOr<FileStat> stated = fs.Stat("/d/f");
  ASSERT_TRUE(stated.ok());
  EXPECT_EQ(*stated, stat);
  EXPECT_TRUE(fs.RemoveFile("/d/f").ok());
  EXPECT_EQ(fs.RemoveDir("/d"), Status::FromErrno(ENOTEMPTY, "rmdir", "/d"));
  EXPECT_TRUE(fs.RemoveTree("/d").ok());
  EXPECT_TRUE(fs.SetPermissions("/d", 0500).ok());
  EXPECT_EQ(fs.TempDir(), "/scratch/DECORATED");
}

TEST(FileSystemWrapperTest, ExistsGoesThroughStat) {
  auto target = std::make_shared<StrictMock<MockFileSystem>>();
  FileSystemWrapper wrapper(target);
  EXPECT_CALL(*target, Stat("/yes")).WillOnce(Return(StatusOr<FileStat>(FileStat{})));
  EXPECT_CALL(*target, Stat("/no"))
      .WillOnce(Return(StatusOr<FileStat>(Status::FromErrno(ENOENT, "stat", "/no"))));
  EXPECT_TRUE(wrapper.Exists("/yes"));
  EXPECT_FALSE(wrapper.Exists("/no"));
}

}  // namespace
}  // namespace spillway
