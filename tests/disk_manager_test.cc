// DiskManager: DataFusion's disk_manager tests, ported in spirit, plus what a FileSystem
// simulation adds (faults, cleaners, failed cleanups).
#include "spillway/spill/disk_manager.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <optional>
#include <set>
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

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;

// An in-memory filesystem under a fault injector, as every test here uses.

class DiskManagerTest : public ::testing::Test {
 protected:
  std::shared_ptr<MemFileSystem> mem_ = NewMemFileSystem(7);
  std::shared_ptr<FaultInjectingFileSystem> fs_ = std::make_shared<FaultInjectingFileSystem>(mem_);

  void MakeDir(const std::string& path) { ASSERT_OK(mem_->CreateDir(path)); }

  size_t Count(std::string_view glob) { return ExpandGlob(*mem_, glob).size(); }

  // A kDirectories manager over /local0 .. /local{n-1}, which are created first.
  StatusOr<std::shared_ptr<DiskManager>> BuildDirectories(int n, DiskManagerBuilder builder) {
    std::vector<std::string> dirs;
    for (int i = 0; i < n; ++i) {
      dirs.push_back("/local" + std::to_string(i));
      if (!mem_->Exists(dirs.back())) {
        Status made = mem_->CreateDir(dirs.back());
        if (!made.ok()) return made;
      }
    }
    return builder.WithDirectories(std::move(dirs)).WithSeed(1).Build(fs_);
  }
  StatusOr<std::shared_ptr<DiskManager>> BuildDirectories(int n) {
    return BuildDirectories(n, DiskManagerBuilder());
  }

  uint64_t FileSizeOnDisk(const std::string& path) {
    StatusOr<std::string> contents = mem_->ReadFile(path);
    EXPECT_TRUE(contents.ok()) << contents.status().ToString();
    return contents.ok() ? contents->size() : 0;
  }
};

// ---------------------------------------------------------------------------------------
// Names and sizes

TEST(HumanBytesTest, UsesBinaryUnitsWithOneDecimal) {
  EXPECT_EQ(HumanBytes(0), "0 B");
  EXPECT_EQ(HumanBytes(10), "10 B");
  EXPECT_EQ(HumanBytes(1023), "1023 B");
  EXPECT_EQ(HumanBytes(1024), "1.0 KiB");
  EXPECT_EQ(HumanBytes(1536), "1.5 KiB");
  EXPECT_EQ(HumanBytes(uint64_t{5} << 20), "5.0 MiB");
  EXPECT_EQ(HumanBytes(kDefaultMaxTempDirectorySize), "100.0 GiB");
  EXPECT_EQ(HumanBytes(uint64_t{3} << 40), "3.0 TiB");
  // Just under a unit rounds up into it rather than printing "1024.0 KiB".
  EXPECT_EQ(HumanBytes((uint64_t{1} << 20) - 1), "1.0 MiB");
}

TEST(EscapeDescriptionTest, KeepsLowercaseAlphanumericsAndJoinsOtherRuns) {
  EXPECT_EQ(EscapeDescription("sort"), "sort");
  EXPECT_EQ(EscapeDescription("Hash Join build-side"), "hash_join_build_side");
  EXPECT_EQ(EscapeDescription("Testing with./sp\xc3\xa9"
                              "cial"),
            "testing_with_sp_cial");
  EXPECT_EQ(EscapeDescription("a  \n\t b"), "a_b");
  EXPECT_EQ(EscapeDescription("../x"), "_x");
}

TEST(EscapeDescriptionTest, CutsToMaxLengthAndNeverReturnsEmpty) {
  EXPECT_EQ(EscapeDescription(std::string(200, 'A')), std::string(kMaxDescriptionLength, 'a'));
  EXPECT_EQ(EscapeDescription(""), "spill");
}

// ---------------------------------------------------------------------------------------
// Building

