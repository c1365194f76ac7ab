// Tests of the scenario runner driven one step at a time through Runner::Step: the state
// it exposes (bound names, plans, files, the cleanup log, the last reap), malformed fault
// rules, a budget's limit error, a crash, and names fixed by the seed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "spillway/scenario/scenario.h"
#include "spillway/spill/spill_budget.h"
#include "spillway/vfs/glob.h"
#include "support/scenario_test_support.h"

namespace spillway::scenario {
namespace {

using test_support::FsKindParamName;
using test_support::MustParseOne;
using test_support::RunnerOptionsOn;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

// Steps that hold on both filesystems.
class RunnerStepOnBothTest : public ::testing::TestWithParam<FsKind> {};

INSTANTIATE_TEST_SUITE_P(BothFileSystems, RunnerStepOnBothTest,
                         ::testing::Values(FsKind::kMem, FsKind::kPosix), FsKindParamName);

TEST(RunnerStepTest, AFaultRuleLinuxCannotProduceIsMalformed) {
  auto runner = Runner::Create(RunnerOptions{});
  ASSERT_TRUE(runner.ok()) << runner.status().ToString();
  Fault fault;
  fault.rule.op = OpKind::kRemove;
  fault.rule.error_number = ENOSPC;
  std::string message;
  EXPECT_EQ((*runner)->Step(Command{fault}, &message), StepResult::kMalformed);
  EXPECT_THAT(message, HasSubstr("remove cannot fail with ENOSPC"));
  fault.rule.error_number = EACCES;
  EXPECT_EQ((*runner)->Step(Command{fault}, &message), StepResult::kOk) << message;
}

TEST(RunnerStepTest, StepsExposeTheRunnersState) {
  StatusOr<std::unique_ptr<Runner>> created = Runner::Create(RunnerOptionsOn(FsKind::kMem));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Runner& runner = **created;
  std::string message;
  EXPECT_TRUE(runner.last_outcome().ok());
  EXPECT_EQ(runner.Step(MustParseOne("expect ok"), &message), StepResult::kMalformed);
  EXPECT_THAT(message, HasSubstr("before any command"));

  EXPECT_EQ(runner.Step(MustParseOne("dir /l"), &message), StepResult::kOk);
  EXPECT_EQ(runner.Step(MustParseOne("plan p /l"), &message), StepResult::kOk);
  EXPECT_EQ(runner.Step(MustParseOne("spill f p sort"), &message), StepResult::kOk);
  EXPECT_EQ(runner.Step(MustParseOne("clone g f"), &message), StepResult::kOk);
  EXPECT_THAT(runner.plan_names(), ::testing::ElementsAre("p"));
  EXPECT_THAT(runner.file_names(), ::testing::ElementsAre("f", "g"));
  ASSERT_NE(runner.plan("p"), nullptr);
  EXPECT_EQ(runner.plan("f"), nullptr);
  ASSERT_NE(runner.file("f"), nullptr);
  EXPECT_THAT(runner.file("f")->path(), StartsWith("/l/datafusion-"));
  EXPECT_THAT(runner.file("f")->path(), HasSubstr("/.tmp.sort."));
  EXPECT_EQ(runner.file("f")->use_count(), 2);
  EXPECT_TRUE(runner.base_fs().Exists(runner.file("f")->path()));
  EXPECT_GT(runner.fs().calls(OpKind::kMkdir), 0u);  // The spill went through the injector.

  EXPECT_EQ(runner.Step(MustParseOne("spill h p"), &message), StepResult::kOk);
  EXPECT_EQ(runner.Step(MustParseOne("expect files p 2"), &message), StepResult::kOk) << message;
  EXPECT_EQ(runner.Step(MustParseOne("expect files p 3"), &message),
            StepResult::kExpectationFailed);
  EXPECT_EQ(message, "expected files p 3, got 2");

  const std::string path = runner.file("f")->path();
  runner.DropAll();
  EXPECT_THAT(runner.plan_names(), IsEmpty());
  EXPECT_THAT(runner.file_names(), IsEmpty());
  EXPECT_FALSE(runner.base_fs().Exists(path));
  EXPECT_EQ(runner.cleanup_log()->failure_count(), 0u);
  EXPECT_EQ(runner.Step(MustParseOne("write f 1"), &message), StepResult::kMalformed);
  EXPECT_EQ(message, "\"f\" was dropped");
}

TEST(RunnerStepTest, RemovalFailuresReachTheRunsCleanupLog) {
  StatusOr<std::unique_ptr<Runner>> created = Runner::Create(RunnerOptionsOn(FsKind::kMem));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Runner& runner = **created;
  std::string message;
  for (const char* line : {"dir /l", "plan p /l", "spill f p", "fault remove EACCES", "drop f"}) {
    ASSERT_EQ(runner.Step(MustParseOne(line), &message), StepResult::kOk)
        << line << ": " << message;
  }
  EXPECT_TRUE(runner.last_outcome().ok());               // drop reports nothing ...
  EXPECT_EQ(runner.cleanup_log()->failure_count(), 1u);  // ... the log has it.
}

TEST_P(RunnerStepOnBothTest, ABudgetsLimitErrorNamesTheBudgetAndItsKey) {
  StatusOr<std::unique_ptr<Runner>> created = Runner::Create(RunnerOptionsOn(GetParam()));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Runner& runner = **created;
  std::string message;
  for (const char* line :
       {"dir /l", "budget b 4", "plan p /l limit=100 budget=b", "spill f p", "write f 5"}) {
    ASSERT_EQ(runner.Step(MustParseOne(line), &message), StepResult::kOk)
        << line << ": " << message;
  }
  EXPECT_EQ(OutcomeName(runner.last_outcome()), "LIMIT");
  EXPECT_THAT(runner.last_outcome().message(), HasSubstr("spill budget"));
  EXPECT_THAT(runner.last_outcome().message(), HasSubstr(std::string(kExecutorBudgetKey)));
  EXPECT_THAT(runner.last_outcome().message(), ::testing::Not(HasSubstr("spark.comet")));
  // An unknown budget is a name error.
  EXPECT_EQ(runner.Step(MustParseOne("plan q /l budget=c"), &message), StepResult::kMalformed);
  EXPECT_EQ(message, "unknown name \"c\" (no budget is bound to it)");
}

// `drop b` drops the scenario's reference: while a plan keeps the budget alive,
// `expect used b` still reads it (a budget defect after the drop shows in the scenario);
// once the last plan is gone, reading it is a name error, and nothing else may use it.
TEST(RunnerStepTest, ExpectUsedReadsADroppedBudgetWhilePlansKeepItAlive) {
  StatusOr<std::unique_ptr<Runner>> created = Runner::Create(RunnerOptionsOn(FsKind::kMem));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Runner& runner = **created;
  std::string message;
  for (const char* line :
       {"dir /l", "budget b 64", "plan p /l budget=b", "spill f p", "write f 5", "drop b"}) {
    ASSERT_EQ(runner.Step(MustParseOne(line), &message), StepResult::kOk)
        << line << ": " << message;
  }
  EXPECT_EQ(runner.Step(MustParseOne("expect used b 5"), &message), StepResult::kOk) << message;
  EXPECT_EQ(runner.Step(MustParseOne("expect used b 4"), &message), StepResult::kExpectationFailed);
  EXPECT_EQ(message, "expected used b 4, got 5");
  EXPECT_EQ(runner.Step(MustParseOne("set_limit b 8"), &message), StepResult::kMalformed);
  EXPECT_EQ(message, "\"b\" was dropped");
  for (const char* line : {"drop f", "drop p"}) {
    ASSERT_EQ(runner.Step(MustParseOne(line), &message), StepResult::kOk)
        << line << ": " << message;
  }
  EXPECT_EQ(runner.budget("b"), nullptr);
  EXPECT_EQ(runner.Step(MustParseOne("expect used b 0"), &message), StepResult::kMalformed);
  EXPECT_EQ(message, "\"b\" was dropped, and no plan keeps the budget alive");
}

TEST_P(RunnerStepOnBothTest, ACrashRemovesNothingAndKeepsTheLogOfTheDeadProcess) {
  StatusOr<std::unique_ptr<Runner>> created = Runner::Create(RunnerOptionsOn(GetParam()));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Runner& runner = **created;
  std::string message;
  for (const char* line : {"dir /l", "plan p /l", "spill f p", "spill g p", "write f 3",
                           "fault remove EACCES", "drop g", "crash"}) {
    ASSERT_EQ(runner.Step(MustParseOne(line), &message), StepResult::kOk)
        << line << ": " << message;
  }
  EXPECT_THAT(runner.plan_names(), IsEmpty());
  EXPECT_THAT(runner.file_names(), IsEmpty());
  // The failed removal before the crash is kept; the dead process's destructors add none.
  EXPECT_EQ(runner.cleanup_log()->failure_count(), 1u);
  EXPECT_EQ(ExpandGlob(runner.base_fs(), "/l/datafusion-*/*").size(), 2u);
  // The new process can lock (and so reap) the dead one's directory.
  const std::vector<std::string> dirs = ExpandGlob(runner.base_fs(), "/l/datafusion-*");
  ASSERT_EQ(dirs.size(), 1u);
  EXPECT_TRUE(runner.fs().LockDir(dirs[0]).ok());
}

TEST_P(RunnerStepOnBothTest, TheLastReapsReportIsExposed) {
  StatusOr<std::unique_ptr<Runner>> created = Runner::Create(RunnerOptionsOn(GetParam()));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Runner& runner = **created;
  std::string message;
  for (const char* line :
       {"dir /l", "plan p /l", "spill f p", "crash", "plan q /l", "spill g q", "reap /l"}) {
    ASSERT_EQ(runner.Step(MustParseOne(line), &message), StepResult::kOk)
        << line << ": " << message;
  }
  EXPECT_TRUE(runner.last_outcome().ok());
  EXPECT_EQ(runner.last_reap().removed.size(), 1u);  // The dead process's directory ...
  EXPECT_EQ(runner.last_reap().live.size(), 1u);     // ... not the live one's.
  EXPECT_THAT(runner.last_reap().failures, IsEmpty());
}

TEST(RunnerStepTest, TheSameSeedGivesTheSameNames) {
  auto spill_path = [](uint64_t seed) {
    RunnerOptions options = RunnerOptionsOn(FsKind::kMem);
    options.seed = seed;
    StatusOr<std::unique_ptr<Runner>> runner = Runner::Create(options);
    EXPECT_TRUE(runner.ok());
    std::string message;
    for (const char* line : {"dir /l0", "dir /l1", "plan p /l0,/l1", "spill f p"}) {
      EXPECT_EQ((*runner)->Step(MustParseOne(line), &message), StepResult::kOk) << message;
    }
    return (*runner)->file("f")->path();
  };
  EXPECT_EQ(spill_path(7), spill_path(7));
  EXPECT_EQ(spill_path(8), spill_path(8));
}

}  // namespace
}  // namespace spillway::scenario
