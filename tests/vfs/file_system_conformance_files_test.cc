// The FileSystem contract (file_system.h) for files, on every implementation:
// CreateFile, CreateUniqueFile, WritableFile, OpenForAppend, ReadFile and
// ReadFileInChunks. The fixture and what the suite holds to are described in
// support/file_system_conformance.h.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/vfs/file_system.h"
#include "spillway/vfs/read_file_in_chunks.h"
#include "spillway/vfs/status.h"
#include "support/file_system_conformance.h"
#include "support/status_matchers.h"

namespace spillway {
namespace {

using test_support::WriteNewFile;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;

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

// --- CreateUniqueFile -----------------------------------------------------------------

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
  std::string block(size_t{300} * 1024, '\0');
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

TEST_P(FileSystemConformanceTest, ReadFileInChunksShowsGrowingPrefixesEndingWithTheFile) {
  std::string block(size_t{300} * 1024, '\0');
  for (size_t i = 0; i < block.size(); ++i) block[i] = static_cast<char>('a' + i % 26);
  ASSERT_THAT(WriteNewFile(*fs_, "/big", block), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/empty", ""), IsOk());
  std::vector<std::string> seen;
  const auto record = [&seen](std::string_view so_far) { seen.emplace_back(so_far); };
  StatusOr<std::string> contents = ReadFileInChunks(*fs_, "/big", record);
  ASSERT_THAT(contents, IsOk());
  EXPECT_EQ(*contents, block);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back(), block);
  // POSIX shows it as it comes in, 64 KiB at a time; the others once, whole.
  if (GetParam() == vocab::FsKind::kPosix) {
    EXPECT_GE(seen.size(), 5u);
  } else {
    EXPECT_EQ(seen.size(), 1u);
  }
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i], block.substr(0, seen[i].size())) << "call " << i;
    if (i > 0) {
      EXPECT_GT(seen[i].size(), seen[i - 1].size()) << "call " << i;
    }
  }

  seen.clear();
  contents = ReadFileInChunks(*fs_, "/empty", record);
  ASSERT_THAT(contents, IsOk());
  EXPECT_EQ(*contents, "");
  EXPECT_THAT(ReadFileInChunks(*fs_, "/nope", record), FailsWith(ENOENT));
  EXPECT_THAT(seen, IsEmpty());
}

}  // namespace
}  // namespace spillway
