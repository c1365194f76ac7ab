// The FileSystem contract (file_system.h), checked against every implementation.
//
// Each case runs on PosixFileSystem, rooted in a fresh private temp dir, and on
// MemFileSystem. Linux is the oracle: a case states what Linux does, and the in-memory
// filesystem must agree. Cases that need permission checks (EACCES) are skipped on POSIX
// when running as root, since root bypasses them; on Mem they run on an instance that
// enforces permissions.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "spillway/vfs/file_system.h"
#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/posix_file_system.h"
#include "spillway/vfs/status.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace spillway {

// Readable failure messages for the value types compared below (found by ADL).
void PrintTo(const DirEntry& entry, std::ostream* os) {
  *os << "{" << entry.name << ", type " << static_cast<int>(entry.type) << "}";
}
void PrintTo(const FileStat& stat, std::ostream* os) {
  *os << "{type " << static_cast<int>(stat.type) << ", size " << stat.size << ", mode 0" << std::oct
      << stat.mode << std::dec << "}";
}

namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;

MATCHER(IsInvalidArgument, "is kInvalidArgument") {
  const Status status = StatusOf(arg);
  *result_listener << status.ToString();
  return status.code() == StatusCode::kInvalidArgument;
}

enum class FsKind { kPosix, kMem };

void PrintTo(FsKind kind, std::ostream* os) { *os << (kind == FsKind::kPosix ? "Posix" : "Mem"); }

std::string FsKindName(const ::testing::TestParamInfo<FsKind>& info) {
  return info.param == FsKind::kPosix ? "Posix" : "Mem";
}

std::shared_ptr<MemFileSystem> NewMemFileSystem(bool enforce_permissions) {
  MemFileSystemOptions options;
  options.enforce_permissions = enforce_permissions;
  return MemFileSystem::Create(options);
}

// Creates `path` holding `contents` and closes it.
Status WriteNewFile(FileSystem& fs, const std::string& path, std::string_view contents) {
  StatusOr<std::unique_ptr<WritableFile>> file = fs.CreateFile(path);
  if (!file.ok()) return file.status();
  const AppendResult appended = (*file)->Append(contents);
  if (!appended.status.ok()) return appended.status;
  return (*file)->Close();
}

class FileSystemConformanceTest : public ::testing::TestWithParam<FsKind> {
 protected:
  void SetUp() override {
    if (GetParam() == FsKind::kPosix) {
      temp_dir_ = std::make_unique<test_support::TempDir>();
      ASSERT_TRUE(temp_dir_->ok()) << temp_dir_->error();
      PosixFileSystemOptions options;
      options.root = temp_dir_->path();
      fs_ = NewPosixFileSystem(options);
      // Every fresh filesystem starts with an empty /tmp, as a MemFileSystem does.
      ASSERT_THAT(fs_->CreateDir("/tmp"), IsOk());
    } else {
      // As on Linux, root is not subject to permission checks.
      fs_ = NewMemFileSystem(/*enforce_permissions=*/::geteuid() != 0);
    }
  }

  // Switches fs_ to a filesystem that enforces permissions and returns true, or returns
  // false when there is none: POSIX as root.
  bool UsePermissionCheckingFileSystem() {
    if (GetParam() == FsKind::kPosix) return ::geteuid() != 0;
    fs_ = NewMemFileSystem(/*enforce_permissions=*/true);
    return true;
  }

  // fs_->Stat(path)'s type, or nullopt when it fails.
  std::optional<FileType> TypeOf(const std::string& path) {
    StatusOr<FileStat> stat = fs_->Stat(path);
    if (!stat.ok()) return std::nullopt;
    return stat->type;
  }

  std::unique_ptr<test_support::TempDir> temp_dir_;  // Set for POSIX only.
  std::shared_ptr<FileSystem> fs_;
};

constexpr std::string_view kNoPermissionChecksAsRoot =
    "running as root: Linux bypasses permission checks, so EACCES cannot be provoked";

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

// --- CreateFile -----------------------------------------------------------------------