TEST_F(DiskManagerTest, RejectsOptionsInconsistentWithTheMode) {
  DiskManagerOptions no_dirs;
  no_dirs.mode = DiskManagerMode::kDirectories;
  EXPECT_EQ(DiskManager::Build(fs_, no_dirs).status().code(), StatusCode::kInvalidArgument);

  DiskManagerOptions relative;
  relative.mode = DiskManagerMode::kDirectories;
  relative.local_dirs = {"local0"};
  EXPECT_EQ(DiskManager::Build(fs_, relative).status().code(), StatusCode::kInvalidArgument);

  DiskManagerOptions no_factory;
  no_factory.mode = DiskManagerMode::kCustom;
  EXPECT_EQ(DiskManager::Build(fs_, no_factory).status().code(), StatusCode::kInvalidArgument);

  DiskManagerOptions dirs_for_os_tmp;
  dirs_for_os_tmp.local_dirs = {"/local0"};
  EXPECT_EQ(DiskManager::Build(fs_, dirs_for_os_tmp).status().code(), StatusCode::kInvalidArgument);

  EXPECT_EQ(DiskManager::Build(nullptr, {}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(fs_->total_calls(), 0u);  // Nothing was attempted.
}

TEST_F(DiskManagerTest, BuilderKeepsOnlyTheLastModeChosen) {
  DiskManagerBuilder builder;
  builder.WithDirectories({"/local0"}).WithOsTmpDirectory();
  EXPECT_EQ(builder.options().mode, DiskManagerMode::kOsTmpDirectory);
  EXPECT_THAT(builder.options().local_dirs, IsEmpty());
  ASSERT_OK_AND_ASSIGN(auto dm, builder.Build(fs_));
  EXPECT_EQ(dm->mode(), DiskManagerMode::kOsTmpDirectory);
}

TEST_F(DiskManagerTest, LazyOsTmpDirectoryIsCreatedOnTheFirstFile) {
  ASSERT_OK_AND_ASSIGN(auto dm, DiskManagerBuilder().Build(fs_));
  EXPECT_THAT(dm->spill_dirs(), IsEmpty());
  EXPECT_EQ(Count("/tmp/*"), 0u);
  EXPECT_EQ(fs_->total_calls(), 0u);

  ASSERT_OK_AND_ASSIGN(SpillFile file, dm->CreateTempFile("Testing"));
  ASSERT_THAT(dm->spill_dirs(), SizeIs(1));
  const std::string dir = dm->spill_dirs()[0];
  EXPECT_THAT(dir, StartsWith(fs_->TempDir() + "/" + std::string(kSpillDirPrefix)));
  EXPECT_EQ(ParentPath(file.path()), dir);
  EXPECT_TRUE(mem_->Exists(file.path()));

  // Later files reuse the directory.
  ASSERT_OK_AND_ASSIGN(SpillFile second, dm->CreateTempFile("Testing"));
  EXPECT_EQ(ParentPath(second.path()), dir);
  EXPECT_EQ(Count("/tmp/datafusion-*"), 1u);
}

TEST_F(DiskManagerTest, DirectoriesModeMakesOneSpillDirPerLocalDirAtBuild) {
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

TEST_F(DiskManagerTest, FileIsInOneOfTheSpillDirsNamedAfterItsDescription) {
  ASSERT_OK_AND_ASSIGN(auto dm, BuildDirectories(3));
  EXPECT_TRUE(dm->tmp_files_enabled());
  ASSERT_OK_AND_ASSIGN(SpillFile file, dm->CreateTempFile("Testing with./sp\xc3\xa9"
                                                          "cial"));
  const std::vector<std::string> dirs = dm->spill_dirs();
  EXPECT_THAT(dirs, ::testing::Contains(ParentPath(file.path())));
  EXPECT_THAT(BaseName(file.path()), StartsWith(".tmp.testing_with_sp_cial."));
  EXPECT_GT(BaseName(file.path()).size(), std::string(".tmp.testing_with_sp_cial.").size());
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
  EXPECT_EQ(file.status().code(), StatusCode::kDisabled);
  EXPECT_THAT(file.status().message(),
              AllOf(HasSubstr("external sort"), HasSubstr("spilling is disabled")));
  EXPECT_EQ(fs_->total_calls(), 0u);
}

TEST_F(DiskManagerTest, DisabledManagerAcceptsOnlyAZeroLimit) {
  ASSERT_OK_AND_ASSIGN(auto dm, DiskManagerBuilder().WithDisabled().Build(fs_));
  EXPECT_EQ(dm->SetMaxTempDirectorySize(1024).code(), StatusCode::kDisabled);
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
}

TEST_F(DiskManagerTest, CustomModePassesTheFactorysErrorThrough) {
  ASSERT_OK_AND_ASSIGN(auto disabled, DiskManagerBuilder().WithDisabled().Build(fs_));
  auto factory = std::make_shared<DelegatingFactory>(disabled);
  ASSERT_OK_AND_ASSIGN(auto outer, DiskManagerBuilder().WithFactory(factory).Build(fs_));
  EXPECT_EQ(outer->CreateTempFile("sort").status().code(), StatusCode::kDisabled);
}

// ---------------------------------------------------------------------------------------
// Lifetimes

TEST_F(DiskManagerTest, FileOutlivesItsManagerInOsTmpMode) {
  ASSERT_OK_AND_ASSIGN(auto dm, DiskManagerBuilder().Build(fs_));
  std::optional<SpillFile> file;
  {
    ASSERT_OK_AND_ASSIGN(SpillFile made, dm->CreateTempFile("Testing"));
    file = std::move(made);
  }
  const std::string path = file->path();
  dm.reset();
  EXPECT_TRUE(mem_->Exists(path));
  std::optional<SpillWriter> writer(std::in_place, *file);
  EXPECT_OK(writer->Write("still works"));
  file.reset();
  EXPECT_TRUE(mem_->Exists(path)) << "the writer still holds a reference";
  writer.reset();
  EXPECT_FALSE(mem_->Exists(path));
  EXPECT_EQ(Count("/tmp/*"), 0u);  // The temp dir's spill directory went with it.
}

TEST_F(DiskManagerTest, FileAndSpillDirsGoOnlyWhenManagerAndEveryFileAreGone) {
  ASSERT_OK_AND_ASSIGN(auto dm, BuildDirectories(3));
  std::optional<SpillFile> file;
  {
    ASSERT_OK_AND_ASSIGN(SpillFile made, dm->CreateTempFile("Testing"));
    file = std::move(made);
  }
  const std::string path = file->path();
  dm.reset();
  EXPECT_TRUE(mem_->Exists(path));
  EXPECT_EQ(Count("/local*/datafusion-*"), 3u);  // Every spill dir waits for the file.
  file.reset();
  EXPECT_FALSE(mem_->Exists(path));
  EXPECT_EQ(Count("/local*/*"), 0u);
}

// ---------------------------------------------------------------------------------------
// Accounting

TEST_F(DiskManagerTest, DiskUsageBasic) {
  ASSERT_OK_AND_ASSIGN(auto dm, DiskManagerBuilder().Build(fs_));
  std::optional<SpillFile> file;
  {
    ASSERT_OK_AND_ASSIGN(SpillFile made, dm->CreateTempFile("Testing"));
    file = std::move(made);
  }
  std::optional<SpillWriter> writer(std::in_place, *file);
  EXPECT_EQ(dm->used_disk_space(), 0u);
  EXPECT_EQ(file->size(), 0u);
  EXPECT_EQ(dm->spilling_progress(), (SpillingProgress{0, 1}));

  ASSERT_OK(writer->Write("hello world"));
  EXPECT_EQ(file->size(), 11u);
  EXPECT_EQ(dm->used_disk_space(), 11u);
  ASSERT_OK(writer->Write("more_data"));
  EXPECT_EQ(file->size(), 20u);
  EXPECT_EQ(dm->used_disk_space(), 20u);
  EXPECT_EQ(FileSizeOnDisk(file->path()), 20u);
  EXPECT_EQ(dm->spilling_progress(), (SpillingProgress{20, 1}));

  writer.reset();
  file.reset();
  EXPECT_EQ(dm->used_disk_space(), 0u);
  EXPECT_EQ(dm->spilling_progress(), (SpillingProgress{0, 0}));
}

TEST_F(DiskManagerTest, DiskUsageWithClones) {
  ASSERT_OK_AND_ASSIGN(auto dm, DiskManagerBuilder().Build(fs_));
  std::optional<SpillFile> file;
  {
    ASSERT_OK_AND_ASSIGN(SpillFile made, dm->CreateTempFile("Testing"));
    file = std::move(made);
  }
  ASSERT_OK(SpillWriter(*file).Write("test data"));
  std::optional<SpillFile> clone1 = *file;
  std::optional<SpillFile> clone2 = *file;
  EXPECT_EQ(file->use_count(), 3);
  EXPECT_EQ(clone1->size(), 9u);
  EXPECT_EQ(clone2->size(), 9u);
  EXPECT_EQ(dm->used_disk_space(), 9u);  // Not multiplied by the clones.

  ASSERT_OK(SpillWriter(*clone1).Write(" more data"));
  for (const auto* f : {&file, &clone1, &clone2}) EXPECT_EQ((*f)->size(), 19u);
  EXPECT_EQ(dm->used_disk_space(), 19u);
  EXPECT_EQ(dm->spilling_progress().active_files_count, 1u);

  clone1.reset();
  EXPECT_EQ(dm->used_disk_space(), 19u);
  clone2.reset();
  EXPECT_EQ(dm->used_disk_space(), 19u);
  const std::string path = file->path();
  EXPECT_TRUE(mem_->Exists(path));
  file.reset();
  EXPECT_EQ(dm->used_disk_space(), 0u);
  EXPECT_FALSE(mem_->Exists(path));
}

TEST_F(DiskManagerTest, DiskUsageClonesDroppedOutOfOrder) {
  ASSERT_OK_AND_ASSIGN(auto dm, DiskManagerBuilder().Build(fs_));
  std::optional<SpillFile> file;
  {
    ASSERT_OK_AND_ASSIGN(SpillFile made, dm->CreateTempFile("Testing"));
    file = std::move(made);
  }
  ASSERT_OK(SpillWriter(*file).Write("test"));
  std::optional<SpillFile> clone1 = *file, clone2 = *file, clone3 = *file;
  file.reset();  // The original first.
  EXPECT_EQ(dm->used_disk_space(), 4u);
  EXPECT_EQ(clone1->size(), 4u);
  clone2.reset();
  EXPECT_EQ(dm->used_disk_space(), 4u);
  clone1.reset();
  EXPECT_EQ(dm->used_disk_space(), 4u);
  EXPECT_EQ(dm->spilling_progress().active_files_count, 1u);
  clone3.reset();
  EXPECT_EQ(dm->used_disk_space(), 0u);
  EXPECT_EQ(dm->spilling_progress().active_files_count, 0u);
}

TEST_F(DiskManagerTest, DiskUsageMultipleFiles) {
  ASSERT_OK_AND_ASSIGN(auto dm, BuildDirectories(2));
  std::optional<SpillFile> file1, file2;
  {
    ASSERT_OK_AND_ASSIGN(SpillFile a, dm->CreateTempFile("Testing1"));
    ASSERT_OK_AND_ASSIGN(SpillFile b, dm->CreateTempFile("Testing2"));
    file1 = std::move(a);
    file2 = std::move(b);
  }
  EXPECT_NE(file1->path(), file2->path());
  ASSERT_OK(SpillWriter(*file1).Write("file1"));
  EXPECT_EQ(dm->used_disk_space(), 5u);
  ASSERT_OK(SpillWriter(*file2).Write("file2 data"));
  EXPECT_EQ(dm->used_disk_space(), 15u);
  EXPECT_EQ(dm->spilling_progress(), (SpillingProgress{15, 2}));
  file1.reset();
  EXPECT_EQ(dm->used_disk_space(), 10u);
  file2.reset();
  EXPECT_EQ(dm->spilling_progress(), (SpillingProgress{0, 0}));
}

TEST_F(DiskManagerTest, DynamicLimitThroughASharedReference) {
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<DiskManager> dm,
                       DiskManagerBuilder().WithMaxTempDirectorySize(1024).Build(fs_));
  std::shared_ptr<SpillManager> shared = dm;  // As a plan would hold it.
  EXPECT_EQ(shared->max_temp_directory_size(), 1024u);
  ASSERT_OK(shared->SetMaxTempDirectorySize(2048));
  EXPECT_EQ(dm->max_temp_directory_size(), 2048u);
  ASSERT_OK(shared->SetMaxTempDirectorySize(512));
  EXPECT_EQ(dm->max_temp_directory_size(), 512u);

  // Later writes are checked against the new value.
  ASSERT_OK_AND_ASSIGN(SpillFile file, dm->CreateTempFile("sort"));
  SpillWriter writer(file);
  EXPECT_EQ(writer.Write(std::string(513, 'x')).code(), StatusCode::kLimitExceeded);
  EXPECT_OK(writer.Write(std::string(512, 'x')));
}

TEST_F(DiskManagerTest, LimitLoweredBelowCurrentUsage) {
  ASSERT_OK_AND_ASSIGN(auto dm, DiskManagerBuilder().WithMaxTempDirectorySize(100).Build(fs_));
  std::optional<SpillFile> file;
  {
    ASSERT_OK_AND_ASSIGN(SpillFile made, dm->CreateTempFile("Testing"));
    file = std::move(made);
  }
  ASSERT_OK(SpillWriter(*file).Write(std::string(80, 'x')));
  ASSERT_OK(dm->SetMaxTempDirectorySize(60));

  // The bytes already written stay; nothing more fits.
  EXPECT_EQ(dm->used_disk_space(), 80u);
  EXPECT_TRUE(mem_->Exists(file->path()));
  ASSERT_OK_AND_ASSIGN(SpillFile other, dm->CreateTempFile("Testing"));
  SpillWriter other_writer(other);
  EXPECT_EQ(other_writer.Write("x").code(), StatusCode::kLimitExceeded);
  EXPECT_EQ(dm->used_disk_space(), 80u);

  // Once the old file is released, writes fit again.
  file.reset();
  EXPECT_EQ(dm->used_disk_space(), 0u);
  EXPECT_OK(other_writer.Write(std::string(60, 'x')));
  EXPECT_EQ(dm->used_disk_space(), 60u);
}

// UpdateDiskUsage reads the size from the open handle; bytes appended behind the writer's
// back (through another handle to the same file) are picked up there.
TEST_F(DiskManagerTest, UpdateDiskUsageRollsBackWhenTheLimitIsExceeded) {
  ASSERT_OK_AND_ASSIGN(auto dm, DiskManagerBuilder()
                                    .WithMaxTempDirectorySize(10)
                                    .WithLimitConfigKey("test.limit")
                                    .Build(fs_));
  std::optional<SpillFile> file;
  {
    ASSERT_OK_AND_ASSIGN(SpillFile made, dm->CreateTempFile("rollback"));
    file = std::move(made);
  }
  ASSERT_OK_AND_ASSIGN(auto behind, mem_->OpenForAppend(file->path()));
  ASSERT_OK(behind->Append(std::string(6, 'x')).status);
  ASSERT_OK(file->UpdateDiskUsage());
  EXPECT_EQ(file->size(), 6u);
  EXPECT_EQ(dm->used_disk_space(), 6u);

  ASSERT_OK(behind->Append(std::string(6, 'x')).status);
  Status over = file->UpdateDiskUsage();
  EXPECT_EQ(over.code(), StatusCode::kLimitExceeded);
  EXPECT_THAT(over.message(), HasSubstr("test.limit"));
  EXPECT_EQ(file->size(), 6u);  // Rolled back: the last successful update stands.
  EXPECT_EQ(dm->used_disk_space(), 6u);

  ASSERT_OK(dm->SetMaxTempDirectorySize(12));
  ASSERT_OK(file->UpdateDiskUsage());
  EXPECT_EQ(dm->used_disk_space(), 12u);

  ASSERT_OK(behind->Close());
  file.reset();
  EXPECT_EQ(dm->used_disk_space(), 0u);
}

TEST_F(DiskManagerTest, UpdateDiskUsageReportsAFailedSizeRead) {
  ASSERT_OK_AND_ASSIGN(auto dm, DiskManagerBuilder().Build(fs_));
  ASSERT_OK_AND_ASSIGN(SpillFile file, dm->CreateTempFile("sort"));
  fs_->AddRule(Fail(OpKind::kSize, EIO));
  Status status = file.UpdateDiskUsage();
  EXPECT_TRUE(status.IsErrno(EIO)) << status.ToString();
  EXPECT_EQ(dm->used_disk_space(), 0u);
}

TEST_F(DiskManagerTest, FailedCreateCountsNoActiveFile) {
  ASSERT_OK_AND_ASSIGN(auto dm, BuildDirectories(1));
  fs_->AddRule(Fail(OpKind::kCreate, ENOSPC));
  StatusOr<SpillFile> file = dm->CreateTempFile("sort");
  ASSERT_FALSE(file.ok());
  EXPECT_TRUE(file.status().IsErrno(ENOSPC));
  EXPECT_EQ(file.status().path(), dm->spill_dirs()[0]);
  EXPECT_EQ(dm->spilling_progress().active_files_count, 0u);
}

// ---------------------------------------------------------------------------------------
// Spill directories removed from outside

TEST_F(DiskManagerTest, MissingSpillDirFailsWithENOENTUnderTheFailPolicy) {
  ASSERT_OK_AND_ASSIGN(auto dm, BuildDirectories(1));
  const std::string dir = dm->spill_dirs()[0];
  ASSERT_OK(fs_->RemoveTreeFromOutside(dir));
  StatusOr<SpillFile> file = dm->CreateTempFile("sort");
  ASSERT_FALSE(file.ok());
  EXPECT_TRUE(file.status().IsErrno(ENOENT)) << file.status().ToString();
  EXPECT_EQ(file.status().path(), dir);
  // It stays broken: nothing recreates the directory.
  EXPECT_TRUE(dm->CreateTempFile("sort").status().IsErrno(ENOENT));
  EXPECT_EQ(dm->spill_dirs(), std::vector<std::string>{dir});
}

TEST_F(DiskManagerTest, MissingSpillDirIsRecreatedUnderTheRecreatePolicy) {
  ASSERT_OK_AND_ASSIGN(
      auto dm,
      BuildDirectories(1, DiskManagerBuilder().WithMissingDirPolicy(MissingDirPolicy::kRecreate)));
  std::optional<SpillFile> old_file;
  {
    ASSERT_OK_AND_ASSIGN(SpillFile made, dm->CreateTempFile("sort"));
    old_file = std::move(made);
  }
  const std::string old_dir = dm->spill_dirs()[0];
  ASSERT_OK(fs_->RemoveTreeFromOutside(old_dir));

  ASSERT_OK_AND_ASSIGN(SpillFile file, dm->CreateTempFile("sort"));
  const std::string new_dir = dm->spill_dirs()[0];
  EXPECT_NE(new_dir, old_dir);
  EXPECT_EQ(ParentPath(new_dir), "/local0");
  EXPECT_EQ(ParentPath(file.path()), new_dir);
  // The old file is unlinked but its handle still writes.
  EXPECT_OK(SpillWriter(*old_file).Write("abc"));
  EXPECT_EQ(dm->used_disk_space(), 3u);

  old_file.reset();
  EXPECT_EQ(dm->used_disk_space(), 0u);
  // The old file and directory were already gone: their removals failed with ENOENT, and
  // both are recorded, since the manager cannot tell a cleaner from a fault.
  std::vector<Status> failures = dm->cleanup_log()->failures();
  ASSERT_THAT(failures, SizeIs(2));
  EXPECT_TRUE(failures[0].IsErrno(ENOENT));
  EXPECT_TRUE(failures[1].IsErrno(ENOENT));
  EXPECT_EQ(failures[1].path(), old_dir);
  EXPECT_TRUE(mem_->Exists(new_dir));
}

TEST_F(DiskManagerTest, RecreatePolicyReportsAFailedRecreation) {
  ASSERT_OK_AND_ASSIGN(
      auto dm,
      BuildDirectories(1, DiskManagerBuilder().WithMissingDirPolicy(MissingDirPolicy::kRecreate)));
  ASSERT_OK(fs_->RemoveTreeFromOutside(dm->spill_dirs()[0]));
  fs_->AddRule(Fail(OpKind::kMkdir, EROFS));
  StatusOr<SpillFile> file = dm->CreateTempFile("sort");
  ASSERT_FALSE(file.ok());
  EXPECT_TRUE(file.status().IsErrno(EROFS)) << file.status().ToString();
  EXPECT_EQ(file.status().path(), "/local0");
  // The fault is spent; the next spill recreates the directory.
  ASSERT_OK_AND_ASSIGN(SpillFile again, dm->CreateTempFile("sort"));
  EXPECT_EQ(ParentPath(ParentPath(again.path())), "/local0");
}

// ---------------------------------------------------------------------------------------
// Cleanup failures

TEST_F(DiskManagerTest, FailedFileRemovalIsRecordedWithItsPath) {
  ASSERT_OK_AND_ASSIGN(auto dm, BuildDirectories(1));
  std::optional<SpillFile> file;
  {
    ASSERT_OK_AND_ASSIGN(SpillFile made, dm->CreateTempFile("sort"));
    file = std::move(made);
  }
  const std::string path = file->path();
  fs_->AddRule(Fail(OpKind::kRemove, EACCES, path));
  file.reset();
  EXPECT_TRUE(mem_->Exists(path));
  EXPECT_EQ(dm->spilling_progress(), SpillingProgress{});  // The accounting is done.
  ASSERT_EQ(dm->cleanup_log()->failure_count(), 1u);
  const Status failure = dm->cleanup_log()->failures()[0];
  EXPECT_TRUE(failure.IsErrno(EACCES));
  EXPECT_EQ(failure.path(), path);
  EXPECT_EQ(dm->cleanup_log()->left_behind(), std::vector<std::string>{path});

  // The directory's removal then takes the file with it (the fault was used up).
  dm.reset();
  EXPECT_EQ(Count("/local0/*"), 0u);
}

TEST_F(DiskManagerTest, FailedDirectoryRemovalIsRecordedWithItsPath) {
  auto log = std::make_shared<CleanupLog>();
  ASSERT_OK_AND_ASSIGN(auto dm, BuildDirectories(2, DiskManagerBuilder().WithCleanupLog(log)));
  EXPECT_EQ(dm->cleanup_log(), log);
  const std::string dir = dm->spill_dirs()[1];
  fs_->AddRule(Fail(OpKind::kRmdir, EBUSY, dir));
  dm.reset();
  EXPECT_EQ(log->left_behind(), std::vector<std::string>{dir});
  EXPECT_TRUE(log->failures()[0].IsErrno(EBUSY));
  EXPECT_EQ(Count("/local*/*"), 1u);
}

TEST_F(DiskManagerTest, FileRemovedByACleanerIsRecordedNotIgnored) {
  ASSERT_OK_AND_ASSIGN(auto dm, BuildDirectories(1));
  std::optional<SpillFile> file;
  {
    ASSERT_OK_AND_ASSIGN(SpillFile made, dm->CreateTempFile("sort"));
    file = std::move(made);
  }
  ASSERT_OK(fs_->RemoveTreeFromOutside(file->path()));
  file.reset();
  ASSERT_EQ(dm->cleanup_log()->failure_count(), 1u);
  EXPECT_TRUE(dm->cleanup_log()->failures()[0].IsErrno(ENOENT));
}

TEST_F(DiskManagerTest, NothingIsRecordedWhenEverythingIsRemoved) {
  ASSERT_OK_AND_ASSIGN(auto dm, BuildDirectories(2));
  {
    ASSERT_OK_AND_ASSIGN(SpillFile file, dm->CreateTempFile("sort"));
    ASSERT_OK(SpillWriter(file).Write("data"));
  }
  std::shared_ptr<CleanupLog> log = dm->cleanup_log();
  dm.reset();
  EXPECT_EQ(log->failure_count(), 0u);
  EXPECT_EQ(Count("/local*/*"), 0u);
}

}  // namespace
}  // namespace spillway
