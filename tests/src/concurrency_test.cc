// Threads x plans x spills: many plans at once, many threads spilling, writing, cloning and
// dropping into one plan, and limits changed while that happens. Every test ends by
// checking that the accounting is back to zero and that nothing is left on the
// filesystem. Run under ThreadSanitizer by the tsan build (label: concurrency).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <functional>
#include <latch>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "spillway/spill/disk_manager.h"
#include "spillway/spill/plan_disk_manager.h"
#include "spillway/spill/spill_writer.h"
#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/glob.h"
#include "spillway/vfs/mem_file_system.h"
#include "support/spill_test_support.h"

namespace spillway {
namespace {

constexpr int kThreads = 8;

class ConcurrencyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const std::string& dir : local_dirs_) ASSERT_OK(mem_->CreateDir(dir));
  }

  PlanDiskManagerOptions PlanOptions(uint64_t limit, uint64_t seed) {
    PlanDiskManagerOptions options;
    options.spill.local_dirs = local_dirs_;
    options.spill.max_temp_directory_size = limit;
    options.spill.seed = seed;
    options.spill.cleanup_log = log_;
    return options;
  }

  // Nothing is left in the local dirs and no cleanup failed.
  void ExpectNothingLeft() {
    EXPECT_THAT(ExpandGlob(*mem_, "/local*/*"), ::testing::IsEmpty());
    EXPECT_THAT(ExpandGlob(*mem_, "/tmp/*"), ::testing::IsEmpty());
    EXPECT_EQ(log_->failure_count(), 0u);
    EXPECT_EQ(mem_->used_bytes(), 0u);
  }

  const std::vector<std::string> local_dirs_ = {"/local0", "/local1", "/local2"};
  std::shared_ptr<MemFileSystem> mem_ = NewMemFileSystem(29);
  std::shared_ptr<FaultInjectingFileSystem> fs_ = NewFaultInjectingFileSystem(mem_, /*seed=*/31);
  std::shared_ptr<CleanupLog> log_ = std::make_shared<CleanupLog>();
};