TEST_P(FileSystemConformanceTest, CreateFileMakesAnEmptyOwnerOnlyFile) {
  StatusOr<std::unique_ptr<WritableFile>> file = fs_->CreateFile("/f");
  ASSERT_THAT(file, IsOk());
  EXPECT_EQ((*file)->path(), "/f");
  StatusOr<uint64_t> size = (*file)->Size();
  ASSERT_THAT(size, IsOk());
  EXPECT_EQ(*size, 0u);

  StatusOr<FileStat> stat = fs_->Stat("/f");
  ASSERT_THAT(stat, IsOk());
  EXPECT_EQ(*stat, (FileStat{FileType::kRegular, 0, 0600}));
  EXPECT_THAT((*file)->Close(), IsOk());
}

TEST_P(FileSystemConformanceTest, CreateFileFailsWithEexistAndLeavesTheOldFileAlone) {
  ASSERT_THAT(WriteNewFile(*fs_, "/f", "old"), IsOk());
  ASSERT_THAT(fs_->CreateDir("/d"), IsOk());

  const StatusOr<std::unique_ptr<WritableFile>> again = fs_->CreateFile("/f");
  EXPECT_THAT(again, FailsWith(EEXIST));
  EXPECT_EQ(again.status().path(), "/f");
  EXPECT_THAT(fs_->CreateFile("/d"), FailsWith(EEXIST));

  StatusOr<std::string> contents = fs_->ReadFile("/f");
  ASSERT_THAT(contents, IsOk());
  EXPECT_EQ(*contents, "old");
}

TEST_P(FileSystemConformanceTest, CreateFileFailsWithEnoentOrEnotdirForABadParent) {
  EXPECT_THAT(fs_->CreateFile("/missing/f"), FailsWith(ENOENT));
  ASSERT_THAT(WriteNewFile(*fs_, "/f", ""), IsOk());
  EXPECT_THAT(fs_->CreateFile("/f/g"), FailsWith(ENOTDIR));
  EXPECT_THAT(fs_->CreateFile("/f/g/h"), FailsWith(ENOTDIR));
}

// --- CreateUniqueDir / CreateUniqueFile ----------------------------------------------

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

TEST_P(FileSystemConformanceTest, CreateUniqueFileMakesDistinctPrefixedOwnerOnlyFiles) {
  constexpr int kCount = 20;
  ASSERT_THAT(fs_->CreateDir("/spill"), IsOk());
  std::set<std::string> paths;
  for (int i = 0; i < kCount; ++i) {
    StatusOr<std::unique_ptr<WritableFile>> file = fs_->CreateUniqueFile("/spill", "part-");
    ASSERT_THAT(file, IsOk());
    const std::string path = (*file)->path();
    EXPECT_EQ(ParentPath(path), "/spill");
    EXPECT_THAT(BaseName(path), StartsWith("part-"));
    EXPECT_GT(BaseName(path).size(), std::string_view("part-").size());
    // The handle is open on the file at `path`.
    EXPECT_THAT((*file)->Append("abc"), IsOk());
    EXPECT_THAT((*file)->Close(), IsOk());
    StatusOr<FileStat> stat = fs_->Stat(path);
    ASSERT_THAT(stat, IsOk()) << path;
    EXPECT_EQ(*stat, (FileStat{FileType::kRegular, 3, 0600})) << path;
    paths.insert(path);
  }
  EXPECT_THAT(paths, SizeIs(kCount));
  StatusOr<std::vector<DirEntry>> listed = fs_->ListDir("/spill");
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(*listed, SizeIs(kCount));
}

TEST_P(FileSystemConformanceTest, CreateUniqueFailsWithEnoentOrEnotdirForABadParent) {
  EXPECT_THAT(fs_->CreateUniqueDir("/missing", "p"), FailsWith(ENOENT));
  EXPECT_THAT(fs_->CreateUniqueFile("/missing", "p"), FailsWith(ENOENT));
  ASSERT_THAT(WriteNewFile(*fs_, "/f", ""), IsOk());
  EXPECT_THAT(fs_->CreateUniqueDir("/f", "p"), FailsWith(ENOTDIR));
  EXPECT_THAT(fs_->CreateUniqueFile("/f", "p"), FailsWith(ENOTDIR));
  EXPECT_THAT(fs_->CreateUniqueDir("/f/g", "p"), FailsWith(ENOTDIR));
}

