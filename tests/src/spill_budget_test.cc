// SpillBudget: an executor-wide cap over the plans that name it, exact under refused,
// failed and short writes, clones and drops in any order, a lowered limit; and the spill
// metrics of plans and budgets.
#include "spillway/spill/spill_budget.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "spillway/spill/disk_manager.h"
#include "spillway/spill/plan_disk_manager.h"
#include "spillway/spill/spill_writer.h"
#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/mem_file_system.h"
#include "support/spill_test_support.h"

namespace spillway {
namespace {

using ::testing::HasSubstr;

class SpillBudgetTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_OK(mem_->CreateDir("/local0")); }

  std::shared_ptr<PlanDiskManager> Plan(uint64_t limit, std::shared_ptr<SpillBudget> budget,
                                        Quirks quirks = {}) {
    PlanDiskManagerOptions options;
    options.spill.quirks = quirks;
    options.spill.local_dirs = {"/local0"};
    options.spill.max_temp_directory_size = limit;
    options.spill.limit_config_key = "spark.comet.maxTempDirectorySize";
    options.spill.seed = 3;
    options.spill.budget = std::move(budget);
    StatusOr<std::shared_ptr<PlanDiskManager>> plan = NewPlanDiskManager(fs_, options);
    EXPECT_TRUE(plan.ok()) << plan.status().ToString();
    return plan.ok() ? *plan : nullptr;
  }

  static Status Write(const SpillFile& file, size_t bytes) {
    return SpillWriter(file).Write(std::string(bytes, 'x'));
  }

  std::shared_ptr<MemFileSystem> mem_ = NewMemFileSystem(11);
  std::shared_ptr<FaultInjectingFileSystem> fs_ = NewFaultInjectingFileSystem(mem_);
};

TEST_F(SpillBudgetTest, AWriteMustFitBothThePlanAndTheBudget) {
  std::shared_ptr<SpillBudget> budget = NewSpillBudget(12);
  std::shared_ptr<PlanDiskManager> a = Plan(10, budget);
  std::shared_ptr<PlanDiskManager> b = Plan(10, budget);
  ASSERT_OK_AND_ASSIGN(SpillFile fa, a->CreateTempFile("sort"));
  ASSERT_OK_AND_ASSIGN(SpillFile fb, b->CreateTempFile("sort"));
  EXPECT_OK(Write(fa, 8));

  // Fits b's limit (10) but not the budget (8 + 8 > 12): refused, counted nowhere.
  Status refused = Write(fb, 8);
  EXPECT_TRUE(IsLimitExceeded(refused)) << refused.ToString();
  EXPECT_THAT(refused.message(), HasSubstr("spillway.executor.maxSpillSize"));
  EXPECT_THAT(refused.message(), HasSubstr("12.0 B"));
  EXPECT_EQ(b->used_disk_space(), 0u);
  EXPECT_EQ(budget->used(), 8u);

  // Fits the budget (8 + 3 <= 12) but not a's own limit (8 + 3 > 10): the plan's error.
  Status plan_refused = Write(fa, 3);
  EXPECT_TRUE(IsLimitExceeded(plan_refused));
  EXPECT_THAT(plan_refused.message(), HasSubstr("spark.comet.maxTempDirectorySize"));
  EXPECT_EQ(a->used_disk_space(), 8u);
  EXPECT_EQ(budget->used(), 8u);

  EXPECT_OK(Write(fb, 4));  // 8 + 4 == 12: the limit itself is allowed.
  EXPECT_EQ(budget->used(), 12u);
}

TEST_F(SpillBudgetTest, TheBudgetKeyIsConfigurable) {
  std::shared_ptr<SpillBudget> budget = NewSpillBudget(1, "my.executor.spill");
  EXPECT_EQ(budget->limit_config_key(), "my.executor.spill");
  std::shared_ptr<PlanDiskManager> plan = Plan(100, budget);
  ASSERT_OK_AND_ASSIGN(SpillFile file, plan->CreateTempFile("sort"));
  Status refused = Write(file, 2);
  EXPECT_TRUE(IsLimitExceeded(refused));
  EXPECT_THAT(refused.message(), HasSubstr("`my.executor.spill`"));
}

