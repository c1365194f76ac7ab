#include "spillway/workload_sweep/sweep.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <variant>

#include "spillway/scenario/scenario.h"
#include "spillway/spill/quirks.h"
#include "support/sweep_test_support.h"

namespace spillway::workload_sweep {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

SweepOptions SmallOptions(std::string workload) {
  SweepOptions options;
  options.workload = std::move(workload);
  options.out_dir = TestOutDir("sweep_test_");
  return options;
}

TEST(SweepTest, ReferenceWorkloadParsesWithoutExpectOrFault) {
  auto parsed = scenario::Parse(ReferenceWorkload(), "reference");
  ASSERT_TRUE(std::holds_alternative<scenario::Scenario>(parsed));
  const auto& commands = std::get<scenario::Scenario>(parsed).commands;
  bool eager = false;
  for (const scenario::Command& command : commands) {
    EXPECT_FALSE(scenario::IsExpect(command.verb)) << command.ToString();
    EXPECT_FALSE(std::holds_alternative<scenario::Fault>(command.verb)) << command.ToString();
    const auto* plan = std::get_if<scenario::Plan>(&command.verb);
    eager = eager || (plan != nullptr && plan->spec.mode == scenario::PlanMode::kEager);
  }
  EXPECT_TRUE(eager);
}

TEST(SweepTest, CorrectCodeHasNoViolationAndEveryOperationIsSwept) {
  SweepOptions options = SmallOptions(kLimitWorkload);
  options.errnos = {ENOSPC, EIO};
  uint64_t runs_seen = 0;
  uint64_t faulted_runs_with_fault = 0;
  options.on_run = [&](const RunReport& run) {
    ++runs_seen;
    if (run.error_number && run.faults_injected > 0) ++faulted_runs_with_fault;
  };
  StatusOr<SweepResult> result = RunSweep(options);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_THAT(result->violations, IsEmpty());
  // Creating the directory, the file, a write, closing and removing them: several calls.
  EXPECT_GE(result->operations, 4u);
  // Each errno is swept over the calls that can return it: ENOSPC not over the removals.
  const uint64_t enospc_ops = result->operations_by_errno.at(ENOSPC);
  const uint64_t eio_ops = result->operations_by_errno.at(EIO);
  EXPECT_GE(enospc_ops, 3u);  // mkdir, create, write.
  EXPECT_LT(enospc_ops, eio_ops);
  EXPECT_EQ(eio_ops, result->operations);  // Every call here reaches the disk.
  // The default modes: transient and persistent per errno, a kill at every call, and a lie
  // at every write call (corrupt, lost) and read call (corrupt; this workload reads none).
  EXPECT_EQ(result->kill_runs, result->operations);
  EXPECT_EQ(result->read_calls, 0u);
  EXPECT_GE(result->write_calls, 1u);
  EXPECT_EQ(result->damage_runs, 2 * result->write_calls + result->read_calls);
  EXPECT_EQ(result->runs, 1 + (enospc_ops + eio_ops) * 2 + result->kill_runs + result->damage_runs);
  EXPECT_EQ(runs_seen, result->runs);
  // Every run with an errno met its fault.
  EXPECT_EQ(faulted_runs_with_fault, result->runs - 1 - result->kill_runs - result->damage_runs);
  EXPECT_EQ(result->runs_with_violations, 0u);
}

TEST(SweepTest, NoRollbackIsCaughtAtTheWriteOverTheLimit) {
  SweepOptions options = SmallOptions(kLimitWorkload);
  options.quirks = Quirk::kNoRollback;
  options.errnos = {EIO};
  options.modes = {FaultMode::kTransient};
  StatusOr<SweepResult> result = RunSweep(options);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_THAT(result->violations,
              Contains(AllOf(Field(&SweepViolation::check, Check::kAccounting),
                             Field(&SweepViolation::error_number, std::nullopt))));
  for (const SweepViolation& v : result->violations) {
    if (v.check != Check::kAccounting || v.error_number) continue;
    EXPECT_EQ(v.act, "write f 8");
    EXPECT_THAT(v.message, HasSubstr("plan p used_disk_space is 16, expected 8"));
    // The scenario written for it carries the quirk and an expect that fails on replay.
    const std::string text = ReadFile(v.scenario_path);
    EXPECT_THAT(text, HasSubstr("quirk no_rollback\n"));
    EXPECT_THAT(text, HasSubstr("expect used p 8"));
    EXPECT_TRUE(v.has_expect);
    EXPECT_EQ(v.replay_exit, 1) << v.replay_message;
    EXPECT_THAT(v.replay_message, HasSubstr("expected used p 8, got 16"));
    break;
  }
}

TEST(SweepTest, CountLeakIsCaughtWhenACreateFails) {
  SweepOptions options = SmallOptions(R"(dir /l
plan p /l
spill f p
spill g p
drop g
drop f
drop p
)");
  options.quirks = Quirk::kCountLeak;
  options.errnos = {ENOSPC};
  options.modes = {FaultMode::kTransient};
  StatusOr<SweepResult> result = RunSweep(options);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_FALSE(result->violations.empty());
  bool found = false;
  for (const SweepViolation& v : result->violations) {
    if (v.check != Check::kAccounting || v.act != "spill g p") continue;
    found = true;
    EXPECT_THAT(v.message, HasSubstr("plan p counts 2 active files, expected 1"));
    ASSERT_TRUE(v.error_number.has_value());
    EXPECT_EQ(*v.error_number, ENOSPC);
    EXPECT_THAT(ReadFile(v.scenario_path), HasSubstr("fault any ENOSPC"));
    EXPECT_EQ(v.replay_exit, 1) << v.replay_message;
  }
  EXPECT_TRUE(found);
}

TEST(SweepTest, WriteLeakIsCaughtAtAShortWrite) {
  SweepOptions options = SmallOptions(R"(dir /l
plan p /l
spill f p
short_write f 3
write f 10
drop f
drop p
)");
  options.quirks = Quirk::kWriteLeak;
  options.errnos = {ENOSPC};
  StatusOr<SweepResult> result = RunSweep(options);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_FALSE(result->violations.empty());
  const SweepViolation& first = result->violations[0];
  EXPECT_EQ(first.check, Check::kAccounting);
  EXPECT_FALSE(first.error_number.has_value());  // The run without a fault shows it.
  EXPECT_EQ(first.act, "write f 10");
  EXPECT_THAT(first.message, HasSubstr("used_disk_space is 10, expected 3"));
  EXPECT_THAT(first.message, HasSubstr("file f records 0 bytes, expected 3"));
  EXPECT_EQ(first.replay_exit, 1) << first.replay_message;
}

TEST(SweepTest, EagerDirsIsCaughtAsALazyPlanTouchingTheFilesystem) {
  SweepOptions options = SmallOptions(R"(dir /l
plan p /l
drop p
)");
  options.quirks = Quirk::kEagerDirs;
  options.errnos = {EIO};
  options.modes = {FaultMode::kPersistent};
  StatusOr<SweepResult> result = RunSweep(options);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_FALSE(result->violations.empty());
  EXPECT_EQ(result->violations[0].check, Check::kLazyPlan);
  EXPECT_EQ(result->violations[0].act, "plan p /l");
  EXPECT_EQ(result->violations[0].replay_exit, 1) << result->violations[0].replay_message;
}

TEST(SweepTest, SharedLimitIsCaughtAsADirectoryLeftBehind) {
  SweepOptions options = SmallOptions(R"(dir /l
plan p /l
spill f p
drop f
drop p
)");
  options.quirks = Quirk::kSharedLimit;
  options.errnos = {EIO};
  options.modes = {FaultMode::kTransient};
  StatusOr<SweepResult> result = RunSweep(options);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  bool found = false;
  for (const SweepViolation& v : result->violations) {
    if (v.check != Check::kLeftover) continue;
    found = true;
    EXPECT_THAT(v.message, HasSubstr("/l/datafusion-"));
    EXPECT_THAT(ReadFile(v.scenario_path), HasSubstr("expect count /l/datafusion-* 0"));
    EXPECT_EQ(v.replay_exit, 1) << v.replay_message;
  }
  EXPECT_TRUE(found);
}

// Violations of one check found in one run have scenarios that run the same commands (they
// differ only in comments and expects): one file serves them all, unless all are asked for.
TEST(SweepTest, ViolationsOfOneCheckInOneRunShareOneScenarioFile) {
  for (bool all : {false, true}) {
    SweepOptions options;
    options.quirks = Quirks().With(Quirk::kNoRollback);
    options.out_dir = TestOutDir("sweep_test_");
    options.all_reproducers = all;
    const StatusOr<SweepResult> result = RunSweep(options);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    std::set<std::tuple<Check, std::optional<int>, FaultMode, uint64_t>> check_and_run;
    for (size_t i = 0; i < result->violations.size(); ++i) {
      const SweepViolation& v = result->violations[i];
      const bool first = check_and_run.emplace(v.check, v.error_number, v.mode, v.fault_op).second;
      EXPECT_TRUE(std::filesystem::exists(v.scenario_path)) << v.scenario_path;
      if (all || first) {
        EXPECT_EQ(v.same_scenario_as, 0u) << "violation " << i + 1;
        continue;
      }
      ASSERT_GT(v.same_scenario_as, 0u) << "violation " << i + 1;
      ASSERT_LT(v.same_scenario_as, i + 1);
      const SweepViolation& owner = result->violations[v.same_scenario_as - 1];
      EXPECT_EQ(owner.check, v.check);
      EXPECT_EQ(owner.error_number, v.error_number);
      EXPECT_EQ(owner.fault_op, v.fault_op);
      EXPECT_EQ(owner.scenario_path, v.scenario_path);
    }
    const auto files = std::distance(std::filesystem::directory_iterator(options.out_dir),
                                     std::filesystem::directory_iterator());
    EXPECT_EQ(result->scenario_files, static_cast<size_t>(files));
    EXPECT_EQ(static_cast<size_t>(files), all ? result->violations.size() : check_and_run.size());
    EXPECT_LT(check_and_run.size(), result->violations.size()) << "nothing shared: a weak test";
  }
}

TEST(SweepTest, RejectsAWorkloadWithAnExpect) {
  StatusOr<SweepResult> result = RunSweep(SmallOptions("dir /l\nplan p /l\nexpect ok\n"));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), HasSubstr("workload:3"));
}

