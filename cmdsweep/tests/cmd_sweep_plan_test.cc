// The plan of `spillway sweep -- CMD` (which runs, sampled and sharded) and its path
// patterns, without running anything.
#include <gtest/gtest.h>

#include <cerrno>
#include <set>
#include <string>
#include <vector>

#include "run_plan.h"
#include "spillway/cmdsweep/cmd_sweep.h"

namespace spillway::cmdsweep {
namespace {

std::vector<TracedCall> Calls(const std::vector<std::string>& ops) {
  std::vector<TracedCall> calls;
  calls.reserve(ops.size());
  for (const std::string& op : ops) calls.push_back({op, op, "{dir}/f", false});
  return calls;
}

const std::vector<FaultMode> kBoth = {FaultMode::kTransient, FaultMode::kPersistent};

TEST(CmdSweepPlanTest, DefaultErrnosAreThoseEachOperationCanReturn) {
  const std::vector<RunSpec> runs =
      PlanRuns(Calls({"create", "write", "read", "mkdir"}), {}, {}, {FaultMode::kTransient});
  std::vector<std::pair<uint64_t, int>> got;
  got.reserve(runs.size());
  for (const RunSpec& run : runs) got.emplace_back(run.n, run.error_number);
  const std::vector<std::pair<uint64_t, int>> want = {{1, ENOSPC}, {1, EIO}, {1, ENOENT},
                                                      {2, ENOSPC}, {2, EIO}, {3, EIO},
                                                      {4, ENOSPC}, {4, EIO}, {4, ENOENT}};
  EXPECT_EQ(got, want);
}

TEST(CmdSweepPlanTest, AfterCountsEarlierCallsOfTheSameOperation) {
  const std::vector<RunSpec> runs =
      PlanRuns(Calls({"write", "read", "write", "write"}), {EIO}, {}, {FaultMode::kPersistent});
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(FaultRuleFor(runs[0]), "write EIO after=0 times=forever");
  EXPECT_EQ(FaultRuleFor(runs[1]), "read EIO after=0 times=forever");
  EXPECT_EQ(FaultRuleFor(runs[3]), "write EIO after=2 times=forever");
}

TEST(CmdSweepPlanTest, OpsRestrictTheCallsSwept) {
  const std::vector<RunSpec> runs =
      PlanRuns(Calls({"write", "read", "write"}), {EIO}, {static_cast<uint8_t>(2)}, kBoth);
  ASSERT_EQ(runs.size(), 4u);
  for (const RunSpec& run : runs) EXPECT_EQ(run.call.op, "write");
}

TEST(CmdSweepPlanTest, SampleKeepsTheFirstCallOfEachOperationAndSpreadsTheRest) {
  std::vector<std::string> ops(200, "write");
  ops[50] = "read";
  ops[120] = "remove";
  const std::vector<RunSpec> runs = PlanRuns(Calls(ops), {EIO}, {}, kBoth);
  const std::vector<RunSpec> sample = SampleRuns(runs, 20);
  ASSERT_EQ(sample.size(), 20u);
  std::set<uint64_t> calls;
  for (const RunSpec& run : sample) calls.insert(run.n);
  EXPECT_TRUE(calls.count(1) && calls.count(51) && calls.count(121));
  EXPECT_GT(*calls.rbegin(), 180u);  // Spread to the end, not the first 20.
  EXPECT_EQ(SampleRuns(runs, 0).size(), runs.size());
  EXPECT_EQ(SampleRuns(runs, 1000).size(), runs.size());
  // Fewer runs than operations: one run of each first call still.
  EXPECT_EQ(SampleRuns(runs, 2).size(), 3u);
}

TEST(CmdSweepPlanTest, ShardsAreContiguousAndCoverEveryRunOnce) {
  const std::vector<RunSpec> runs =
      PlanRuns(Calls(std::vector<std::string>(7, "write")), {EIO}, {}, {FaultMode::kTransient});
  size_t total = 0;
  uint64_t next = 1;
  for (int k = 1; k <= 3; ++k) {
    for (const RunSpec& run : ShardRuns(runs, k, 3)) {
      EXPECT_EQ(run.n, next++);
      ++total;
    }
  }
  EXPECT_EQ(total, runs.size());
}

TEST(CmdSweepPlanTest, PathPatternsIgnoreRandomPartsAndNumbersOnly) {
  EXPECT_TRUE(SamePathPattern("{dir}/sortAbc123", "{dir}/sortXyZ789"));
  EXPECT_TRUE(SamePathPattern("{dir}/.tmpAbCdEf", "{dir}/.tmpq1w2e3"));
  EXPECT_TRUE(SamePathPattern("{dir}/pgsql_tmp/pgsql_tmp812.0", "{dir}/pgsql_tmp/pgsql_tmp1234.0"));
  EXPECT_FALSE(SamePathPattern("{dir}/a.txt", "{dir}/b.txt"));
  EXPECT_FALSE(SamePathPattern("{dir}/run0-abc123", "{dir}/run1-xyz789"));
  EXPECT_FALSE(SamePathPattern("{dir}/sortAbc123", "{dir}/x/sortAbc123"));
  EXPECT_FALSE(SamePathPattern("{dir}/sortAbc123", "{dir}/sortAbc123x"));
}

}  // namespace
}  // namespace spillway::cmdsweep
