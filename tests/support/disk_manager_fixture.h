// The fixture of the DiskManager tests (disk_manager_*_test.cc): an in-memory filesystem
// under a fault injector, and managers built over it.
#ifndef SPILLWAY_TESTS_SUPPORT_DISK_MANAGER_FIXTURE_H_
#define SPILLWAY_TESTS_SUPPORT_DISK_MANAGER_FIXTURE_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spillway/spill/disk_manager.h"
#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/glob.h"
#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/status.h"
#include "support/spill_test_support.h"

namespace spillway {

// Managers are built over fs_, which injects faults into mem_ (seeded with 7). Tests look
// at mem_ directly, so that looking is neither counted nor faulted.
class DiskManagerTest : public ::testing::Test {
 protected:
  std::shared_ptr<MemFileSystem> mem_ = NewMemFileSystem(7);
  std::shared_ptr<FaultInjectingFileSystem> fs_ = NewFaultInjectingFileSystem(mem_);

  void MakeDir(const std::string& path) { ASSERT_OK(mem_->CreateDir(path)); }

  // How many paths in mem_ match `glob`.
  size_t Count(std::string_view glob) { return ExpandGlob(*mem_, glob).size(); }

  // A kDirectories manager over /local0 .. /local{n-1}, which are created first.
  StatusOr<std::shared_ptr<DiskManager>> BuildDirectories(int n, DiskManagerBuilder builder) {
    std::vector<std::string> dirs;
    for (int i = 0; i < n; ++i) {
      dirs.push_back("/local" + std::to_string(i));
      if (!mem_->Exists(dirs.back())) {
        Status made = mem_->CreateDir(dirs.back());
        if (!made.ok()) return made;
      }
    }
    return builder.WithDirectories(std::move(dirs)).WithSeed(1).Build(fs_);
  }
  StatusOr<std::shared_ptr<DiskManager>> BuildDirectories(int n) {
    return BuildDirectories(n, DiskManagerBuilder());
  }

  uint64_t FileSizeOnDisk(const std::string& path) {
    StatusOr<std::string> contents = mem_->ReadFile(path);
    EXPECT_TRUE(contents.ok()) << contents.status().ToString();
    return contents.ok() ? contents->size() : 0;
  }
};

}  // namespace spillway

#endif  // SPILLWAY_TESTS_SUPPORT_DISK_MANAGER_FIXTURE_H_
