// DiskManager's accounting: DataFusion's disk usage tests, ported in spirit, with clones,
// several files, limits changed at run time, UpdateDiskUsage and failed creations.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "spillway/spill/disk_manager.h"
#include "spillway/spill/spill_writer.h"
#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/mem_file_system.h"
#include "support/disk_manager_fixture.h"
#include "support/spill_test_support.h"

namespace spillway {
namespace {

using ::testing::HasSubstr;

// ---------------------------------------------------------------------------------------
// Accounting

// Upstream: test_disk_usage_basic (disk_manager.rs at 02ee6daeb0cf).
TEST_F(DiskManagerTest, DiskUsageBasic) {
  ASSERT_OK_AND_ASSIGN(auto dm, DiskManagerBuilder().Build(fs_));
  ASSERT_OK_AND_ASSIGN(std::optional<SpillFile> file, dm->CreateTempFile("Testing"));
  std::optional<SpillWriter> writer(std::in_place, *file);
  EXPECT_EQ(dm->used_disk_space(), 0u);
  EXPECT_EQ(file->size(), 0u);
  EXPECT_EQ(dm->spilling_progress(), (SpillingProgress{0, 1}));

  ASSERT_OK(writer->Write("hello world"));
  EXPECT_EQ(file->size(), 11u);
  EXPECT_EQ(dm->used_disk_space(), 11u);
  ASSERT_OK(writer->Write("more_data"));
  EXPECT_EQ(file->size(), 20u);
  EXPECT_EQ(dm->used_disk_space(), 20u);
  EXPECT_EQ(FileSizeOnDisk(file->path()), 20u);
  EXPECT_EQ(dm->spilling_progress(), (SpillingProgress{20, 1}));

  writer.reset();
  file.reset();
  EXPECT_EQ(dm->used_disk_space(), 0u);
  EXPECT_EQ(dm->spilling_progress(), (SpillingProgress{0, 0}));
}

// Upstream: test_disk_usage_with_clones (disk_manager.rs at 02ee6daeb0cf).
TEST_F(DiskManagerTest, DiskUsageWithClones) {
  ASSERT_OK_AND_ASSIGN(auto dm, DiskManagerBuilder().Build(fs_));
  ASSERT_OK_AND_ASSIGN(std::optional<SpillFile> file, dm->CreateTempFile("Testing"));
  ASSERT_OK(SpillWriter(*file).Write("test data"));
  std::optional<SpillFile> clone1 = *file;
  std::optional<SpillFile> clone2 = *file;
  EXPECT_EQ(file->use_count(), 3);
  EXPECT_EQ(clone1->size(), 9u);
  EXPECT_EQ(clone2->size(), 9u);
  EXPECT_EQ(dm->used_disk_space(), 9u);  // Not multiplied by the clones.

  ASSERT_OK(SpillWriter(*clone1).Write(" more data"));
  for (const auto* f : {&file, &clone1, &clone2}) EXPECT_EQ((*f)->size(), 19u);
  EXPECT_EQ(dm->used_disk_space(), 19u);
  EXPECT_EQ(dm->spilling_progress().active_files_count, 1u);

  clone1.reset();
  EXPECT_EQ(dm->used_disk_space(), 19u);
  clone2.reset();
  EXPECT_EQ(dm->used_disk_space(), 19u);
  const std::string path = file->path();
  EXPECT_TRUE(mem_->Exists(path));
  file.reset();
  EXPECT_EQ(dm->used_disk_space(), 0u);
  EXPECT_FALSE(mem_->Exists(path));
}

// Upstream: test_disk_usage_clones_dropped_out_of_order (disk_manager.rs at 02ee6daeb0cf).
TEST_F(DiskManagerTest, DiskUsageClonesDroppedOutOfOrder) {
  ASSERT_OK_AND_ASSIGN(auto dm, DiskManagerBuilder().Build(fs_));
  ASSERT_OK_AND_ASSIGN(std::optional<SpillFile> file, dm->CreateTempFile("Testing"));
  ASSERT_OK(SpillWriter(*file).Write("test"));
  std::optional<SpillFile> clone1 = *file, clone2 = *file, clone3 = *file;
  file.reset();  // The original first.
  EXPECT_EQ(dm->used_disk_space(), 4u);
  EXPECT_EQ(clone1->size(), 4u);
  clone2.reset();
  EXPECT_EQ(dm->used_disk_space(), 4u);
  clone1.reset();
  EXPECT_EQ(dm->used_disk_space(), 4u);
  EXPECT_EQ(dm->spilling_progress().active_files_count, 1u);
  clone3.reset();
  EXPECT_EQ(dm->used_disk_space(), 0u);
  EXPECT_EQ(dm->spilling_progress().active_files_count, 0u);
}

// Upstream: test_disk_usage_multiple_files (disk_manager.rs at 02ee6daeb0cf).
TEST_F(DiskManagerTest, DiskUsageMultipleFiles) {
  ASSERT_OK_AND_ASSIGN(auto dm, BuildDirectories(2));
  std::optional<SpillFile> file1, file2;
  {
    ASSERT_OK_AND_ASSIGN(SpillFile a, dm->CreateTempFile("Testing1"));
    ASSERT_OK_AND_ASSIGN(SpillFile b, dm->CreateTempFile("Testing2"));
    file1 = std::move(a);
    file2 = std::move(b);
  }
  EXPECT_NE(file1->path(), file2->path());
  ASSERT_OK(SpillWriter(*file1).Write("file1"));
  EXPECT_EQ(dm->used_disk_space(), 5u);
  ASSERT_OK(SpillWriter(*file2).Write("file2 data"));
  EXPECT_EQ(dm->used_disk_space(), 15u);
  EXPECT_EQ(dm->spilling_progress(), (SpillingProgress{15, 2}));
  file1.reset();
  EXPECT_EQ(dm->used_disk_space(), 10u);
  file2.reset();
  EXPECT_EQ(dm->spilling_progress(), (SpillingProgress{0, 0}));
}

// Upstream: test_dynamic_limit_adjustment_through_shared_ref (disk_manager.rs at 02ee6daeb0cf).
TEST_F(DiskManagerTest, DynamicLimitAdjustmentThroughSharedRef) {
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<DiskManager> dm,
                       DiskManagerBuilder().WithMaxTempDirectorySize(1024).Build(fs_));
  std::shared_ptr<SpillManager> shared = dm;  // As a plan would hold it.
  EXPECT_EQ(shared->max_temp_directory_size(), 1024u);
  ASSERT_OK(shared->SetMaxTempDirectorySize(2048));
  EXPECT_EQ(dm->max_temp_directory_size(), 2048u);
  ASSERT_OK(shared->SetMaxTempDirectorySize(512));
  EXPECT_EQ(dm->max_temp_directory_size(), 512u);