// Many short plans at once, made by `make(thread, i)` on kThreads threads, half of which
// spill, as an executor running many small tasks; each plan's limit is 64 bytes.
void RunManyPlansAtOnce(
    const std::function<StatusOr<std::shared_ptr<PlanDiskManager>>(int, int)>& make) {
  constexpr int kPlansPerThread = 40;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPlansPerThread; ++i) {
        StatusOr<std::shared_ptr<PlanDiskManager>> plan = make(t, i);
        if (!plan.ok()) {
          ++failures;
          continue;
        }
        if (i % 2 == 1) continue;  // This plan never spills.
        StatusOr<SpillFile> file = (*plan)->CreateTempFile("sort");
        if (!file.ok()) {
          ++failures;
          continue;
        }
        SpillWriter writer(*file);
        if (!writer.Write(std::string(40, 'x')).ok()) ++failures;
        // Each plan has its own limit: 40 + 40 > 64 whatever the other plans do.
        if (!IsLimitExceeded(writer.Write(std::string(40, 'x')))) {
          ++failures;
        }
        if ((*plan)->used_disk_space() != 40) ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_F(ConcurrencyTest, ManyPlansAtOnce) {
  RunManyPlansAtOnce([&](int t, int i) {
    return NewPlanDiskManager(fs_, PlanOptions(64, static_cast<uint64_t>(t) * 1000 + i));
  });
  ExpectNothingLeft();
}

// The same, with every plan made from one factory shared by all threads, as an executor
// does: the plans share the options and nothing else.
TEST_F(ConcurrencyTest, ManyPlansFromOneFactoryAtOnce) {
  StatusOr<PlanDiskManagerFactory> factory =
      NewPlanDiskManagerFactory(fs_, PlanOptions(64, /*seed=*/7));
  ASSERT_OK(factory.status());
  RunManyPlansAtOnce([&](int, int) { return factory->NewPlan(); });
  ExpectNothingLeft();
}

// A factory keeps its configuration alive through one reference count per shard of
// threads. Plans made on more threads than there are shards, then used after the factory
// is gone, still have their configuration (the address sanitizer build checks it).
TEST_F(ConcurrencyTest, PlansFromMoreThreadsThanShardsOutliveTheirFactory) {
  constexpr int kPlanThreads = 40;
  std::optional<PlanDiskManagerFactory> factory;
  {
    StatusOr<PlanDiskManagerFactory> made =
        NewPlanDiskManagerFactory(fs_, PlanOptions(64, /*seed=*/11));
    ASSERT_OK(made.status());
    factory.emplace(std::move(*made));
  }
  std::vector<std::shared_ptr<PlanDiskManager>> plans(kPlanThreads);
  std::vector<std::thread> threads;
  threads.reserve(kPlanThreads);
  for (int t = 0; t < kPlanThreads; ++t) {
    threads.emplace_back([&, t] {
      StatusOr<std::shared_ptr<PlanDiskManager>> plan = factory->NewPlan();
      if (plan.ok()) plans[static_cast<size_t>(t)] = std::move(*plan);
    });
  }
  for (std::thread& thread : threads) thread.join();
  factory.reset();
  for (std::shared_ptr<PlanDiskManager>& plan : plans) {
    ASSERT_NE(plan, nullptr);
    EXPECT_EQ(plan->max_temp_directory_size(), 64u);
    StatusOr<SpillFile> file = plan->CreateTempFile("sort");
    ASSERT_OK(file.status());
    EXPECT_OK(SpillWriter(*file).Write(std::string(10, 'x')));
    EXPECT_EQ(plan->used_disk_space(), 10u);
  }
  plans.clear();
  ExpectNothingLeft();
}

// One plan, many threads: each spills files, writes to them, clones them into a shared
// pool, and drops references that any thread made, while another thread moves the limit.
TEST_F(ConcurrencyTest, ManyThreadsSpillWriteCloneAndDropIntoOnePlan) {
  constexpr uint64_t kHighLimit = 4000;
  constexpr uint64_t kLowLimit = 1000;
  constexpr int kStepsPerThread = 150;
  std::shared_ptr<PlanDiskManager> plan;
  {
    StatusOr<std::shared_ptr<PlanDiskManager>> made =
        NewPlanDiskManager(fs_, PlanOptions(kHighLimit, 1));
    ASSERT_TRUE(made.ok()) << made.status().ToString();
    plan = *made;
  }

  std::mutex pool_mu;
  std::vector<SpillFile> pool;  // Guarded by pool_mu.
  std::atomic<bool> over_limit{false};
  std::atomic<int> unexpected{0};
  std::atomic<bool> done{false};

  std::thread limit_setter([&] {
    bool low = false;
    while (!done.load()) {
      if (!plan->SetMaxTempDirectorySize(low ? kLowLimit : kHighLimit).ok()) ++unexpected;
      low = !low;
      std::this_thread::yield();
    }
  });

  std::latch start(kThreads);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      start.arrive_and_wait();
      for (int step = 0; step < kStepsPerThread; ++step) {
        switch (rng() % 4) {
          case 0: {  // Spill a new file and put it in the pool.
            StatusOr<SpillFile> file = plan->CreateTempFile("thread " + std::to_string(t));
            if (!file.ok()) {
              ++unexpected;
              break;
            }
            std::lock_guard<std::mutex> lock(pool_mu);
            pool.push_back(*file);
            break;
          }
          case 1: {  // Write to some file, outside the pool's lock.
            std::optional<SpillFile> file;
            {
              std::lock_guard<std::mutex> lock(pool_mu);
              if (!pool.empty()) file = pool[rng() % pool.size()];
            }
            if (!file.has_value()) break;
            Status written = SpillWriter(*file).Write(std::string(1 + rng() % 200, 'x'));
            if (!written.ok() && !IsLimitExceeded(written)) ++unexpected;
            break;
          }
          case 2: {  // Clone a file into the pool.
            std::lock_guard<std::mutex> lock(pool_mu);
            if (!pool.empty()) pool.push_back(pool[rng() % pool.size()]);
            break;
          }
          case 3: {  // Drop a reference, outside the pool's lock (it may be the last).
            std::optional<SpillFile> dropped;
            {
              std::lock_guard<std::mutex> lock(pool_mu);
              if (pool.empty()) break;
              const size_t i = rng() % pool.size();
              dropped = std::move(pool[i]);
              pool[i] = std::move(pool.back());
              pool.pop_back();
            }
            dropped.reset();
            break;
          }
        }
        if (plan->used_disk_space() > kHighLimit) over_limit = true;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  done = true;
  limit_setter.join();
  EXPECT_EQ(unexpected.load(), 0);
  EXPECT_FALSE(over_limit.load()) << "used went over the highest limit ever set";

  // Quiet now: the counter is exactly the sum of the live files' sizes, each of which is
  // exactly what its file holds.
  std::map<std::string, uint64_t> sizes;
  for (const SpillFile& file : pool) sizes[file.path()] = file.size();
  uint64_t total = 0;
  for (const auto& [path, size] : sizes) {
    total += size;
    StatusOr<std::string> contents = mem_->ReadFile(path);
    ASSERT_TRUE(contents.ok()) << contents.status().ToString();
    EXPECT_EQ(contents->size(), size) << path;
  }
  EXPECT_EQ(plan->used_disk_space(), total);
  EXPECT_EQ(plan->spilling_progress().active_files_count, sizes.size());

  pool.clear();
  EXPECT_EQ(plan->spilling_progress(), SpillingProgress{});
  plan.reset();
  ExpectNothingLeft();
}

// Concurrent first spills of one plan build one inner manager and one set of directories.
TEST_F(ConcurrencyTest, ConcurrentFirstSpillsBuildOneInnerManager) {
  for (int round = 0; round < 20; ++round) {
    StatusOr<std::shared_ptr<PlanDiskManager>> plan =
        NewPlanDiskManager(fs_, PlanOptions(kDefaultMaxTempDirectorySize, round));
    ASSERT_TRUE(plan.ok());
    std::vector<std::optional<SpillFile>> files(kThreads);
    std::latch start(kThreads);
    std::vector<std::thread> threads;
    threads.reserve(kThreads);
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        start.arrive_and_wait();
        StatusOr<SpillFile> file = (*plan)->CreateTempFile("sort");
        if (file.ok()) files[t] = *file;
      });
    }
    for (std::thread& thread : threads) thread.join();

    const std::vector<std::string> dirs = (*plan)->inner()->spill_dirs();
    EXPECT_EQ(dirs.size(), local_dirs_.size());
    EXPECT_EQ(ExpandGlob(*mem_, "/local*/datafusion-*").size(), local_dirs_.size());
    for (const std::optional<SpillFile>& file : files) {
      ASSERT_TRUE(file.has_value());
      EXPECT_THAT(dirs, ::testing::Contains(ParentPath(file->path())));
    }
    EXPECT_EQ((*plan)->spilling_progress().active_files_count, uint64_t{kThreads});
    files.clear();
  }
  ExpectNothingLeft();
}

