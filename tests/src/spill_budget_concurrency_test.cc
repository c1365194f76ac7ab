// SpillBudget under concurrent writers (run under TSan by the concurrency label): plans on
// many threads share one budget; the budget never goes over its limit, and once every file
// is gone its usage is zero and its metrics are the sums of the plans'.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <latch>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "spillway/spill/plan_disk_manager.h"
#include "spillway/spill/spill_budget.h"
#include "spillway/spill/spill_writer.h"
#include "spillway/vfs/mem_file_system.h"
#include "support/spill_test_support.h"

namespace spillway {
namespace {

constexpr int kThreads = 6;
constexpr int kRounds = 300;
constexpr uint64_t kBudget = 400;

struct Tally {
  uint64_t written = 0;  // Bytes of successful writes.
  uint64_t files = 0;
  bool over_budget_seen = false;
};

// One thread's work: writes of random sizes to a few files of its own plan, dropping and
// replacing files (sometimes through a clone) as it goes.
void Spill(const std::shared_ptr<PlanDiskManager>& plan, const SpillBudget& budget, int seed,
           Tally& tally) {
  std::mt19937 rng(seed);
  std::vector<std::optional<SpillFile>> files(3);
  for (int round = 0; round < kRounds; ++round) {
    std::optional<SpillFile>& slot = files[rng() % files.size()];
    if (!slot.has_value() || rng() % 8 == 0) {
      StatusOr<SpillFile> made = plan->CreateTempFile("sort");
      ASSERT_TRUE(made.ok()) << made.status().ToString();
      std::optional<SpillFile> clone = slot;  // The old file may go after the new one.
      slot = *std::move(made);
      ++tally.files;
    }
    const size_t bytes = 1 + rng() % 40;
    if (SpillWriter(*slot).Write(std::string(bytes, 'x')).ok()) tally.written += bytes;
    if (budget.used() > kBudget) tally.over_budget_seen = true;
  }
}

TEST(SpillBudgetConcurrencyTest, ConcurrentPlansNeverExceedTheBudgetAndAccountExactly) {
  std::shared_ptr<MemFileSystem> mem = NewMemFileSystem(4);
  ASSERT_OK(mem->CreateDir("/local0"));
  std::shared_ptr<SpillBudget> budget = NewSpillBudget(kBudget);
  PlanDiskManagerOptions options;
  options.spill.local_dirs = {"/local0"};
  options.spill.max_temp_directory_size = 150;
  options.spill.budget = budget;
  ASSERT_OK_AND_ASSIGN(PlanDiskManagerFactory factory, NewPlanDiskManagerFactory(mem, options));

  std::vector<std::shared_ptr<PlanDiskManager>> plans;
  plans.reserve(kThreads);
  for (int i = 0; i < kThreads; ++i) plans.push_back(*factory.NewPlan());
  std::vector<Tally> tallies(kThreads);
  {
    std::latch start(kThreads);
    std::vector<std::jthread> threads;
    threads.reserve(kThreads);
    for (int i = 0; i < kThreads; ++i) {
      threads.emplace_back([&, i] {
        start.arrive_and_wait();
        Spill(plans[i], *budget, i + 1, tallies[i]);
      });
    }
  }

  uint64_t written = 0;
  uint64_t files = 0;
  SpillMetrics sum;
  for (int i = 0; i < kThreads; ++i) {
    EXPECT_FALSE(tallies[i].over_budget_seen);
    written += tallies[i].written;
    files += tallies[i].files;
    const SpillMetrics m = plans[i]->metrics();
    EXPECT_EQ(m.spilled, tallies[i].written);
    EXPECT_LE(m.peak, options.spill.max_temp_directory_size);
    sum.spills += m.spills;
    sum.spilled += m.spilled;
  }
  EXPECT_GT(written, kBudget);  // The budget was exercised, not idle.
  EXPECT_EQ(budget->metrics().spilled, written);
  EXPECT_EQ(budget->metrics().spills, files);
  EXPECT_EQ(sum.spills, files);
  EXPECT_LE(budget->metrics().peak, kBudget);
  // Every file was dropped with its thread's vector: nothing is counted any more.
  EXPECT_EQ(budget->used(), 0u);
  for (const std::shared_ptr<PlanDiskManager>& plan : plans) EXPECT_EQ(plan->used_disk_space(), 0u);
}

}  // namespace
}  // namespace spillway