// --- WritableFile ---------------------------------------------------------------------

TEST_P(FileSystemConformanceTest, AppendedBytesAreStoredInOrder) {
  StatusOr<std::unique_ptr<WritableFile>> file = fs_->CreateFile("/f");
  ASSERT_THAT(file, IsOk());
  WritableFile& f = **file;

  AppendResult first = f.Append("hello ");
  EXPECT_THAT(first, IsOk());
  EXPECT_EQ(first.bytes_written, 6u);
  AppendResult empty = f.Append("");
  EXPECT_THAT(empty, IsOk());
  EXPECT_EQ(empty.bytes_written, 0u);
  const std::string binary("wor\0ld\xff", 7);
  AppendResult second = f.Append(binary);
  EXPECT_THAT(second, IsOk());
  EXPECT_EQ(second.bytes_written, 7u);

  StatusOr<uint64_t> size = f.Size();
  ASSERT_THAT(size, IsOk());
  EXPECT_EQ(*size, 13u);
  EXPECT_THAT(f.Sync(), IsOk());
  EXPECT_THAT(f.Close(), IsOk());

  StatusOr<std::string> contents = fs_->ReadFile("/f");
  ASSERT_THAT(contents, IsOk());
  EXPECT_EQ(*contents, "hello " + binary);
  StatusOr<FileStat> stat = fs_->Stat("/f");
  ASSERT_THAT(stat, IsOk());
  EXPECT_EQ(stat->size, 13u);
}

TEST_P(FileSystemConformanceTest, LargeAppendsAreStoredWhole) {
  std::string block(300 * 1024, '\0');
  for (size_t i = 0; i < block.size(); ++i) block[i] = static_cast<char>('a' + i % 26);
  StatusOr<std::unique_ptr<WritableFile>> file = fs_->CreateFile("/big");
  ASSERT_THAT(file, IsOk());
  for (int i = 0; i < 3; ++i) {
    AppendResult appended = (*file)->Append(block);
    ASSERT_THAT(appended, IsOk());
    EXPECT_EQ(appended.bytes_written, block.size());
  }
  EXPECT_THAT((*file)->Close(), IsOk());
  StatusOr<std::string> contents = fs_->ReadFile("/big");
  ASSERT_THAT(contents, IsOk());
  EXPECT_EQ(*contents, block + block + block);
}

TEST_P(FileSystemConformanceTest, AClosedFileFailsWithEbadf) {
  StatusOr<std::unique_ptr<WritableFile>> file = fs_->CreateFile("/f");
  ASSERT_THAT(file, IsOk());
  WritableFile& f = **file;
  ASSERT_THAT(f.Append("abc"), IsOk());
  ASSERT_THAT(f.Close(), IsOk());

  const AppendResult appended = f.Append("more");
  EXPECT_THAT(appended, FailsWith(EBADF));
  EXPECT_EQ(appended.bytes_written, 0u);
  EXPECT_THAT(f.Sync(), FailsWith(EBADF));
  EXPECT_THAT(f.Size(), FailsWith(EBADF));
  EXPECT_THAT(f.Close(), FailsWith(EBADF));
  EXPECT_EQ(f.path(), "/f");

  StatusOr<std::string> contents = fs_->ReadFile("/f");
  ASSERT_THAT(contents, IsOk());
  EXPECT_EQ(*contents, "abc");
}

TEST_P(FileSystemConformanceTest, DestroyingAnOpenFileKeepsItsBytes) {
  {
    StatusOr<std::unique_ptr<WritableFile>> file = fs_->CreateFile("/f");
    ASSERT_THAT(file, IsOk());
    ASSERT_THAT((*file)->Append("kept"), IsOk());
  }
  StatusOr<std::string> contents = fs_->ReadFile("/f");
  ASSERT_THAT(contents, IsOk());
  EXPECT_EQ(*contents, "kept");
}

