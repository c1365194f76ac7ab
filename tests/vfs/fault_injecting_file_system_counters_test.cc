// FaultInjectingFileSystem's counters: one count per call under its kind, failed calls
// included, ResetCounters, actions from outside, tree removal step by step, errors of the
// target passed through, and counting under concurrent use.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/status.h"
#include "support/fault_injecting_file_system_fixture.h"

namespace spillway {
namespace {

using test_support::kAllKinds;
using test_support::Rule;
using ::testing::IsEmpty;

TEST_F(FaultInjectingFileSystemTest, AFreshInjectorHasSeenNoCalls) {
  EXPECT_EQ(fs_.total_calls(), 0u);
  for (OpKind kind : kAllKinds) EXPECT_EQ(fs_.calls(kind), 0u) << OpKindName(kind);
  EXPECT_THAT(fs_.injected(), IsEmpty());
}

TEST_F(FaultInjectingFileSystemTest, CountsEachCallOnceUnderItsKind) {
  MakeDir("/d");
  MakeFile("/d/f", "abc");
  MakeDir("/d/empty");

  ASSERT_TRUE(fs_.CreateDir("/d/new").ok());
  ASSERT_TRUE(fs_.CreateUniqueDir("/d", "u-").ok());
  EXPECT_EQ(fs_.calls(OpKind::kMkdir), 2u);

  std::unique_ptr<WritableFile> created = Create("/d/g");
  ASSERT_NE(created, nullptr);
  ASSERT_TRUE(fs_.CreateUniqueFile("/d", "s-").ok());
  EXPECT_EQ(fs_.calls(OpKind::kCreate), 2u);

  StatusOr<std::unique_ptr<WritableFile>> opened = fs_.OpenForAppend("/d/f");
  ASSERT_TRUE(opened.ok());
  WritableFile& file = **opened;
  ASSERT_TRUE(file.Append("de").status.ok());
  ASSERT_TRUE(file.Append("").status.ok());  // An empty append is still a call.
  ASSERT_TRUE(file.Sync().ok());
  ASSERT_TRUE(file.Size().ok());
  ASSERT_TRUE(file.Close().ok());
  EXPECT_EQ(fs_.calls(OpKind::kOpen), 1u);
  EXPECT_EQ(fs_.calls(OpKind::kWrite), 2u);
  EXPECT_EQ(fs_.calls(OpKind::kSync), 1u);
  EXPECT_EQ(fs_.calls(OpKind::kSize), 1u);
  EXPECT_EQ(fs_.calls(OpKind::kClose), 1u);

  ASSERT_TRUE(fs_.ReadFile("/d/f").ok());
  ASSERT_TRUE(fs_.ListDir("/d").ok());
  ASSERT_TRUE(fs_.Stat("/d/f").ok());
  EXPECT_TRUE(fs_.Exists("/d/f"));  // Exists is a Stat.
  EXPECT_FALSE(fs_.Exists("/d/nothing"));
  ASSERT_TRUE(fs_.SetPermissions("/d/f", 0600).ok());
  ASSERT_TRUE(fs_.RemoveDir("/d/empty").ok());
  ASSERT_TRUE(fs_.RemoveFile("/d/f").ok());
  EXPECT_EQ(fs_.calls(OpKind::kRead), 1u);
  EXPECT_EQ(fs_.calls(OpKind::kList), 1u);
  EXPECT_EQ(fs_.calls(OpKind::kStat), 3u);
  EXPECT_EQ(fs_.calls(OpKind::kChmod), 1u);
  EXPECT_EQ(fs_.calls(OpKind::kRmdir), 1u);
  EXPECT_EQ(fs_.calls(OpKind::kRemove), 1u);

  EXPECT_EQ(fs_.TempDir(), "/tmp");  // Not counted.
  EXPECT_EQ(fs_.total_calls(), 18u);

  fs_.ResetCounters();
  EXPECT_EQ(fs_.total_calls(), 0u);
  EXPECT_EQ(fs_.calls(OpKind::kStat), 0u);
}

TEST_F(FaultInjectingFileSystemTest, FailedCallsAreCountedToo) {
  fs_.AddRule(Rule(OpKind::kStat, EIO, 0, std::nullopt));
  EXPECT_FALSE(fs_.Stat("/tmp").ok());
  EXPECT_FALSE(fs_.Stat("/tmp").ok());
  EXPECT_FALSE(fs_.CreateDir("/tmp").ok());  // Reaches the target: EEXIST.
  EXPECT_EQ(fs_.calls(OpKind::kStat), 2u);
  EXPECT_EQ(fs_.calls(OpKind::kMkdir), 1u);
  EXPECT_EQ(fs_.total_calls(), 3u);
}

TEST_F(FaultInjectingFileSystemTest, ResetCountersForgetsCallsAndFaultsButNotRuleProgress) {
  fs_.AddRule(Rule(OpKind::kMkdir, EIO, /*after=*/1, /*times=*/1));
  fs_.AddRule(Rule(OpKind::kStat, EIO, 0, 1));
  EXPECT_TRUE(fs_.CreateDir("/tmp/a").ok());
  EXPECT_FALSE(fs_.Stat("/tmp").ok());
  fs_.ResetCounters();
  EXPECT_EQ(fs_.total_calls(), 0u);
  EXPECT_THAT(fs_.injected(), IsEmpty());
  // The mkdir rule has already let its one call through.
  EXPECT_TRUE(fs_.CreateDir("/tmp/b").IsErrno(EIO));
  EXPECT_EQ(fs_.total_calls(), 1u);
  EXPECT_EQ(fs_.injected().size(), 1u);
}

TEST_F(FaultInjectingFileSystemTest, ActionsFromOutsideAreNeitherCountedNorFaulted) {
  MakeDir("/local0");
  MakeDir("/local0/datafusion-x");
  MakeFile("/local0/datafusion-x/f", "data");
  fs_.AddRule(Rule(std::nullopt, EIO, 0, std::nullopt));
  EXPECT_TRUE(fs_.SetPermissionsFromOutside("/local0", 0500).ok());
  StatusOr<FileStat> stat = mem_->Stat("/local0");
  ASSERT_TRUE(stat.ok());
  EXPECT_EQ(stat->mode, 0500u);
  ASSERT_TRUE(fs_.SetPermissionsFromOutside("/local0", 0700).ok());
  EXPECT_TRUE(fs_.RemoveTreeFromOutside("/local0/datafusion-x").ok());
  EXPECT_FALSE(mem_->Exists("/local0/datafusion-x"));
  EXPECT_EQ(fs_.RemoveTreeFromOutside("/nothing").error_number(), ENOENT);
  EXPECT_EQ(fs_.total_calls(), 0u);
  EXPECT_THAT(fs_.injected(), IsEmpty());
}

// /t holds files a, b, c and a directory s holding x.
class RemoveTreeTest : public FaultInjectingFileSystemTest {
 protected:
  void SetUp() override {
    MakeDir("/t");
    MakeFile("/t/a");
    MakeFile("/t/b");
    MakeFile("/t/c");
    MakeDir("/t/s");
    MakeFile("/t/s/x");
  }
};

TEST_F(RemoveTreeTest, EachStepIsACallOfItsOwn) {
  ASSERT_TRUE(fs_.RemoveTree("/t").ok());
  EXPECT_FALSE(mem_->Exists("/t"));
  EXPECT_EQ(fs_.calls(OpKind::kList), 2u);
  EXPECT_EQ(fs_.calls(OpKind::kRemove), 4u);
  EXPECT_EQ(fs_.calls(OpKind::kRmdir), 2u);
  EXPECT_EQ(fs_.total_calls(), 8u);
}

TEST_F(RemoveTreeTest, AFaultOnTheSecondRemoveStopsThereAndLeavesTheRest) {
  fs_.AddRule(Rule(OpKind::kRemove, EIO, /*after=*/1, /*times=*/1));
  EXPECT_EQ(fs_.RemoveTree("/t"), Status::FromErrno(EIO, "remove", "/t/b"));
  EXPECT_FALSE(mem_->Exists("/t/a"));
  EXPECT_TRUE(mem_->Exists("/t/b"));
  EXPECT_TRUE(mem_->Exists("/t/c"));
  EXPECT_TRUE(mem_->Exists("/t/s/x"));
  // The fault is spent, so a second attempt finishes the job.
  EXPECT_TRUE(fs_.RemoveTree("/t").ok());
  EXPECT_FALSE(mem_->Exists("/t"));
}

TEST_F(RemoveTreeTest, FaultsOnListingAndRmdirStopItToo) {
  fs_.AddRule(Rule(OpKind::kList, EACCES, 0, 1, "/t/s"));
  EXPECT_EQ(fs_.RemoveTree("/t"), Status::FromErrno(EACCES, "list", "/t/s"));
  EXPECT_TRUE(mem_->Exists("/t/s/x"));
  EXPECT_FALSE(mem_->Exists("/t/c"));
  fs_.AddRule(Rule(OpKind::kRmdir, EBUSY, 0, 1, "/t"));
  EXPECT_EQ(fs_.RemoveTree("/t"), Status::FromErrno(EBUSY, "rmdir", "/t"));
  EXPECT_FALSE(mem_->Exists("/t/s"));
  EXPECT_TRUE(mem_->Exists("/t"));
}

TEST_F(RemoveTreeTest, RemovingAFileIsAFailedListThenAnUnlink) {
  ASSERT_TRUE(fs_.RemoveTree("/t/a").ok());
  EXPECT_FALSE(mem_->Exists("/t/a"));
  EXPECT_EQ(fs_.calls(OpKind::kList), 1u);
  EXPECT_EQ(fs_.calls(OpKind::kRemove), 1u);
  EXPECT_EQ(fs_.total_calls(), 2u);
}

TEST_F(FaultInjectingFileSystemTest, ErrorsOfTheTargetPassThroughUnchanged) {
  EXPECT_EQ(fs_.CreateDir("/missing/x"), mem_->CreateDir("/missing/x"));
  EXPECT_EQ(fs_.OpenForAppend("/tmp/none").status(), mem_->OpenForAppend("/tmp/none").status());
  EXPECT_EQ(fs_.RemoveDir("/"), mem_->RemoveDir("/"));
  EXPECT_THAT(fs_.injected(), IsEmpty());
}

TEST_F(FaultInjectingFileSystemTest, ConcurrentCallsAreAllCountedAndRulesFailExactlyTimesCalls) {
  constexpr int kThreads = 4;
  constexpr int kIterations = 200;
  constexpr uint64_t kTimes = 50;
  fs_.AddRule(Rule(OpKind::kStat, ENOENT, /*after=*/10, kTimes));
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  std::vector<int> failed_stats(kThreads, 0);
  std::vector<int> other_failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, t, &failed_stats, &other_failures] {
      const std::string dir = "/tmp/t" + std::to_string(t);
      if (!fs_.CreateDir(dir).ok()) ++other_failures[t];
      StatusOr<std::unique_ptr<WritableFile>> file = fs_.CreateFile(dir + "/f");
      if (!file.ok()) {
        ++other_failures[t];
        return;
      }
      for (int i = 0; i < kIterations; ++i) {
        if (!fs_.Stat(dir).ok()) ++failed_stats[t];
        if (!(*file)->Append("x").status.ok()) ++other_failures[t];
        if (!fs_.ListDir(dir).ok()) ++other_failures[t];
      }
      if (!(*file)->Close().ok()) ++other_failures[t];
    });
  }
  for (std::thread& thread : threads) thread.join();

  int total_failed_stats = 0;
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(other_failures[t], 0) << "thread " << t;
    total_failed_stats += failed_stats[t];
  }
  EXPECT_EQ(total_failed_stats, static_cast<int>(kTimes));
  EXPECT_EQ(fs_.injected().size(), kTimes);
  EXPECT_EQ(fs_.calls(OpKind::kMkdir), uint64_t{kThreads});
  EXPECT_EQ(fs_.calls(OpKind::kCreate), uint64_t{kThreads});
  EXPECT_EQ(fs_.calls(OpKind::kStat), uint64_t{kThreads} * kIterations);
  EXPECT_EQ(fs_.calls(OpKind::kWrite), uint64_t{kThreads} * kIterations);
  EXPECT_EQ(fs_.calls(OpKind::kList), uint64_t{kThreads} * kIterations);
  EXPECT_EQ(fs_.calls(OpKind::kClose), uint64_t{kThreads});
  EXPECT_EQ(fs_.total_calls(), uint64_t{kThreads} * (3 + 3 * uint64_t{kIterations}));
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(Contents("/tmp/t" + std::to_string(t) + "/f"), std::string(kIterations, 'x'));
  }
}

