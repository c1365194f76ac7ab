// PlanDiskManager: the behaviour Comet PR #7066 promises (lazy per-plan directories, a
// per-plan limit, the same cleanup) and the review threads asked about (unusable local
// dirs, tmp cleaners, shuffle files kept open across batches).
#include "spillway/spill/plan_disk_manager.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "spillway/spill/spill_writer.h"
#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/glob.h"
#include "spillway/vfs/mem_file_system.h"
#include "support/spill_test_support.h"

namespace spillway {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;

class PlanDiskManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(mem_->CreateDir("/local0"));
    ASSERT_OK(mem_->CreateDir("/local1"));
  }

  PlanDiskManagerOptions Options(uint64_t limit = kDefaultMaxTempDirectorySize) {
    PlanDiskManagerOptions options;
    options.spill.local_dirs = {"/local0", "/local1"};
    options.spill.max_temp_directory_size = limit;
    options.spill.limit_config_key = "spark.comet.maxTempDirectorySize";
    options.spill.seed = 5;
    return options;
  }

  size_t Count(std::string_view glob) { return ExpandGlob(*mem_, glob).size(); }

  std::shared_ptr<MemFileSystem> mem_ = NewMemFileSystem(17);
  std::shared_ptr<FaultInjectingFileSystem> fs_ = NewFaultInjectingFileSystem(mem_);
};

