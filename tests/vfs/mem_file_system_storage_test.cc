// What only MemFileSystem has, for stored bytes: a byte capacity, size-only files,
// used_bytes(), and the bytes of unlinked, closed and orphaned files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "spillway/vfs/file_system.h"
#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/status.h"
#include "support/mem_file_system_test_support.h"
#include "support/status_matchers.h"

namespace spillway {
namespace {

using test_support::MustAppend;
using test_support::MustCreate;
using test_support::NewMem;
using test_support::Options;

TEST(MemFileSystemTest, PartialFitStoresWhatFitsThenFailsWithEnospc) {
  auto fs = NewMem(Options().Capacity(10));
  std::unique_ptr<WritableFile> file = MustCreate(*fs, "/tmp/f");
  ASSERT_NE(file, nullptr);
  MustAppend(*file, "abcdef");

  AppendResult partial = file->Append("ghijkl");
  EXPECT_EQ(partial.bytes_written, 4u);
  EXPECT_THAT(partial.status, IsErrno(ENOSPC, "write", "/tmp/f"));

  AppendResult next = file->Append("x");
  EXPECT_EQ(next.bytes_written, 0u);
  EXPECT_THAT(next.status, IsErrno(ENOSPC, "write", "/tmp/f"));

  // Writing nothing needs no space.
  AppendResult empty = file->Append("");
  EXPECT_EQ(empty.bytes_written, 0u);
  EXPECT_THAT(empty.status, IsOk());

  EXPECT_EQ(fs->used_bytes(), 10u);
  StatusOr<uint64_t> size = file->Size();
  ASSERT_THAT(size.status(), IsOk());
  EXPECT_EQ(*size, 10u);
  StatusOr<std::string> contents = fs->ReadFile("/tmp/f");
  ASSERT_THAT(contents.status(), IsOk());
  EXPECT_EQ(*contents, "abcdefghij");
}

TEST(MemFileSystemTest, RemovingAFileFreesItsSpace) {
  auto fs = NewMem(Options().Capacity(8));
  std::unique_ptr<WritableFile> a = MustCreate(*fs, "/tmp/a");
  ASSERT_NE(a, nullptr);
  MustAppend(*a, "12345678");
  ASSERT_THAT(a->Close(), IsOk());

  std::unique_ptr<WritableFile> b = MustCreate(*fs, "/tmp/b");
  ASSERT_NE(b, nullptr);
  EXPECT_THAT(b->Append("z").status, IsErrno(ENOSPC, "write", "/tmp/b"));

  ASSERT_THAT(fs->RemoveFile("/tmp/a"), IsOk());
  EXPECT_EQ(fs->used_bytes(), 0u);
  MustAppend(*b, "87654321");
  EXPECT_EQ(fs->used_bytes(), 8u);

  // RemoveTree frees the bytes of every file below it.
  ASSERT_THAT(fs->CreateDir("/tmp/d"), IsOk());
  ASSERT_THAT(b->Close(), IsOk());
  ASSERT_THAT(fs->RemoveFile("/tmp/b"), IsOk());
  std::unique_ptr<WritableFile> c = MustCreate(*fs, "/tmp/d/c");
  ASSERT_NE(c, nullptr);
  MustAppend(*c, "ccc");
  c.reset();
  EXPECT_EQ(fs->used_bytes(), 3u);
  ASSERT_THAT(fs->RemoveTree("/tmp/d"), IsOk());
  EXPECT_EQ(fs->used_bytes(), 0u);
}

TEST(MemFileSystemTest, UnlinkedOpenFileKeepsItsBytesUntilClosed) {
  auto fs = NewMem(Options().Capacity(10));
  std::unique_ptr<WritableFile> file = MustCreate(*fs, "/tmp/gone");
  ASSERT_NE(file, nullptr);
  MustAppend(*file, "1234");
  ASSERT_THAT(fs->RemoveFile("/tmp/gone"), IsOk());
  EXPECT_FALSE(fs->Exists("/tmp/gone"));

  // Still writable, still sized, still counted, and still holding capacity.
  MustAppend(*file, "56");
  StatusOr<uint64_t> size = file->Size();
  ASSERT_THAT(size.status(), IsOk());
  EXPECT_EQ(*size, 6u);
  EXPECT_THAT(file->Sync(), IsOk());
  EXPECT_EQ(fs->used_bytes(), 6u);
  std::unique_ptr<WritableFile> other = MustCreate(*fs, "/tmp/other");
  ASSERT_NE(other, nullptr);
  AppendResult squeezed = other->Append("abcdefgh");
  EXPECT_EQ(squeezed.bytes_written, 4u);
  EXPECT_THAT(squeezed.status, IsErrno(ENOSPC, "write", "/tmp/other"));

  ASSERT_THAT(file->Close(), IsOk());
  EXPECT_EQ(fs->used_bytes(), 4u);
  MustAppend(*other, "efghij");
  EXPECT_EQ(fs->used_bytes(), 10u);
}

TEST(MemFileSystemTest, UnlinkedFileIsFreedWhenItsLastHandleGoes) {
  auto fs = NewMem();
  std::unique_ptr<WritableFile> first = MustCreate(*fs, "/tmp/f");
  ASSERT_NE(first, nullptr);
  MustAppend(*first, "abc");
  StatusOr<std::unique_ptr<WritableFile>> second = fs->OpenForAppend("/tmp/f");
  ASSERT_THAT(second.status(), IsOk());
  ASSERT_THAT(fs->RemoveFile("/tmp/f"), IsOk());

  MustAppend(**second, "de");
  ASSERT_THAT(first->Close(), IsOk());
  EXPECT_EQ(fs->used_bytes(), 5u);  // The second handle still holds the file.
  StatusOr<uint64_t> size = (*second)->Size();
  ASSERT_THAT(size.status(), IsOk());
  EXPECT_EQ(*size, 5u);

  second->reset();  // Destroying the last handle closes it.
  EXPECT_EQ(fs->used_bytes(), 0u);
}

TEST(MemFileSystemTest, OpenFileOutlivesTheFileSystemObject) {
  auto fs = NewMem();
  std::unique_ptr<WritableFile> file = MustCreate(*fs, "/tmp/f");
  ASSERT_NE(file, nullptr);
  fs.reset();
  MustAppend(*file, "still here");
  StatusOr<uint64_t> size = file->Size();
  ASSERT_THAT(size.status(), IsOk());
  EXPECT_EQ(*size, 10u);
  EXPECT_THAT(file->Close(), IsOk());
}

TEST(MemFileSystemTest, SetCapacityTakesEffectAtOnce) {
  auto fs = NewMem();
  std::unique_ptr<WritableFile> file = MustCreate(*fs, "/tmp/f");
  ASSERT_NE(file, nullptr);
  MustAppend(*file, "0123456789");

  // Below what is stored: the bytes stay, and nothing more fits.
  fs->SetCapacity(4);
  EXPECT_EQ(fs->used_bytes(), 10u);
  AppendResult full = file->Append("x");
  EXPECT_EQ(full.bytes_written, 0u);
  EXPECT_THAT(full.status, IsErrno(ENOSPC, "write", "/tmp/f"));

  fs->SetCapacity(12);
  AppendResult partial = file->Append("abc");
  EXPECT_EQ(partial.bytes_written, 2u);
  EXPECT_THAT(partial.status, IsErrno(ENOSPC, "write", "/tmp/f"));

  fs->SetCapacity(std::nullopt);
  MustAppend(*file, std::string(1000, 'y'));
  EXPECT_EQ(fs->used_bytes(), 1012u);
}

TEST(MemFileSystemTest, WithoutContentsFilesKeepOnlyTheirSizes) {
  auto fs = NewMem(Options().KeepContents(false));
  std::unique_ptr<WritableFile> file = MustCreate(*fs, "/tmp/f");
  ASSERT_NE(file, nullptr);
  MustAppend(*file, "hello");
  MustAppend(*file, "world!");
  StatusOr<std::string> contents = fs->ReadFile("/tmp/f");
  ASSERT_THAT(contents.status(), IsOk());
  EXPECT_EQ(*contents, std::string(11, '\0'));
  StatusOr<uint64_t> size = file->Size();
  ASSERT_THAT(size.status(), IsOk());
  EXPECT_EQ(*size, 11u);
  StatusOr<FileStat> stat = fs->Stat("/tmp/f");
  ASSERT_THAT(stat.status(), IsOk());
  EXPECT_EQ(stat->size, 11u);
  EXPECT_EQ(fs->used_bytes(), 11u);
}

TEST(MemFileSystemTest, WithoutContentsCapacityStillApplies) {
  auto fs = NewMem(Options().Capacity(3).KeepContents(false));
  std::unique_ptr<WritableFile> file = MustCreate(*fs, "/tmp/f");
  ASSERT_NE(file, nullptr);
  AppendResult result = file->Append("abcd");
  EXPECT_EQ(result.bytes_written, 3u);
  EXPECT_THAT(result.status, IsErrno(ENOSPC, "write", "/tmp/f"));
  StatusOr<std::string> contents = fs->ReadFile("/tmp/f");
  ASSERT_THAT(contents.status(), IsOk());
  EXPECT_EQ(*contents, std::string(3, '\0'));
}

TEST(MemFileSystemTest, UsedBytesSumsEveryFile) {
  auto fs = NewMem();
  ASSERT_THAT(fs->CreateDir("/tmp/d"), IsOk());
  std::unique_ptr<WritableFile> a = MustCreate(*fs, "/tmp/a");
  std::unique_ptr<WritableFile> b = MustCreate(*fs, "/tmp/d/b");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  MustAppend(*a, "12");
  MustAppend(*b, "345");
  MustAppend(*a, "6789");
  EXPECT_EQ(fs->used_bytes(), 9u);
  ASSERT_THAT(a->Close(), IsOk());
  EXPECT_EQ(fs->used_bytes(), 9u);  // Closing a linked file keeps its bytes.
  ASSERT_THAT(fs->RemoveFile("/tmp/a"), IsOk());
  EXPECT_EQ(fs->used_bytes(), 3u);
}

TEST(MemFileSystemTest, ClosedFileFailsWithEbadf) {
  auto fs = NewMem();
  std::unique_ptr<WritableFile> file = MustCreate(*fs, "/tmp/f");
  ASSERT_NE(file, nullptr);
  ASSERT_THAT(file->Close(), IsOk());
  AppendResult append = file->Append("x");
  EXPECT_EQ(append.bytes_written, 0u);
  EXPECT_THAT(append.status, IsErrno(EBADF, "write", "/tmp/f"));
  EXPECT_THAT(file->Sync(), IsErrno(EBADF, "sync", "/tmp/f"));
  EXPECT_THAT(file->Size().status(), IsErrno(EBADF, "size", "/tmp/f"));
  EXPECT_THAT(file->Close(), IsErrno(EBADF, "close", "/tmp/f"));
}

}  // namespace
}  // namespace spillway