TEST(SweepTest, RejectsAMalformedWorkload) {
  StatusOr<SweepResult> result = RunSweep(SmallOptions("plan p /l\nsplil f p\n"));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), HasSubstr("workload:2"));
}

// The world facts (docs/sweep.md): an injected ENOENT removes what it names, so the acts
// after it meet a world without it; an injected EEXIST makes the name, so a local dir
// another plan made first is used and a unique name is retried. Correct code shows no
// violation, and every fault injected is one its call can return on Linux.
TEST(SweepTest, FaultsStateFactsThatCorrectCodeCopesWith) {
  SweepOptions options = SmallOptions(R"(dir /l
plan p /l
plan q /m
spill f p
write f 8
spill g q
spill h p
write h 4
drop f
drop g
drop h
drop q
drop p
)");
  options.errnos = {ENOENT, EEXIST, EIO};
  bool local_dir_race = false;
  bool stat_fault = false;
  bool removed = false;
  options.on_run = [&](const RunReport& run) {
    for (const InjectedFault& fault : run.injected) {
      // A lie (the damage runs' corrupt and lost) fails nothing: it has no errno.
      if (fault.action == FaultAction::kCorrupt || fault.action == FaultAction::kLost) continue;
      EXPECT_TRUE(OpKindCanReturn(fault.op, fault.error_number))
          << OpKindName(fault.op) << " " << ErrnoName(fault.error_number);
      local_dir_race = local_dir_race || (fault.op == OpKind::kMkdir &&
                                          fault.error_number == EEXIST && fault.path == "/m");
      stat_fault = stat_fault || fault.op == OpKind::kStat;
      removed = removed || (fault.op == OpKind::kCreate && fault.error_number == ENOENT);
    }
  };
  StatusOr<SweepResult> result = RunSweep(options);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  for (const SweepViolation& v : result->violations) ADD_FAILURE() << v.message;
  EXPECT_TRUE(local_dir_race);
  EXPECT_TRUE(stat_fault);
  EXPECT_TRUE(removed);
}

TEST(SweepTest, RejectsEmptyErrnosAndModes) {
  SweepOptions no_errno = SmallOptions(kLimitWorkload);
  no_errno.errnos.clear();
  EXPECT_EQ(RunSweep(no_errno).status().code(), StatusCode::kInvalidArgument);
  SweepOptions impossible = SmallOptions(kLimitWorkload);
  impossible.errnos = {EXDEV};  // Only rename(2) returns it.
  EXPECT_EQ(RunSweep(impossible).status().code(), StatusCode::kInvalidArgument);
  SweepOptions no_mode = SmallOptions(kLimitWorkload);
  no_mode.modes.clear();
  EXPECT_EQ(RunSweep(no_mode).status().code(), StatusCode::kInvalidArgument);
}

TEST(SweepTest, ReportsAnOutputDirectoryThatCannotBeMade) {
  SweepOptions options = SmallOptions(kLimitWorkload);
  std::filesystem::create_directories(options.out_dir);
  const std::string blocker = options.out_dir + "/file";
  std::ofstream(blocker) << "x";
  options.out_dir = blocker + "/out";
  StatusOr<SweepResult> result = RunSweep(options);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().error_number(), 0);
}

}  // namespace
}  // namespace spillway::workload_sweep
