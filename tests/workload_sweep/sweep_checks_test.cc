// The sweep's checks that sweep_test.cc's emulated defects do not show: limit_not_enforced,
// unexplained_error, false_success, unreported_fault (after a drop and after a reap), the
// reap's unreported orphan, fault_missed and runner, each on the smallest workload that
// trips it, beside the input one step away that must not (a write that just fits, the
// last operation a fault can hit, the same sweep without the quirk). fault_missed and
// runner cannot happen in a whole sweep of correct code, so they are shown on one run of a
// workload (workload_sweep/workload_run.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <initializer_list>
#include <memory>
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

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// The violations of `check` that a sweep of `workload` with `quirks` finds, failing every
// operation with `error_number` (ENOSPC by default) once.
std::vector<SweepViolation> ViolationsOf(Check check, const std::string& workload,
                                         Quirks quirks = Quirks(), int error_number = ENOSPC) {
  SweepOptions options;
  options.workload = workload;
  options.out_dir = TestOutDir("sweep_checks_test_");
  options.quirks = quirks;
  options.errnos = {error_number};
  options.modes = {FaultMode::kTransient};
  const StatusOr<SweepResult> result = RunSweep(options);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  std::vector<SweepViolation> found;
  if (!result.ok()) return found;
  for (const SweepViolation& v : result->violations) {
    if (v.check == check) found.push_back(v);
  }
  return found;
}

// A limit lowered from 20 to 10 bytes, then writes of 8, 2 (to exactly the limit) and 1.
constexpr char kUpToTheLimit[] = R"(dir /l
plan p /l limit=20
set_limit p 10
spill f p
write f 8
write f 2
write f 1
drop f
drop p
)";

TEST(SweepChecksTest, LimitNotEnforcedIsAWriteOverTheLimitThatSucceededOrReachedTheDisk) {
  // Comet as merged keeps the limit the plan was built with (20): the 1-byte write
  // succeeds; the one that fits exactly is no violation.
  const std::vector<SweepViolation> found =
      ViolationsOf(Check::kLimitNotEnforced, kUpToTheLimit, Quirk::kOuterAccounting);
  ASSERT_EQ(found.size(), 2u);
  for (const SweepViolation& v : found) EXPECT_EQ(v.act, "write f 1") << v.message;
  // The run without a fault: the write succeeded.
  EXPECT_FALSE(found[0].error_number.has_value());
  EXPECT_THAT(found[0].message,
              HasSubstr("succeeded although it does not fit under plan p's 10-byte limit"));
  // The run that failed it: refused, but only after it reached the filesystem.
  EXPECT_TRUE(found[1].error_number.has_value());
  EXPECT_THAT(found[1].message, HasSubstr("but reached the filesystem"));
  EXPECT_EQ(found[0].replay_exit, 1) << found[0].replay_message;
}

TEST(SweepChecksTest, UnexplainedErrorIsALimitErrorOnAWriteThatFits) {
  // The refused 8-byte write stays charged, so the 2-byte write that fits is refused too.
  const std::vector<SweepViolation> found = ViolationsOf(Check::kUnexplainedError, R"(dir /l
plan p /l limit=10
spill f p
write f 8
write f 8
write f 2
drop f
drop p
)",
                                                         Quirk::kNoRollback);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].act, "write f 2");
  EXPECT_THAT(found[0].message, HasSubstr("failed although no fault was injected during it and "
                                          "its bytes fit under the limit"));
  EXPECT_EQ(found[0].replay_exit, 1) << found[0].replay_message;
}

TEST(SweepChecksTest, UnexplainedErrorIsAnErrorNoFaultCaused) {
  // A file where the plan's local dir should be: the spill fails with no fault injected.
  const std::vector<SweepViolation> found = ViolationsOf(Check::kUnexplainedError, R"(file /l
plan p /l
spill f p
drop p
)");
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0].act, "spill f p");
  EXPECT_THAT(found[0].message, HasSubstr("failed although no fault was injected during it:"));
}

// The violations of `check` that a sweep of `workload` with `quirk` finds, failing every
// operation with `error_number` once, after checking that the same sweep without the quirk
// finds none.
std::vector<SweepViolation> CaughtOnlyWith(Quirk quirk, Check check, const std::string& workload,
                                           int error_number) {
  EXPECT_THAT(ViolationsOf(check, workload, Quirks(), error_number), IsEmpty())
      << CheckName(check) << " without quirk " << quirk;
  return ViolationsOf(check, workload, quirk, error_number);
}

