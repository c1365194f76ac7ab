// DataFusion's own DiskManager tests, ported with upstream's expected values, and tests of
// the upstream texts spillway reproduces (sizes in errors, error messages, names).
//
// Upstream: datafusion/execution/src/disk_manager.rs at DataFusion commit 02ee6daeb0cf
// (tests module), and datafusion/common/src/display/human_readable.rs for
// human_readable_size. Each ported test names the upstream test it ports.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <barrier>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "spillway/spill/disk_manager.h"
#include "spillway/spill/spill_status.h"
#include "spillway/spill/spill_writer.h"
#include "spillway/vfs/file_system.h"
#include "support/disk_manager_fixture.h"
#include "support/spill_test_support.h"
#include "upstream_text.h"

namespace spillway {
namespace {

using internal::EscapeForTempFileNamePrefix;
using internal::HumanReadableSize;
using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::StartsWith;

constexpr uint64_t kKB = uint64_t{1} << 10;
constexpr uint64_t kMB = uint64_t{1} << 20;
constexpr uint64_t kGB = uint64_t{1} << 30;
constexpr uint64_t kTB = uint64_t{1} << 40;

// ---------------------------------------------------------------------------------------
// Names

// Upstream: test_escape_for_temp_file_name_prefix (disk_manager.rs at 02ee6daeb0cf).
TEST(UpstreamPortTest, EscapeForTempFileNamePrefix) {
  EXPECT_EQ(EscapeForTempFileNamePrefix("foo"), ".tmp.foo.");
  EXPECT_EQ(EscapeForTempFileNamePrefix("foo\u00e9 \nt"), ".tmp.foo\u00e9_t.");
  EXPECT_EQ(EscapeForTempFileNamePrefix(std::string(200, 'a')),
            ".tmp." + std::string(118, 'a') + ".");
}

// Beyond upstream's vectors: what its loop does at the edges, and Rust's Unicode rules
// (char::is_alphanumeric, char::to_lowercase).
TEST(UpstreamTextTest, EscapeKeepsUnicodeAlphanumericsAndJoinsOnlyInnerRuns) {
  EXPECT_EQ(EscapeForTempFileNamePrefix(""), ".tmp..");
  EXPECT_EQ(EscapeForTempFileNamePrefix("./"), ".tmp..");
  // A run before the first alphanumeric becomes '_' (the output is never empty when the
  // check runs); a run after the last one leaves nothing.
  EXPECT_EQ(EscapeForTempFileNamePrefix(" Sort "), ".tmp._sort.");
  EXPECT_EQ(EscapeForTempFileNamePrefix("Hash Join build-side"), ".tmp.hash_join_build_side.");
  EXPECT_EQ(EscapeForTempFileNamePrefix("\u0391\u0392\u0393 x"), ".tmp.\u03b1\u03b2\u03b3_x.");
  EXPECT_EQ(EscapeForTempFileNamePrefix("\u0130"), ".tmp.i\u0307.");  // Full lowercase.
  EXPECT_EQ(EscapeForTempFileNamePrefix("\u0663"), ".tmp.\u0663.");   // An Arabic-Indic digit.
  EXPECT_EQ(EscapeForTempFileNamePrefix("a\xff"
                                        "b"),
            ".tmp.a_b.");  // Not UTF-8: a separator.
  // The cut counts bytes and falls after a whole character: 118 bytes of "é" is 59 of them.
  EXPECT_EQ(EscapeForTempFileNamePrefix(std::string(200, 'A')),
            ".tmp." + std::string(118, 'a') + ".");
  std::string e_acute;
  for (int i = 0; i < 100; ++i) e_acute += "\u00e9";
  EXPECT_EQ(EscapeForTempFileNamePrefix(e_acute), ".tmp." + e_acute.substr(0, 118) + ".");
}

// Upstream: file_in_right_dir_and_with_description (disk_manager.rs at 02ee6daeb0cf).
TEST_F(DiskManagerTest, UpstreamFileInRightDirAndWithDescription) {
  ASSERT_OK_AND_ASSIGN(auto dm, BuildDirectories(3));
  EXPECT_TRUE(dm->tmp_files_enabled());
  ASSERT_OK_AND_ASSIGN(SpillFile actual, dm->CreateTempFile("Testing with./sp\u00e9cial"));
  // The file is in one of the local dirs.
  EXPECT_THAT(actual.path(),
              AnyOf(StartsWith("/local0/"), StartsWith("/local1/"), StartsWith("/local2/")));
  EXPECT_THAT(BaseName(actual.path()), StartsWith(".tmp.testing_with_sp\u00e9cial."));
}

// The random part of the names, as tempfile::Builder makes it by default (6 ASCII
// alphanumerics), and tempfile::tempdir()'s ".tmp" prefix for the OsTmpDirectory mode.
TEST_F(DiskManagerTest, NamesEndInSixRandomAlphanumericsAsTempfileMakesThem) {
  ASSERT_OK_AND_ASSIGN(auto local, BuildDirectories(1));
  ASSERT_OK_AND_ASSIGN(SpillFile in_local, local->CreateTempFile("sort"));
  EXPECT_THAT(in_local.path(),
              MatchesRegex("/local0/datafusion-[A-Za-z0-9]{6}/\\.tmp\\.sort\\.[A-Za-z0-9]{6}"));

  ASSERT_OK_AND_ASSIGN(auto os_tmp, DiskManagerBuilder().Build(fs_));
  ASSERT_OK_AND_ASSIGN(SpillFile in_tmp, os_tmp->CreateTempFile("sort"));
  EXPECT_THAT(in_tmp.path(),
              MatchesRegex("/tmp/\\.tmp[A-Za-z0-9]{6}/\\.tmp\\.sort\\.[A-Za-z0-9]{6}"));
}

// ---------------------------------------------------------------------------------------
// Sizes and the limit error

// human_readable_size (datafusion/common/src/display/human_readable.rs): the largest unit
// the size is at least twice of, one decimal, ties to even as Rust's float formatting.
TEST(UpstreamTextTest, HumanReadableSizeUsesTheTwoUnitThreshold) {
  EXPECT_EQ(HumanReadableSize(0), "0.0 B");
  EXPECT_EQ(HumanReadableSize(1023), "1023.0 B");
  EXPECT_EQ(HumanReadableSize(2 * kKB - 1), "2047.0 B");
  EXPECT_EQ(HumanReadableSize(2 * kKB), "2.0 KB");
  EXPECT_EQ(HumanReadableSize(2304), "2.2 KB");  // 2.25: a tie, to even.
  EXPECT_EQ(HumanReadableSize(2 * kMB - 1), "2048.0 KB");
  EXPECT_EQ(HumanReadableSize(10 * kMB), "10.0 MB");
  EXPECT_EQ(HumanReadableSize(kDefaultMaxTempDirectorySize), "100.0 GB");
  EXPECT_EQ(HumanReadableSize(2 * kTB), "2.0 TB");
  EXPECT_EQ(HumanReadableSize(kTB << 10), "1024.0 TB");  // No unit above TB.
  EXPECT_EQ(HumanReadableSize(UINT64_MAX), "16777216.0 TB");
  EXPECT_EQ(HumanReadableSize(3 * kGB), "3.0 GB");
}

// Upstream: test_rollback_on_limit_exceeded_then_drop_returns_to_zero (disk_manager.rs at
// 02ee6daeb0cf).
TEST_F(DiskManagerTest, UpstreamRollbackOnLimitExceededThenDropReturnsToZero) {
  ASSERT_OK_AND_ASSIGN(auto dm, DiskManagerBuilder().WithMaxTempDirectorySize(10 * kMB).Build(fs_));
  std::optional<SpillFile> file;
  ASSERT_OK_AND_ASSIGN(file, dm->CreateTempFile("test_rollback"));
  auto writer = std::make_unique<SpillWriter>(*file);

  ASSERT_OK(writer->Write(std::string(1024, '\0')));  // 1KB
  const uint64_t usage_after_first_write = dm->used_disk_space();
  EXPECT_GT(usage_after_first_write, 0u);

  ASSERT_OK(writer->Write(std::string(size_t{4} * 1024, '\0')));  // 4KB more
  const uint64_t usage_after_second_write = dm->used_disk_space();
  EXPECT_GT(usage_after_second_write, usage_after_first_write);

  // Lower the limit to 1 byte, below current usage; the next write fails.
  ASSERT_OK(dm->SetMaxTempDirectorySize(1));
  const Status result = writer->Write(std::string(size_t{2} * 1024, '\0'));  // 2KB more
  EXPECT_FALSE(result.ok());
  EXPECT_THAT(result.message(), HasSubstr("exceeded the allowable limit"));

  // Still the last successful update, not inflated.
  EXPECT_EQ(dm->used_disk_space(), usage_after_second_write);

  writer.reset();
  file.reset();
  EXPECT_EQ(dm->used_disk_space(), 0u);
}

// Upstream: test_limit_decrease_with_concurrent_queries (disk_manager.rs at 02ee6daeb0cf).
// Four threads spill 10 MB each, hold it 10 ms and drop it, while a fifth lowers the limit
// from 100 MB to 30 MB. Upstream moves used_disk_space by hand; here each thread writes a
// real spill file, so a write that lands after the lowering may be refused by the new limit
// (which upstream's test never checks). Upstream's expected values: the limit is the one
// set last, and nothing stays counted.
TEST_F(DiskManagerTest, UpstreamLimitDecreaseWithConcurrentQueries) {
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<DiskManager> dm,
                       DiskManagerBuilder().WithMaxTempDirectorySize(100 * kMB).Build(fs_));
  std::barrier barrier(5);
  const std::string ten_mb(10 * kMB, 'x');
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      barrier.arrive_and_wait();
      StatusOr<SpillFile> file = dm->CreateTempFile("spill");
      ASSERT_TRUE(file.ok()) << file.status().ToString();
      const Status written = SpillWriter(*file).Write(ten_mb);
      EXPECT_TRUE(written.ok() || IsLimitExceeded(written)) << written.ToString();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    });
  }
  threads.emplace_back([&] {
    barrier.arrive_and_wait();
    EXPECT_OK(dm->SetMaxTempDirectorySize(30 * kMB));
  });
  for (std::thread& thread : threads) thread.join();

  EXPECT_EQ(dm->max_temp_directory_size(), 30 * kMB);
  EXPECT_EQ(dm->used_disk_space(), 0u);
  EXPECT_EQ(dm->spilling_progress().active_files_count, 0u);
}