TEST_F(SpillBudgetTest, FailedAndShortWritesCountOnlyWhatReachedTheFile) {
  std::shared_ptr<SpillBudget> budget = NewSpillBudget(100);
  std::shared_ptr<PlanDiskManager> plan = Plan(100, budget);
  ASSERT_OK_AND_ASSIGN(SpillFile file, plan->CreateTempFile("sort"));
  fs_->AddRule(Fail(OpKind::kWrite, ENOSPC));
  EXPECT_TRUE(Write(file, 10).IsErrno(ENOSPC));
  EXPECT_EQ(budget->used(), 0u);
  fs_->AddShortWrite("", 4);
  EXPECT_TRUE(Write(file, 10).IsErrno(EIO));
  EXPECT_EQ(budget->used(), 4u);
  EXPECT_EQ(plan->used_disk_space(), 4u);
  EXPECT_EQ(budget->metrics().spilled, 4u);
  EXPECT_EQ(plan->metrics().spilled, 4u);
}

TEST_F(SpillBudgetTest, ClonesAndDropsInAnyOrderGiveEveryByteBack) {
  std::shared_ptr<SpillBudget> budget = NewSpillBudget(100);
  std::shared_ptr<PlanDiskManager> a = Plan(100, budget);
  std::shared_ptr<PlanDiskManager> b = Plan(100, budget);
  ASSERT_OK_AND_ASSIGN(SpillFile fa, a->CreateTempFile("sort"));
  ASSERT_OK_AND_ASSIGN(SpillFile fb, b->CreateTempFile("join"));
  EXPECT_OK(Write(fa, 5));
  EXPECT_OK(Write(fb, 7));
  std::optional<SpillFile> clone = fa;
  EXPECT_EQ(budget->used(), 12u);

  a.reset();  // The plan goes first; its file still counts.
  EXPECT_EQ(budget->used(), 12u);
  fa = fb;  // fa's original lives on in the clone only.
  EXPECT_EQ(budget->used(), 12u);
  clone.reset();
  EXPECT_EQ(budget->used(), 7u);
  b.reset();
  EXPECT_EQ(budget->used(), 7u);
  fa = *Plan(100, budget)->CreateTempFile("sort");
  fb = fa;  // The last copies of b's file go.
  EXPECT_EQ(budget->used(), 0u);
}

TEST_F(SpillBudgetTest, TheBudgetOutlivesItsCreatorWhilePlansHoldIt) {
  std::shared_ptr<PlanDiskManager> plan = Plan(100, NewSpillBudget(6));
  ASSERT_OK_AND_ASSIGN(SpillFile file, plan->CreateTempFile("sort"));
  EXPECT_OK(Write(file, 6));
  EXPECT_TRUE(IsLimitExceeded(Write(file, 1)));
}

TEST_F(SpillBudgetTest, ALoweredBudgetRefusesLaterWritesAndKeepsWrittenBytes) {
  std::shared_ptr<SpillBudget> budget = NewSpillBudget(100);
  std::shared_ptr<PlanDiskManager> plan = Plan(100, budget);
  ASSERT_OK_AND_ASSIGN(SpillFile file, plan->CreateTempFile("sort"));
  EXPECT_OK(Write(file, 20));
  budget->SetLimit(10);
  EXPECT_EQ(budget->limit(), 10u);
  EXPECT_TRUE(IsLimitExceeded(Write(file, 1)));
  EXPECT_EQ(budget->used(), 20u);
  EXPECT_EQ(plan->used_disk_space(), 20u);
  {
    ASSERT_OK_AND_ASSIGN(SpillFile other, plan->CreateTempFile("sort"));
    EXPECT_TRUE(IsLimitExceeded(Write(other, 1)));
  }
  file = *plan->CreateTempFile("sort");  // Drops the 20 bytes.
  EXPECT_EQ(budget->used(), 0u);
  EXPECT_OK(Write(file, 10));
}

TEST_F(SpillBudgetTest, APlanThatNeverSpillsLeavesTheBudgetUntouched) {
  std::shared_ptr<SpillBudget> budget = NewSpillBudget(100);
  std::shared_ptr<PlanDiskManager> plan = Plan(100, budget);
  EXPECT_EQ(budget->metrics(), SpillMetrics{});
  EXPECT_EQ(plan->metrics(), SpillMetrics{});
  EXPECT_EQ(fs_->total_calls(), 0u);
}