  // Later writes are checked against the new value.
  ASSERT_OK_AND_ASSIGN(SpillFile file, dm->CreateTempFile("sort"));
  SpillWriter writer(file);
  EXPECT_TRUE(IsLimitExceeded(writer.Write(std::string(513, 'x'))));
  EXPECT_OK(writer.Write(std::string(512, 'x')));
}

// Upstream: test_limit_decrease_below_current_usage (disk_manager.rs at 02ee6daeb0cf), with real
// files where upstream stores into used_disk_space.
TEST_F(DiskManagerTest, LimitDecreaseBelowCurrentUsage) {
  ASSERT_OK_AND_ASSIGN(auto dm, DiskManagerBuilder().WithMaxTempDirectorySize(100).Build(fs_));
  ASSERT_OK_AND_ASSIGN(std::optional<SpillFile> file, dm->CreateTempFile("Testing"));
  ASSERT_OK(SpillWriter(*file).Write(std::string(80, 'x')));
  ASSERT_OK(dm->SetMaxTempDirectorySize(60));

  // The bytes already written stay; nothing more fits.
  EXPECT_EQ(dm->used_disk_space(), 80u);
  EXPECT_TRUE(mem_->Exists(file->path()));
  ASSERT_OK_AND_ASSIGN(SpillFile other, dm->CreateTempFile("Testing"));
  SpillWriter other_writer(other);
  EXPECT_TRUE(IsLimitExceeded(other_writer.Write("x")));
  EXPECT_EQ(dm->used_disk_space(), 80u);

  // Once the old file is released, writes fit again.
  file.reset();
  EXPECT_EQ(dm->used_disk_space(), 0u);
  EXPECT_OK(other_writer.Write(std::string(60, 'x')));
  EXPECT_EQ(dm->used_disk_space(), 60u);
}

// UpdateDiskUsage reads the size from the open handle; bytes appended behind the writer's
// back (through another handle to the same file) are picked up there.
TEST_F(DiskManagerTest, UpdateDiskUsageRollsBackWhenTheLimitIsExceeded) {
  ASSERT_OK_AND_ASSIGN(auto dm, DiskManagerBuilder()
                                    .WithMaxTempDirectorySize(10)
                                    .WithLimitConfigKey("test.limit")
                                    .Build(fs_));
  ASSERT_OK_AND_ASSIGN(std::optional<SpillFile> file, dm->CreateTempFile("rollback"));
  ASSERT_OK_AND_ASSIGN(auto behind, mem_->OpenForAppend(file->path()));
  ASSERT_OK(behind->Append(std::string(6, 'x')).status);
  ASSERT_OK(file->UpdateDiskUsage());
  EXPECT_EQ(file->size(), 6u);
  EXPECT_EQ(dm->used_disk_space(), 6u);

  ASSERT_OK(behind->Append(std::string(6, 'x')).status);
  Status over = file->UpdateDiskUsage();
  EXPECT_TRUE(IsLimitExceeded(over));
  EXPECT_THAT(over.message(), HasSubstr("test.limit"));
  EXPECT_EQ(file->size(), 6u);  // Rolled back: the last successful update stands.
  EXPECT_EQ(dm->used_disk_space(), 6u);

  ASSERT_OK(dm->SetMaxTempDirectorySize(12));
  ASSERT_OK(file->UpdateDiskUsage());
  EXPECT_EQ(dm->used_disk_space(), 12u);

  ASSERT_OK(behind->Close());
  file.reset();
  EXPECT_EQ(dm->used_disk_space(), 0u);
}

TEST_F(DiskManagerTest, UpdateDiskUsageReportsAFailedSizeRead) {
  ASSERT_OK_AND_ASSIGN(auto dm, DiskManagerBuilder().Build(fs_));
  ASSERT_OK_AND_ASSIGN(SpillFile file, dm->CreateTempFile("sort"));
  fs_->AddRule(Fail(OpKind::kSize, EIO));
  Status status = file.UpdateDiskUsage();
  EXPECT_TRUE(status.IsErrno(EIO)) << status.ToString();
  EXPECT_EQ(dm->used_disk_space(), 0u);
}

TEST_F(DiskManagerTest, FailedCreateCountsNoActiveFile) {
  ASSERT_OK_AND_ASSIGN(auto dm, BuildDirectories(1));
  fs_->AddRule(Fail(OpKind::kCreate, ENOSPC));
  StatusOr<SpillFile> file = dm->CreateTempFile("sort");
  ASSERT_FALSE(file.ok());
  EXPECT_TRUE(file.status().IsErrno(ENOSPC));
  EXPECT_EQ(file.status().path(), dm->spill_dirs()[0]);
  EXPECT_EQ(dm->spilling_progress().active_files_count, 0u);
}

// Without any quirk, UpdateDiskUsage adds only what changed since the last update, per
// file: updating again adds nothing, and two files' updates add up.
TEST_F(DiskManagerTest, UpdateDiskUsageAddsOnlyTheChangeSinceTheLastUpdate) {
  ASSERT_OK_AND_ASSIGN(auto dm, DiskManagerBuilder().WithMaxTempDirectorySize(100).Build(fs_));
  ASSERT_OK_AND_ASSIGN(std::optional<SpillFile> a, dm->CreateTempFile("a"));
  ASSERT_OK_AND_ASSIGN(std::optional<SpillFile> b, dm->CreateTempFile("b"));
  ASSERT_OK_AND_ASSIGN(auto behind_a, mem_->OpenForAppend(a->path()));
  ASSERT_OK_AND_ASSIGN(auto behind_b, mem_->OpenForAppend(b->path()));
  ASSERT_OK(behind_a->Append(std::string(5, 'x')).status);
  ASSERT_OK(a->UpdateDiskUsage());
  ASSERT_OK(a->UpdateDiskUsage());
  EXPECT_EQ(dm->used_disk_space(), 5u);
  ASSERT_OK(behind_b->Append(std::string(7, 'x')).status);
  ASSERT_OK(b->UpdateDiskUsage());
  EXPECT_EQ(dm->used_disk_space(), 12u);
  ASSERT_OK(behind_a->Append(std::string(3, 'x')).status);
  ASSERT_OK(a->UpdateDiskUsage());
  EXPECT_EQ(a->size(), 8u);
  EXPECT_EQ(dm->used_disk_space(), 15u);
  ASSERT_OK(behind_a->Close());
  ASSERT_OK(behind_b->Close());
  a.reset();
  EXPECT_EQ(dm->used_disk_space(), 7u);
  b.reset();
  EXPECT_EQ(dm->used_disk_space(), 0u);
}
}  // namespace
}  // namespace spillway
