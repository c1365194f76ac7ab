// The sweep over the features beyond upstream: an executor-wide budget, failover, crash
// and reap, and the spill metrics. Each quirk of those features is caught by the check
// named for it, and correct code passes the same workloads.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <set>
#include <string>
#include <variant>

#include "spillway/scenario/scenario.h"
#include "spillway/spill/quirks.h"
#include "spillway/workload_sweep/sweep.h"
#include "support/sweep_test_support.h"

namespace spillway::workload_sweep {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Options for one test: its own empty output directory, every default errno, both modes.
SweepOptions OptionsFor(std::string workload, Quirks quirks = {}) {
  SweepOptions options;
  options.workload = std::move(workload);
  options.out_dir = TestOutDir("sweep_beyond_");
  options.quirks = quirks;
  return options;
}

SweepResult MustSweep(const SweepOptions& options) {
  StatusOr<SweepResult> result = RunSweep(options);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return result.ok() ? *std::move(result) : SweepResult{};
}

// A budget over two plans: a write that fits its plan but not the budget is refused.
constexpr char kBudgetWorkload[] = R"(dir /l
budget x 10
plan p /l budget=x
plan q /l budget=x
spill f p
write f 6
spill g q
write g 6
drop x
drop g
drop q
drop f
drop p
)";

// A process crashes with a spill file; the next one spills and reaps.
constexpr char kCrashWorkload[] = R"(dir /l
plan c /l
spill c1 c
write c1 5
crash
plan n /l
spill n1 n
reap /l
write n1 5
drop n1
drop n
)";

// A failover plan over two local dirs, one spill directory each as files land.
constexpr char kFailoverWorkload[] = R"(dir /l0
dir /l1
plan p /l0,/l1 layout=each failover=on
spill f p
write f 3
drop f
drop p
)";

TEST(SweepBeyondUpstreamTest, TheReferenceWorkloadUsesEveryFeature) {
  auto parsed = scenario::Parse(ReferenceWorkload(), "reference");
  ASSERT_TRUE(std::holds_alternative<scenario::Scenario>(parsed));
  std::set<std::string> seen;
  for (const scenario::Command& command : std::get<scenario::Scenario>(parsed).commands) {
    if (std::holds_alternative<scenario::Budget>(command.verb)) seen.insert("budget");
    if (std::holds_alternative<scenario::Crash>(command.verb)) seen.insert("crash");
    if (std::holds_alternative<scenario::Reap>(command.verb)) seen.insert("reap");
    const auto* plan = std::get_if<scenario::Plan>(&command.verb);
    if (plan == nullptr) continue;
    if (!plan->spec.budget.empty()) seen.insert("budget=");
    if (plan->spec.failover) seen.insert("failover=on");
    if (plan->spec.layout == SpillDirLayout::kEach) seen.insert("layout=each");
  }
  EXPECT_EQ(seen, (std::set<std::string>{"budget", "budget=", "crash", "failover=on", "layout=each",
                                         "reap"}));
}

TEST(SweepBeyondUpstreamTest, CorrectCodePassesEveryWorkloadOnBothFileSystems) {
  for (const char* workload : {kBudgetWorkload, kCrashWorkload, kFailoverWorkload}) {
    for (scenario::FsKind fs : {scenario::FsKind::kMem, scenario::FsKind::kPosix}) {
      SweepOptions options = OptionsFor(workload);
      options.fs = fs;
      const SweepResult result = MustSweep(options);
      EXPECT_GT(result.runs, 10u) << workload;
      EXPECT_THAT(result.violations, IsEmpty()) << workload;
    }
  }
}

TEST(SweepBeyondUpstreamTest, BudgetAfterAddIsCaughtAsTheBudgetsAccounting) {
  const SweepResult result = MustSweep(OptionsFor(kBudgetWorkload, Quirk::kBudgetAfterAdd));
  ASSERT_FALSE(result.violations.empty());
  const SweepViolation& first = result.violations[0];
  EXPECT_EQ(first.check, Check::kAccounting);
  EXPECT_FALSE(first.error_number.has_value());  // The run without a fault shows it.
  EXPECT_EQ(first.act, "write g 6");
  // The refused 6 bytes stay charged to the budget, over its limit.
  EXPECT_THAT(first.message, HasSubstr("budget x is used 12, expected 6"));
  EXPECT_THAT(ReadFile(first.scenario_path), HasSubstr("expect used x 6"));
  EXPECT_EQ(first.replay_exit, 1) << first.replay_message;
}

TEST(SweepBeyondUpstreamTest, ReapIgnoresLocksIsCaughtAsAReapOfALiveFile) {
  const SweepResult result = MustSweep(OptionsFor(kCrashWorkload, Quirk::kReapIgnoresLocks));
  ASSERT_FALSE(result.violations.empty());
  const SweepViolation& first = result.violations[0];
  EXPECT_EQ(first.check, Check::kReap);
  EXPECT_FALSE(first.error_number.has_value());
  EXPECT_EQ(first.act, "reap /l");
  EXPECT_THAT(first.message, HasSubstr("a file of live plan n (n1)"));
  // n1 is the only file left in /l: the reap should have left it.
  EXPECT_THAT(ReadFile(first.scenario_path),
              HasSubstr("expect count /l/datafusion-*/.tmp.spill.* 1"));
  EXPECT_EQ(first.replay_exit, 1) << first.replay_message;
}

TEST(SweepBeyondUpstreamTest, SpilledCountsRefusedIsCaughtAsTheMetrics) {
  const SweepResult result = MustSweep(OptionsFor(kLimitWorkload, Quirk::kSpilledCountsRefused));
  ASSERT_FALSE(result.violations.empty());
  const SweepViolation& first = result.violations[0];
  EXPECT_EQ(first.check, Check::kMetrics);
  EXPECT_FALSE(first.error_number.has_value());
  EXPECT_EQ(first.act, "write f 8");
  // The 8 bytes the limit refused never reached the file.
  EXPECT_THAT(first.message, HasSubstr("plan p counts 16 bytes spilled, expected 8"));
  EXPECT_THAT(ReadFile(first.scenario_path), HasSubstr("expect spilled p 8"));
  EXPECT_EQ(first.replay_exit, 1) << first.replay_message;
}

TEST(SweepBeyondUpstreamTest, FailoverLeakIsCaughtAsALeftoverWhenACreateFailsOver) {
  SweepOptions options = OptionsFor(kFailoverWorkload, Quirk::kFailoverLeak);
  options.errnos = {ENOSPC};
  options.modes = {FaultMode::kTransient};
  const SweepResult result = MustSweep(options);
  ASSERT_FALSE(result.violations.empty());
  const SweepViolation& first = result.violations[0];
  EXPECT_EQ(first.check, Check::kLeftover);
  // Only a run whose fault made the create fail over shows it.
  ASSERT_TRUE(first.error_number.has_value());
  EXPECT_EQ(*first.error_number, ENOSPC);
  EXPECT_THAT(first.message, HasSubstr("/datafusion-"));
  EXPECT_EQ(first.replay_exit, 1) << first.replay_message;
}

}  // namespace
}  // namespace spillway::workload_sweep