TEST_F(SpillBudgetTest, MetricsCountFilesBytesAndPeakPerPlanAndPerBudget) {
  std::shared_ptr<SpillBudget> budget = NewSpillBudget(100);
  std::shared_ptr<PlanDiskManager> a = Plan(100, budget);
  std::shared_ptr<PlanDiskManager> b = Plan(100, budget);
  {
    ASSERT_OK_AND_ASSIGN(SpillFile f1, a->CreateTempFile("sort"));
    ASSERT_OK_AND_ASSIGN(SpillFile f2, a->CreateTempFile("sort"));
    EXPECT_OK(Write(f1, 6));
    EXPECT_OK(Write(f2, 4));
  }
  ASSERT_OK_AND_ASSIGN(SpillFile f3, b->CreateTempFile("sort"));
  EXPECT_OK(Write(f3, 3));
  EXPECT_TRUE(IsLimitExceeded(Write(f3, 1000)));  // Refused: not spilled.

  EXPECT_EQ(a->metrics(), (SpillMetrics{.spills = 2, .spilled = 10, .peak = 10}));
  EXPECT_EQ(a->used_disk_space(), 0u);  // Usage went down; spilled and peak did not.
  EXPECT_EQ(b->metrics(), (SpillMetrics{.spills = 1, .spilled = 3, .peak = 3}));
  EXPECT_EQ(budget->metrics(), (SpillMetrics{.spills = 3, .spilled = 13, .peak = 10}));
}

TEST_F(SpillBudgetTest, AFailedCreateIsNotASpill) {
  std::shared_ptr<PlanDiskManager> plan = Plan(100, nullptr);
  ASSERT_OK_AND_ASSIGN(SpillFile first, plan->CreateTempFile("sort"));
  fs_->AddRule(Fail(OpKind::kCreate, EACCES));
  EXPECT_FALSE(plan->CreateTempFile("sort").ok());
  EXPECT_EQ(plan->metrics().spills, 1u);
}

TEST(DiskManagerBudgetTest, ADiskManagerTakesABudgetToo) {
  std::shared_ptr<MemFileSystem> mem = NewMemFileSystem(2);
  std::shared_ptr<SpillBudget> budget = NewSpillBudget(5);
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<DiskManager> manager,
                       DiskManagerBuilder().WithBudget(budget).Build(mem));
  ASSERT_OK_AND_ASSIGN(SpillFile file, manager->CreateTempFile("sort"));
  EXPECT_OK(SpillWriter(file).Write("12345"));
  EXPECT_TRUE(IsLimitExceeded(SpillWriter(file).Write("6")));
  EXPECT_EQ(manager->metrics(), (SpillMetrics{.spills = 1, .spilled = 5, .peak = 5}));
  EXPECT_EQ(budget->used(), 5u);
}

// The quirks that break the budget and the metrics (quirks.h), against the correct
// behaviour above.
TEST_F(SpillBudgetTest, TheBudgetAfterAddQuirkKeepsARefusedWritesBytesCharged) {
  std::shared_ptr<SpillBudget> budget = NewSpillBudget(12);
  std::shared_ptr<PlanDiskManager> p = Plan(100, budget, Quirk::kBudgetAfterAdd);
  ASSERT_OK_AND_ASSIGN(SpillFile f, p->CreateTempFile("sort"));
  EXPECT_OK(Write(f, 8));
  EXPECT_TRUE(IsLimitExceeded(Write(f, 8)));
  EXPECT_EQ(p->used_disk_space(), 8u);  // The plan gave its bytes back ...
  EXPECT_EQ(budget->used(), 16u);       // ... the budget did not, and is over its limit.
}

TEST_F(SpillBudgetTest, TheSpilledCountsRefusedQuirkCountsBytesThatNeverReachedAFile) {
  std::shared_ptr<PlanDiskManager> p = Plan(10, nullptr, Quirk::kSpilledCountsRefused);
  ASSERT_OK_AND_ASSIGN(SpillFile f, p->CreateTempFile("sort"));
  EXPECT_OK(Write(f, 8));
  EXPECT_TRUE(IsLimitExceeded(Write(f, 8)));
  EXPECT_EQ(f.size(), 8u);
  EXPECT_EQ(p->metrics().spilled, 16u);
}

}  // namespace
}  // namespace spillway
