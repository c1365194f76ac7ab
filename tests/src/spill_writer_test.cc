// SpillWriter: exact accounting in every outcome of a write (the quirky upstream writers
// are in quirks_test.cc).
#include "spillway/spill/spill_writer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "spillway/spill/disk_manager.h"
#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/mem_file_system.h"
#include "support/spill_test_support.h"

namespace spillway {
namespace {

using ::testing::HasSubstr;

// One manager over /local0 with a small limit, and one open spill file with its writer.

class SpillWriterTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(DiskManagerBuilder().WithMaxTempDirectorySize(10)); }

  void Open(DiskManagerBuilder builder) {
    file_.reset();
    writer_.reset();
    manager_.reset();
    StatusOr<std::shared_ptr<DiskManager>> dm =
        builder.WithDirectories({"/local0"}).WithSeed(3).Build(fs_);
    ASSERT_TRUE(dm.ok()) << dm.status().ToString();
    manager_ = *dm;
    StatusOr<SpillFile> file = manager_->CreateTempFile("shuffle");
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    file_ = *file;
    writer_.emplace(*file_);
  }

  uint64_t OnDisk() {
    StatusOr<std::string> contents = mem_->ReadFile(file_->path());
    EXPECT_TRUE(contents.ok()) << contents.status().ToString();
    return contents.ok() ? contents->size() : 0;
  }

  std::shared_ptr<MemFileSystem> mem_ = NewMemFileSystem(11);
  std::shared_ptr<FaultInjectingFileSystem> fs_ = NewFaultInjectingFileSystem(mem_);
  std::shared_ptr<DiskManager> manager_;
  std::optional<SpillFile> file_;
  std::optional<SpillWriter> writer_;
};

TEST_F(SpillWriterTest, WritesAndCountsTheBytes) {
  ASSERT_OK(writer_->Write("abc"));
  ASSERT_OK(writer_->Write("defg"));
  EXPECT_EQ(file_->size(), 7u);
  EXPECT_EQ(manager_->used_disk_space(), 7u);
  StatusOr<std::string> contents = mem_->ReadFile(file_->path());
  ASSERT_TRUE(contents.ok());
  EXPECT_EQ(*contents, "abcdefg");
  EXPECT_EQ(writer_->file().path(), file_->path());
}

TEST_F(SpillWriterTest, EmptyWriteSucceedsWithoutTouchingTheFileSystem) {
  fs_->ResetCounters();
  fs_->AddRule(Fail(std::nullopt, EIO, "", std::nullopt));
  EXPECT_OK(writer_->Write(""));
  EXPECT_EQ(fs_->total_calls(), 0u);
  EXPECT_EQ(file_->size(), 0u);
  EXPECT_EQ(manager_->used_disk_space(), 0u);
}

TEST_F(SpillWriterTest, UsedMayReachTheLimitExactly) {
  ASSERT_OK(writer_->Write(std::string(10, 'x')));
  EXPECT_EQ(manager_->used_disk_space(), 10u);
  EXPECT_TRUE(IsLimitExceeded(writer_->Write("x")));
}

TEST_F(SpillWriterTest, LimitIsCheckedBeforeWritingAndNamesTheConfigurationKey) {
  Open(DiskManagerBuilder().WithMaxTempDirectorySize(10).WithLimitConfigKey(
      "spark.comet.maxTempDirectorySize"));
  ASSERT_OK(writer_->Write(std::string(8, 'x')));
  const uint64_t writes_before = fs_->calls(OpKind::kWrite);

  Status over = writer_->Write(std::string(8, 'y'));
  EXPECT_TRUE(IsLimitExceeded(over));
  // DataFusion's text (disk_manager.rs at 02ee6daeb0cf), naming the key given.
  EXPECT_EQ(over.message(),
            "The used disk space during the spilling process has exceeded the allowable limit "
            "of 10.0 B. Please try increasing the config: `spark.comet.maxTempDirectorySize`.");
  // Nothing reached the file and nothing was counted.
  EXPECT_EQ(fs_->calls(OpKind::kWrite), writes_before);
  EXPECT_EQ(OnDisk(), 8u);
  EXPECT_EQ(file_->size(), 8u);
  EXPECT_EQ(manager_->used_disk_space(), 8u);
}

TEST_F(SpillWriterTest, LimitErrorNamesDataFusionsKeyByDefaultInHumanUnits) {
  Open(DiskManagerBuilder().WithMaxTempDirectorySize(3072));
  Status over = writer_->Write(std::string(4096, 'x'));
  EXPECT_TRUE(IsLimitExceeded(over));
  EXPECT_THAT(over.message(), HasSubstr("allowable limit of 3.0 KB."));
  EXPECT_THAT(over.message(), HasSubstr("`" + std::string(kDataFusionLimitKey) + "`"));
}