TEST_P(FileSystemConformanceTest, AnUnlinkedOpenFileStaysWritable) {
  ASSERT_THAT(fs_->CreateDir("/d"), IsOk());
  StatusOr<std::unique_ptr<WritableFile>> file = fs_->CreateFile("/d/f");
  ASSERT_THAT(file, IsOk());
  WritableFile& f = **file;
  ASSERT_THAT(f.Append("abc"), IsOk());

  ASSERT_THAT(fs_->RemoveFile("/d/f"), IsOk());
  EXPECT_FALSE(fs_->Exists("/d/f"));
  StatusOr<std::vector<DirEntry>> listed = fs_->ListDir("/d");
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(*listed, IsEmpty());
  // Its directory is now empty, so it can go too.
  ASSERT_THAT(fs_->RemoveDir("/d"), IsOk());

  const AppendResult appended = f.Append("defg");
  EXPECT_THAT(appended, IsOk());
  EXPECT_EQ(appended.bytes_written, 4u);
  StatusOr<uint64_t> size = f.Size();
  ASSERT_THAT(size, IsOk());
  EXPECT_EQ(*size, 7u);
  EXPECT_THAT(f.Sync(), IsOk());
  EXPECT_THAT(f.Close(), IsOk());
  EXPECT_FALSE(fs_->Exists("/d"));
}

// --- OpenForAppend --------------------------------------------------------------------

TEST_P(FileSystemConformanceTest, OpenForAppendWritesAtTheEnd) {
  ASSERT_THAT(WriteNewFile(*fs_, "/f", "abc"), IsOk());
  StatusOr<std::unique_ptr<WritableFile>> file = fs_->OpenForAppend("/f");
  ASSERT_THAT(file, IsOk());
  EXPECT_EQ((*file)->path(), "/f");
  StatusOr<uint64_t> size = (*file)->Size();
  ASSERT_THAT(size, IsOk());
  EXPECT_EQ(*size, 3u);
  EXPECT_THAT((*file)->Append("def"), IsOk());
  EXPECT_THAT((*file)->Close(), IsOk());
  EXPECT_THAT((*file)->Close(), FailsWith(EBADF));

  StatusOr<std::string> contents = fs_->ReadFile("/f");
  ASSERT_THAT(contents, IsOk());
  EXPECT_EQ(*contents, "abcdef");
}

