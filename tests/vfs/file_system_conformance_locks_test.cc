// The FileSystem contract (file_system.h) for LockDir, the advisory directory lock, on
// every implementation (flock(2) on POSIX). The fixture and what the suite holds to are
// described in support/file_system_conformance.h.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <string>

#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/status.h"
#include "support/file_system_conformance.h"
#include "support/status_matchers.h"

namespace spillway {
namespace {

using test_support::WriteNewFile;

TEST_P(FileSystemConformanceTest, LockDirExcludesASecondLockUntilReleased) {
  ASSERT_THAT(fs_->CreateDir("/d"), IsOk());
  ASSERT_THAT(fs_->CreateDir("/e"), IsOk());
  StatusOr<std::unique_ptr<DirLock>> held = fs_->LockDir("/d");
  ASSERT_THAT(held.status(), IsOk());
  EXPECT_EQ((*held)->path(), "/d");
  // A second handle conflicts, even from the same process (flock is per open file).
  EXPECT_THAT(fs_->LockDir("/d").status(), FailsWith(EWOULDBLOCK));
  EXPECT_THAT(fs_->LockDir("/e").status(), IsOk());  // Other directories are unaffected.
  held->reset();
  StatusOr<std::unique_ptr<DirLock>> again = fs_->LockDir("/d");
  EXPECT_THAT(again.status(), IsOk());
}

TEST_P(FileSystemConformanceTest, LockDirFailsOnAMissingPathOrAFile) {
  ASSERT_THAT(WriteNewFile(*fs_, "/f", "x"), IsOk());
  EXPECT_THAT(fs_->LockDir("/missing").status(), FailsWith(ENOENT));
  EXPECT_THAT(fs_->LockDir("/f").status(), FailsWith(ENOTDIR));
  EXPECT_THAT(fs_->LockDir("/f/x").status(), FailsWith(ENOTDIR));
}

TEST_P(FileSystemConformanceTest, ALockedDirectoryCanStillBeRemoved) {
  ASSERT_THAT(fs_->CreateDir("/d"), IsOk());
  StatusOr<std::unique_ptr<DirLock>> held = fs_->LockDir("/d");
  ASSERT_THAT(held.status(), IsOk());
  EXPECT_THAT(fs_->RemoveDir("/d"), IsOk());
  // A new directory at the same path is a new directory, and is not locked.
  ASSERT_THAT(fs_->CreateDir("/d"), IsOk());
  EXPECT_THAT(fs_->LockDir("/d").status(), IsOk());
  held->reset();  // Releasing the old lock is harmless.
}

TEST(MemFileSystemLockTest, ACrashReleasesEveryLockAndLaterReleasesDoNothing) {
  std::shared_ptr<MemFileSystem> fs = NewMemFileSystem();
  ASSERT_THAT(fs->CreateDir("/d"), IsOk());
  StatusOr<std::unique_ptr<DirLock>> dead = fs->LockDir("/d");
  ASSERT_THAT(dead.status(), IsOk());
  fs->Crash();
  StatusOr<std::unique_ptr<DirLock>> survivor = fs->LockDir("/d");
  ASSERT_THAT(survivor.status(), IsOk());
  dead->reset();  // The dead process's handle must not release the new holder's lock.
  EXPECT_THAT(fs->LockDir("/d").status(), FailsWith(EWOULDBLOCK));
  EXPECT_TRUE(fs->Exists("/d"));
}

TEST(FaultInjectingFileSystemLockTest, LockDirIsForwardedToTheTarget) {
  std::shared_ptr<MemFileSystem> mem = NewMemFileSystem();
  auto fs = NewFaultInjectingFileSystem(mem);
  ASSERT_THAT(fs->CreateDir("/d"), IsOk());
  StatusOr<std::unique_ptr<DirLock>> held = fs->LockDir("/d");
  ASSERT_THAT(held.status(), IsOk());
  EXPECT_THAT(mem->LockDir("/d").status(), FailsWith(EWOULDBLOCK));
}

}  // namespace
}  // namespace spillway
