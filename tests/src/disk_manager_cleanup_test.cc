// DiskManager's cleanup: when files and spill directories go, spill directories removed
// from outside under each policy, and failed removals in the cleanup log.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "spillway/spill/disk_manager.h"
#include "spillway/spill/spill_writer.h"
#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/mem_file_system.h"
#include "support/disk_manager_fixture.h"
#include "support/spill_test_support.h"

namespace spillway {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// ---------------------------------------------------------------------------------------
// Lifetimes

// Upstream: test_temp_file_still_alive_after_disk_manager_dropped (disk_manager.rs at
// 02ee6daeb0cf), its OS-temp half; the next test is its half with local dirs.
TEST_F(DiskManagerTest, TempFileStillAliveAfterDiskManagerDropped) {
  ASSERT_OK_AND_ASSIGN(auto dm, DiskManagerBuilder().Build(fs_));
  ASSERT_OK_AND_ASSIGN(std::optional<SpillFile> file, dm->CreateTempFile("Testing"));
  const std::string path = file->path();
  dm.reset();
  EXPECT_TRUE(mem_->Exists(path));
  std::optional<SpillWriter> writer(std::in_place, *file);
  EXPECT_OK(writer->Write("still works"));
  file.reset();
  EXPECT_TRUE(mem_->Exists(path)) << "the writer still holds a reference";
  writer.reset();
  EXPECT_FALSE(mem_->Exists(path));
  EXPECT_EQ(Count("/tmp/*"), 0u);  // The temp dir's spill directory went with it.
}

// Upstream: test_temp_file_still_alive_after_disk_manager_dropped (disk_manager.rs at
// 02ee6daeb0cf), with local dirs.
TEST_F(DiskManagerTest, FileAndSpillDirsGoOnlyWhenManagerAndEveryFileAreGone) {
  ASSERT_OK_AND_ASSIGN(auto dm, BuildDirectories(3));
  ASSERT_OK_AND_ASSIGN(std::optional<SpillFile> file, dm->CreateTempFile("Testing"));
  const std::string path = file->path();
  dm.reset();
  EXPECT_TRUE(mem_->Exists(path));
  EXPECT_EQ(Count("/local*/datafusion-*"), 3u);  // Every spill dir waits for the file.
  file.reset();
  EXPECT_FALSE(mem_->Exists(path));
  EXPECT_EQ(Count("/local*/*"), 0u);
}

// ---------------------------------------------------------------------------------------
// Spill directories removed from outside

TEST_F(DiskManagerTest, MissingSpillDirFailsWithENOENTUnderTheFailPolicy) {
  ASSERT_OK_AND_ASSIGN(auto dm, BuildDirectories(1));
  const std::string dir = dm->spill_dirs()[0];
  ASSERT_OK(fs_->RemoveTreeFromOutside(dir));
  StatusOr<SpillFile> file = dm->CreateTempFile("sort");
  ASSERT_FALSE(file.ok());
  EXPECT_TRUE(file.status().IsErrno(ENOENT)) << file.status().ToString();
  EXPECT_EQ(file.status().path(), dir);
  // It stays broken: nothing recreates the directory.
  EXPECT_TRUE(dm->CreateTempFile("sort").status().IsErrno(ENOENT));
  EXPECT_EQ(dm->spill_dirs(), std::vector<std::string>{dir});
}

TEST_F(DiskManagerTest, MissingSpillDirIsRecreatedUnderTheRecreatePolicy) {
  ASSERT_OK_AND_ASSIGN(
      auto dm,
      BuildDirectories(1, DiskManagerBuilder().WithMissingDirPolicy(MissingDirPolicy::kRecreate)));
  ASSERT_OK_AND_ASSIGN(std::optional<SpillFile> old_file, dm->CreateTempFile("sort"));
  const std::string old_dir = dm->spill_dirs()[0];
  ASSERT_OK(fs_->RemoveTreeFromOutside(old_dir));

  ASSERT_OK_AND_ASSIGN(SpillFile file, dm->CreateTempFile("sort"));
  const std::string new_dir = dm->spill_dirs()[0];
  EXPECT_NE(new_dir, old_dir);
  EXPECT_EQ(ParentPath(new_dir), "/local0");
  EXPECT_EQ(ParentPath(file.path()), new_dir);
  // The old file is unlinked but its handle still writes.
  EXPECT_OK(SpillWriter(*old_file).Write("abc"));
  EXPECT_EQ(dm->used_disk_space(), 3u);

  old_file.reset();
  EXPECT_EQ(dm->used_disk_space(), 0u);
  // The old file and directory were already gone: their removals failed with ENOENT, and
  // both are recorded, since the manager cannot tell a cleaner from a fault.
  std::vector<Status> failures = dm->cleanup_log()->failures();
  ASSERT_THAT(failures, SizeIs(2));
  EXPECT_TRUE(failures[0].IsErrno(ENOENT));
  EXPECT_TRUE(failures[1].IsErrno(ENOENT));
  EXPECT_EQ(failures[1].path(), old_dir);
  EXPECT_TRUE(mem_->Exists(new_dir));
}

TEST_F(DiskManagerTest, RecreatePolicyReportsAFailedRecreation) {
  ASSERT_OK_AND_ASSIGN(
      auto dm,
      BuildDirectories(1, DiskManagerBuilder().WithMissingDirPolicy(MissingDirPolicy::kRecreate)));
  ASSERT_OK(fs_->RemoveTreeFromOutside(dm->spill_dirs()[0]));
  fs_->AddRule(Fail(OpKind::kMkdir, EROFS));
  StatusOr<SpillFile> file = dm->CreateTempFile("sort");
  ASSERT_FALSE(file.ok());
  EXPECT_TRUE(file.status().IsErrno(EROFS)) << file.status().ToString();
  EXPECT_EQ(file.status().path(), "/local0");
  // The fault is spent; the next spill recreates the directory.
  ASSERT_OK_AND_ASSIGN(SpillFile again, dm->CreateTempFile("sort"));
  EXPECT_EQ(ParentPath(ParentPath(again.path())), "/local0");
}

// ---------------------------------------------------------------------------------------
// Cleanup failures

TEST_F(DiskManagerTest, FailedFileRemovalIsRecordedWithItsPath) {
  ASSERT_OK_AND_ASSIGN(auto dm, BuildDirectories(1));
  ASSERT_OK_AND_ASSIGN(std::optional<SpillFile> file, dm->CreateTempFile("sort"));
  const std::string path = file->path();
  fs_->AddRule(Fail(OpKind::kRemove, EACCES, path));
  file.reset();
  EXPECT_TRUE(mem_->Exists(path));
  EXPECT_EQ(dm->spilling_progress(), SpillingProgress{});  // The accounting is done.
  ASSERT_EQ(dm->cleanup_log()->failure_count(), 1u);
  const Status failure = dm->cleanup_log()->failures()[0];
  EXPECT_TRUE(failure.IsErrno(EACCES));
  EXPECT_EQ(failure.path(), path);
  EXPECT_EQ(dm->cleanup_log()->left_behind(), std::vector<std::string>{path});

  // The directory's removal then takes the file with it (the fault was used up).
  dm.reset();
  EXPECT_EQ(Count("/local0/*"), 0u);
}

TEST_F(DiskManagerTest, FailedDirectoryRemovalIsRecordedWithItsPath) {
  auto log = std::make_shared<CleanupLog>();
  ASSERT_OK_AND_ASSIGN(auto dm, BuildDirectories(2, DiskManagerBuilder().WithCleanupLog(log)));
  EXPECT_EQ(dm->cleanup_log(), log);
  const std::string dir = dm->spill_dirs()[1];
  fs_->AddRule(Fail(OpKind::kRmdir, EBUSY, dir));
  dm.reset();
  EXPECT_EQ(log->left_behind(), std::vector<std::string>{dir});
  EXPECT_TRUE(log->failures()[0].IsErrno(EBUSY));
  EXPECT_EQ(Count("/local*/*"), 1u);
}

TEST_F(DiskManagerTest, FileRemovedByACleanerIsRecordedNotIgnored) {
  ASSERT_OK_AND_ASSIGN(auto dm, BuildDirectories(1));
  ASSERT_OK_AND_ASSIGN(std::optional<SpillFile> file, dm->CreateTempFile("sort"));
  ASSERT_OK(fs_->RemoveTreeFromOutside(file->path()));
  file.reset();
  ASSERT_EQ(dm->cleanup_log()->failure_count(), 1u);
  EXPECT_TRUE(dm->cleanup_log()->failures()[0].IsErrno(ENOENT));
}

TEST_F(DiskManagerTest, NothingIsRecordedWhenEverythingIsRemoved) {
  ASSERT_OK_AND_ASSIGN(auto dm, BuildDirectories(2));
  {
    ASSERT_OK_AND_ASSIGN(SpillFile file, dm->CreateTempFile("sort"));
    ASSERT_OK(SpillWriter(file).Write("data"));
  }
  std::shared_ptr<CleanupLog> log = dm->cleanup_log();
  dm.reset();
  EXPECT_EQ(log->failure_count(), 0u);
  EXPECT_EQ(Count("/local*/*"), 0u);
}

// ---------------------------------------------------------------------------------------
// What a fault states is true: gone objects are not left behind, foreign entries stay

TEST_F(DiskManagerTest, ARemovalThatFindsTheFileGoneIsRecordedButNotLeftBehind) {
  ASSERT_OK_AND_ASSIGN(auto dm, BuildDirectories(1));
  ASSERT_OK_AND_ASSIGN(std::optional<SpillFile> file, dm->CreateTempFile("Testing"));
  const std::string path = file->path();
  fs_->AddRule(Fail(OpKind::kRemove, ENOENT, path));
  file.reset();
  EXPECT_FALSE(mem_->Exists(path));
  ASSERT_THAT(dm->cleanup_log()->failures(), SizeIs(1));
  EXPECT_TRUE(dm->cleanup_log()->failures()[0].IsErrno(ENOENT));
  EXPECT_THAT(dm->cleanup_log()->left_behind(), IsEmpty());
  dm.reset();
  EXPECT_EQ(Count("/local0/*"), 0u);
}

TEST_F(DiskManagerTest, AForeignFileFromARacingCreateIsNeverRemoved) {
  ASSERT_OK_AND_ASSIGN(auto dm, BuildDirectories(1));
  const std::string dir = dm->spill_dirs()[0];
  const std::shared_ptr<CleanupLog> log = dm->cleanup_log();
  fs_->AddRule(Fail(OpKind::kCreate, EEXIST));
  ASSERT_OK_AND_ASSIGN(std::optional<SpillFile> file, dm->CreateTempFile("Testing"));
  const std::string ours = file->path();
  const std::vector<std::string> both = ExpandGlob(*mem_, dir + "/*");
  ASSERT_THAT(both, SizeIs(2));
  const std::string foreign = both[0] == ours ? both[1] : both[0];
  file.reset();
  dm.reset();
  EXPECT_FALSE(mem_->Exists(ours));
  EXPECT_TRUE(mem_->Exists(foreign));
  EXPECT_TRUE(mem_->Exists(dir));  // Not empty: it stays, and says so.
  EXPECT_THAT(log->left_behind(), ElementsAre(dir));
  EXPECT_TRUE(log->failures()[0].IsErrno(ENOTEMPTY));
}

TEST_F(DiskManagerTest, AForeignDirFromARacingMkdirIsNeverRemoved) {
  fs_->AddRule(Fail(OpKind::kMkdir, EEXIST, "/local0"));
  ASSERT_OK_AND_ASSIGN(auto dm, BuildDirectories(1));
  const std::string ours = dm->spill_dirs()[0];
  ASSERT_EQ(Count("/local0/datafusion-*"), 2u);  // Ours, and the racing process's.
  ASSERT_OK_AND_ASSIGN(std::optional<SpillFile> file, dm->CreateTempFile("Testing"));
  EXPECT_EQ(ParentPath(file->path()), ours);
  file.reset();
  const std::shared_ptr<CleanupLog> log = dm->cleanup_log();
  dm.reset();
  EXPECT_FALSE(mem_->Exists(ours));
  EXPECT_EQ(Count("/local0/datafusion-*"), 1u);
  EXPECT_EQ(log->failure_count(), 0u);
}
}  // namespace
}  // namespace spillway