// The limit error's whole text, with upstream's size formatting of the limit.
TEST_F(DiskManagerTest, LimitErrorIsDataFusionsText) {
  ASSERT_OK_AND_ASSIGN(auto dm, DiskManagerBuilder().WithMaxTempDirectorySize(3 * kMB).Build(fs_));
  ASSERT_OK_AND_ASSIGN(SpillFile file, dm->CreateTempFile("sort"));
  const Status over = SpillWriter(file).Write(std::string(3 * kMB + 1, 'x'));
  EXPECT_TRUE(IsLimitExceeded(over));
  EXPECT_EQ(over.message(),
            "The used disk space during the spilling process has exceeded the allowable limit "
            "of 3.0 MB. Please try increasing the config: "
            "`datafusion.runtime.max_temp_directory_size`.");
}

// ---------------------------------------------------------------------------------------
// Disabled manager

// Upstream: test_disabled_disk_manager (disk_manager.rs at 02ee6daeb0cf). Upstream's
// string starts with "Resources exhausted: ", DataFusionError's name for the error's kind;
// here the kind is the Status code.
TEST_F(DiskManagerTest, UpstreamDisabledDiskManager) {
  ASSERT_OK_AND_ASSIGN(auto manager, DiskManagerBuilder().WithDisabled().Build(fs_));
  EXPECT_FALSE(manager->tmp_files_enabled());
  const StatusOr<SpillFile> file = manager->CreateTempFile("Testing");
  ASSERT_FALSE(file.ok());
  EXPECT_TRUE(IsDisabled(file.status()));
  EXPECT_EQ(file.status().message(), "Memory Exhausted while Testing (DiskManager is disabled)");
}

