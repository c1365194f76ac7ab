// PlanDiskManager beyond upstream: layout=each (a local dir's spill directory is made when
// the first file lands there) and failover (a file that a local dir cannot take goes to
// the next one). The defaults (kAll, no failover) are Comet's, tested in
// plan_disk_manager_test.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "spillway/spill/plan_disk_manager.h"
#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/glob.h"
#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/posix_file_system.h"
#include "support/spill_test_support.h"
#include "support/temp_dir.h"

namespace spillway {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::vector<std::string> LocalDirs(size_t n) {
  std::vector<std::string> dirs;
  dirs.reserve(n);
  for (size_t i = 0; i < n; ++i) dirs.push_back("/local" + std::to_string(i));
  return dirs;
}

class PlanDiskManagerLayoutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const std::string& dir : LocalDirs(8)) ASSERT_OK(mem_->CreateDir(dir));
  }

  static PlanDiskManagerOptions Options(size_t dirs, SpillDirLayout layout, bool failover) {
    PlanDiskManagerOptions options;
    options.spill.local_dirs = LocalDirs(dirs);
    options.spill.layout = layout;
    options.spill.failover = failover;
    options.spill.seed = 5;
    return options;
  }

  size_t Count(std::string_view glob) { return ExpandGlob(*mem_, glob).size(); }

  // The local dir ("/localN") a spill file is in.
  static std::string LocalDirOf(const SpillFile& file) {
    return file.path().substr(0, file.path().find('/', 1));
  }

  std::shared_ptr<MemFileSystem> mem_ = NewMemFileSystem(17);
  std::shared_ptr<FaultInjectingFileSystem> fs_ = NewFaultInjectingFileSystem(mem_);
};

TEST_F(PlanDiskManagerLayoutTest, DefaultsAreComets) {
  const PlanDiskManagerOptions options;
  EXPECT_EQ(options.spill.layout, SpillDirLayout::kAll);
  EXPECT_FALSE(options.spill.failover);
}

TEST_F(PlanDiskManagerLayoutTest, FirstSpillMakesOneMkdirAndOneCreateWhateverTheDirCount) {
  for (const size_t dirs : {1u, 4u, 8u}) {
    for (const SpillDirLayout layout : {SpillDirLayout::kAll, SpillDirLayout::kEach}) {
      SCOPED_TRACE(testing::Message() << dirs << " dirs, layout "
                                      << (layout == SpillDirLayout::kAll ? "all" : "each"));
      fs_->ResetCounters();
      ASSERT_OK_AND_ASSIGN(auto plan, NewPlanDiskManager(fs_, Options(dirs, layout, false)));
      std::optional<SpillFile> file;
      ASSERT_OK_AND_ASSIGN(file, plan->CreateTempFile("sort"));
      const uint64_t expected_dirs = layout == SpillDirLayout::kAll ? dirs : 1;
      EXPECT_EQ(fs_->calls(OpKind::kMkdir), expected_dirs);
      EXPECT_EQ(fs_->calls(OpKind::kCreate), 1u);
      EXPECT_EQ(Count("/local*/datafusion-*"), expected_dirs);
      EXPECT_EQ(plan->inner()->spill_dirs().size(), expected_dirs);
      plan.reset();
      file.reset();
      EXPECT_EQ(Count("/local*/datafusion-*"), 0u);
    }
  }
}

TEST_F(PlanDiskManagerLayoutTest, EachLayoutMakesADirOnlyWhereAFileLands) {
  ASSERT_OK_AND_ASSIGN(auto plan,
                       NewPlanDiskManager(fs_, Options(4, SpillDirLayout::kEach, false)));
  std::vector<SpillFile> files;
  std::set<std::string> landed;
  for (int i = 0; i < 6; ++i) {
    ASSERT_OK_AND_ASSIGN(SpillFile file, plan->CreateTempFile("sort"));
    landed.insert(LocalDirOf(file));
    files.push_back(std::move(file));
    // One directory per local dir that has received a file, and only there.
    EXPECT_EQ(Count("/local*/datafusion-*"), landed.size());
    for (const std::string& dir : landed) EXPECT_EQ(Count(dir + "/datafusion-*"), 1u);
  }
  ASSERT_GT(landed.size(), 1u) << "the seed should spread six files over several dirs";
  EXPECT_EQ(fs_->calls(OpKind::kMkdir), landed.size());

  // Every directory made goes once the plan and its files are gone, in any order.
  plan.reset();
  EXPECT_EQ(Count("/local*/datafusion-*"), landed.size());
  files.erase(files.begin());
  EXPECT_EQ(Count("/local*/datafusion-*"), landed.size());
  files.clear();
  EXPECT_EQ(Count("/local*/datafusion-*"), 0u);
  EXPECT_EQ(Count("/local*/*"), 0u);
}