// DataFusion PR #24407's case: a write that fails gives back what it reserved, so the
// budget is intact for the next one.
TEST_F(SpillWriterTest, FailedWriteLeavesTheCounterWhereItWasAndALaterWriteFits) {
  fs_->AddRule(Fail(OpKind::kWrite, EIO));
  Status failed = writer_->Write(std::string(8, 'x'));
  EXPECT_TRUE(failed.IsErrno(EIO)) << failed.ToString();
  EXPECT_EQ(failed.path(), file_->path());
  EXPECT_EQ(manager_->used_disk_space(), 0u);
  EXPECT_EQ(file_->size(), 0u);

  EXPECT_OK(writer_->Write(std::string(10, 'x')));  // The whole budget is still there.
  EXPECT_EQ(manager_->used_disk_space(), 10u);
  file_.reset();
  writer_.reset();
  EXPECT_EQ(manager_->used_disk_space(), 0u);
}

TEST_F(SpillWriterTest, ShortWriteCountsExactlyWhatReachedTheFile) {
  fs_->AddShortWrite(file_->path(), 3);
  Status failed = writer_->Write(std::string(8, 'x'));
  EXPECT_TRUE(failed.IsErrno(EIO)) << failed.ToString();
  EXPECT_EQ(OnDisk(), 3u);
  EXPECT_EQ(file_->size(), 3u);
  EXPECT_EQ(manager_->used_disk_space(), 3u);

  ASSERT_OK(writer_->Write(std::string(7, 'y')));  // 3 + 7 == the limit.
  EXPECT_EQ(OnDisk(), 10u);
  EXPECT_EQ(manager_->used_disk_space(), 10u);
  file_.reset();
  writer_.reset();
  EXPECT_EQ(manager_->used_disk_space(), 0u);
}

TEST_F(SpillWriterTest, WriteThatTheLimitRefusesDoesNotUseUpAShortWrite) {
  fs_->AddShortWrite(file_->path(), 2);
  EXPECT_TRUE(IsLimitExceeded(writer_->Write(std::string(11, 'x'))));
  EXPECT_TRUE(writer_->Write(std::string(5, 'x')).IsErrno(EIO));
  EXPECT_EQ(manager_->used_disk_space(), 2u);
}

TEST_F(SpillWriterTest, ENOSPCFromCapacityCountsTheBytesThatFit) {
  Open(DiskManagerBuilder().WithMaxTempDirectorySize(100));
  mem_->SetCapacity(5);
  Status full = writer_->Write(std::string(8, 'x'));
  EXPECT_TRUE(full.IsErrno(ENOSPC)) << full.ToString();
  EXPECT_EQ(OnDisk(), 5u);  // What fitted was stored, as on Linux.
  EXPECT_EQ(file_->size(), 5u);
  EXPECT_EQ(manager_->used_disk_space(), 5u);

  EXPECT_TRUE(writer_->Write("x").IsErrno(ENOSPC));
  EXPECT_EQ(manager_->used_disk_space(), 5u);

  mem_->SetCapacity(std::nullopt);
  ASSERT_OK(writer_->Write("x"));
  EXPECT_EQ(manager_->used_disk_space(), 6u);
  EXPECT_EQ(OnDisk(), 6u);
}

TEST_F(SpillWriterTest, FileStaysWritableAfterACleanerUnlinkedIt) {
  ASSERT_OK(writer_->Write("abc"));
  ASSERT_OK(fs_->RemoveTreeFromOutside(file_->path()));
  EXPECT_FALSE(mem_->Exists(file_->path()));
  ASSERT_OK(writer_->Write("def"));
  EXPECT_EQ(file_->size(), 6u);
  EXPECT_EQ(manager_->used_disk_space(), 6u);
  // The open handle still sees all of it.
  ASSERT_OK(file_->UpdateDiskUsage());
  EXPECT_EQ(file_->size(), 6u);
}

TEST_F(SpillWriterTest, WritersOnCopiesShareOneSize) {
  SpillFile copy = *file_;
  SpillWriter second(copy);
  ASSERT_OK(writer_->Write("abcd"));
  ASSERT_OK(second.Write("ef"));
  EXPECT_EQ(file_->size(), 6u);
  EXPECT_EQ(copy.size(), 6u);
  EXPECT_EQ(manager_->used_disk_space(), 6u);
  EXPECT_TRUE(IsLimitExceeded(second.Write(std::string(5, 'x'))));
}

TEST_F(SpillWriterTest, SyncReachesTheFileAndReportsItsErrors) {
  ASSERT_OK(writer_->Write("abc"));
  const uint64_t syncs = fs_->calls(OpKind::kSync);
  EXPECT_OK(writer_->Sync());
  EXPECT_EQ(fs_->calls(OpKind::kSync), syncs + 1);
  fs_->AddRule(Fail(OpKind::kSync, EIO));
  EXPECT_TRUE(writer_->Sync().IsErrno(EIO));
}

}  // namespace
}  // namespace spillway
