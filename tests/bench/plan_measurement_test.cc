// What `spillway bench` measures (bench/: spillway::bench_lib), called as a library: one
// result per configuration asked for, in order; a lazy plan that never spills makes no
// filesystem call while an eager one does; a lazy plan's first spill makes one mkdir with
// layout=each and one per local dir with layout=all (properties of the code, not timings);
// nothing is left behind; a failure names the measurement it happened in.
#include "spillway/bench/plan_measurement.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "spillway/bench/bench_area.h"
#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/posix_file_system.h"
#include "support/temp_dir.h"

namespace spillway::bench {
namespace {

using ::testing::StartsWith;

// Small enough to run in well under a second: fixed batch sizes, two repetitions.
PlanBenchOptions SmallOptions() {
  PlanBenchOptions options;
  options.dirs = {1, 3};
  options.threads = {1, 2};
  options.plans = 3;
  options.lazy_plans = 50;
  options.repetitions = 2;
  return options;
}

void CheckResults(const PlanBenchResults& results, const PlanBenchOptions& options) {
  ASSERT_EQ(results.configs.size(), 4u);
  size_t i = 0;
  for (int dirs : options.dirs) {
    for (int threads : options.threads) {
      const ConfigResult& c = results.configs[i++];
      EXPECT_EQ(c.dirs, dirs);
      EXPECT_EQ(c.threads, threads);
      for (const ModeResult* r : {&c.eager, &c.lazy}) {
        EXPECT_EQ(r->ns_per_plan.size(), 2u);
        EXPECT_EQ(r->cpu_ns_per_plan.size(), 2u);
        EXPECT_EQ(r->plans_per_s.size(), 2u);
        EXPECT_GT(Median(r->ns_per_plan), 0);
        EXPECT_GT(Median(r->plans_per_s), 0);
      }
      EXPECT_EQ(c.eager.plans_per_thread, 3u);
      EXPECT_EQ(c.lazy.plans_per_thread, 50u);
      // The point of lazy directories: a plan that never spills touches the filesystem
      // zero times. An eager plan makes at least its directories and removes them.
      EXPECT_EQ(c.lazy.fs_calls_per_plan, 0) << dirs << " dirs";
      EXPECT_GE(c.eager.fs_calls_per_plan, 2.0 * dirs) << dirs << " dirs";
    }
  }
  ASSERT_EQ(results.first_spills.size(), 2u);
  for (size_t k = 0; k < 2; ++k) {
    const FirstSpillResult& r = results.first_spills[k];
    const int dirs = options.dirs[k];
    EXPECT_EQ(r.dirs, dirs);
    EXPECT_EQ(r.all_ns.size(), 2u);
    EXPECT_EQ(r.each_ns.size(), 2u);
    EXPECT_EQ(r.each_calls.mkdir, 1);
    EXPECT_EQ(r.each_calls.create, 1);
    EXPECT_EQ(r.all_calls.mkdir, dirs);
    EXPECT_EQ(r.all_calls.create, 1);
    EXPECT_GT(r.all_calls.total, r.all_calls.mkdir);
  }
}

TEST(PlanMeasurementTest, InMemoryEveryConfigurationIsMeasuredAndLazyPlansMakeNoCall) {
  const std::shared_ptr<FileSystem> fs = NewMemFileSystem();
  StatusOr<std::unique_ptr<BenchArea>> area = BenchArea::Make(fs, false, fs->TempDir(), 3);
  ASSERT_TRUE(area.ok()) << area.status().ToString();
  const PlanBenchOptions options = SmallOptions();
  const StatusOr<PlanBenchResults> results = MeasurePlans(**area, options);
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  CheckResults(*results, options);
}

TEST(PlanMeasurementTest, OnDiskTheSameAndThePrivateDirectoryGoes) {
  const test_support::TempDir dir;
  ASSERT_FALSE(dir.path().empty()) << dir.error();
  {
    StatusOr<std::unique_ptr<BenchArea>> area =
        BenchArea::Make(NewPosixFileSystem(), true, dir.path(), 3);
    ASSERT_TRUE(area.ok()) << area.status().ToString();
    EXPECT_THAT((*area)->base(), StartsWith(dir.path() + "/spillway-bench-"));
    const PlanBenchOptions options = SmallOptions();
    const StatusOr<PlanBenchResults> results = MeasurePlans(**area, options);
    ASSERT_TRUE(results.ok()) << results.status().ToString();
    CheckResults(*results, options);
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(PlanMeasurementTest, AFailureNamesTheMeasurementItHappenedIn) {
  const std::shared_ptr<FileSystem> fs = NewMemFileSystem();
  StatusOr<std::unique_ptr<BenchArea>> area = BenchArea::Make(fs, false, fs->TempDir(), 2);
  ASSERT_TRUE(area.ok()) << area.status().ToString();
  // The first local dir becomes a file: an eager plan cannot make its spill directory.
  const std::string local0 = (*area)->LocalDirs(1)[0];
  ASSERT_TRUE(fs->RemoveTree(local0).ok());
  ASSERT_TRUE(fs->CreateFile(local0).ok());
  PlanBenchOptions options = SmallOptions();
  options.dirs = {1};
  options.threads = {2};
  const StatusOr<PlanBenchResults> results = MeasurePlans(**area, options);
  ASSERT_FALSE(results.ok());
  EXPECT_THAT(results.status().message(), StartsWith("1 dirs, 2 threads: "));
}

TEST(PlanMeasurementTest, AnAreaCannotBeMadeWhereThereIsNoDirectory) {
  const std::shared_ptr<FileSystem> fs = NewMemFileSystem();
  EXPECT_FALSE(BenchArea::Make(fs, false, "/no/such/dir", 1).ok());
}

TEST(PlanMeasurementTest, TheMedianIsTheMiddleSampleOrTheMeanOfTheTwo) {
  EXPECT_EQ(Median({5, 1, 3}), 3);
  EXPECT_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(Median({7}), 7);
}

}  // namespace
}  // namespace spillway::bench