// A limit set while the first spill builds the inner manager is never lost.
TEST_F(ConcurrencyTest, LimitSetDuringTheFirstSpillReachesTheInnerManager) {
  for (int round = 0; round < 50; ++round) {
    StatusOr<std::shared_ptr<PlanDiskManager>> plan =
        NewPlanDiskManager(fs_, PlanOptions(1000, round));
    ASSERT_TRUE(plan.ok());
    std::latch start(3);
    std::thread spill([&] {
      start.arrive_and_wait();
      StatusOr<SpillFile> file = (*plan)->CreateTempFile("sort");
      EXPECT_TRUE(file.ok());
    });
    std::thread set1([&] {
      start.arrive_and_wait();
      EXPECT_TRUE((*plan)->SetMaxTempDirectorySize(2000 + round).ok());
    });
    std::thread set2([&] {
      start.arrive_and_wait();
      EXPECT_TRUE((*plan)->SetMaxTempDirectorySize(3000 + round).ok());
    });
    spill.join();
    set1.join();
    set2.join();
    const uint64_t limit = (*plan)->inner()->max_temp_directory_size();
    EXPECT_TRUE(limit == 2000u + round || limit == 3000u + round) << limit;
    EXPECT_EQ((*plan)->max_temp_directory_size(), limit);
  }
  ExpectNothingLeft();
}