TEST_P(FileSystemConformanceTest, OpenForAppendFailsOnWhatIsNotAnExistingFile) {
  ASSERT_THAT(fs_->CreateDir("/d"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/f", ""), IsOk());
  const StatusOr<std::unique_ptr<WritableFile>> missing = fs_->OpenForAppend("/nope");
  EXPECT_THAT(missing, FailsWith(ENOENT));
  EXPECT_EQ(missing.status().path(), "/nope");
  EXPECT_FALSE(fs_->Exists("/nope"));
  EXPECT_THAT(fs_->OpenForAppend("/d"), FailsWith(EISDIR));
  EXPECT_THAT(fs_->OpenForAppend("/f/g"), FailsWith(ENOTDIR));
}

// --- ReadFile -------------------------------------------------------------------------

TEST_P(FileSystemConformanceTest, ReadFileReturnsWholeContents) {
  ASSERT_THAT(WriteNewFile(*fs_, "/empty", ""), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/f", "line 1\nline 2\n"), IsOk());
  StatusOr<std::string> empty = fs_->ReadFile("/empty");
  ASSERT_THAT(empty, IsOk());
  EXPECT_EQ(*empty, "");
  StatusOr<std::string> contents = fs_->ReadFile("/f");
  ASSERT_THAT(contents, IsOk());
  EXPECT_EQ(*contents, "line 1\nline 2\n");
}

TEST_P(FileSystemConformanceTest, ReadFileFailsOnWhatIsNotAnExistingFile) {
  ASSERT_THAT(fs_->CreateDir("/d"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/f", "x"), IsOk());
  const StatusOr<std::string> missing = fs_->ReadFile("/nope");
  EXPECT_THAT(missing, FailsWith(ENOENT));
  EXPECT_EQ(missing.status().path(), "/nope");
  EXPECT_THAT(fs_->ReadFile("/d"), FailsWith(EISDIR));
  EXPECT_THAT(fs_->ReadFile("/f/g"), FailsWith(ENOTDIR));
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

// --- RemoveFile / RemoveDir -----------------------------------------------------------

TEST_P(FileSystemConformanceTest, RemoveFileUnlinksAFile) {
  ASSERT_THAT(WriteNewFile(*fs_, "/f", "x"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/g", "y"), IsOk());
  EXPECT_THAT(fs_->RemoveFile("/f"), IsOk());
  EXPECT_FALSE(fs_->Exists("/f"));
  EXPECT_TRUE(fs_->Exists("/g"));
  EXPECT_THAT(fs_->RemoveFile("/f"), FailsWith(ENOENT));
}

TEST_P(FileSystemConformanceTest, RemoveFileFailsWithEisdirEnoentOrEnotdir) {
  ASSERT_THAT(fs_->CreateDir("/d"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/f", ""), IsOk());
  const Status on_dir = fs_->RemoveFile("/d");
  EXPECT_THAT(on_dir, FailsWith(EISDIR));
  EXPECT_EQ(on_dir.path(), "/d");
  EXPECT_EQ(TypeOf("/d"), FileType::kDirectory);
  EXPECT_THAT(fs_->RemoveFile("/nope"), FailsWith(ENOENT));
  EXPECT_THAT(fs_->RemoveFile("/nope/f"), FailsWith(ENOENT));
  EXPECT_THAT(fs_->RemoveFile("/f/g"), FailsWith(ENOTDIR));
}

TEST_P(FileSystemConformanceTest, RemoveDirRemovesOnlyAnEmptyDirectory) {
  ASSERT_THAT(fs_->CreateDir("/with_file"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/with_file/f", ""), IsOk());
  ASSERT_THAT(fs_->CreateDir("/with_dir"), IsOk());
  ASSERT_THAT(fs_->CreateDir("/with_dir/sub"), IsOk());
  ASSERT_THAT(fs_->CreateDir("/empty"), IsOk());

  const Status not_empty = fs_->RemoveDir("/with_file");
  EXPECT_THAT(not_empty, FailsWith(ENOTEMPTY));
  EXPECT_EQ(not_empty.path(), "/with_file");
  EXPECT_THAT(fs_->RemoveDir("/with_dir"), FailsWith(ENOTEMPTY));
  EXPECT_TRUE(fs_->Exists("/with_file/f"));
  EXPECT_TRUE(fs_->Exists("/with_dir/sub"));

  EXPECT_THAT(fs_->RemoveDir("/empty"), IsOk());
  EXPECT_FALSE(fs_->Exists("/empty"));
}

TEST_P(FileSystemConformanceTest, RemoveDirFailsWithEnoentOrEnotdir) {
  ASSERT_THAT(WriteNewFile(*fs_, "/f", ""), IsOk());
  EXPECT_THAT(fs_->RemoveDir("/nope"), FailsWith(ENOENT));
  EXPECT_THAT(fs_->RemoveDir("/f"), FailsWith(ENOTDIR));
  EXPECT_THAT(fs_->RemoveDir("/f/g"), FailsWith(ENOTDIR));
  EXPECT_TRUE(fs_->Exists("/f"));
}

// --- RemoveTree -----------------------------------------------------------------------

TEST_P(FileSystemConformanceTest, RemoveTreeRemovesEverythingBelow) {
  ASSERT_THAT(fs_->CreateDir("/t"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/t/a", "1"), IsOk());
  ASSERT_THAT(fs_->CreateDir("/t/b"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/t/b/c", "22"), IsOk());
  ASSERT_THAT(fs_->CreateDir("/t/b/d"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/t/b/d/e", "333"), IsOk());
  ASSERT_THAT(fs_->CreateDir("/t/empty"), IsOk());
  ASSERT_THAT(fs_->CreateDir("/keep"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/keep/f", "kept"), IsOk());

  EXPECT_THAT(fs_->RemoveTree("/t"), IsOk());
  EXPECT_FALSE(fs_->Exists("/t"));
  StatusOr<std::vector<DirEntry>> root = fs_->ListDir("/");
  ASSERT_THAT(root, IsOk());
  EXPECT_THAT(*root, ElementsAre(DirEntry{"keep", FileType::kDirectory},
                                 DirEntry{"tmp", FileType::kDirectory}));
  StatusOr<std::string> kept = fs_->ReadFile("/keep/f");
  ASSERT_THAT(kept, IsOk());
  EXPECT_EQ(*kept, "kept");
}

TEST_P(FileSystemConformanceTest, RemoveTreeOfAFileRemovesJustThatFile) {
  ASSERT_THAT(fs_->CreateDir("/d"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/d/f", "x"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/d/g", "y"), IsOk());
  EXPECT_THAT(fs_->RemoveTree("/d/f"), IsOk());
  StatusOr<std::vector<DirEntry>> listed = fs_->ListDir("/d");
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(*listed, ElementsAre(DirEntry{"g", FileType::kRegular}));
}

TEST_P(FileSystemConformanceTest, RemoveTreeOfAnEmptyDirectoryRemovesIt) {
  ASSERT_THAT(fs_->CreateDir("/d"), IsOk());
  EXPECT_THAT(fs_->RemoveTree("/d"), IsOk());
  EXPECT_FALSE(fs_->Exists("/d"));
}

TEST_P(FileSystemConformanceTest, RemoveTreeFailsWithEnoentOrEnotdir) {
  ASSERT_THAT(WriteNewFile(*fs_, "/f", ""), IsOk());
  const Status missing = fs_->RemoveTree("/nope");
  EXPECT_THAT(missing, FailsWith(ENOENT));
  EXPECT_EQ(missing.path(), "/nope");
  EXPECT_THAT(fs_->RemoveTree("/f/g"), FailsWith(ENOTDIR));
  EXPECT_TRUE(fs_->Exists("/f"));
}

TEST_P(FileSystemConformanceTest, AnOpenFileSurvivesRemoveTreeOfItsDirectory) {
  ASSERT_THAT(fs_->CreateDir("/d"), IsOk());
  StatusOr<std::unique_ptr<WritableFile>> file = fs_->CreateFile("/d/f");
  ASSERT_THAT(file, IsOk());
  ASSERT_THAT((*file)->Append("12"), IsOk());
  ASSERT_THAT(fs_->RemoveTree("/d"), IsOk());
  EXPECT_FALSE(fs_->Exists("/d"));
  EXPECT_THAT((*file)->Append("345"), IsOk());
  StatusOr<uint64_t> size = (*file)->Size();
  ASSERT_THAT(size, IsOk());
  EXPECT_EQ(*size, 5u);
  EXPECT_THAT((*file)->Close(), IsOk());
}

// --- SetPermissions -------------------------------------------------------------------

TEST_P(FileSystemConformanceTest, SetPermissionsChangesTheMode) {
  ASSERT_THAT(WriteNewFile(*fs_, "/f", "x"), IsOk());
  ASSERT_THAT(fs_->CreateDir("/d"), IsOk());
  EXPECT_THAT(fs_->SetPermissions("/f", 0640), IsOk());
  EXPECT_THAT(fs_->SetPermissions("/d", 0755), IsOk());
  StatusOr<FileStat> file = fs_->Stat("/f");
  ASSERT_THAT(file, IsOk());
  EXPECT_EQ(*file, (FileStat{FileType::kRegular, 1, 0640}));
  StatusOr<FileStat> dir = fs_->Stat("/d");
  ASSERT_THAT(dir, IsOk());
  EXPECT_EQ(*dir, (FileStat{FileType::kDirectory, 0, 0755}));
}

TEST_P(FileSystemConformanceTest, SetPermissionsFailsWithEnoentOrEnotdir) {
  ASSERT_THAT(WriteNewFile(*fs_, "/f", ""), IsOk());
  const Status missing = fs_->SetPermissions("/nope", 0700);
  EXPECT_THAT(missing, FailsWith(ENOENT));
  EXPECT_EQ(missing.path(), "/nope");
  EXPECT_THAT(fs_->SetPermissions("/f/g", 0700), FailsWith(ENOTDIR));
}

// --- Permissions (EACCES) -------------------------------------------------------------

TEST_P(FileSystemConformanceTest, ADirectoryWithoutWritePermissionRefusesChanges) {
  if (!UsePermissionCheckingFileSystem()) GTEST_SKIP() << kNoPermissionChecksAsRoot;
  ASSERT_THAT(fs_->CreateDir("/ro"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/ro/f", "abc"), IsOk());
  ASSERT_THAT(fs_->CreateDir("/ro/sub"), IsOk());
  ASSERT_THAT(fs_->SetPermissions("/ro", 0500), IsOk());

  const Status mkdir = fs_->CreateDir("/ro/x");
  EXPECT_THAT(mkdir, FailsWith(EACCES));
  EXPECT_EQ(mkdir.path(), "/ro/x");
  EXPECT_THAT(fs_->CreateFile("/ro/x"), FailsWith(EACCES));
  EXPECT_THAT(fs_->CreateUniqueDir("/ro", "p"), FailsWith(EACCES));
  EXPECT_THAT(fs_->CreateUniqueFile("/ro", "p"), FailsWith(EACCES));
  EXPECT_THAT(fs_->RemoveFile("/ro/f"), FailsWith(EACCES));
  EXPECT_THAT(fs_->RemoveDir("/ro/sub"), FailsWith(EACCES));
  EXPECT_THAT(fs_->RemoveTree("/ro/sub"), FailsWith(EACCES));

  // What is there stays, readable and (being 0600) writable.
  StatusOr<std::vector<DirEntry>> listed = fs_->ListDir("/ro");
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(*listed, ElementsAre(DirEntry{"f", FileType::kRegular},
                                   DirEntry{"sub", FileType::kDirectory}));
  StatusOr<std::unique_ptr<WritableFile>> file = fs_->OpenForAppend("/ro/f");
  ASSERT_THAT(file, IsOk());
  EXPECT_THAT((*file)->Append("def"), IsOk());
  EXPECT_THAT((*file)->Close(), IsOk());

  // Given back its write permission, the directory can be changed again.
  ASSERT_THAT(fs_->SetPermissions("/ro", 0700), IsOk());
  EXPECT_THAT(fs_->RemoveTree("/ro"), IsOk());
}

TEST_P(FileSystemConformanceTest, RemoveTreeStopsAtTheFirstErrorAndNamesItsPath) {
  if (!UsePermissionCheckingFileSystem()) GTEST_SKIP() << kNoPermissionChecksAsRoot;
  ASSERT_THAT(fs_->CreateDir("/t"), IsOk());
  ASSERT_THAT(fs_->CreateDir("/t/locked"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/t/locked/f", ""), IsOk());
  ASSERT_THAT(fs_->SetPermissions("/t/locked", 0500), IsOk());

  const Status status = fs_->RemoveTree("/t");
  EXPECT_THAT(status, FailsWith(EACCES));
  EXPECT_EQ(status.path(), "/t/locked/f");
  EXPECT_TRUE(fs_->Exists("/t/locked/f"));

  ASSERT_THAT(fs_->SetPermissions("/t/locked", 0700), IsOk());
  EXPECT_THAT(fs_->RemoveTree("/t"), IsOk());
  EXPECT_FALSE(fs_->Exists("/t"));
}

TEST_P(FileSystemConformanceTest, ADirectoryWithoutReadPermissionCannotBeListed) {
  if (!UsePermissionCheckingFileSystem()) GTEST_SKIP() << kNoPermissionChecksAsRoot;
  ASSERT_THAT(fs_->CreateDir("/wx"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/wx/f", "abc"), IsOk());
  ASSERT_THAT(fs_->SetPermissions("/wx", 0300), IsOk());

  EXPECT_THAT(fs_->ListDir("/wx"), FailsWith(EACCES));
  // Search permission alone still reaches a known name.
  StatusOr<std::string> contents = fs_->ReadFile("/wx/f");
  ASSERT_THAT(contents, IsOk());
  EXPECT_EQ(*contents, "abc");
}

TEST_P(FileSystemConformanceTest, ADirectoryWithoutSearchPermissionHidesItsEntries) {
  if (!UsePermissionCheckingFileSystem()) GTEST_SKIP() << kNoPermissionChecksAsRoot;
  ASSERT_THAT(fs_->CreateDir("/rw"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/rw/f", "abc"), IsOk());
  ASSERT_THAT(fs_->SetPermissions("/rw", 0600), IsOk());

  EXPECT_THAT(fs_->Stat("/rw/f"), FailsWith(EACCES));
  EXPECT_THAT(fs_->ReadFile("/rw/f"), FailsWith(EACCES));
  EXPECT_THAT(fs_->OpenForAppend("/rw/f"), FailsWith(EACCES));
  EXPECT_THAT(fs_->CreateFile("/rw/g"), FailsWith(EACCES));
}

TEST_P(FileSystemConformanceTest, AFileWithoutPermissionCannotBeOpened) {
  if (!UsePermissionCheckingFileSystem()) GTEST_SKIP() << kNoPermissionChecksAsRoot;
  ASSERT_THAT(WriteNewFile(*fs_, "/read_only", "r"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/write_only", "w"), IsOk());
  ASSERT_THAT(fs_->SetPermissions("/read_only", 0400), IsOk());
  ASSERT_THAT(fs_->SetPermissions("/write_only", 0200), IsOk());

  EXPECT_THAT(fs_->OpenForAppend("/read_only"), FailsWith(EACCES));
  EXPECT_THAT(fs_->ReadFile("/write_only"), FailsWith(EACCES));
  StatusOr<std::string> readable = fs_->ReadFile("/read_only");
  ASSERT_THAT(readable, IsOk());
  EXPECT_EQ(*readable, "r");
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

TEST_P(FileSystemConformanceTest, TempDirIsAnExistingDirectory) {
  const std::string temp = fs_->TempDir();
  EXPECT_EQ(temp, "/tmp");
  EXPECT_EQ(TypeOf(temp), FileType::kDirectory);
  // The call itself creates nothing.
  StatusOr<std::vector<DirEntry>> listed = fs_->ListDir(temp);
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(*listed, IsEmpty());
}

// --- Concurrency ----------------------------------------------------------------------

TEST_P(FileSystemConformanceTest, ConcurrentUniqueCreatesGetDistinctNames) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 25;
  ASSERT_THAT(fs_->CreateDir("/shared"), IsOk());
  std::vector<std::vector<std::string>> made(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, t, &made] {
      for (int i = 0; i < kPerThread; ++i) {
        if (i % 2 == 0) {
          StatusOr<std::unique_ptr<WritableFile>> file = fs_->CreateUniqueFile("/shared", "f-");
          if (file.ok()) made[t].push_back((*file)->path());
        } else {
          StatusOr<std::string> dir = fs_->CreateUniqueDir("/shared", "d-");
          if (dir.ok()) made[t].push_back(*dir);
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  std::set<std::string> all;
  for (const std::vector<std::string>& paths : made) {
    EXPECT_THAT(paths, SizeIs(kPerThread));
    all.insert(paths.begin(), paths.end());
  }
  EXPECT_THAT(all, SizeIs(kThreads * kPerThread));
  StatusOr<std::vector<DirEntry>> listed = fs_->ListDir("/shared");
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(*listed, SizeIs(kThreads * kPerThread));
}

TEST_P(FileSystemConformanceTest, ConcurrentAppendsToOneFileAllLand) {
  constexpr int kThreads = 4;
  constexpr int kAppends = 100;
  const std::string chunk(10, 'x');
  StatusOr<std::unique_ptr<WritableFile>> file = fs_->CreateFile("/f");
  ASSERT_THAT(file, IsOk());
  WritableFile* f = file->get();
  std::vector<uint64_t> written(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([f, t, &chunk, &written] {
      for (int i = 0; i < kAppends; ++i) {
        const AppendResult appended = f->Append(chunk);
        if (appended.status.ok()) written[t] += appended.bytes_written;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  for (uint64_t bytes : written) EXPECT_EQ(bytes, kAppends * chunk.size());
  StatusOr<uint64_t> size = f->Size();
  ASSERT_THAT(size, IsOk());
  EXPECT_EQ(*size, kThreads * kAppends * chunk.size());
  EXPECT_THAT(f->Close(), IsOk());
}

INSTANTIATE_TEST_SUITE_P(AllFileSystems, FileSystemConformanceTest,
                         ::testing::Values(FsKind::kPosix, FsKind::kMem), FsKindName);

}  // namespace
}  // namespace spillway
