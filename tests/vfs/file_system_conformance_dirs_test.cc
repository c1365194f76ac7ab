// The FileSystem contract (file_system.h) for directories, on every implementation:
// CreateDir, CreateUniqueDir, ListDir, Stat, malformed paths and TempDir. The fixture and
// what the suite holds to are described in support/file_system_conformance.h.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/vfs/file_system.h"
#include "spillway/vfs/status.h"
#include "support/file_system_conformance.h"
#include "support/status_matchers.h"

namespace spillway {
namespace {

using test_support::WriteNewFile;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;

// --- CreateDir ------------------------------------------------------------------------

TEST_P(FileSystemConformanceTest, CreateDirMakesAnEmptyOwnerOnlyDirectory) {
  ASSERT_THAT(fs_->CreateDir("/a"), IsOk());
  ASSERT_THAT(fs_->CreateDir("/a/b"), IsOk());

  StatusOr<FileStat> stat = fs_->Stat("/a");
  ASSERT_THAT(stat, IsOk());
  EXPECT_EQ(*stat, (FileStat{FileType::kDirectory, 0, 0700}));
  StatusOr<FileStat> nested = fs_->Stat("/a/b");
  ASSERT_THAT(nested, IsOk());
  EXPECT_EQ(*nested, (FileStat{FileType::kDirectory, 0, 0700}));

  StatusOr<std::vector<DirEntry>> listed = fs_->ListDir("/a/b");
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(*listed, IsEmpty());
}

TEST_P(FileSystemConformanceTest, CreateDirFailsWithEexistWhenAnythingIsThere) {
  ASSERT_THAT(fs_->CreateDir("/d"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/f", "x"), IsOk());

  const Status on_dir = fs_->CreateDir("/d");
  EXPECT_THAT(on_dir, FailsWith(EEXIST));
  EXPECT_EQ(on_dir.path(), "/d");
  EXPECT_THAT(fs_->CreateDir("/f"), FailsWith(EEXIST));
  EXPECT_THAT(fs_->CreateDir("/"), FailsWith(EEXIST));
  EXPECT_EQ(TypeOf("/f"), FileType::kRegular);
}

TEST_P(FileSystemConformanceTest, CreateDirFailsWithEnoentWhenTheParentIsMissing) {
  const Status status = fs_->CreateDir("/missing/a");
  EXPECT_THAT(status, FailsWith(ENOENT));
  EXPECT_EQ(status.path(), "/missing/a");
  EXPECT_THAT(fs_->CreateDir("/missing/a/b"), FailsWith(ENOENT));
  EXPECT_FALSE(fs_->Exists("/missing"));
}

TEST_P(FileSystemConformanceTest, CreateDirFailsWithEnotdirWhenAComponentIsAFile) {
  ASSERT_THAT(WriteNewFile(*fs_, "/f", ""), IsOk());
  EXPECT_THAT(fs_->CreateDir("/f/a"), FailsWith(ENOTDIR));
  EXPECT_THAT(fs_->CreateDir("/f/a/b"), FailsWith(ENOTDIR));
}

TEST_P(FileSystemConformanceTest, EverythingInARemovedDirectoryFailsWithEnoent) {
  ASSERT_THAT(fs_->CreateDir("/d"), IsOk());
  ASSERT_THAT(fs_->RemoveDir("/d"), IsOk());

  EXPECT_THAT(fs_->CreateDir("/d/x"), FailsWith(ENOENT));
  EXPECT_THAT(fs_->CreateFile("/d/x"), FailsWith(ENOENT));
  EXPECT_THAT(fs_->CreateUniqueDir("/d", "spill-"), FailsWith(ENOENT));
  EXPECT_THAT(fs_->CreateUniqueFile("/d", "spill-"), FailsWith(ENOENT));
  EXPECT_THAT(fs_->OpenForAppend("/d/x"), FailsWith(ENOENT));
  EXPECT_THAT(fs_->ReadFile("/d/x"), FailsWith(ENOENT));
  EXPECT_THAT(fs_->ListDir("/d"), FailsWith(ENOENT));
  EXPECT_THAT(fs_->Stat("/d"), FailsWith(ENOENT));
  EXPECT_THAT(fs_->RemoveDir("/d"), FailsWith(ENOENT));
  EXPECT_THAT(fs_->RemoveTree("/d"), FailsWith(ENOENT));
  EXPECT_THAT(fs_->SetPermissions("/d", 0700), FailsWith(ENOENT));
}

// --- CreateUniqueDir, and a bad parent of either unique creation ----------------------

TEST_P(FileSystemConformanceTest, CreateUniqueDirMakesDistinctPrefixedOwnerOnlyDirectories) {
  constexpr int kCount = 20;
  ASSERT_THAT(fs_->CreateDir("/local"), IsOk());
  std::set<std::string> paths;
  for (int i = 0; i < kCount; ++i) {
    StatusOr<std::string> path = fs_->CreateUniqueDir("/local", "datafusion-");
    ASSERT_THAT(path, IsOk());
    EXPECT_EQ(ParentPath(*path), "/local");
    EXPECT_THAT(BaseName(*path), StartsWith("datafusion-"));
    EXPECT_GT(BaseName(*path).size(), std::string_view("datafusion-").size());
    EXPECT_THAT(ValidatePath(*path), IsOk());
    StatusOr<FileStat> stat = fs_->Stat(*path);
    ASSERT_THAT(stat, IsOk()) << *path;
    EXPECT_EQ(*stat, (FileStat{FileType::kDirectory, 0, 0700})) << *path;
    paths.insert(*path);
  }
  EXPECT_THAT(paths, SizeIs(kCount));

  StatusOr<std::vector<DirEntry>> listed = fs_->ListDir("/local");
  ASSERT_THAT(listed, IsOk());
  ASSERT_THAT(*listed, SizeIs(kCount));
  for (const DirEntry& entry : *listed) {
    EXPECT_EQ(entry.type, FileType::kDirectory) << entry.name;
    EXPECT_EQ(paths.count(JoinPath("/local", entry.name)), 1u) << entry.name;
  }
}

TEST_P(FileSystemConformanceTest, CreateUniqueDirWorksInTheRootDirectory) {
  StatusOr<std::string> path = fs_->CreateUniqueDir("/", "p");
  ASSERT_THAT(path, IsOk());
  EXPECT_EQ(ParentPath(*path), "/");
  EXPECT_THAT(BaseName(*path), StartsWith("p"));
  EXPECT_EQ(TypeOf(*path), FileType::kDirectory);
}

TEST_P(FileSystemConformanceTest, CreateUniqueFailsWithEnoentOrEnotdirForABadParent) {
  EXPECT_THAT(fs_->CreateUniqueDir("/missing", "p"), FailsWith(ENOENT));
  EXPECT_THAT(fs_->CreateUniqueFile("/missing", "p"), FailsWith(ENOENT));
  ASSERT_THAT(WriteNewFile(*fs_, "/f", ""), IsOk());
  EXPECT_THAT(fs_->CreateUniqueDir("/f", "p"), FailsWith(ENOTDIR));
  EXPECT_THAT(fs_->CreateUniqueFile("/f", "p"), FailsWith(ENOTDIR));
  EXPECT_THAT(fs_->CreateUniqueDir("/f/g", "p"), FailsWith(ENOTDIR));
}

// --- ListDir --------------------------------------------------------------------------

TEST_P(FileSystemConformanceTest, ListDirIsSortedByNameWithTypes) {
  ASSERT_THAT(fs_->CreateDir("/d"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/d/b", ""), IsOk());
  ASSERT_THAT(fs_->CreateDir("/d/c"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/d/a", "xyz"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/d/B", ""), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/d/c/inner", ""), IsOk());

  StatusOr<std::vector<DirEntry>> listed = fs_->ListDir("/d");
  ASSERT_THAT(listed, IsOk());
  // Byte order: upper case sorts before lower case.
  EXPECT_THAT(*listed,
              ElementsAre(DirEntry{"B", FileType::kRegular}, DirEntry{"a", FileType::kRegular},
                          DirEntry{"b", FileType::kRegular}, DirEntry{"c", FileType::kDirectory}));

  StatusOr<std::vector<DirEntry>> root = fs_->ListDir("/");
  ASSERT_THAT(root, IsOk());
  EXPECT_THAT(*root, ElementsAre(DirEntry{"d", FileType::kDirectory},
                                 DirEntry{"tmp", FileType::kDirectory}));
}

TEST_P(FileSystemConformanceTest, ListDirFailsOnWhatIsNotAnExistingDirectory) {
  ASSERT_THAT(WriteNewFile(*fs_, "/f", ""), IsOk());
  const StatusOr<std::vector<DirEntry>> missing = fs_->ListDir("/nope");
  EXPECT_THAT(missing, FailsWith(ENOENT));
  EXPECT_EQ(missing.status().path(), "/nope");
  EXPECT_THAT(fs_->ListDir("/f"), FailsWith(ENOTDIR));
  EXPECT_THAT(fs_->ListDir("/f/g"), FailsWith(ENOTDIR));
}

// --- Stat -----------------------------------------------------------------------------

TEST_P(FileSystemConformanceTest, StatDescribesFilesAndDirectories) {
  ASSERT_THAT(WriteNewFile(*fs_, "/f", "12345"), IsOk());
  ASSERT_THAT(fs_->CreateDir("/d"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/d/inner", "123"), IsOk());

  StatusOr<FileStat> file = fs_->Stat("/f");
  ASSERT_THAT(file, IsOk());
  EXPECT_EQ(*file, (FileStat{FileType::kRegular, 5, 0600}));
  // A directory's size is 0 whatever it holds.
  StatusOr<FileStat> dir = fs_->Stat("/d");
  ASSERT_THAT(dir, IsOk());
  EXPECT_EQ(*dir, (FileStat{FileType::kDirectory, 0, 0700}));
  StatusOr<FileStat> root = fs_->Stat("/");
  ASSERT_THAT(root, IsOk());
  EXPECT_EQ(root->type, FileType::kDirectory);

  EXPECT_TRUE(fs_->Exists("/f"));
  EXPECT_TRUE(fs_->Exists("/d/inner"));
  EXPECT_FALSE(fs_->Exists("/nope"));
}

TEST_P(FileSystemConformanceTest, StatFailsWithEnoentOrEnotdir) {
  ASSERT_THAT(WriteNewFile(*fs_, "/f", ""), IsOk());
  const StatusOr<FileStat> missing = fs_->Stat("/nope");
  EXPECT_THAT(missing, FailsWith(ENOENT));
  EXPECT_EQ(missing.status().path(), "/nope");
  EXPECT_THAT(fs_->Stat("/nope/deeper"), FailsWith(ENOENT));
  EXPECT_THAT(fs_->Stat("/f/g"), FailsWith(ENOTDIR));
  EXPECT_FALSE(fs_->Exists("/f/g"));
}

// --- Paths and TempDir ----------------------------------------------------------------

TEST_P(FileSystemConformanceTest, MalformedPathsAreInvalidArguments) {
  ASSERT_THAT(fs_->CreateDir("/a"), IsOk());
  const std::vector<std::string> bad_paths = {"",
                                              "a",
                                              "a/b",
                                              "/a/",
                                              "//",
                                              "/a//b",
                                              "/./a",
                                              "/a/.",
                                              "/a/..",
                                              "/a/../a",
                                              std::string("/a\0b", 4)};
  for (const std::string& bad : bad_paths) {
    SCOPED_TRACE("path \"" + bad + "\"");
    EXPECT_THAT(fs_->CreateDir(bad), IsInvalidArgument());
    EXPECT_THAT(fs_->CreateUniqueDir(bad, "p"), IsInvalidArgument());
    EXPECT_THAT(fs_->CreateFile(bad), IsInvalidArgument());
    EXPECT_THAT(fs_->CreateUniqueFile(bad, "p"), IsInvalidArgument());
    EXPECT_THAT(fs_->OpenForAppend(bad), IsInvalidArgument());
    EXPECT_THAT(fs_->ReadFile(bad), IsInvalidArgument());
    EXPECT_THAT(fs_->ListDir(bad), IsInvalidArgument());
    EXPECT_THAT(fs_->Stat(bad), IsInvalidArgument());
    EXPECT_THAT(fs_->RemoveFile(bad), IsInvalidArgument());
    EXPECT_THAT(fs_->RemoveDir(bad), IsInvalidArgument());
    EXPECT_THAT(fs_->RemoveTree(bad), IsInvalidArgument());
    EXPECT_THAT(fs_->SetPermissions(bad, 0700), IsInvalidArgument());
    EXPECT_FALSE(fs_->Exists(bad));
  }
  // Nothing was created or removed on the way.
  StatusOr<std::vector<DirEntry>> root = fs_->ListDir("/");
  ASSERT_THAT(root, IsOk());
  EXPECT_THAT(*root, ElementsAre(DirEntry{"a", FileType::kDirectory},
                                 DirEntry{"tmp", FileType::kDirectory}));
}

// A unique-name prefix that leaves its path component is refused before any call, with
// the one message every filesystem gives (ValidatePrefix), and nothing is made.
TEST_P(FileSystemConformanceTest, PrefixOutsideOneComponentIsInvalidArgument) {
  for (const std::string& bad : {std::string("a/b"), std::string("/"), std::string("p\0q", 3)}) {
    SCOPED_TRACE("prefix \"" + bad + "\"");
    const Status expected = ValidatePrefix(bad);
    ASSERT_THAT(expected, IsInvalidArgument());
    StatusOr<std::string> dir = fs_->CreateUniqueDir("/tmp", bad);
    ASSERT_THAT(dir, IsInvalidArgument());
    EXPECT_EQ(dir.status().message(), expected.message());
    StatusOr<std::unique_ptr<WritableFile>> file = fs_->CreateUniqueFile("/tmp", bad);
    ASSERT_THAT(file, IsInvalidArgument());
    EXPECT_EQ(file.status().message(), expected.message());
  }
  StatusOr<std::vector<DirEntry>> tmp = fs_->ListDir("/tmp");
  ASSERT_THAT(tmp, IsOk());
  EXPECT_THAT(*tmp, IsEmpty());
}

TEST_P(FileSystemConformanceTest, TempDirIsAnExistingDirectory) {
  const std::string temp = fs_->TempDir();
  EXPECT_EQ(temp, "/tmp");
  EXPECT_EQ(TypeOf(temp), FileType::kDirectory);
  // The call itself creates nothing.
  StatusOr<std::vector<DirEntry>> listed = fs_->ListDir(temp);
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(*listed, IsEmpty());
}

}  // namespace
}  // namespace spillway