// Upstream: test_dynamic_limit_concurrent_access (disk_manager.rs at 02ee6daeb0cf).
TEST_F(ConcurrencyTest, DynamicLimitConcurrentAccess) {
  StatusOr<std::shared_ptr<DiskManager>> dm =
      DiskManagerBuilder().WithMaxTempDirectorySize(1000).Build(fs_);
  ASSERT_TRUE(dm.ok());
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const uint64_t mine = static_cast<uint64_t>(t + 1) * 1000;
      EXPECT_TRUE((*dm)->SetMaxTempDirectorySize(mine).ok());
      const uint64_t seen = (*dm)->max_temp_directory_size();
      EXPECT_TRUE(seen >= 1000 && seen <= uint64_t{kThreads} * 1000 && seen % 1000 == 0) << seen;
    });
  }
  for (std::thread& thread : threads) thread.join();
  const uint64_t final_limit = (*dm)->max_temp_directory_size();
  EXPECT_TRUE(final_limit >= 1000 && final_limit <= uint64_t{kThreads} * 1000 &&
              final_limit % 1000 == 0);
}

// Writers on copies of one file, from several threads: no byte is lost or counted twice.
TEST_F(ConcurrencyTest, WritersOnCopiesOfOneFile) {
  std::shared_ptr<DiskManager> dm;
  {
    StatusOr<std::shared_ptr<DiskManager>> built =
        DiskManagerBuilder().WithDirectories(local_dirs_).WithSeed(1).Build(fs_);
    ASSERT_TRUE(built.ok());
    dm = *built;
  }
  std::optional<SpillFile> file;
  {
    StatusOr<SpillFile> made = dm->CreateTempFile("shuffle");
    ASSERT_TRUE(made.ok());
    file = *made;
  }
  constexpr int kWrites = 200;
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([copy = *file]() mutable {
      SpillWriter writer(copy);
      for (int i = 0; i < kWrites; ++i) EXPECT_TRUE(writer.Write("0123456789").ok());
      // UpdateDiskUsage may run between other threads' writes and must find nothing to add.
      EXPECT_TRUE(copy.UpdateDiskUsage().ok());
    });
  }
  for (std::thread& thread : threads) thread.join();
  const uint64_t expected = uint64_t{kThreads} * kWrites * 10;
  EXPECT_EQ(file->size(), expected);
  EXPECT_EQ(dm->used_disk_space(), expected);
  StatusOr<std::string> contents = mem_->ReadFile(file->path());
  ASSERT_TRUE(contents.ok());
  EXPECT_EQ(contents->size(), expected);
  file.reset();
  EXPECT_EQ(dm->spilling_progress(), SpillingProgress{});
  dm.reset();
  ExpectNothingLeft();
}

// The OS temp directory is created once however many threads ask for the first file.
TEST_F(ConcurrencyTest, LazyOsTmpDirectoryIsCreatedOnce) {
  std::shared_ptr<DiskManager> dm;
  {
    StatusOr<std::shared_ptr<DiskManager>> built = DiskManagerBuilder().WithSeed(1).Build(fs_);
    ASSERT_TRUE(built.ok());
    dm = *built;
  }
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      start.arrive_and_wait();
      EXPECT_TRUE(dm->CreateTempFile("sort").ok());
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(dm->spill_dirs().size(), 1u);
  EXPECT_EQ(ExpandGlob(*mem_, "/tmp/" + std::string(kOsTmpDirPrefix) + "*").size(), 1u);
  dm.reset();
  ExpectNothingLeft();
}