TEST_F(PlanDiskManagerTest, RejectsBadOptionsWithoutTouchingTheFileSystem) {
  PlanDiskManagerOptions none = Options();
  none.spill.local_dirs.clear();
  EXPECT_EQ(NewPlanDiskManager(fs_, none).status().code(), StatusCode::kInvalidArgument);

  PlanDiskManagerOptions bad_path = Options();
  bad_path.spill.local_dirs = {"/local0", "/local1/"};
  StatusOr<std::shared_ptr<PlanDiskManager>> plan = NewPlanDiskManager(fs_, bad_path);
  EXPECT_EQ(plan.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(plan.status().message(), ::testing::HasSubstr("/local1/"));

  EXPECT_EQ(NewPlanDiskManager(nullptr, Options()).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(fs_->total_calls(), 0u);
}

TEST_F(PlanDiskManagerTest, PlanThatDoesNotSpillMakesZeroFileSystemCalls) {
  {
    ASSERT_OK_AND_ASSIGN(auto plan, NewPlanDiskManager(fs_, Options(10)));
    EXPECT_TRUE(plan->tmp_files_enabled());
    EXPECT_EQ(plan->used_disk_space(), 0u);
    EXPECT_EQ(plan->spilling_progress(), SpillingProgress{});
    EXPECT_EQ(plan->max_temp_directory_size(), 10u);
    ASSERT_OK(plan->SetMaxTempDirectorySize(20));
    EXPECT_EQ(plan->max_temp_directory_size(), 20u);
    EXPECT_EQ(plan->inner(), nullptr);
    EXPECT_EQ(plan->cleanup_log()->failure_count(), 0u);
  }
  EXPECT_EQ(fs_->total_calls(), 0u);
  EXPECT_EQ(Count("/local*/*"), 0u);
}

TEST_F(PlanDiskManagerTest, DirectoriesAreCreatedOnTheFirstSpillAndReusedByLaterOnes) {
  ASSERT_OK_AND_ASSIGN(auto plan, NewPlanDiskManager(fs_, Options()));
  EXPECT_EQ(Count("/local*/datafusion-*"), 0u);

  ASSERT_OK_AND_ASSIGN(SpillFile first, plan->CreateTempFile("sort"));
  ASSERT_NE(plan->inner(), nullptr);
  const std::vector<std::string> dirs = plan->inner()->spill_dirs();
  ASSERT_THAT(dirs, SizeIs(2));
  EXPECT_THAT(dirs[0], StartsWith("/local0/datafusion-"));
  EXPECT_THAT(dirs[1], StartsWith("/local1/datafusion-"));
  EXPECT_THAT(dirs, ::testing::Contains(ParentPath(first.path())));
  EXPECT_THAT(BaseName(first.path()), StartsWith(".tmp.sort."));

  const std::shared_ptr<DiskManager> inner = plan->inner();
  std::vector<SpillFile> later;
  for (int i = 0; i < 8; ++i) {
    ASSERT_OK_AND_ASSIGN(SpillFile file, plan->CreateTempFile("sort"));
    EXPECT_THAT(dirs, ::testing::Contains(ParentPath(file.path())));
    later.push_back(file);
  }
  EXPECT_EQ(plan->inner(), inner);  // One inner manager for the plan's whole life.
  EXPECT_EQ(Count("/local*/datafusion-*"), 2u);
  EXPECT_EQ(plan->spilling_progress().active_files_count, 9u);
}

TEST_F(PlanDiskManagerTest, DirectoriesAreRemovedOncePlanAndFilesAreDropped) {
  ASSERT_OK_AND_ASSIGN(auto plan, NewPlanDiskManager(fs_, Options()));
  ASSERT_OK_AND_ASSIGN(std::optional<SpillFile> file, plan->CreateTempFile("sort"));
  ASSERT_OK(SpillWriter(*file).Write("batch"));
  const std::string path = file->path();
  const std::shared_ptr<CleanupLog> log = plan->cleanup_log();

  plan.reset();  // The file outlives its plan.
  EXPECT_TRUE(mem_->Exists(path));
  EXPECT_EQ(Count("/local*/datafusion-*"), 2u);
  EXPECT_EQ(Count("/local*/datafusion-*/*"), 1u);
  ASSERT_OK(SpillWriter(*file).Write("more"));

  file.reset();
  EXPECT_EQ(Count("/local*/*"), 0u);
  EXPECT_EQ(log->failure_count(), 0u);
  EXPECT_TRUE(mem_->Exists("/local0"));
}

TEST_F(PlanDiskManagerTest, EachPlanHasItsOwnDirectoriesAndLimit) {
  ASSERT_OK_AND_ASSIGN(auto plan1, NewPlanDiskManager(fs_, Options(10)));
  ASSERT_OK_AND_ASSIGN(auto plan2, NewPlanDiskManager(fs_, Options(10)));
  ASSERT_OK_AND_ASSIGN(SpillFile file1, plan1->CreateTempFile("sort"));
  ASSERT_OK_AND_ASSIGN(SpillFile file2, plan2->CreateTempFile("sort"));
  SpillWriter writer1(file1), writer2(file2);

  ASSERT_OK(writer1.Write(std::string(8, 'x')));
  Status over = writer1.Write(std::string(8, 'x'));
  EXPECT_TRUE(IsLimitExceeded(over));
  EXPECT_THAT(over.message(), ::testing::HasSubstr("spark.comet.maxTempDirectorySize"));
  EXPECT_OK(writer2.Write(std::string(8, 'x')));  // The other plan's budget is its own.
  EXPECT_EQ(plan1->used_disk_space(), 8u);
  EXPECT_EQ(plan2->used_disk_space(), 8u);

  const std::vector<std::string> dirs1 = plan1->inner()->spill_dirs();
  const std::vector<std::string> dirs2 = plan2->inner()->spill_dirs();
  EXPECT_NE(dirs1[0], dirs2[0]);
  EXPECT_NE(dirs1[1], dirs2[1]);
  EXPECT_EQ(Count("/local*/datafusion-*"), 4u);
}

TEST_F(PlanDiskManagerTest, LimitSetBeforeTheFirstSpillApplies) {
  ASSERT_OK_AND_ASSIGN(auto plan, NewPlanDiskManager(fs_, Options(100)));
  ASSERT_OK(plan->SetMaxTempDirectorySize(4));
  ASSERT_OK_AND_ASSIGN(SpillFile file, plan->CreateTempFile("sort"));
  EXPECT_EQ(plan->inner()->max_temp_directory_size(), 4u);
  EXPECT_TRUE(IsLimitExceeded(SpillWriter(file).Write(std::string(5, 'x'))));

  // And one set afterwards is forwarded to the inner manager.
  ASSERT_OK(plan->SetMaxTempDirectorySize(5));
  EXPECT_EQ(plan->max_temp_directory_size(), 5u);
  EXPECT_EQ(plan->inner()->max_temp_directory_size(), 5u);
  EXPECT_OK(SpillWriter(file).Write(std::string(5, 'x')));
  EXPECT_EQ(plan->used_disk_space(), 5u);
  EXPECT_EQ(plan->spilling_progress(), (SpillingProgress{5, 1}));
}

TEST_F(PlanDiskManagerTest, LocalDirThatIsAFileFailsTheFirstSpillNotTheBuild) {
  ASSERT_OK(mem_->CreateDir("/bad"));
  ASSERT_OK_AND_ASSIGN(auto blocker, mem_->CreateFile("/bad/local"));
  ASSERT_OK(blocker->Close());
  PlanDiskManagerOptions options = Options();
  options.spill.local_dirs = {"/local0", "/bad/local"};
  ASSERT_OK_AND_ASSIGN(auto plan, NewPlanDiskManager(fs_, options));

  StatusOr<SpillFile> file = plan->CreateTempFile("sort");
  ASSERT_FALSE(file.ok());
  EXPECT_TRUE(file.status().IsErrno(ENOTDIR)) << file.status().ToString();
  EXPECT_THAT(file.status().path(), StartsWith("/bad/local"));
  EXPECT_EQ(plan->inner(), nullptr);
  // The spill dir already made in /local0 was removed again.
  EXPECT_EQ(Count("/local0/*"), 0u);
  EXPECT_EQ(plan->cleanup_log()->failure_count(), 0u);

  // Once the cause is fixed, the next spill works.
  ASSERT_OK(mem_->RemoveFile("/bad/local"));
  ASSERT_OK(mem_->CreateDir("/bad/local"));
  ASSERT_OK_AND_ASSIGN(SpillFile again, plan->CreateTempFile("sort"));
  EXPECT_EQ(Count("/local0/datafusion-*"), 1u);
  EXPECT_EQ(Count("/bad/local/datafusion-*"), 1u);
}

TEST_F(PlanDiskManagerTest, InjectedEACCESFailsTheFirstSpillWithItsPathAndLeavesNothing) {
  ASSERT_OK_AND_ASSIGN(auto plan, NewPlanDiskManager(fs_, Options()));
  fs_->AddRule(Fail(OpKind::kMkdir, EACCES, "/local1"));
  StatusOr<SpillFile> file = plan->CreateTempFile("sort");
  ASSERT_FALSE(file.ok());
  EXPECT_TRUE(file.status().IsErrno(EACCES)) << file.status().ToString();
  EXPECT_EQ(file.status().path(), "/local1");
  EXPECT_EQ(Count("/local*/datafusion-*"), 0u);
  EXPECT_EQ(plan->used_disk_space(), 0u);

  ASSERT_OK_AND_ASSIGN(SpillFile again, plan->CreateTempFile("sort"));  // Fault spent.
  EXPECT_EQ(Count("/local*/datafusion-*"), 2u);
}

TEST_F(PlanDiskManagerTest, MissingLocalDirIsCreatedByTheFirstSpill) {
  PlanDiskManagerOptions options = Options();
  options.spill.local_dirs = {"/fresh"};
  ASSERT_OK_AND_ASSIGN(auto plan, NewPlanDiskManager(fs_, options));
  EXPECT_FALSE(mem_->Exists("/fresh"));
  ASSERT_OK_AND_ASSIGN(SpillFile file, plan->CreateTempFile("sort"));
  EXPECT_THAT(file.path(), StartsWith("/fresh/datafusion-"));
}

// The review of the PR asked for this: a shuffle writer keeps one spill file open across
// batches.
TEST_F(PlanDiskManagerTest, ShuffleFileKeptOpenAcrossBatches) {
  ASSERT_OK_AND_ASSIGN(auto plan, NewPlanDiskManager(fs_, Options(10)));
  ASSERT_OK_AND_ASSIGN(std::optional<SpillFile> file, plan->CreateTempFile("shuffle writer spill"));
  EXPECT_FALSE(file->path().empty());
  EXPECT_THAT(BaseName(file->path()), StartsWith(".tmp.shuffle_writer_spill."));
  std::optional<SpillWriter> writer(std::in_place, *file);

  ASSERT_OK(writer->Write("batch"));  // 5
  ASSERT_OK(writer->Write("bat"));    // 8
  EXPECT_EQ(plan->used_disk_space(), 8u);
  EXPECT_TRUE(IsLimitExceeded(writer->Write("bat")));  // 11 > 10
  EXPECT_EQ(plan->used_disk_space(), 8u);
  ASSERT_OK(writer->Write("ba"));  // 10: exactly the limit.
  EXPECT_EQ(file->size(), 10u);

  const std::string path = file->path();
  writer.reset();
  file.reset();
  EXPECT_FALSE(mem_->Exists(path));
  EXPECT_EQ(plan->used_disk_space(), 0u);
  EXPECT_EQ(plan->cleanup_log()->failure_count(), 0u);
}

TEST_F(PlanDiskManagerTest, ShuffleFileStaysWritableAfterACleanerUnlinkedIt) {
  ASSERT_OK_AND_ASSIGN(auto plan, NewPlanDiskManager(fs_, Options(10)));
  ASSERT_OK_AND_ASSIGN(std::optional<SpillFile> file, plan->CreateTempFile("shuffle"));
  SpillWriter writer(*file);
  ASSERT_OK(writer.Write("abcd"));
  ASSERT_OK(fs_->RemoveTreeFromOutside(file->path()));
  ASSERT_OK(writer.Write("efgh"));
  EXPECT_EQ(plan->used_disk_space(), 8u);
  EXPECT_TRUE(IsLimitExceeded(writer.Write("ijk")));
}

TEST_F(PlanDiskManagerTest, FailPolicyReturnsENOENTAfterACleanerRemovedTheSpillDir) {
  PlanDiskManagerOptions options = Options();
  options.spill.local_dirs = {"/local0"};
  ASSERT_OK_AND_ASSIGN(auto plan, NewPlanDiskManager(fs_, options));
  ASSERT_OK_AND_ASSIGN(SpillFile first, plan->CreateTempFile("sort"));
  const std::string dir = ParentPath(first.path());
  ASSERT_OK(fs_->RemoveTreeFromOutside(dir));

  StatusOr<SpillFile> file = plan->CreateTempFile("sort");
  ASSERT_FALSE(file.ok());
  EXPECT_TRUE(file.status().IsErrno(ENOENT)) << file.status().ToString();
  EXPECT_EQ(file.status().path(), dir);

  // Only this plan is affected: a new plan makes its own directory.
  ASSERT_OK_AND_ASSIGN(auto next, NewPlanDiskManager(fs_, options));
  ASSERT_OK_AND_ASSIGN(SpillFile fine, next->CreateTempFile("sort"));
  EXPECT_NE(ParentPath(fine.path()), dir);
}

TEST_F(PlanDiskManagerTest, RecreatePolicyMakesANewSpillDirAfterACleanerRemovedIt) {
  PlanDiskManagerOptions options = Options();
  options.spill.local_dirs = {"/local0"};
  options.spill.missing_dir = MissingDirPolicy::kRecreate;
  ASSERT_OK_AND_ASSIGN(auto plan, NewPlanDiskManager(fs_, options));
  ASSERT_OK_AND_ASSIGN(std::optional<SpillFile> first, plan->CreateTempFile("sort"));
  const std::string old_dir = ParentPath(first->path());
  ASSERT_OK(fs_->RemoveTreeFromOutside(old_dir));

  ASSERT_OK_AND_ASSIGN(SpillFile second, plan->CreateTempFile("sort"));
  EXPECT_THAT(second.path(), StartsWith("/local0/datafusion-"));
  EXPECT_NE(ParentPath(second.path()), old_dir);
  EXPECT_OK(SpillWriter(*first).Write("old handle"));  // Unlinked, still writable.

  first.reset();
  // The cleaner's removals show up as ENOENT for the old file and the old directory, and
  // neither is left behind: both are gone.
  const std::vector<Status> failures = plan->cleanup_log()->failures();
  ASSERT_THAT(failures, SizeIs(2));
  EXPECT_TRUE(failures[0].IsErrno(ENOENT));
  EXPECT_TRUE(failures[1].IsErrno(ENOENT));
  EXPECT_EQ(failures[1].path(), old_dir);
  EXPECT_THAT(plan->cleanup_log()->left_behind(), IsEmpty());
  plan.reset();
  EXPECT_TRUE(mem_->Exists(ParentPath(second.path())));
}

TEST_F(PlanDiskManagerTest, CleanupFailuresAreRecordedWithTheirPaths) {
  auto log = std::make_shared<CleanupLog>();
  PlanDiskManagerOptions options = Options();
  options.spill.cleanup_log = log;
  ASSERT_OK_AND_ASSIGN(auto plan, NewPlanDiskManager(fs_, options));
  EXPECT_EQ(plan->cleanup_log(), log);
  ASSERT_OK_AND_ASSIGN(std::optional<SpillFile> file, plan->CreateTempFile("sort"));
  const std::string path = file->path();
  const std::string dir = ParentPath(path);
  // The file cannot be removed: not by its own cleanup, and not by its directory's
  // removal, which then cannot remove the directory either.
  fs_->AddRule(Fail(OpKind::kRemove, EPERM, path, std::nullopt));
  file.reset();
  plan.reset();
  EXPECT_TRUE(mem_->Exists(path));
  const std::vector<Status> failures = log->failures();
  ASSERT_THAT(failures, SizeIs(3));
  EXPECT_TRUE(failures[0].IsErrno(EPERM));
  EXPECT_EQ(failures[0].path(), path);  // The file's own removal.
  EXPECT_TRUE(failures[1].IsErrno(EPERM));
  EXPECT_EQ(failures[1].path(), path);  // The directory's removal tried it again.
  EXPECT_TRUE(failures[2].IsErrno(ENOTEMPTY));
  EXPECT_EQ(failures[2].path(), dir);
  EXPECT_THAT(log->left_behind(), ElementsAre(path, path, dir));
  EXPECT_EQ(Count("/local*/datafusion-*"), 1u);  // The other local dir's went.
  EXPECT_TRUE(mem_->Exists(dir));
}

TEST_F(PlanDiskManagerTest, FactoryRejectsBadOptionsWithoutTouchingTheFileSystem) {
  PlanDiskManagerOptions none = Options();
  none.spill.local_dirs.clear();
  EXPECT_EQ(NewPlanDiskManagerFactory(fs_, none).status().code(), StatusCode::kInvalidArgument);

  PlanDiskManagerOptions bad_path = Options();
  bad_path.spill.local_dirs = {"/local0", "local1"};
  StatusOr<PlanDiskManagerFactory> factory = NewPlanDiskManagerFactory(fs_, bad_path);
  EXPECT_EQ(factory.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(factory.status().message(), ::testing::HasSubstr("local1"));

  EXPECT_EQ(NewPlanDiskManagerFactory(nullptr, Options()).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(fs_->total_calls(), 0u);
}

// A factory declares no move: moving one copies it, so the factory moved from still makes
// plans (it is never left empty).
TEST_F(PlanDiskManagerTest, AFactoryMovedFromStillMakesPlans) {
  ASSERT_OK_AND_ASSIGN(PlanDiskManagerFactory factory,
                       NewPlanDiskManagerFactory(fs_, Options(100)));
  // A factory has no move constructor or assignment: these std::moves copy, on purpose.
  PlanDiskManagerFactory constructed = std::move(factory);  // NOLINT(performance-move-const-arg)
  ASSERT_OK_AND_ASSIGN(PlanDiskManagerFactory assigned, NewPlanDiskManagerFactory(fs_, Options(7)));
  assigned = std::move(constructed);  // NOLINT(performance-move-const-arg)
  // Every factory, the ones moved from included, makes working plans from the options.
  // NOLINTNEXTLINE(bugprone-use-after-move): using the factories moved from is the point.
  for (const PlanDiskManagerFactory* f : {&factory, &constructed, &assigned}) {
    EXPECT_EQ(f->options().spill.local_dirs, Options().spill.local_dirs);
    ASSERT_OK_AND_ASSIGN(auto plan, f->NewPlan());
    EXPECT_EQ(plan->max_temp_directory_size(), 100u);
    ASSERT_OK_AND_ASSIGN(SpillFile file, plan->CreateTempFile("sort"));
    EXPECT_OK(SpillWriter(file).Write("abc"));
    EXPECT_EQ(plan->used_disk_space(), 3u);
  }
}

TEST_F(PlanDiskManagerTest, PlansFromOneFactoryHaveTheirOwnDirectoriesLimitsAndLogs) {
  ASSERT_OK_AND_ASSIGN(PlanDiskManagerFactory factory,
                       NewPlanDiskManagerFactory(fs_, Options(100)));
  EXPECT_EQ(factory.options().spill.local_dirs, Options().spill.local_dirs);
  ASSERT_OK_AND_ASSIGN(auto a, factory.NewPlan());
  ASSERT_OK_AND_ASSIGN(auto b, factory.NewPlan());
  EXPECT_EQ(fs_->total_calls(), 0u);

  ASSERT_OK(a->SetMaxTempDirectorySize(10));
  EXPECT_EQ(b->max_temp_directory_size(), 100u);
  ASSERT_OK_AND_ASSIGN(SpillFile fa, a->CreateTempFile("sort"));
  ASSERT_OK_AND_ASSIGN(SpillFile fb, b->CreateTempFile("sort"));
  EXPECT_EQ(Count("/local*/datafusion-*"), 4u);
  EXPECT_NE(ParentPath(fa.path()), ParentPath(fb.path()));
  EXPECT_TRUE(IsLimitExceeded(SpillWriter(fa).Write(std::string(11, 'x'))));
  EXPECT_OK(SpillWriter(fb).Write(std::string(11, 'x')));
  EXPECT_EQ(b->used_disk_space(), 11u);
  EXPECT_NE(a->cleanup_log(), b->cleanup_log());

  const std::string a_dir = ParentPath(fa.path());
  { SpillFile dropped = std::move(fa); }
  a.reset();
  EXPECT_FALSE(mem_->Exists(a_dir));
  EXPECT_EQ(Count("/local*/datafusion-*"), 2u);
  EXPECT_TRUE(mem_->Exists(fb.path()));
}

TEST_F(PlanDiskManagerTest, PlanOutlivesItsFactory) {
  std::shared_ptr<PlanDiskManager> plan;
  {
    ASSERT_OK_AND_ASSIGN(PlanDiskManagerFactory factory, NewPlanDiskManagerFactory(fs_, Options()));
    ASSERT_OK_AND_ASSIGN(plan, factory.NewPlan());
  }
  {
    ASSERT_OK_AND_ASSIGN(SpillFile file, plan->CreateTempFile("sort"));
    EXPECT_OK(SpillWriter(file).Write("abc"));
    EXPECT_EQ(plan->used_disk_space(), 3u);
  }
  plan.reset();
  EXPECT_EQ(Count("/local*/*"), 0u);
}

// Without a log in the options, the plan's own log (made at its first spill) is the one
// its inner manager records into, and the one cleanup_log() returns afterwards.
TEST_F(PlanDiskManagerTest, OwnLogMadeAtTheFirstSpillReceivesItsCleanupFailures) {
  ASSERT_OK_AND_ASSIGN(auto plan, NewPlanDiskManager(fs_, Options()));
  std::string path;
  {
    ASSERT_OK_AND_ASSIGN(SpillFile file, plan->CreateTempFile("sort"));
    path = file.path();
    fs_->AddRule(Fail(OpKind::kRemove, EPERM, path, std::nullopt));
  }
  ASSERT_THAT(plan->cleanup_log()->failures(), SizeIs(1));
  EXPECT_TRUE(plan->cleanup_log()->failures()[0].IsErrno(EPERM));
  EXPECT_EQ(plan->cleanup_log()->failures()[0].path(), path);
  EXPECT_EQ(plan->cleanup_log(), plan->inner()->cleanup_log());
}

}  // namespace
}  // namespace spillway