// That `found` is not empty, and its first violation is at act `act` with each of `parts`
// in its message.
void ExpectFirstAt(const std::vector<SweepViolation>& found, const std::string& act,
                   std::initializer_list<std::string> parts) {
  ASSERT_FALSE(found.empty()) << act;
  EXPECT_EQ(found[0].act, act);
  for (const std::string& part : parts) EXPECT_THAT(found[0].message, HasSubstr(part));
}

// A spill file written and dropped, then its plan.
constexpr char kDropWorkload[] = R"(dir /l
plan p /l
spill f p
write f 4
drop f
drop p
)";

TEST(SweepChecksTest, FalseSuccessIsAWriteThatMetAFaultAndReportedSuccess) {
  // The writer drops the append's result: the write that met ENOSPC succeeds.
  const std::vector<SweepViolation> found =
      CaughtOnlyWith(Quirk::kWriteIgnoresErrors, Check::kFalseSuccess, kDropWorkload, ENOSPC);
  ASSERT_EQ(found.size(), 1u);
  ExpectFirstAt(found, "write f 4", {"`write f 4` met ENOSPC on write ", "and reported success"});
  EXPECT_TRUE(found[0].error_number.has_value());
  EXPECT_THAT(ReadFile(found[0].scenario_path), HasSubstr("expect error ENOSPC"));
  EXPECT_EQ(found[0].replay_exit, 1) << found[0].replay_message;
}

TEST(SweepChecksTest, UnreportedFaultIsADropsFailedRemovalThatNoCleanupLogRecordReports) {
  // The file's drop ignores its failed unlink, as tempfile's NamedTempFile does.
  const std::vector<SweepViolation> found =
      CaughtOnlyWith(Quirk::kDropIgnoresErrors, Check::kUnreportedFault, kDropWorkload, EIO);
  ExpectFirstAt(
      found, "drop f",
      {"`drop f` met EIO on remove /l/datafusion-", "and no CleanupLog record reports it"});
}

// A process crashes holding a spill file; the next one reaps its directory.
constexpr char kReapWorkload[] = R"(dir /l
plan c /l
spill c1 c
write c1 5
crash
reap /l
)";

TEST(SweepChecksTest, UnreportedFaultIsAReapsFailedRemovalThatItsReportDoesNotList) {
  // The reaper ignores remove_dir_all's error: the EIO on the orphan's file is in no report.
  const std::vector<SweepViolation> found =
      CaughtOnlyWith(Quirk::kReapIgnoresErrors, Check::kUnreportedFault, kReapWorkload, EIO);
  ExpectFirstAt(found, "reap /l", {"`reap /l` met EIO on ", "and its report does not list it"});
}

TEST(SweepChecksTest, ReapIsACrashedProcesssDirectoryLeftAndReportedNowhere) {
  // The same runs as above, for what the failure left: the orphan's directory is still
  // there, and nothing (neither its path nor its local dir's) says why.
  const std::vector<SweepViolation> found =
      CaughtOnlyWith(Quirk::kReapIgnoresErrors, Check::kReap, kReapWorkload, EIO);
  ASSERT_FALSE(found.empty());
  ExpectFirstAt(found, "reap /l",
                {"`reap /l` left /l/datafusion-",
                 "a spill directory of the crashed process, and reported nothing"});
  EXPECT_THAT(ReadFile(found[0].scenario_path), HasSubstr("expect count /l/datafusion-* 0"));
  EXPECT_EQ(found[0].replay_exit, 1) << found[0].replay_message;
}

// One run of `workload`, failing operation `fault_op` with `error_number` once (none:
// without a fault).
std::unique_ptr<internal::WorkloadRun> RunOnce(const internal::Workload& workload,
                                               const SweepOptions& options,
                                               std::optional<int> error_number, uint64_t fault_op) {
  auto run = std::make_unique<internal::WorkloadRun>(
      workload, options, internal::WorkloadRunSpec{error_number, FaultMode::kTransient, fault_op});
  EXPECT_TRUE(run->Execute().ok());
  return run;
}

std::vector<Check> ChecksOf(const internal::WorkloadRun& run) {
  std::vector<Check> checks;
  for (const internal::Finding& finding : run.findings()) checks.push_back(finding.check);
  return checks;
}

