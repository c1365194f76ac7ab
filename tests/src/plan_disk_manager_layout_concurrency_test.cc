// layout=each and failover under threads: concurrent first spills of one plan make at
// most one spill directory per local dir, failing local dirs are passed over by every
// thread, and everything made is removed once the plan and its files are gone. Run under
// ThreadSanitizer by the tsan build (label: concurrency).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <latch>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "spillway/spill/plan_disk_manager.h"
#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/glob.h"
#include "spillway/vfs/mem_file_system.h"
#include "support/spill_test_support.h"

namespace spillway {
namespace {

constexpr int kThreads = 8;
constexpr int kFilesPerThread = 6;
constexpr size_t kFiles = size_t{kThreads} * kFilesPerThread;

class PlanDiskManagerLayoutConcurrencyTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    for (const std::string& dir : local_dirs_) ASSERT_OK(mem_->CreateDir(dir));
  }

  PlanDiskManagerOptions Options(uint64_t seed) const {
    PlanDiskManagerOptions options;
    options.spill.local_dirs = local_dirs_;
    options.spill.layout = SpillDirLayout::kEach;
    options.spill.failover = GetParam();
    options.spill.seed = seed;
    return options;
  }

  // Every thread spills kFilesPerThread files into `plan` at once; returns the files that
  // were created.
  std::vector<SpillFile> SpillFromEveryThread(PlanDiskManager& plan) {
    std::mutex mu;
    std::vector<SpillFile> files;
    std::latch start(kThreads);
    std::vector<std::thread> threads;
    threads.reserve(kThreads);
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        start.arrive_and_wait();
        for (int i = 0; i < kFilesPerThread; ++i) {
          StatusOr<SpillFile> file = plan.CreateTempFile("sort");
          if (!file.ok()) continue;
          std::lock_guard<std::mutex> lock(mu);
          files.push_back(std::move(*file));
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    return files;
  }

  const std::vector<std::string> local_dirs_ = {"/local0", "/local1", "/local2", "/local3"};
  std::shared_ptr<MemFileSystem> mem_ = NewMemFileSystem(31);
  std::shared_ptr<FaultInjectingFileSystem> fs_ = NewFaultInjectingFileSystem(mem_);
};

TEST_P(PlanDiskManagerLayoutConcurrencyTest, ConcurrentFirstSpillsMakeOneDirPerLocalDir) {
  for (uint64_t seed = 0; seed < 4; ++seed) {
    fs_->ResetCounters();
    ASSERT_OK_AND_ASSIGN(auto plan, NewPlanDiskManager(fs_, Options(seed)));
    std::vector<SpillFile> files = SpillFromEveryThread(*plan);
    EXPECT_EQ(files.size(), kFiles);
    for (const std::string& dir : local_dirs_) {
      EXPECT_LE(ExpandGlob(*mem_, dir + "/datafusion-*").size(), 1u) << dir;
    }
    EXPECT_EQ(fs_->calls(OpKind::kMkdir), ExpandGlob(*mem_, "/local*/datafusion-*").size());
    plan.reset();
    files.clear();
    EXPECT_THAT(ExpandGlob(*mem_, "/local*/*"), ::testing::IsEmpty());
  }
}

TEST_P(PlanDiskManagerLayoutConcurrencyTest, FullLocalDirsArePassedOverByEveryThread) {
  ASSERT_OK_AND_ASSIGN(auto plan, NewPlanDiskManager(fs_, Options(7)));
  fs_->AddRule(Fail(OpKind::kCreate, ENOSPC, "/local0/*", std::nullopt));
  fs_->AddRule(Fail(OpKind::kMkdir, EIO, "/local2", std::nullopt));
  std::vector<SpillFile> files = SpillFromEveryThread(*plan);
  if (GetParam()) {
    EXPECT_EQ(files.size(), kFiles);  // None failed.
  } else {
    EXPECT_LT(files.size(), kFiles);  // Some chose a bad dir.
  }
  for (const SpillFile& file : files) {
    EXPECT_THAT(file.path(), ::testing::AnyOf(::testing::StartsWith("/local1/"),
                                              ::testing::StartsWith("/local3/")));
  }
  EXPECT_EQ(plan->spilling_progress().active_files_count, files.size());
  plan.reset();
  files.clear();
  EXPECT_THAT(ExpandGlob(*mem_, "/local*/*"), ::testing::IsEmpty());
}

INSTANTIATE_TEST_SUITE_P(Failover, PlanDiskManagerLayoutConcurrencyTest, ::testing::Bool(),
                         [](const auto& param_info) { return param_info.param ? "On" : "Off"; });

}  // namespace
}  // namespace spillway
