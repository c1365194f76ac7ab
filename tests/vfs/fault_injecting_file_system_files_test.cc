// FaultInjectingFileSystem's WritableFile wrappers: short writes, a failed Close, the
// implicit close of a destroyed file, and files that outlive the injector.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <string>

#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/status.h"
#include "support/fault_injecting_file_system_fixture.h"

namespace spillway {
namespace {

using test_support::Rule;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST_F(FaultInjectingFileSystemTest, AShortWriteStoresAPrefixFailsWithEioAndIsUsedOnce) {
  std::unique_ptr<WritableFile> file = Create("/tmp/f");
  ASSERT_NE(file, nullptr);
  fs_.AddShortWrite("/tmp/f", 3);
  AppendResult result = file->Append("hello");
  EXPECT_EQ(result.bytes_written, 3u);
  EXPECT_EQ(result.status, Status::FromErrno(EIO, "write", "/tmp/f"));
  EXPECT_EQ(Contents("/tmp/f"), "hel");
  StatusOr<uint64_t> size = file->Size();
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(*size, 3u);

  result = file->Append("world");
  EXPECT_TRUE(result.status.ok());
  EXPECT_EQ(result.bytes_written, 5u);
  EXPECT_EQ(Contents("/tmp/f"), "helworld");
  EXPECT_THAT(fs_.injected(), ElementsAre(InjectedFault{OpKind::kWrite, "/tmp/f", EIO, 3}));
  EXPECT_EQ(fs_.calls(OpKind::kWrite), 2u);  // The prefix is not a call of its own.
}

TEST_F(FaultInjectingFileSystemTest, AShortWriteLargerThanTheAppendStoresItAllAndStillFails) {
  std::unique_ptr<WritableFile> file = Create("/tmp/f");
  ASSERT_NE(file, nullptr);
  fs_.AddShortWrite("/tmp/*", 100);
  AppendResult result = file->Append("ab");
  EXPECT_EQ(result.bytes_written, 2u);
  EXPECT_TRUE(result.status.IsErrno(EIO));
  EXPECT_EQ(Contents("/tmp/f"), "ab");
}

TEST_F(FaultInjectingFileSystemTest, AShortWriteOfZeroBytesStoresNothing) {
  std::unique_ptr<WritableFile> file = Create("/tmp/f");
  ASSERT_NE(file, nullptr);
  fs_.AddShortWrite("/tmp/f", 0);
  AppendResult result = file->Append("ab");
  EXPECT_EQ(result.bytes_written, 0u);
  EXPECT_TRUE(result.status.IsErrno(EIO));
  EXPECT_EQ(Contents("/tmp/f"), "");
}

TEST_F(FaultInjectingFileSystemTest, ShortWritesAreTakenInOrderByTheFileTheyMatch) {
  std::unique_ptr<WritableFile> f = Create("/tmp/f");
  std::unique_ptr<WritableFile> g = Create("/tmp/g");
  ASSERT_NE(f, nullptr);
  ASSERT_NE(g, nullptr);
  fs_.AddShortWrite("/tmp/f", 1);
  fs_.AddShortWrite("/tmp/g", 2);
  fs_.AddShortWrite("/tmp/f", 3);
  EXPECT_EQ(g->Append("123456").bytes_written, 2u);
  EXPECT_EQ(f->Append("abcdef").bytes_written, 1u);
  EXPECT_EQ(f->Append("ABCDEF").bytes_written, 3u);
  AppendResult whole = f->Append("xy");
  EXPECT_TRUE(whole.status.ok());
  EXPECT_EQ(Contents("/tmp/f"), "aABCxy");
  EXPECT_EQ(Contents("/tmp/g"), "12");
}

TEST_F(FaultInjectingFileSystemTest, AShortWriteForAFileThatIsGoneIsDroppedAsTheyAccumulate) {
  MakeFile("/tmp/f");
  MakeFile("/tmp/g");
  fs_.AddShortWrite("/tmp/f", 1);  // For the file /tmp/f, which then goes.
  ASSERT_TRUE(mem_->RemoveFile("/tmp/f").ok());
  fs_.AddShortWrite("/tmp/h", 2);  // No file there yet: kept for whichever file comes.
  // Enough short writes for a file that stays make the pending ones be checked.
  for (int i = 0; i < 64; ++i) fs_.AddShortWrite("/tmp/g", 3);
  std::unique_ptr<WritableFile> f = Create("/tmp/f");
  StatusOr<std::unique_ptr<WritableFile>> opened = fs_.OpenForAppend("/tmp/g");
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::unique_ptr<WritableFile> g = std::move(*opened);
  std::unique_ptr<WritableFile> h = Create("/tmp/h");
  ASSERT_NE(f, nullptr);
  ASSERT_NE(g, nullptr);
  ASSERT_NE(h, nullptr);
  EXPECT_TRUE(f->Append("abcdef").status.ok());  // The new /tmp/f is not the file it was for.
  EXPECT_EQ(g->Append("abcdef").bytes_written, 3u);
  EXPECT_EQ(h->Append("abcdef").bytes_written, 2u);
}

TEST_F(FaultInjectingFileSystemTest, AShortWriteForARemovedFileStillOpenIsKeptForItsWrites) {
  std::unique_ptr<WritableFile> f = Create("/tmp/f");
  ASSERT_NE(f, nullptr);
  MakeFile("/tmp/g");
  fs_.AddShortWrite("/tmp/f", 1);
  // A tmp cleaner removes the file; its open handle still writes to it, as on Linux.
  ASSERT_TRUE(fs_.RemoveTreeFromOutside("/tmp/f").ok());
  // Enough short writes for a file that stays make the pending ones be checked.
  for (int i = 0; i < 64; ++i) fs_.AddShortWrite("/tmp/g", 3);
  AppendResult result = f->Append("abc");
  EXPECT_EQ(result.bytes_written, 1u);
  EXPECT_EQ(result.status, Status::FromErrno(EIO, "write", "/tmp/f"));
  EXPECT_THAT(fs_.injected(), ElementsAre(InjectedFault{OpKind::kWrite, "/tmp/f", EIO, 1}));
}

TEST_F(FaultInjectingFileSystemTest, AnAppendFailedByARuleDoesNotUseUpAShortWrite) {
  std::unique_ptr<WritableFile> file = Create("/tmp/f");
  ASSERT_NE(file, nullptr);
  fs_.AddRule(Rule(OpKind::kWrite, ENOSPC, 0, 1));
  fs_.AddShortWrite("/tmp/f", 1);
  AppendResult refused = file->Append("abc");
  EXPECT_EQ(refused.bytes_written, 0u);
  EXPECT_TRUE(refused.status.IsErrno(ENOSPC));
  AppendResult short_write = file->Append("abc");
  EXPECT_EQ(short_write.bytes_written, 1u);
  EXPECT_TRUE(short_write.status.IsErrno(EIO));
  EXPECT_EQ(Contents("/tmp/f"), "a");
}

TEST_F(FaultInjectingFileSystemTest, AShortWriteReportsTheTargetsOwnErrorOnThePrefix) {
  mem_->SetCapacity(2);
  std::unique_ptr<WritableFile> file = Create("/tmp/f");
  ASSERT_NE(file, nullptr);
  fs_.AddShortWrite("/tmp/f", 4);
  AppendResult result = file->Append("abcdef");
  EXPECT_EQ(result.bytes_written, 2u);
  EXPECT_TRUE(result.status.IsErrno(ENOSPC)) << result.status.ToString();
  EXPECT_EQ(Contents("/tmp/f"), "ab");
}

TEST_F(FaultInjectingFileSystemTest, DestroyingAnOpenFileIsNotAClose) {
  fs_.AddRule(Rule(OpKind::kClose, EIO, 0, std::nullopt));
  std::unique_ptr<WritableFile> file = Create("/tmp/f");
  ASSERT_NE(file, nullptr);
  ASSERT_TRUE(file->Append("abc").status.ok());
  ASSERT_TRUE(mem_->RemoveFile("/tmp/f").ok());
  EXPECT_EQ(mem_->used_bytes(), 3u);  // Unlinked but open: its bytes still count.
  file.reset();
  EXPECT_EQ(fs_.calls(OpKind::kClose), 0u);
  EXPECT_THAT(fs_.injected(), IsEmpty());
  // The wrapper released the target's file, whose own destructor closed it.
  EXPECT_EQ(mem_->used_bytes(), 0u);
}

TEST_F(FaultInjectingFileSystemTest, AFailedCloseLeavesTheFileOpenAndUsable) {
  std::unique_ptr<WritableFile> file = Create("/tmp/f");
  ASSERT_NE(file, nullptr);
  fs_.AddRule(Rule(OpKind::kClose, EIO, 0, 1));
  EXPECT_EQ(file->Close(), Status::FromErrno(EIO, "close", "/tmp/f"));
  EXPECT_TRUE(file->Append("still open").status.ok());
  EXPECT_TRUE(file->Close().ok());
  // Now the target's file is closed, and says so.
  EXPECT_TRUE(file->Close().IsErrno(EBADF));
  EXPECT_TRUE(file->Append("x").status.IsErrno(EBADF));
  EXPECT_EQ(fs_.calls(OpKind::kClose), 3u);
  EXPECT_EQ(Contents("/tmp/f"), "still open");
}

TEST_F(FaultInjectingFileSystemTest, AFileMayOutliveTheInjector) {
  auto fs = NewFaultInjectingFileSystem(mem_);
  StatusOr<std::unique_ptr<WritableFile>> file = fs->CreateFile("/tmp/f");
  ASSERT_TRUE(file.ok());
  fs->AddShortWrite("/tmp/f", 1);
  fs.reset();
  EXPECT_EQ((*file)->Append("ab").bytes_written, 1u);
  EXPECT_TRUE((*file)->Append("cd").status.ok());
  EXPECT_TRUE((*file)->Close().ok());
  EXPECT_EQ(Contents("/tmp/f"), "acd");
}

}  // namespace
}  // namespace spillway
