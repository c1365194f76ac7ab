// FaultInjectingFileSystem's seeded random faults: replay from the seed, one kind's draws,
// the 1-in-1 and off settings, and their place after the rules.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <string>
#include <vector>

#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/status.h"
#include "support/fault_injecting_file_system_fixture.h"

namespace spillway {
namespace {

using test_support::Rule;
using ::testing::ElementsAre;

// Which of `n` Stat calls fail, as '.' and 'x'.
std::string StatOutcomes(FileSystem& fs, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += fs.Stat("/tmp").ok() ? '.' : 'x';
  return out;
}

TEST_F(FaultInjectingFileSystemTest, RandomFaultsReplayFromTheSeedAndDifferForAnotherSeed) {
  auto run = [](uint64_t seed) {
    auto fs = NewFaultInjectingFileSystem(NewMemFileSystem(), seed);
    fs->SetRandomFaults(OpKind::kStat, EIO, 4);
    return StatOutcomes(*fs, 200);
  };
  const std::string first = run(42);
  EXPECT_EQ(run(42), first);
  EXPECT_NE(run(43), first);
  // About a quarter fail (the outcome is fixed by the seed; these bounds are loose).
  const auto failed = std::count(first.begin(), first.end(), 'x');
  EXPECT_GT(failed, 20);
  EXPECT_LT(failed, 80);
}

TEST_F(FaultInjectingFileSystemTest, RandomFaultsOfOneKindDrawOnlyForThatKind) {
  auto plain = NewFaultInjectingFileSystem(NewMemFileSystem(), 5);
  auto interleaved = NewFaultInjectingFileSystem(NewMemFileSystem(), 5);
  plain->SetRandomFaults(OpKind::kStat, ENOENT, 3);
  interleaved->SetRandomFaults(OpKind::kStat, ENOENT, 3);
  std::string plain_outcomes = StatOutcomes(*plain, 60);
  std::string interleaved_outcomes;
  for (int i = 0; i < 60; ++i) {
    // Mkdir calls are not stat calls: they neither fail nor move the generator.
    ASSERT_TRUE(interleaved->CreateDir("/tmp/d" + std::to_string(i)).ok());
    interleaved_outcomes += StatOutcomes(*interleaved, 1);
  }
  EXPECT_EQ(interleaved_outcomes, plain_outcomes);
  std::vector<InjectedFault> faults = interleaved->injected();
  ASSERT_FALSE(faults.empty());
  for (const InjectedFault& f : faults) {
    EXPECT_EQ(f.op, OpKind::kStat);
    EXPECT_EQ(f.error_number, ENOENT);
  }
  EXPECT_EQ(faults.size(),
            static_cast<size_t>(std::count(plain_outcomes.begin(), plain_outcomes.end(), 'x')));
}

TEST_F(FaultInjectingFileSystemTest, RandomFaultsOneInOneFailEveryCallAndZeroTurnsThemOff) {
  fs_.SetRandomFaults(std::nullopt, EIO, 1);
  EXPECT_EQ(fs_.Stat("/tmp").status(), Status::FromErrno(EIO, "stat", "/tmp"));
  EXPECT_EQ(fs_.CreateDir("/tmp/a"), Status::FromErrno(EIO, "mkdir", "/tmp/a"));
  fs_.SetRandomFaults(std::nullopt, EIO, 0);
  EXPECT_EQ(StatOutcomes(fs_, 20), std::string(20, '.'));
}

TEST_F(FaultInjectingFileSystemTest, RulesComeBeforeRandomFaults) {
  fs_.AddRule(Rule(OpKind::kStat, EACCES, 0, 1));
  fs_.SetRandomFaults(OpKind::kStat, EIO, 1);
  EXPECT_EQ(fs_.Stat("/tmp").status(), Status::FromErrno(EACCES, "stat", "/tmp"));
  EXPECT_THAT(fs_.injected(), ElementsAre(InjectedFault{OpKind::kStat, "/tmp", EACCES, 0}));
  EXPECT_TRUE(fs_.Stat("/tmp").status().IsErrno(EIO));
}

}  // namespace
}  // namespace spillway