TEST_F(PlanDiskManagerLayoutTest, EachLayoutMissingLocalDirIsCreatedWhereTheFileLands) {
  PlanDiskManagerOptions options = Options(1, SpillDirLayout::kEach, false);
  options.spill.local_dirs = {"/fresh"};
  ASSERT_OK_AND_ASSIGN(auto plan, NewPlanDiskManager(fs_, options));
  ASSERT_OK_AND_ASSIGN(SpillFile file, plan->CreateTempFile("sort"));
  EXPECT_THAT(file.path(), StartsWith("/fresh/datafusion-"));
}

TEST_F(PlanDiskManagerLayoutTest, WithoutFailoverAFullLocalDirFailsTheSpill) {
  ASSERT_OK_AND_ASSIGN(auto plan,
                       NewPlanDiskManager(fs_, Options(2, SpillDirLayout::kEach, false)));
  fs_->AddRule(Fail(OpKind::kCreate, ENOSPC, "/local0/*", std::nullopt));
  int failed = 0;
  for (int i = 0; i < 8; ++i) {
    StatusOr<SpillFile> file = plan->CreateTempFile("sort");
    if (file.ok()) {
      EXPECT_EQ(LocalDirOf(*file), "/local1");
      continue;
    }
    ++failed;
    EXPECT_TRUE(file.status().IsErrno(ENOSPC)) << file.status().ToString();
    EXPECT_EQ(file.status().message(), "No space left on device");  // Unchanged.
  }
  EXPECT_GT(failed, 0) << "the seed should choose /local0 at least once";
}

TEST_F(PlanDiskManagerLayoutTest, FailoverSendsFilesPastAFullLocalDirAndThenAvoidsIt) {
  for (const SpillDirLayout layout : {SpillDirLayout::kAll, SpillDirLayout::kEach}) {
    fs_->ClearFaults();
    fs_->ResetCounters();
    ASSERT_OK_AND_ASSIGN(auto plan, NewPlanDiskManager(fs_, Options(2, layout, true)));
    fs_->AddRule(Fail(OpKind::kCreate, ENOSPC, "/local0/*", std::nullopt));
    for (int i = 0; i < 8; ++i) {
      ASSERT_OK_AND_ASSIGN(SpillFile file, plan->CreateTempFile("sort"));
      EXPECT_EQ(LocalDirOf(file), "/local1");
    }
    // /local0 was tried once; every later file went straight to /local1.
    EXPECT_EQ(fs_->injected().size(), 1u);
    EXPECT_EQ(plan->spilling_progress().active_files_count, 0u);  // Files dropped.
  }
}

TEST_F(PlanDiskManagerLayoutTest, AnAvoidedLocalDirIsUsedAgainOnceTheOthersFail) {
  ASSERT_OK_AND_ASSIGN(auto plan, NewPlanDiskManager(fs_, Options(2, SpillDirLayout::kEach, true)));
  fs_->AddRule(Fail(OpKind::kCreate, EIO, "/local0/*", std::nullopt));
  std::vector<SpillFile> files;
  for (int i = 0; i < 4; ++i) {
    ASSERT_OK_AND_ASSIGN(SpillFile file, plan->CreateTempFile("sort"));
    files.push_back(std::move(file));
  }
  ASSERT_EQ(fs_->injected().size(), 1u) << "the seed should choose /local0 once";
  // /local0 recovers and /local1 fills up: files go back to /local0 and stay there.
  fs_->ClearFaults();
  fs_->AddRule(Fail(OpKind::kCreate, ENOSPC, "/local1/*", std::nullopt));
  for (int i = 0; i < 4; ++i) {
    ASSERT_OK_AND_ASSIGN(SpillFile file, plan->CreateTempFile("sort"));
    EXPECT_EQ(LocalDirOf(file), "/local0");
    files.push_back(std::move(file));
  }
  EXPECT_EQ(fs_->injected().size(), 2u);  // /local1 was tried once, then avoided.
  EXPECT_EQ(plan->spilling_progress().active_files_count, 8u);
}