// Random faults on creates and writes while many threads spill into many plans: every
// failure is clean, so the accounting still ends at zero and nothing is left.
TEST_F(ConcurrencyTest, RandomFaultsUnderConcurrencyLeaveNothingBehind) {
  fs_->SetRandomFaults(OpKind::kWrite, EIO, 5);
  fs_->AddRule(Fail(OpKind::kCreate, ENOSPC, "/local1/datafusion-*", 10, 3));
  std::atomic<int> unexpected{0};
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      StatusOr<std::shared_ptr<PlanDiskManager>> plan =
          NewPlanDiskManager(fs_, PlanOptions(10000, t));
      if (!plan.ok()) {
        ++unexpected;
        return;
      }
      std::vector<SpillFile> files;
      for (int i = 0; i < 30; ++i) {
        StatusOr<SpillFile> file = (*plan)->CreateTempFile("sort");
        if (!file.ok()) {
          if (!file.status().IsErrno(ENOSPC)) ++unexpected;
          continue;
        }
        Status written = SpillWriter(*file).Write(std::string(50, 'x'));
        if (!written.ok() && !written.IsErrno(EIO)) ++unexpected;
        // Whatever happened, the file's size is what its file holds.
        StatusOr<std::string> contents = mem_->ReadFile(file->path());
        if (!contents.ok() || contents->size() != file->size()) ++unexpected;
        files.push_back(*file);
      }
      uint64_t total = 0;
      for (const SpillFile& file : files) total += file.size();
      if ((*plan)->used_disk_space() != total) ++unexpected;
      files.clear();
      if ((*plan)->spilling_progress() != SpillingProgress{}) ++unexpected;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(unexpected.load(), 0);
  EXPECT_FALSE(fs_->injected().empty()) << "the faults never fired; the test shows nothing";
  fs_->ClearFaults();
  ExpectNothingLeft();
}

// The limit check and the add race each other: with a fixed limit far below the bytes the
// threads offer, one byte at a time, exactly `limit` bytes are accepted and the usage
// never reads above the limit, not even for a moment.
TEST_F(ConcurrencyTest, OneByteWritesFromManyThreadsNeverExceedAFixedLimit) {
  constexpr uint64_t kLimit = 8;
  constexpr int kWritesPerThread = 16;
  ASSERT_OK_AND_ASSIGN(auto dm, DiskManagerBuilder()
                                    .WithDirectories(local_dirs_)
                                    .WithMaxTempDirectorySize(kLimit)
                                    .WithSeed(3)
                                    .Build(fs_));
  std::atomic<uint64_t> accepted{0};
  std::atomic<uint64_t> highest{0};
  std::atomic<int> wrong_errors{0};
  std::atomic<bool> done{false};
  std::thread watcher([&] {
    while (!done.load()) {
      const uint64_t used = dm->used_disk_space();
      if (used > highest.load()) highest.store(used);
    }
  });
  std::latch start(kThreads);
  std::latch finish(kThreads);  // No file is dropped (freeing its bytes) before all wrote.
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      StatusOr<SpillFile> file = dm->CreateTempFile("sort");
      if (!file.ok()) {
        ++wrong_errors;
        start.count_down();
        finish.count_down();
        return;
      }
      SpillWriter writer(*file);
      start.arrive_and_wait();
      for (int i = 0; i < kWritesPerThread; ++i) {
        Status written = writer.Write("x");
        if (written.ok()) {
          ++accepted;
        } else if (!IsLimitExceeded(written)) {
          ++wrong_errors;
        }
      }
      if (dm->used_disk_space() > kLimit) ++wrong_errors;
      finish.arrive_and_wait();
    });
  }
  for (std::thread& thread : threads) thread.join();
  done.store(true);
  watcher.join();
  EXPECT_EQ(wrong_errors.load(), 0);
  EXPECT_EQ(accepted.load(), kLimit);
  EXPECT_LE(highest.load(), kLimit);
  EXPECT_EQ(dm->used_disk_space(), 0u);  // Every file was dropped by its thread.
}
}  // namespace
}  // namespace spillway