// Upstream: test_disabled_disk_manager_rejects_nonzero_limit (disk_manager.rs at
// 02ee6daeb0cf), with the message of upstream's config_err.
TEST_F(DiskManagerTest, UpstreamDisabledDiskManagerRejectsNonzeroLimit) {
  ASSERT_OK_AND_ASSIGN(auto dm, DiskManagerBuilder().WithDisabled().Build(fs_));
  const Status result = dm->SetMaxTempDirectorySize(1024);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.message(),
            "Cannot set max temp directory size for a disk manager that spilling is disabled");
  EXPECT_OK(dm->SetMaxTempDirectorySize(0));
}

// ---------------------------------------------------------------------------------------
// Merge fan-in

// Upstream: test_max_spill_merge_fan_in_builder_and_dynamic_update (disk_manager.rs at
// 02ee6daeb0cf).
TEST_F(DiskManagerTest, UpstreamMaxSpillMergeFanInBuilderAndDynamicUpdate) {
  ASSERT_OK_AND_ASSIGN(auto dm, DiskManagerBuilder().WithMaxSpillMergeFanIn(8).Build(fs_));
  EXPECT_EQ(dm->max_spill_merge_fan_in(), 8u);
  dm->SetMaxSpillMergeFanIn(4);
  EXPECT_EQ(dm->max_spill_merge_fan_in(), 4u);
  dm->SetMaxSpillMergeFanIn(0);
  EXPECT_EQ(dm->max_spill_merge_fan_in(), 0u);
}

// DEFAULT_MAX_SPILL_MERGE_FAN_IN is 0 (no cap), in every mode.
TEST_F(DiskManagerTest, MaxSpillMergeFanInDefaultsToNoCap) {
  ASSERT_OK_AND_ASSIGN(auto os_tmp, DiskManagerBuilder().Build(fs_));
  EXPECT_EQ(os_tmp->max_spill_merge_fan_in(), 0u);
  ASSERT_OK_AND_ASSIGN(auto disabled,
                       DiskManagerBuilder().WithDisabled().WithMaxSpillMergeFanIn(3).Build(fs_));
  EXPECT_EQ(disabled->max_spill_merge_fan_in(), 3u);
}

}  // namespace
}  // namespace spillway