TEST_F(PlanDiskManagerLayoutTest, AnErrnoThatSaysNothingOfTheDiskDoesNotMakeItAvoided) {
  ASSERT_OK_AND_ASSIGN(auto plan, NewPlanDiskManager(fs_, Options(2, SpillDirLayout::kEach, true)));
  fs_->AddRule(Fail(OpKind::kCreate, EACCES, "/local0/*", 1));
  std::set<std::string> landed;
  std::vector<SpillFile> files;
  for (int i = 0; i < 12; ++i) {
    ASSERT_OK_AND_ASSIGN(SpillFile file, plan->CreateTempFile("sort"));
    landed.insert(LocalDirOf(file));
    files.push_back(std::move(file));
  }
  ASSERT_EQ(fs_->injected().size(), 1u);
  EXPECT_TRUE(landed.contains("/local0")) << "later files still land in /local0";
}

TEST_F(PlanDiskManagerLayoutTest, WhenEveryLocalDirFailsTheErrorNamesEachDirAndErrno) {
  ASSERT_OK_AND_ASSIGN(auto plan, NewPlanDiskManager(fs_, Options(3, SpillDirLayout::kEach, true)));
  fs_->AddRule(Fail(OpKind::kMkdir, EROFS, "/local0", std::nullopt));
  fs_->AddRule(Fail(OpKind::kMkdir, EIO, "/local1", std::nullopt));
  fs_->AddRule(Fail(OpKind::kCreate, ENOSPC, "/local2/*", std::nullopt));
  StatusOr<SpillFile> file = plan->CreateTempFile("sort");
  ASSERT_FALSE(file.ok());
  const Status& error = file.status();
  EXPECT_THAT(error.message(), AllOf(HasSubstr("/local0 (EROFS)"), HasSubstr("/local1 (EIO)"),
                                     HasSubstr("/local2 (ENOSPC)")));
  // The error is the first local dir tried: the one the message names first.
  const std::string first = error.message().substr(error.message().find(": ") + 2, 7);
  EXPECT_THAT(error.path(), StartsWith(first));
  const int expected = first == "/local0" ? EROFS : first == "/local1" ? EIO : ENOSPC;
  EXPECT_TRUE(error.IsErrno(expected)) << error.ToString();
  EXPECT_EQ(error.code(), ErrnoToStatusCode(expected));
  // Only /local2's directory was made; it goes with the plan.
  EXPECT_EQ(Count("/local*/datafusion-*"), 1u);
  plan.reset();
  EXPECT_EQ(Count("/local*/datafusion-*"), 0u);
}

TEST_F(PlanDiskManagerLayoutTest, AllLayoutFailoverBuildsWithTheDirsThatCouldBeMade) {
  ASSERT_OK_AND_ASSIGN(auto plan, NewPlanDiskManager(fs_, Options(2, SpillDirLayout::kAll, true)));
  fs_->AddRule(Fail(OpKind::kMkdir, ENOSPC, "/local1", 1));
  std::vector<SpillFile> files;
  for (int i = 0; i < 4; ++i) {
    ASSERT_OK_AND_ASSIGN(SpillFile file, plan->CreateTempFile("sort"));
    EXPECT_EQ(LocalDirOf(file), "/local0");  // /local1 is avoided.
    files.push_back(std::move(file));
  }
  EXPECT_EQ(Count("/local1/datafusion-*"), 0u);
  // Once /local0 fails, /local1's directory is made by the file that lands there.
  fs_->AddRule(Fail(OpKind::kCreate, EIO, "/local0/*", std::nullopt));
  std::optional<SpillFile> moved;
  ASSERT_OK_AND_ASSIGN(moved, plan->CreateTempFile("sort"));
  EXPECT_EQ(LocalDirOf(*moved), "/local1");
  EXPECT_EQ(Count("/local*/datafusion-*"), 2u);
  plan.reset();
  files.clear();
  moved.reset();
  EXPECT_EQ(Count("/local*/datafusion-*"), 0u);
}

