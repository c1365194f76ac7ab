// ReapOrphans: crash recovery of spill directories. On MemFileSystem (a crash is
// MemFileSystem::Crash) and with real processes on POSIX (a crash is SIGKILL).
#include "spillway/spill/reap.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "spillway/spill/disk_manager.h"
#include "spillway/spill/plan_disk_manager.h"
#include "spillway/spill/spill_writer.h"
#include "spillway/vfs/glob.h"
#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/posix_file_system.h"
#include "support/spill_test_support.h"
#include "support/temp_dir.h"

namespace spillway {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

std::shared_ptr<DiskManager> Manager(std::shared_ptr<FileSystem> fs,
                                     std::vector<std::string> dirs) {
  StatusOr<std::shared_ptr<DiskManager>> built =
      DiskManagerBuilder().WithDirectories(std::move(dirs)).WithSeed(1).Build(std::move(fs));
  EXPECT_TRUE(built.ok()) << built.status().ToString();
  return built.ok() ? *built : nullptr;
}

TEST(IsSpillDirNameTest, MatchesOnlyTheNamesSpillwayMakes) {
  EXPECT_TRUE(IsSpillDirName("datafusion-aB3xY9", false));
  EXPECT_FALSE(IsSpillDirName("datafusion-aB3xY", false));    // Too short.
  EXPECT_FALSE(IsSpillDirName("datafusion-aB3xY90", false));  // Too long.
  EXPECT_FALSE(IsSpillDirName("datafusion-aB3x.9", false));   // Not the alphabet.
  EXPECT_FALSE(IsSpillDirName(".tmpaB3xY9", false));
  EXPECT_TRUE(IsSpillDirName(".tmpaB3xY9", true));
  EXPECT_FALSE(IsSpillDirName("data", true));
}

class ReapMemTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_OK(mem_->CreateDir("/local0")); }
  size_t Count(std::string_view glob) { return ExpandGlob(*mem_, glob).size(); }

  std::shared_ptr<MemFileSystem> mem_ = NewMemFileSystem(9);
};

TEST_F(ReapMemTest, ALiveManagersDirectoriesSurviveAndACrashedOnesGo) {
  std::shared_ptr<DiskManager> manager = Manager(mem_, {"/local0"});
  ASSERT_OK_AND_ASSIGN(SpillFile file, manager->CreateTempFile("sort"));
  ASSERT_OK(SpillWriter(file).Write("abc"));
  ReapReport live = ReapOrphans(*mem_, {"/local0"});
  EXPECT_OK(live.status);
  EXPECT_THAT(live.removed, IsEmpty());
  EXPECT_THAT(live.live, ElementsAre(manager->spill_dirs()[0]));
  EXPECT_EQ(Count("/local0/datafusion-*/*"), 1u);

  mem_->Crash();  // The process dies; its objects are never destroyed.
  ReapReport after = ReapOrphans(*mem_, {"/local0"});
  EXPECT_OK(after.status);
  EXPECT_THAT(after.removed, ElementsAre(manager->spill_dirs()[0]));
  EXPECT_EQ(Count("/local0/*"), 0u);
}

TEST_F(ReapMemTest, NeverTouchesWhatItDidNotMake) {
  ASSERT_OK(mem_->CreateDir("/local0/datafusion-other"));  // Not a spill name.
  ASSERT_OK(mem_->CreateDir("/local0/keep"));
  ASSERT_OK_AND_ASSIGN(auto file, mem_->CreateFile("/local0/datafusion-abcdef"));  // A file.
  ASSERT_OK(mem_->CreateDir("/local0/datafusion-orphan"));  // An orphan: 6 characters.
  ReapReport report = ReapOrphans(*mem_, {"/local0", "/missing"});
  EXPECT_OK(report.status);
  EXPECT_THAT(report.removed, ElementsAre("/local0/datafusion-orphan"));
  EXPECT_EQ(Count("/local0/*"), 3u);
}