TEST(SweepChecksTest, FaultMissedIsARunWhoseFaultNeverFired) {
  const StatusOr<internal::Workload> workload = internal::LoadWorkload(kLimitWorkload);
  ASSERT_TRUE(workload.ok()) << workload.status().ToString();
  const SweepOptions options;
  const std::unique_ptr<internal::WorkloadRun> plain = RunOnce(*workload, options, std::nullopt, 0);
  EXPECT_THAT(ChecksOf(*plain), IsEmpty());
  const uint64_t operations = plain->OperationsThatCanReturn(ENOSPC);
  ASSERT_GT(operations, 1u);
  // The first and the last operation a fault can hit: it fires, and correct code copes.
  for (const uint64_t op : {uint64_t{1}, operations}) {
    EXPECT_THAT(ChecksOf(*RunOnce(*workload, options, ENOSPC, op)), IsEmpty()) << op;
  }
  // One past them: the fault never fires, and the run proved nothing.
  const std::unique_ptr<internal::WorkloadRun> missed =
      RunOnce(*workload, options, ENOSPC, operations + 1);
  ASSERT_EQ(ChecksOf(*missed), std::vector<Check>{Check::kFaultMissed});
  EXPECT_THAT(
      missed->findings()[0].message,
      HasSubstr("no ENOSPC was injected although operation " + std::to_string(operations + 1)));
  // A short write is injected as an ENOSPC that stored bytes: not the fault of the run.
  const StatusOr<internal::Workload> short_write = internal::LoadWorkload(R"(dir /m
plan q /m limit=100
spill g q
short_write g 2
write g 4
)");
  ASSERT_TRUE(short_write.ok()) << short_write.status().ToString();
  const uint64_t short_operations =
      RunOnce(*short_write, options, std::nullopt, 0)->OperationsThatCanReturn(ENOSPC);
  const std::unique_ptr<internal::WorkloadRun> short_missed =
      RunOnce(*short_write, options, ENOSPC, short_operations + 1);
  ASSERT_EQ(short_missed->report().faults_injected, 1u);
  EXPECT_EQ(ChecksOf(*short_missed), std::vector<Check>{Check::kFaultMissed});
}

TEST(SweepChecksTest, RunnerIsALineTheRunnerRefused) {
  const StatusOr<internal::Workload> workload = internal::LoadWorkload(kLimitWorkload);
  ASSERT_TRUE(workload.ok()) << workload.status().ToString();
  const SweepOptions options;
  EXPECT_THAT(ChecksOf(*RunOnce(*workload, options, ENOSPC, 1)), IsEmpty());
  // A fault of errno 0, which no rule can inject: the runner refuses the fault line.
  const std::unique_ptr<internal::WorkloadRun> refused = RunOnce(*workload, options, 0, 1);
  ASSERT_EQ(ChecksOf(*refused), std::vector<Check>{Check::kRunner});
  EXPECT_THAT(refused->findings()[0].message, HasSubstr("the runner refused `fault any"));
}

// The runner losing what the run bound: a hook drops plan `p`, or file `f`, behind the
// run's back right after the act that bound it, and the next act's check finds it gone.
TEST(SweepChecksTest, RunnerIsAPlanOrFileTheRunnerLost) {
  const StatusOr<internal::Workload> workload = internal::LoadWorkload(R"(dir /l
plan p /l
spill f p
plan q /l
spill g q
write g 4
drop g
drop q
)");
  ASSERT_TRUE(workload.ok()) << workload.status().ToString();
  const SweepOptions options;
  EXPECT_THAT(ChecksOf(*RunOnce(*workload, options, std::nullopt, 0)), IsEmpty());
  struct Lost {
    std::string name;
    std::string key;
    std::string message;
  };
  for (const Lost& lost :
       {Lost{"p", "runner_plan|2|p", "plan p is bound but the runner has no manager for it"},
        Lost{"f", "runner_file|2|f", "file f is bound but the runner has no file for it"}}) {
    internal::WorkloadRun run(*workload, options, internal::WorkloadRunSpec{});
    int acts = 0;
    run.SetAfterActHookForTesting([&](scenario::Runner& runner) {
      if (++acts != 2) return;
      std::string refused;
      ASSERT_EQ(runner.Step(scenario::Command{scenario::Drop{lost.name}}, &refused),
                scenario::StepResult::kOk)
          << refused;
    });
    ASSERT_TRUE(run.Execute().ok());
    std::vector<std::string> keys;
    for (const internal::Finding& finding : run.findings()) {
      if (finding.check == Check::kRunner) keys.push_back(finding.key);
    }
    EXPECT_THAT(keys, ElementsAre(lost.key)) << lost.name;
    const auto found = std::find_if(run.findings().begin(), run.findings().end(),
                                    [&](const internal::Finding& f) { return f.key == lost.key; });
    ASSERT_NE(found, run.findings().end()) << lost.name;
    EXPECT_EQ(found->message, lost.message);
  }
}

}  // namespace
}  // namespace spillway::workload_sweep
