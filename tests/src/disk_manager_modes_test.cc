// DiskManager's modes: DataFusion's disk_manager tests, ported in spirit, for building in
// each mode (and failing to), and the disabled and custom modes. Upstream's tests ported
// with their own expected values are in upstream_port_test.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "spillway/spill/disk_manager.h"
#include "spillway/spill/spill_writer.h"
#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/mem_file_system.h"
#include "support/disk_manager_fixture.h"
#include "support/spill_test_support.h"

namespace spillway {
namespace {

// Interfaces are used through pointers; a copy would slice.
static_assert(!std::is_copy_constructible_v<SpillManager>);
static_assert(!std::is_copy_assignable_v<SpillManager>);
static_assert(!std::is_copy_constructible_v<TempFileFactory>);
static_assert(!std::is_copy_assignable_v<TempFileFactory>);

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;

// ---------------------------------------------------------------------------------------
// Building

TEST_F(DiskManagerTest, RejectsOptionsInconsistentWithTheMode) {
  DiskManagerOptions no_dirs;
  no_dirs.mode = DiskManagerMode::kDirectories;
  EXPECT_EQ(NewDiskManager(fs_, no_dirs).status().code(), StatusCode::kInvalidArgument);

  DiskManagerOptions relative;
  relative.mode = DiskManagerMode::kDirectories;
  relative.spill.local_dirs = {"local0"};
  EXPECT_EQ(NewDiskManager(fs_, relative).status().code(), StatusCode::kInvalidArgument);

  DiskManagerOptions no_factory;
  no_factory.mode = DiskManagerMode::kCustom;
  EXPECT_EQ(NewDiskManager(fs_, no_factory).status().code(), StatusCode::kInvalidArgument);

  DiskManagerOptions dirs_for_os_tmp;
  dirs_for_os_tmp.spill.local_dirs = {"/local0"};
  EXPECT_EQ(NewDiskManager(fs_, dirs_for_os_tmp).status().code(), StatusCode::kInvalidArgument);

  EXPECT_EQ(NewDiskManager(nullptr, {}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(fs_->total_calls(), 0u);  // Nothing was attempted.
}

TEST_F(DiskManagerTest, BuilderKeepsOnlyTheLastModeChosen) {
  DiskManagerBuilder builder;
  builder.WithDirectories({"/local0"}).WithOsTmpDirectory();
  EXPECT_EQ(builder.options().mode, DiskManagerMode::kOsTmpDirectory);
  EXPECT_THAT(builder.options().spill.local_dirs, IsEmpty());
  ASSERT_OK_AND_ASSIGN(auto dm, builder.Build(fs_));
  EXPECT_EQ(dm->mode(), DiskManagerMode::kOsTmpDirectory);
}

// Upstream: lazy_temp_dir_creation (disk_manager.rs at 02ee6daeb0cf).
TEST_F(DiskManagerTest, LazyTempDirCreation) {
  ASSERT_OK_AND_ASSIGN(auto dm, DiskManagerBuilder().Build(fs_));
  EXPECT_THAT(dm->spill_dirs(), IsEmpty());
  EXPECT_EQ(Count("/tmp/*"), 0u);
  EXPECT_EQ(fs_->total_calls(), 0u);

  ASSERT_OK_AND_ASSIGN(SpillFile file, dm->CreateTempFile("Testing"));
  ASSERT_THAT(dm->spill_dirs(), SizeIs(1));
  const std::string dir = dm->spill_dirs()[0];
  EXPECT_THAT(dir, StartsWith(fs_->TempDir() + "/.tmp"));  // tempfile::tempdir()'s name.
  EXPECT_EQ(ParentPath(file.path()), dir);
  EXPECT_TRUE(mem_->Exists(file.path()));

  // Later files reuse the directory.
  ASSERT_OK_AND_ASSIGN(SpillFile second, dm->CreateTempFile("Testing"));
  EXPECT_EQ(ParentPath(second.path()), dir);
  EXPECT_EQ(Count("/tmp/.tmp*"), 1u);
}

// Upstream: test_disk_manager_create_spill_folder (disk_manager.rs at 02ee6daeb0cf).
TEST_F(DiskManagerTest, DiskManagerCreateSpillFolder) {
  ASSERT_OK_AND_ASSIGN(auto dm, BuildDirectories(3));
  const std::vector<std::string> dirs = dm->spill_dirs();
  ASSERT_THAT(dirs, SizeIs(3));
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(ParentPath(dirs[i]), "/local" + std::to_string(i));
    EXPECT_THAT(BaseName(dirs[i]), StartsWith(kSpillDirPrefix));
    StatusOr<FileStat> stat = mem_->Stat(dirs[i]);
    ASSERT_TRUE(stat.ok());
    EXPECT_EQ(stat->type, FileType::kDirectory);
    EXPECT_EQ(stat->mode, 0700u);
  }
  dm.reset();
  EXPECT_EQ(Count("/local*/*"), 0u);     // Removed with the manager.
  EXPECT_TRUE(mem_->Exists("/local0"));  // The local dirs are the executor's: they stay.
}

// The file's name is upstream's (upstream_port_test.cc); here, where it is and its mode.
TEST_F(DiskManagerTest, FileIsInOneOfTheSpillDirsAndOnlyItsOwnerMayUseIt) {
  ASSERT_OK_AND_ASSIGN(auto dm, BuildDirectories(3));
  ASSERT_OK_AND_ASSIGN(SpillFile file, dm->CreateTempFile("sort"));
  const std::vector<std::string> dirs = dm->spill_dirs();
  EXPECT_THAT(dirs, ::testing::Contains(ParentPath(file.path())));
  StatusOr<FileStat> stat = mem_->Stat(file.path());
  ASSERT_TRUE(stat.ok());
  EXPECT_EQ(stat->mode, 0600u);
}

TEST_F(DiskManagerTest, FilesAreSpreadOverTheSpillDirsReproduciblyFromTheSeed) {
  auto choices = [&](uint64_t seed) {
    auto dm =
        DiskManagerBuilder().WithDirectories({"/local0", "/local1"}).WithSeed(seed).Build(fs_);
    EXPECT_TRUE(dm.ok());
    std::vector<std::string> parents;
    for (int i = 0; i < 32; ++i) {
      StatusOr<SpillFile> file = (*dm)->CreateTempFile("sort");
      EXPECT_TRUE(file.ok());
      if (file.ok()) parents.push_back(ParentPath(ParentPath(file->path())));
    }
    return parents;
  };
  MakeDir("/local0");
  MakeDir("/local1");
  const std::vector<std::string> first = choices(42);
  EXPECT_EQ(std::set<std::string>(first.begin(), first.end()),
            (std::set<std::string>{"/local0", "/local1"}));
  EXPECT_EQ(choices(42), first);
}

TEST_F(DiskManagerTest, MissingLocalDirIsCreatedOneLevelDeep) {
  ASSERT_OK_AND_ASSIGN(auto dm, DiskManagerBuilder().WithDirectories({"/spark-local"}).Build(fs_));
  EXPECT_TRUE(mem_->Exists("/spark-local"));
  EXPECT_EQ(Count("/spark-local/datafusion-*"), 1u);

  StatusOr<std::shared_ptr<DiskManager>> deep =
      DiskManagerBuilder().WithDirectories({"/no/such/parent"}).Build(fs_);
  ASSERT_FALSE(deep.ok());
  EXPECT_TRUE(deep.status().IsErrno(ENOENT)) << deep.status().ToString();
  EXPECT_EQ(deep.status().path(), "/no/such/parent");
}

TEST_F(DiskManagerTest, FailedBuildRemovesTheSpillDirsItMadeAndReportsErrnoAndPath) {
  MakeDir("/local0");
  ASSERT_OK(mem_->CreateDir("/local1"));
  // The second local dir's spill directory cannot be made.
  fs_->AddRule(Fail(OpKind::kMkdir, EACCES, "/local1"));
  StatusOr<std::shared_ptr<DiskManager>> dm =
      DiskManagerBuilder().WithDirectories({"/local0", "/local1"}).Build(fs_);
  ASSERT_FALSE(dm.ok());
  EXPECT_TRUE(dm.status().IsErrno(EACCES)) << dm.status().ToString();
  EXPECT_EQ(dm.status().path(), "/local1");
  EXPECT_EQ(Count("/local*/*"), 0u);
  EXPECT_TRUE(mem_->Exists("/local0"));
  EXPECT_TRUE(mem_->Exists("/local1"));
}

TEST_F(DiskManagerTest, LocalDirThatIsARegularFileFailsTheBuild) {
  ASSERT_OK_AND_ASSIGN(auto blocker, mem_->CreateFile("/local0"));
  StatusOr<std::shared_ptr<DiskManager>> dm =
      DiskManagerBuilder().WithDirectories({"/local0"}).Build(fs_);
  ASSERT_FALSE(dm.ok());
  EXPECT_TRUE(dm.status().IsErrno(ENOTDIR)) << dm.status().ToString();
  EXPECT_THAT(dm.status().path(), StartsWith("/local0"));
}

// ---------------------------------------------------------------------------------------
// Disabled and custom modes

TEST_F(DiskManagerTest, DisabledManagerNamesWhatCouldNotBeSpilled) {
  ASSERT_OK_AND_ASSIGN(auto dm, DiskManagerBuilder().WithDisabled().Build(fs_));
  EXPECT_FALSE(dm->tmp_files_enabled());
  EXPECT_EQ(dm->max_temp_directory_size(), 0u);
  StatusOr<SpillFile> file = dm->CreateTempFile("external sort");
  ASSERT_FALSE(file.ok());
  EXPECT_TRUE(IsDisabled(file.status()));
  EXPECT_THAT(file.status().message(),
              AllOf(HasSubstr("external sort"), HasSubstr("DiskManager is disabled")));
  EXPECT_EQ(fs_->total_calls(), 0u);
}

TEST_F(DiskManagerTest, DisabledManagerAcceptsOnlyAZeroLimit) {
  ASSERT_OK_AND_ASSIGN(auto dm, DiskManagerBuilder().WithDisabled().Build(fs_));
  EXPECT_TRUE(IsDisabled(dm->SetMaxTempDirectorySize(1024)));
  EXPECT_EQ(dm->max_temp_directory_size(), 0u);
  EXPECT_OK(dm->SetMaxTempDirectorySize(0));
}

// A factory that makes its files through another manager, as Comet's plan factory does.
class DelegatingFactory final : public TempFileFactory {
 public:
  explicit DelegatingFactory(std::shared_ptr<DiskManager> target) : target_(std::move(target)) {}
  StatusOr<SpillFile> CreateTempFile(std::string_view description) override {
    descriptions_.emplace_back(description);
    return target_->CreateTempFile(description);
  }
  const std::vector<std::string>& descriptions() const { return descriptions_; }

 private:
  std::shared_ptr<DiskManager> target_;
  std::vector<std::string> descriptions_;
};

TEST_F(DiskManagerTest, CustomModeDelegatesToTheFactoryAndKeepsNoAccountingOfItsOwn) {
  ASSERT_OK_AND_ASSIGN(auto inner, BuildDirectories(1));
  auto factory = std::make_shared<DelegatingFactory>(inner);
  ASSERT_OK_AND_ASSIGN(auto outer, DiskManagerBuilder().WithFactory(factory).Build(fs_));
  EXPECT_TRUE(outer->tmp_files_enabled());

  ASSERT_OK_AND_ASSIGN(SpillFile file, outer->CreateTempFile("aggregate"));
  EXPECT_THAT(factory->descriptions(), ::testing::ElementsAre("aggregate"));
  SpillWriter writer(file);
  ASSERT_OK(writer.Write("12345"));
  EXPECT_EQ(inner->used_disk_space(), 5u);
  EXPECT_EQ(outer->used_disk_space(), 0u);  // As upstream: the inner manager counts.
  EXPECT_EQ(outer->spilling_progress(), SpillingProgress{});
  EXPECT_THAT(outer->spill_dirs(), IsEmpty());

  // Its limit is only stored: writes go on past it, counted by the inner manager.
  ASSERT_OK(outer->SetMaxTempDirectorySize(1));
  EXPECT_EQ(outer->max_temp_directory_size(), 1u);
  ASSERT_OK(writer.Write("678"));
  ASSERT_OK_AND_ASSIGN(SpillFile second, outer->CreateTempFile("aggregate"));
  ASSERT_OK(SpillWriter(second).Write("9"));
  EXPECT_EQ(inner->used_disk_space(), 9u);
  EXPECT_EQ(outer->used_disk_space(), 0u);
}

TEST_F(DiskManagerTest, CustomModePassesTheFactorysErrorThrough) {
  ASSERT_OK_AND_ASSIGN(auto disabled, DiskManagerBuilder().WithDisabled().Build(fs_));
  auto factory = std::make_shared<DelegatingFactory>(disabled);
  ASSERT_OK_AND_ASSIGN(auto outer, DiskManagerBuilder().WithFactory(factory).Build(fs_));
  EXPECT_TRUE(IsDisabled(outer->CreateTempFile("sort").status()));
}

// Every file lands in one of the plan's own spill directories, and over many files every
// local dir gets some (a choice that skips one, or strays outside, fails here).
TEST_F(DiskManagerTest, FilesLandOnlyInTheSpillDirsAndEveryLocalDirGetsSome) {
  ASSERT_OK_AND_ASSIGN(auto dm, BuildDirectories(3));
  const std::vector<std::string> dirs = dm->spill_dirs();
  std::map<std::string, int> per_dir;
  std::vector<SpillFile> files;
  for (int i = 0; i < 60; ++i) {
    ASSERT_OK_AND_ASSIGN(SpillFile file, dm->CreateTempFile("sort"));
    ++per_dir[ParentPath(file.path())];
    files.push_back(std::move(file));
  }
  ASSERT_THAT(per_dir, ::testing::SizeIs(3));
  for (const std::string& dir : dirs) EXPECT_GT(per_dir[dir], 0) << dir;
  EXPECT_EQ(Count("/local*/datafusion-*/*"), 60u);
}

// The race between two plans on a local dir: this plan's stat says the dir is missing (an
// answer: another plan makes it at once), so it calls mkdir, which finds the dir there
// (EEXIST). That is success, and the spill directory is made in it.
TEST_F(DiskManagerTest, AStatThatSaysMissingAndAMkdirThatFindsTheLocalDirIsTolerated) {
  MakeDir("/local0");
  fs_->AddRule(Fail(OpKind::kStat, ENOENT, "/local0"));
  ASSERT_OK_AND_ASSIGN(auto dm,
                       DiskManagerBuilder().WithDirectories({"/local0"}).WithSeed(1).Build(fs_));
  EXPECT_EQ(fs_->injected().size(), 1u);
  EXPECT_EQ(fs_->calls(OpKind::kMkdir), 2u);  // The local dir's (EEXIST), then the spill dir.
  ASSERT_THAT(dm->spill_dirs(), ::testing::SizeIs(1));
  EXPECT_EQ(ParentPath(dm->spill_dirs()[0]), "/local0");
  ASSERT_OK_AND_ASSIGN(SpillFile file, dm->CreateTempFile("sort"));
  EXPECT_EQ(ParentPath(file.path()), dm->spill_dirs()[0]);
}
}  // namespace
}  // namespace spillway