TEST_F(PlanDiskManagerLayoutTest, AllLayoutFailoverFailsOnlyWhenNoDirCanBeMade) {
  ASSERT_OK_AND_ASSIGN(auto plan, NewPlanDiskManager(fs_, Options(2, SpillDirLayout::kAll, true)));
  fs_->AddRule(Fail(OpKind::kMkdir, EACCES, "/local0", 1));
  fs_->AddRule(Fail(OpKind::kMkdir, ENOSPC, "/local1", 1));
  StatusOr<SpillFile> file = plan->CreateTempFile("sort");
  ASSERT_FALSE(file.ok());
  EXPECT_TRUE(file.status().IsErrno(EACCES));  // The build tries the local dirs in order.
  EXPECT_EQ(file.status().path(), "/local0");
  EXPECT_THAT(file.status().message(),
              HasSubstr("every local dir failed: /local0 (EACCES), /local1 (ENOSPC)"));
  EXPECT_EQ(plan->inner(), nullptr);
  ASSERT_OK_AND_ASSIGN(SpillFile again, plan->CreateTempFile("sort"));  // Faults spent.
  EXPECT_EQ(Count("/local*/datafusion-*"), 2u);
}

TEST_F(PlanDiskManagerLayoutTest, OtherModesRejectLayoutAndFailover) {
  DiskManagerOptions each;
  each.spill.layout = SpillDirLayout::kEach;
  EXPECT_EQ(NewDiskManager(fs_, each).status().code(), StatusCode::kInvalidArgument);
  DiskManagerOptions failover;
  failover.mode = DiskManagerMode::kDisabled;
  failover.spill.failover = true;
  EXPECT_EQ(NewDiskManager(fs_, failover).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(fs_->total_calls(), 0u);
}

TEST_F(PlanDiskManagerLayoutTest, EachLayoutBuildTouchesNothing) {
  ASSERT_OK_AND_ASSIGN(auto manager, DiskManagerBuilder()
                                         .WithDirectories(LocalDirs(8))
                                         .WithLayout(SpillDirLayout::kEach)
                                         .WithFailover(true)
                                         .Build(fs_));
  EXPECT_EQ(fs_->total_calls(), 0u);
  EXPECT_TRUE(manager->spill_dirs().empty());
}

// On a real disk: a local dir that is a file (ENOTDIR) is passed over, and each layout
// makes and removes exactly the directory it used.
TEST(PlanDiskManagerLayoutPosixTest, FailoverPassesOverAnUnusableLocalDir) {
  test_support::TempDir temp;
  ASSERT_FALSE(temp.path().empty()) << temp.error();
  std::shared_ptr<FileSystem> fs =
      NewPosixFileSystem(PosixFileSystemOptions{.root = temp.path(), .temp_dir = ""});
  ASSERT_OK(fs->CreateDir("/good"));
  ASSERT_OK_AND_ASSIGN(auto blocker, fs->CreateFile("/bad"));
  ASSERT_OK(blocker->Close());
  PlanDiskManagerOptions options;
  options.spill.local_dirs = {"/bad", "/good"};
  options.spill.layout = SpillDirLayout::kEach;
  options.spill.failover = true;
  options.spill.seed = 5;
  ASSERT_OK_AND_ASSIGN(auto plan, NewPlanDiskManager(fs, options));
  std::vector<SpillFile> files;
  for (int i = 0; i < 4; ++i) {
    ASSERT_OK_AND_ASSIGN(SpillFile file, plan->CreateTempFile("sort"));
    EXPECT_THAT(file.path(), StartsWith("/good/datafusion-"));
    files.push_back(std::move(file));
  }
  EXPECT_EQ(ExpandGlob(*fs, "/good/datafusion-*").size(), 1u);
  plan.reset();
  files.clear();
  EXPECT_EQ(ExpandGlob(*fs, "/good/*").size(), 0u);
}

}  // namespace
}  // namespace spillway
