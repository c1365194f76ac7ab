// The sweep's modes that lie (corrupt, lost) and its check undetected_damage: on a framed
// workload every damage run of correct code is a clean error at the read (DATA_LOSS), an
// unframed one reads the damage back as ok unnoticed (upstream's behaviour, no violation),
// and a reader that skips the frames' checks (quirk reader_skips_check) is caught as
// undetected_damage and nothing else.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spillway/spill/quirks.h"
#include "spillway/workload_sweep/sweep.h"
#include "support/sweep_test_support.h"
#include "workload.h"
#include "workload_run.h"

namespace spillway::workload_sweep {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Two writes to a framed file, read back; `frame` is the plan's frame= value.
std::string Workload(const std::string& frame) {
  return "dir /l\nplan p /l frame=" + frame +
         "\nspill f p\nwrite f 8\nwrite f 4\nread f\ndrop f\ndrop p\n";
}

SweepOptions DamageOptions(const std::string& workload, Quirks quirks) {
  SweepOptions options;
  options.workload = workload;
  options.out_dir = TestOutDir("sweep_damage_test_");
  options.quirks = quirks;
  options.errnos = {EIO};
  options.modes = {FaultMode::kCorrupt, FaultMode::kLost};
  return options;
}

// One run of `workload` with `mode` at call `call` of `op`: how many acts failed, and
// what it found.
struct DamageRun {
  uint64_t acts_failed = 0;
  std::vector<Check> checks;
};
DamageRun RunDamage(const std::string& text, FaultMode mode, OpKind op, uint64_t call) {
  const StatusOr<internal::Workload> workload = internal::LoadWorkload(text);
  EXPECT_TRUE(workload.ok()) << workload.status().ToString();
  const SweepOptions options;
  internal::WorkloadRun run(*workload, options,
                            internal::WorkloadRunSpec{std::nullopt, mode, call, op});
  EXPECT_TRUE(run.Execute().ok());
  DamageRun out{run.report().acts_failed, {}};
  for (const internal::Finding& finding : run.findings()) out.checks.push_back(finding.check);
  return out;
}

TEST(SweepDamageTest, EveryDamageRunOfAFramedFileIsACleanErrorAtTheRead) {
  const StatusOr<SweepResult> result = RunSweep(DamageOptions(Workload("on"), Quirks()));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  // Two writes of two appends each (header, bytes), and one read: 4 corrupt writes, 1
  // corrupt read, 4 lost writes.
  EXPECT_EQ(result->write_calls, 4u);
  EXPECT_EQ(result->read_calls, 1u);
  EXPECT_EQ(result->damage_runs, 9u);
  EXPECT_THAT(result->violations, IsEmpty());
  // Each damage run fails exactly one act, the read (DATA_LOSS is explained by the damage).
  for (uint64_t call = 1; call <= 4; ++call) {
    for (const FaultMode mode : {FaultMode::kCorrupt, FaultMode::kLost}) {
      const DamageRun run = RunDamage(Workload("on"), mode, OpKind::kWrite, call);
      EXPECT_EQ(run.acts_failed, 1u) << FaultModeName(mode) << " write call " << call;
      EXPECT_THAT(run.checks, IsEmpty());
    }
  }
  EXPECT_EQ(RunDamage(Workload("on"), FaultMode::kCorrupt, OpKind::kRead, 1).acts_failed, 1u);
  // Without a fault, nothing fails.
  EXPECT_EQ(RunDamage(Workload("on"), FaultMode::kTransient, OpKind::kWrite, 0).acts_failed, 0u);
}

TEST(SweepDamageTest, AnUnframedFileReadsItsDamageBackUnnoticedWithoutAViolation) {
  const StatusOr<SweepResult> result = RunSweep(DamageOptions(Workload("off"), Quirks()));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->write_calls, 2u);  // One append per write.
  EXPECT_THAT(result->violations, IsEmpty());
  const DamageRun run = RunDamage(Workload("off"), FaultMode::kCorrupt, OpKind::kWrite, 1);
  EXPECT_EQ(run.acts_failed, 0u);  // The read returned the flipped bit as data.
}

TEST(SweepDamageTest, ReaderSkipsCheckIsCaughtAsUndetectedDamageAtTheRead) {
  const StatusOr<SweepResult> result =
      RunSweep(DamageOptions(Workload("on"), Quirk::kReaderSkipsCheck));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_FALSE(result->violations.empty());
  for (const SweepViolation& v : result->violations) {
    EXPECT_EQ(v.check, Check::kUndetectedDamage) << v.message;  // For its own reason only.
  }
  const SweepViolation& first = result->violations[0];
  EXPECT_EQ(first.act, "read f");
  EXPECT_EQ(first.mode, FaultMode::kCorrupt);
  EXPECT_EQ(first.damaged_op, OpKind::kWrite);
  EXPECT_EQ(first.fault_op, 1u);
  EXPECT_THAT(first.message, HasSubstr("`read f` read back damaged bytes of framed file /l/"));
  EXPECT_THAT(ReadFile(first.scenario_path), HasSubstr("fault write corrupt"));
  EXPECT_THAT(ReadFile(first.scenario_path), HasSubstr("expect error DATA_LOSS"));
  EXPECT_EQ(first.replay_exit, 1) << first.replay_message;
}

}  // namespace
}  // namespace spillway::workload_sweep
