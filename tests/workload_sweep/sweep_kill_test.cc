// The sweep's kill runs (FaultMode::kKill): the process dies at each of its filesystem
// calls in turn, inside operations, and the next process reaps, spills and drops
// everything. Correct code passes; a reap that leaves a half-made directory is caught as
// `reap`, and only in a kill run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <utility>

#include "spillway/spill/quirks.h"
#include "spillway/workload_sweep/sweep.h"
#include "support/sweep_test_support.h"

namespace spillway::workload_sweep {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

// One lazy plan over two local dirs spills twice, a clone and a drop of the plan before its
// files: a kill can land between a spill directory's mkdir and its first file, between a
// create and its first write, and between the removals of a plan's directories.
constexpr char kKillWorkload[] = R"(dir /l0
dir /l1
plan p /l0,/l1 limit=8K
spill f p
write f 100
spill g p
clone h g
write h 200
drop p
drop g
drop f
drop h
)";

SweepOptions KillOptions(std::string workload, Quirks quirks = {}) {
  SweepOptions options;
  options.workload = std::move(workload);
  options.out_dir = TestOutDir("sweep_kill_");
  options.quirks = quirks;
  options.modes = {FaultMode::kKill};
  options.errnos = {EIO};
  return options;
}

SweepResult MustSweep(const SweepOptions& options) {
  StatusOr<SweepResult> result = RunSweep(options);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return result.ok() ? *std::move(result) : SweepResult{};
}

TEST(SweepKillTest, CorrectCodeSurvivesAKillAtEveryCall) {
  for (scenario::FsKind fs : {scenario::FsKind::kMem, scenario::FsKind::kPosix}) {
    SweepOptions options = KillOptions(kKillWorkload);
    options.fs = fs;
    uint64_t kills = 0;
    options.on_run = [&](const RunReport& run) {
      if (run.mode == FaultMode::kKill) ++kills;
    };
    const SweepResult result = MustSweep(options);
    EXPECT_THAT(result.violations, IsEmpty())
        << result.violations[0].message << " (" << result.violations[0].scenario_path << ")";
    // One kill run per call of the run without a fault, and each one's kill fired (a kill
    // that never fires is a fault_missed).
    EXPECT_GT(result.operations, 5u);
    EXPECT_EQ(result.kill_runs, result.operations);
    EXPECT_EQ(kills, result.operations);
    EXPECT_EQ(result.runs, 1 + result.operations);
  }
}

TEST(SweepKillTest, ReapSkipsEmptyIsCaughtAsAReapThatLeftAHalfMadeDirectory) {
  const SweepResult result = MustSweep(KillOptions(kKillWorkload, Quirk::kReapSkipsEmpty));
  ASSERT_FALSE(result.violations.empty());
  const SweepViolation& first = result.violations[0];
  EXPECT_EQ(first.check, Check::kReap);
  EXPECT_EQ(first.mode, FaultMode::kKill);
  EXPECT_FALSE(first.error_number.has_value());
  // The next process's reap, over every local dir of the workload.
  EXPECT_EQ(first.act, "reap /l0,/l1");
  EXPECT_THAT(first.message, HasSubstr("a spill directory of the crashed process"));
  const std::string scenario = ReadFile(first.scenario_path);
  EXPECT_THAT(scenario, HasSubstr("kill "));
  EXPECT_EQ(first.replay_exit, 1) << first.replay_message;
}

TEST(SweepKillTest, ReapSkipsEmptyGoesUnnoticedWithoutKillRuns) {
  // Every directory the workload's own processes leave holds a file: only a process
  // killed half-way through making one leaves it empty.
  SweepOptions options = KillOptions(kKillWorkload, Quirk::kReapSkipsEmpty);
  options.modes = {FaultMode::kTransient, FaultMode::kPersistent};
  const SweepResult result = MustSweep(options);
  EXPECT_EQ(result.kill_runs, 0u);
  for (const SweepViolation& v : result.violations) EXPECT_NE(v.check, Check::kReap) << v.message;
}

}  // namespace
}  // namespace spillway::workload_sweep