TEST_F(ReapMemTest, DryRunRemovesNothingAndReleasesTheLocks) {
  ASSERT_OK(mem_->CreateDir("/local0/datafusion-orphan"));
  ReapOptions options;
  options.dry_run = true;
  ReapReport dry = ReapOrphans(*mem_, {"/local0"}, options);
  EXPECT_THAT(dry.removed, ElementsAre("/local0/datafusion-orphan"));
  EXPECT_TRUE(mem_->Exists("/local0/datafusion-orphan"));
  EXPECT_THAT(ReapOrphans(*mem_, {"/local0"}).removed, SizeIs(1));
}

TEST_F(ReapMemTest, TheReapIgnoresLocksQuirkRemovesALiveDirectory) {
  ASSERT_OK(mem_->CreateDir("/local0/datafusion-livexx"));
  ASSERT_OK_AND_ASSIGN(auto lock, mem_->LockDir("/local0/datafusion-livexx"));
  EXPECT_THAT(ReapOrphans(*mem_, {"/local0"}).live, ElementsAre("/local0/datafusion-livexx"));
  EXPECT_TRUE(mem_->Exists("/local0/datafusion-livexx"));
  ReapOptions options;
  options.quirks = Quirk::kReapIgnoresLocks;
  EXPECT_THAT(ReapOrphans(*mem_, {"/local0"}, options).removed,
              ElementsAre("/local0/datafusion-livexx"));
  EXPECT_FALSE(mem_->Exists("/local0/datafusion-livexx"));
}

TEST_F(ReapMemTest, TheReapSkipsEmptyQuirkLeavesAnEmptyOrphanUnreported) {
  // A process killed between making a spill directory and its first file left it empty.
  ASSERT_OK(mem_->CreateDir("/local0/datafusion-emptyx"));
  ASSERT_OK(mem_->CreateDir("/local0/datafusion-fullxx"));
  ASSERT_OK_AND_ASSIGN(auto f, mem_->CreateFile("/local0/datafusion-fullxx/x"));
  ASSERT_OK(f->Close());
  ReapOptions options;
  options.quirks = Quirk::kReapSkipsEmpty;
  const ReapReport report = ReapOrphans(*mem_, {"/local0"}, options);
  EXPECT_THAT(report.removed, ElementsAre("/local0/datafusion-fullxx"));
  EXPECT_TRUE(report.live.empty());
  EXPECT_TRUE(report.failures.empty());
  EXPECT_TRUE(mem_->Exists("/local0/datafusion-emptyx"));
  // Without it, the empty orphan goes too.
  EXPECT_THAT(ReapOrphans(*mem_, {"/local0"}).removed, ElementsAre("/local0/datafusion-emptyx"));
}

TEST_F(ReapMemTest, RecordsWhatItCouldNotRemoveAndReturnsTheFirstError) {
  std::shared_ptr<MemFileSystem> strict = NewMemFileSystem(3);
  ASSERT_OK(strict->CreateDir("/local0"));
  ASSERT_OK(strict->CreateDir("/local0/datafusion-orphan"));
  ASSERT_OK_AND_ASSIGN(auto f, strict->CreateFile("/local0/datafusion-orphan/x"));
  ASSERT_OK(strict->SetPermissions("/local0/datafusion-orphan", 0500));  // Not writable.
  ASSERT_OK(strict->CreateDir("/local0/datafusion-second"));
  ReapReport report = ReapOrphans(*strict, {"/local0"});
  EXPECT_TRUE(report.status.IsErrno(EACCES)) << report.status.ToString();
  ASSERT_THAT(report.failures, SizeIs(1));
  EXPECT_THAT(report.removed, ElementsAre("/local0/datafusion-second"));  // It went on.
}

// --- Real processes on POSIX -----------------------------------------------------------

class ReapPosixTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(temp_.path().empty()) << temp_.error();
    fs_ = NewPosixFileSystem(PosixFileSystemOptions{.root = temp_.path(), .temp_dir = ""});
    ASSERT_OK(fs_->CreateDir("/local0"));
  }

  // Forks a process that builds a manager over /local0, spills a file, tells us, and
  // waits to be killed. Returns its pid once its directory exists.
  pid_t StartSpiller() {
    int ready[2];
    EXPECT_EQ(::pipe(ready), 0);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(ready[0]);
      std::shared_ptr<DiskManager> manager = Manager(fs_, {"/local0"});
      StatusOr<SpillFile> file = manager->CreateTempFile("sort");
      const char ok = file.ok() && SpillWriter(*file).Write("x").ok() ? 'y' : 'n';
      [[maybe_unused]] ssize_t n = ::write(ready[1], &ok, 1);
      while (true) ::pause();
    }
    ::close(ready[1]);
    char ok = 0;
    EXPECT_EQ(::read(ready[0], &ok, 1), 1);
    EXPECT_EQ(ok, 'y');
    ::close(ready[0]);
    return pid;
  }

  static void Kill(pid_t pid) {
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
  }

  size_t Count(std::string_view glob) { return ExpandGlob(*fs_, glob).size(); }

  test_support::TempDir temp_;
  std::shared_ptr<FileSystem> fs_;
};

TEST_F(ReapPosixTest, ALiveProcesssDirectoriesSurviveAndAfterSigkillAreReaped) {
  const pid_t owner = StartSpiller();
  ASSERT_EQ(Count("/local0/datafusion-*"), 1u);
  ReapReport live = ReapOrphans(*fs_, {"/local0"});
  EXPECT_OK(live.status);
  EXPECT_THAT(live.removed, IsEmpty());
  EXPECT_THAT(live.live, SizeIs(1));
  EXPECT_EQ(Count("/local0/datafusion-*/*"), 1u);

  Kill(owner);
  ASSERT_EQ(Count("/local0/datafusion-*/*"), 1u);  // kill -9 left it behind.
  ReapReport after = ReapOrphans(*fs_, {"/local0"});
  EXPECT_OK(after.status);
  EXPECT_THAT(after.removed, SizeIs(1));
  EXPECT_EQ(Count("/local0/*"), 0u);
}

TEST_F(ReapPosixTest, TwoReapersAtOnceRemoveEachDirectoryOnce) {
  constexpr int kOrphans = 40;
  for (int i = 0; i < kOrphans; ++i) {
    ASSERT_OK(fs_->CreateUniqueDir("/local0", kSpillDirPrefix).status());
  }
  const pid_t live = StartSpiller();
  int counts[2];
  ASSERT_EQ(::pipe(counts), 0);
  std::vector<pid_t> reapers;
  for (int r = 0; r < 2; ++r) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      ReapReport report = ReapOrphans(*fs_, {"/local0"});
      const int removed = report.status.ok() ? static_cast<int>(report.removed.size()) : -1;
      [[maybe_unused]] ssize_t n = ::write(counts[1], &removed, sizeof removed);
      ::_exit(0);
    }
    reapers.push_back(pid);
  }
  ::close(counts[1]);
  int total = 0;
  for (int r = 0; r < 2; ++r) {
    int removed = 0;
    ASSERT_EQ(::read(counts[0], &removed, sizeof removed), static_cast<ssize_t>(sizeof removed));
    ASSERT_GE(removed, 0) << "a reaper failed";
    total += removed;
  }
  ::close(counts[0]);
  for (pid_t pid : reapers) ::waitpid(pid, nullptr, 0);
  EXPECT_EQ(total, kOrphans);                    // Each orphan once, by one reaper.
  EXPECT_EQ(Count("/local0/datafusion-*"), 1u);  // The live process's survived.
  EXPECT_EQ(Count("/local0/datafusion-*/*"), 1u);
  Kill(live);
}

}  // namespace
}  // namespace spillway