// A tree removal's steps are counted one per list, remove and rmdir, in walk order, and
// a rule's `after` counts them: with after=5 on any kind, the sixth step fails.
// The walk: list /t, remove a, b, c, list /t/s, remove /t/s/x, rmdir /t/s, rmdir /t.
TEST_F(RemoveTreeTest, ARulesAfterCountsEachStepOfATreeRemoval) {
  fs_.AddRule(Rule(std::nullopt, EIO, /*after=*/5, /*times=*/2));
  const Status failed = fs_.RemoveTree("/t");
  EXPECT_TRUE(failed.IsErrno(EIO)) << failed.ToString();
  EXPECT_EQ(failed.path(), "/t/s/x");
  EXPECT_TRUE(mem_->Exists("/t/s/x"));
  EXPECT_FALSE(mem_->Exists("/t/c"));
  // The second failure (times=2) is the retry's first step; after it the rule is spent.
  EXPECT_TRUE(fs_.RemoveTree("/t").IsErrno(EIO));
  EXPECT_TRUE(fs_.RemoveTree("/t").ok());
  EXPECT_FALSE(mem_->Exists("/t"));
  EXPECT_EQ(fs_.injected().size(), 2u);
  EXPECT_EQ(fs_.calls(OpKind::kList), 5u);  // 2 in the first walk, 1 in the second, 2 in the third.
}

TEST_F(RemoveTreeTest, AForeverRuleFailsEveryStepAfterItsAfter) {
  fs_.AddRule(Rule(OpKind::kRmdir, EBUSY, /*after=*/0, /*times=*/std::nullopt));
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(fs_.RemoveTree("/t").IsErrno(EBUSY));
  EXPECT_EQ(fs_.calls(OpKind::kRmdir), 3u);
  EXPECT_EQ(fs_.injected().size(), 3u);
  EXPECT_TRUE(mem_->Exists("/t/s"));
}
}  // namespace
}  // namespace spillway
