// ProcessFileSystem: a live process's calls reach the filesystem; a dead one's do not.
#include "spillway/vfs/process_file_system.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <string>

#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/mem_file_system.h"
#include "support/status_matchers.h"

namespace spillway {
namespace {

TEST(ProcessFileSystemTest, ALiveProcessReachesTheFileSystem) {
  std::shared_ptr<MemFileSystem> mem = NewMemFileSystem();
  std::shared_ptr<ProcessFileSystem> process = NewProcessFileSystem(mem);
  EXPECT_FALSE(process->dead());
  ASSERT_THAT(process->CreateDir("/d"), IsOk());
  EXPECT_TRUE(mem->Exists("/d"));
  EXPECT_THAT(process->LockDir("/d").status(), IsOk());
}

TEST(ProcessFileSystemTest, ADeadProcessChangesNothingAndItsHandlesStayValid) {
  auto counted = NewFaultInjectingFileSystem(NewMemFileSystem(), 0);
  std::shared_ptr<ProcessFileSystem> process = NewProcessFileSystem(counted);
  ASSERT_THAT(process->CreateDir("/d"), IsOk());
  StatusOr<std::unique_ptr<WritableFile>> file = process->CreateFile("/d/f");
  ASSERT_THAT(file.status(), IsOk());
  const uint64_t calls = counted->total_calls();
  process->Kill();
  process->Kill();  // Idempotent.
  EXPECT_TRUE(process->dead());
  EXPECT_THAT(process->RemoveTree("/d"), FailsWith(ESRCH));
  EXPECT_THAT(process->RemoveFile("/d/f"), FailsWith(ESRCH));
  EXPECT_THAT(process->RemoveDir("/d"), FailsWith(ESRCH));
  EXPECT_THAT(process->CreateDir("/e"), FailsWith(ESRCH));
  EXPECT_THAT(process->Stat("/d").status(), FailsWith(ESRCH));
  EXPECT_THAT(process->ListDir("/d").status(), FailsWith(ESRCH));
  EXPECT_THAT(process->LockDir("/d").status(), FailsWith(ESRCH));
  EXPECT_THAT(process->CreateUniqueDir("/d", "x").status(), FailsWith(ESRCH));
  EXPECT_EQ(counted->total_calls(), calls);  // Nothing reached the filesystem.
  EXPECT_TRUE(counted->Exists("/d/f"));
  file->reset();  // Closing a descriptor is what the kernel does at death.
  EXPECT_TRUE(counted->Exists("/d/f"));
}

}  // namespace
}  // namespace spillway
