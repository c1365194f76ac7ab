// FaultInjectingFileSystem over a MemFileSystem: rules, random faults, short writes,
// counters, actions from outside, tree removal step by step, and concurrent use.
#include "spillway/vfs/fault_injecting_file_system.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "spillway/vfs/file_system.h"
#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/status.h"

namespace spillway {

// For readable failure messages; found by argument-dependent lookup.
void PrintTo(OpKind kind, std::ostream* os) { *os << OpKindName(kind); }
void PrintTo(const InjectedFault& f, std::ostream* os) {
  *os << "{" << OpKindName(f.op) << " " << f.path << " " << ErrnoName(f.error_number) << " "
      << f.bytes_stored << "}";
}

namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr OpKind kAllKinds[] = {
    OpKind::kMkdir,  OpKind::kCreate, OpKind::kOpen,  OpKind::kWrite, OpKind::kSync,
    OpKind::kSize,   OpKind::kClose,  OpKind::kRead,  OpKind::kList,  OpKind::kStat,
    OpKind::kRemove, OpKind::kRmdir,  OpKind::kChmod,
};
static_assert(std::size(kAllKinds) == static_cast<size_t>(kOpKindCount));

FaultRule Rule(std::optional<OpKind> op, int error_number, uint64_t after = 0,
               std::optional<uint64_t> times = 1, std::string path_glob = "") {
  return FaultRule{op, error_number, after, times, std::move(path_glob)};
}

class FaultInjectingFileSystemTest : public ::testing::Test {
 protected:
  FaultInjectingFileSystemTest() : mem_(MemFileSystem::Create()), fs_(mem_, /*seed=*/7) {}

  // Creates a regular file directly in the target, uncounted.
  void MakeFile(const std::string& path, std::string_view contents = "") {
    StatusOr<std::unique_ptr<WritableFile>> file = mem_->CreateFile(path);
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    if (!contents.empty()) {
      ASSERT_TRUE((*file)->Append(contents).status.ok());
    }
    ASSERT_TRUE((*file)->Close().ok());
  }

  void MakeDir(const std::string& path) {
    Status status = mem_->CreateDir(path);
    ASSERT_TRUE(status.ok()) << status.ToString();
  }

  std::string Contents(const std::string& path) {
    StatusOr<std::string> contents = mem_->ReadFile(path);
    EXPECT_TRUE(contents.ok()) << contents.status().ToString();
    return contents.ok() ? *contents : "";
  }

  std::unique_ptr<WritableFile> Create(const std::string& path) {
    StatusOr<std::unique_ptr<WritableFile>> file = fs_.CreateFile(path);
    EXPECT_TRUE(file.ok()) << file.status().ToString();
    return file.ok() ? std::move(*file) : nullptr;
  }

  std::shared_ptr<MemFileSystem> mem_;
  FaultInjectingFileSystem fs_;
};

TEST(OpKindTest, NamesRoundTripAndUnknownNamesAreRejected) {
  const std::vector<std::string_view> expected = {"mkdir",  "create", "open", "write", "sync",
                                                  "size",   "close",  "read", "list",  "stat",
                                                  "remove", "rmdir",  "chmod"};
  for (size_t i = 0; i < std::size(kAllKinds); ++i) {
    EXPECT_EQ(OpKindName(kAllKinds[i]), expected[i]);
    EXPECT_EQ(OpKindFromName(expected[i]), kAllKinds[i]);
  }
  EXPECT_EQ(OpKindFromName("any"), std::nullopt);  // "any" is a rule without a kind.
  EXPECT_EQ(OpKindFromName(""), std::nullopt);
  EXPECT_EQ(OpKindFromName("Mkdir"), std::nullopt);
  EXPECT_EQ(OpKindFromName("unlink"), std::nullopt);
}

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

// One successful call of each kind, in an order that lets every one succeed when no fault
// is injected, with the path a rule sees and the op a failed call reports.
struct Action {
  OpKind kind;
  std::string op;
  std::string path;
  std::function<Status()> run;
};

class EachKindTest : public FaultInjectingFileSystemTest,
                     public ::testing::WithParamInterface<OpKind> {
 protected:
  void SetUp() override {
    MakeDir("/d");
    MakeDir("/d/empty");
    MakeFile("/d/f", "abc");
    MakeFile("/d/h");
    StatusOr<std::unique_ptr<WritableFile>> file = fs_.OpenForAppend("/d/f");
    ASSERT_TRUE(file.ok());
    file_ = std::move(*file);
    fs_.ResetCounters();
  }

  std::vector<Action> Actions() {
    auto keep = [this](StatusOr<std::unique_ptr<WritableFile>> file) {
      if (!file.ok()) return file.status();
      kept_.push_back(std::move(*file));
      return OkStatus();
    };
    return {
        {OpKind::kMkdir, "mkdir", "/d/new", [this] { return fs_.CreateDir("/d/new"); }},
        {OpKind::kMkdir, "mkdir", "/d",
         [this] { return fs_.CreateUniqueDir("/d", "u-").status(); }},
        {OpKind::kCreate, "create", "/d/g", [this, keep] { return keep(fs_.CreateFile("/d/g")); }},
        {OpKind::kCreate, "create", "/d",
         [this, keep] { return keep(fs_.CreateUniqueFile("/d", "s-")); }},
        {OpKind::kOpen, "open", "/d/h", [this, keep] { return keep(fs_.OpenForAppend("/d/h")); }},
        {OpKind::kWrite, "write", "/d/f", [this] { return file_->Append("xyz").status; }},
        {OpKind::kSync, "sync", "/d/f", [this] { return file_->Sync(); }},
        {OpKind::kSize, "size", "/d/f", [this] { return file_->Size().status(); }},
        {OpKind::kRead, "read", "/d/f", [this] { return fs_.ReadFile("/d/f").status(); }},
        {OpKind::kList, "list", "/d", [this] { return fs_.ListDir("/d").status(); }},
        {OpKind::kStat, "stat", "/d/h", [this] { return fs_.Stat("/d/h").status(); }},
        {OpKind::kChmod, "chmod", "/d/h", [this] { return fs_.SetPermissions("/d/h", 0400); }},
        {OpKind::kRmdir, "rmdir", "/d/empty", [this] { return fs_.RemoveDir("/d/empty"); }},
        {OpKind::kRemove, "remove", "/d/h", [this] { return fs_.RemoveFile("/d/h"); }},
        {OpKind::kClose, "close", "/d/f", [this] { return file_->Close(); }},
    };
  }

  std::unique_ptr<WritableFile> file_;
  std::vector<std::unique_ptr<WritableFile>> kept_;
};

TEST_P(EachKindTest, ARuleForOneKindFailsExactlyThoseCallsWithTheirOpAndPath) {
  const OpKind kind = GetParam();
  fs_.AddRule(Rule(kind, EACCES, 0, std::nullopt));
  std::vector<InjectedFault> expected_faults;
  for (const Action& action : Actions()) {
    Status status = action.run();
    if (action.kind == kind) {
      EXPECT_EQ(status, Status::FromErrno(EACCES, action.op, action.path));
      expected_faults.push_back(InjectedFault{kind, action.path, EACCES, 0});
    } else {
      EXPECT_TRUE(status.ok()) << OpKindName(action.kind) << ": " << status.ToString();
    }
  }
  EXPECT_EQ(fs_.injected(), expected_faults);
  EXPECT_EQ(fs_.total_calls(), Actions().size());
}

TEST_P(EachKindTest, AFailedCallLeavesTheTargetAsItWas) {
  const OpKind kind = GetParam();
  fs_.AddRule(Rule(kind, EIO, 0, std::nullopt));
  for (const Action& action : Actions()) {
    if (action.kind == kind) {
      EXPECT_FALSE(action.run().ok());
    }
  }
  const std::vector<DirEntry> expected_d = {
      {"empty", FileType::kDirectory}, {"f", FileType::kRegular}, {"h", FileType::kRegular}};
  StatusOr<std::vector<DirEntry>> listed = mem_->ListDir("/d");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(*listed, expected_d);
  EXPECT_EQ(Contents("/d/f"), "abc");
  StatusOr<FileStat> h = mem_->Stat("/d/h");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->mode, 0600u);
  // A failed Close() did not reach the target, so the file is still open there.
  if (kind == OpKind::kClose) {
    EXPECT_TRUE(file_->Append("!").status.ok());
  }
}

TEST_P(EachKindTest, AnAnyRuleFailsEveryKind) {
  fs_.AddRule(Rule(std::nullopt, ENOSPC, 0, std::nullopt));
  for (const Action& action : Actions()) {
    EXPECT_EQ(action.run(), Status::FromErrno(ENOSPC, action.op, action.path));
  }
  EXPECT_EQ(fs_.injected().size(), Actions().size());
}

INSTANTIATE_TEST_SUITE_P(AllKinds, EachKindTest, ::testing::ValuesIn(kAllKinds),
                         [](const ::testing::TestParamInfo<OpKind>& param_info) {
                           return std::string(OpKindName(param_info.param));
                         });

// Which of `n` CreateDir calls on distinct paths under /tmp fail, as a string of '.'
// (through) and 'x' (failed).
std::string MkdirOutcomes(FileSystem& fs, int n, const std::string& prefix = "/tmp/d") {
  std::string out;
  for (int i = 0; i < n; ++i) out += fs.CreateDir(prefix + std::to_string(i)).ok() ? '.' : 'x';
  return out;
}

TEST_F(FaultInjectingFileSystemTest, AfterLetsCallsThroughThenTimesOneFailsOnce) {
  fs_.AddRule(Rule(OpKind::kMkdir, EIO, /*after=*/2, /*times=*/1));
  EXPECT_EQ(MkdirOutcomes(fs_, 6), "..x...");
  EXPECT_TRUE(mem_->Exists("/tmp/d1"));
  EXPECT_FALSE(mem_->Exists("/tmp/d2"));  // The failed call never reached the target.
  EXPECT_TRUE(mem_->Exists("/tmp/d3"));
}

TEST_F(FaultInjectingFileSystemTest, TimesThreeFailsThreeCallsInARow) {
  fs_.AddRule(Rule(OpKind::kMkdir, EIO, /*after=*/1, /*times=*/3));
  EXPECT_EQ(MkdirOutcomes(fs_, 7), ".xxx...");
}

TEST_F(FaultInjectingFileSystemTest, TimesForeverFailsEveryLaterCall) {
  fs_.AddRule(Rule(OpKind::kMkdir, EIO, /*after=*/3, /*times=*/std::nullopt));
  EXPECT_EQ(MkdirOutcomes(fs_, 40), "..." + std::string(37, 'x'));
}

TEST_F(FaultInjectingFileSystemTest, TimesZeroNeverFails) {
  fs_.AddRule(Rule(OpKind::kMkdir, EIO, 0, /*times=*/0));
  EXPECT_EQ(MkdirOutcomes(fs_, 3), "...");
  EXPECT_THAT(fs_.injected(), IsEmpty());
}

TEST_F(FaultInjectingFileSystemTest, APathGlobLimitsARuleAndOnlyMatchingCallsCountTowardsAfter) {
  MakeDir("/a");
  MakeDir("/b");
  fs_.AddRule(Rule(OpKind::kMkdir, EROFS, /*after=*/1, /*times=*/std::nullopt, "/a/*"));
  EXPECT_TRUE(fs_.CreateDir("/b/1").ok());
  EXPECT_TRUE(fs_.CreateDir("/b/2").ok());
  EXPECT_TRUE(fs_.CreateDir("/a/1").ok());  // The one matching call let through.
  EXPECT_EQ(fs_.CreateDir("/a/2"), Status::FromErrno(EROFS, "mkdir", "/a/2"));
  EXPECT_TRUE(fs_.CreateDir("/b/3").ok());
  EXPECT_FALSE(fs_.CreateDir("/a/3").ok());
  EXPECT_TRUE(fs_.Stat("/a/1").ok());  // Another kind on a matching path.
  // "*" stays within one component: "/a/1/x" does not match "/a/*".
  EXPECT_TRUE(fs_.CreateDir("/a/1/x").ok());
}

TEST_F(FaultInjectingFileSystemTest, UniqueCreationsMatchOnTheirParentDirectory) {
  MakeDir("/d");
  fs_.AddRule(Rule(OpKind::kCreate, EIO, 0, std::nullopt, "/d/*"));
  fs_.AddRule(Rule(OpKind::kMkdir, ENOSPC, 0, std::nullopt, "/d"));
  // The new name is not known before the call, so "/d/*" cannot match it...
  EXPECT_TRUE(fs_.CreateUniqueFile("/d", "spill-").ok());
  // ...while a rule on the parent does.
  StatusOr<std::string> dir = fs_.CreateUniqueDir("/d", "datafusion-");
  EXPECT_EQ(dir.status(), Status::FromErrno(ENOSPC, "mkdir", "/d"));
  EXPECT_THAT(fs_.injected(), ElementsAre(InjectedFault{OpKind::kMkdir, "/d", ENOSPC, 0}));
  // A named creation matches on its own path.
  EXPECT_EQ(fs_.CreateFile("/d/x").status(), Status::FromErrno(EIO, "create", "/d/x"));
}

TEST_F(FaultInjectingFileSystemTest, FileCallsMatchOnTheFilesPath) {
  MakeDir("/d");
  std::unique_ptr<WritableFile> f = Create("/d/f1");
  std::unique_ptr<WritableFile> g = Create("/d/g1");
  ASSERT_NE(f, nullptr);
  ASSERT_NE(g, nullptr);
  fs_.AddRule(Rule(std::nullopt, EIO, 0, std::nullopt, "/d/f*"));
  EXPECT_EQ(f->Append("x").status, Status::FromErrno(EIO, "write", "/d/f1"));
  EXPECT_EQ(f->Sync(), Status::FromErrno(EIO, "sync", "/d/f1"));
  EXPECT_TRUE(g->Append("x").status.ok());
  EXPECT_TRUE(g->Sync().ok());
  EXPECT_EQ(Contents("/d/f1"), "");
  EXPECT_EQ(Contents("/d/g1"), "x");
}

TEST_F(FaultInjectingFileSystemTest, TheFirstDueRuleFailsTheCallAndLaterRulesDoNotSeeIt) {
  // Rule 1 fails the first call; rule 2 only sees the calls rule 1 lets through, so its
  // one let-through call is the second, and it fails the third.
  fs_.AddRule(Rule(OpKind::kMkdir, EACCES, 0, 1));
  fs_.AddRule(Rule(OpKind::kMkdir, ENOSPC, 1, 1));
  std::vector<Status> results;
  for (int i = 0; i < 4; ++i) results.push_back(fs_.CreateDir("/tmp/d" + std::to_string(i)));
  EXPECT_EQ(results[0], Status::FromErrno(EACCES, "mkdir", "/tmp/d0"));
  EXPECT_TRUE(results[1].ok());
  EXPECT_EQ(results[2], Status::FromErrno(ENOSPC, "mkdir", "/tmp/d2"));
  EXPECT_TRUE(results[3].ok());
}

TEST_F(FaultInjectingFileSystemTest, ARuleStillInItsAfterPhaseCountsACallALaterRuleFails) {
  fs_.AddRule(Rule(OpKind::kMkdir, EACCES, /*after=*/1, 1));
  fs_.AddRule(Rule(std::nullopt, ENOSPC, 0, 1));
  // Rule 1 lets this call through (its `after`), then rule 2 fails it.
  EXPECT_EQ(fs_.CreateDir("/tmp/a"), Status::FromErrno(ENOSPC, "mkdir", "/tmp/a"));
  EXPECT_THAT(fs_.injected(), ElementsAre(InjectedFault{OpKind::kMkdir, "/tmp/a", ENOSPC, 0}));
  EXPECT_TRUE(fs_.CreateDir("/tmp/b").IsErrno(EACCES));
  EXPECT_TRUE(fs_.CreateDir("/tmp/c").ok());
}

TEST_F(FaultInjectingFileSystemTest, InjectedRecordsEveryFaultInOrder) {
  MakeDir("/d");
  fs_.AddRule(Rule(OpKind::kMkdir, EIO, 0, 1));
  fs_.AddRule(Rule(OpKind::kStat, ENOENT, 1, 1));
  fs_.AddRule(Rule(OpKind::kList, EACCES, 0, 1, "/d"));
  EXPECT_FALSE(fs_.CreateDir("/d/x").ok());
  EXPECT_TRUE(fs_.ListDir("/tmp").ok());
  EXPECT_TRUE(fs_.Stat("/d").ok());
  EXPECT_FALSE(fs_.Stat("/d").ok());
  EXPECT_FALSE(fs_.ListDir("/d").ok());
  EXPECT_THAT(fs_.injected(), ElementsAre(InjectedFault{OpKind::kMkdir, "/d/x", EIO, 0},
                                          InjectedFault{OpKind::kStat, "/d", ENOENT, 0},
                                          InjectedFault{OpKind::kList, "/d", EACCES, 0}));
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

TEST_F(FaultInjectingFileSystemTest, ClearFaultsRemovesRulesRandomFaultsAndShortWrites) {
  fs_.AddRule(Rule(OpKind::kMkdir, EIO, 0, std::nullopt));
  fs_.SetRandomFaults(OpKind::kStat, EIO, 1);
  fs_.AddShortWrite("", 1);
  EXPECT_FALSE(fs_.CreateDir("/tmp/a").ok());
  EXPECT_FALSE(fs_.Stat("/tmp").ok());
  fs_.ClearFaults();
  EXPECT_TRUE(fs_.CreateDir("/tmp/a").ok());
  EXPECT_TRUE(fs_.Stat("/tmp").ok());
  std::unique_ptr<WritableFile> file = Create("/tmp/f");
  ASSERT_NE(file, nullptr);
  AppendResult result = file->Append("abc");
  EXPECT_TRUE(result.status.ok());
  EXPECT_EQ(result.bytes_written, 3u);
  // Counters and the record are kept.
  EXPECT_EQ(fs_.total_calls(), 6u);
  EXPECT_EQ(fs_.injected().size(), 2u);
}

TEST_F(FaultInjectingFileSystemTest, AShortWriteStoresAPrefixFailsWithEioAndIsUsedOnce) {
  std::unique_ptr<WritableFile> file = Create("/tmp/f");
  ASSERT_NE(file, nullptr);
  fs_.AddShortWrite("/tmp/f", 3);
  AppendResult result = file->Append("hello");
  EXPECT_EQ(result.bytes_written, 3u);
  EXPECT_EQ(result.status, Status::FromErrno(EIO, "write", "/tmp/f"));
  EXPECT_EQ(Contents("/tmp/f"), "hel");
  StatusOr<uint64_t> size = file->Size();
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(*size, 3u);

  result = file->Append("world");
  EXPECT_TRUE(result.status.ok());
  EXPECT_EQ(result.bytes_written, 5u);
  EXPECT_EQ(Contents("/tmp/f"), "helworld");
  EXPECT_THAT(fs_.injected(), ElementsAre(InjectedFault{OpKind::kWrite, "/tmp/f", EIO, 3}));
  EXPECT_EQ(fs_.calls(OpKind::kWrite), 2u);  // The prefix is not a call of its own.
}

TEST_F(FaultInjectingFileSystemTest, AShortWriteLargerThanTheAppendStoresItAllAndStillFails) {
  std::unique_ptr<WritableFile> file = Create("/tmp/f");
  ASSERT_NE(file, nullptr);
  fs_.AddShortWrite("/tmp/*", 100);
  AppendResult result = file->Append("ab");
  EXPECT_EQ(result.bytes_written, 2u);
  EXPECT_TRUE(result.status.IsErrno(EIO));
  EXPECT_EQ(Contents("/tmp/f"), "ab");
}

TEST_F(FaultInjectingFileSystemTest, AShortWriteOfZeroBytesStoresNothing) {
  std::unique_ptr<WritableFile> file = Create("/tmp/f");
  ASSERT_NE(file, nullptr);
  fs_.AddShortWrite("/tmp/f", 0);
  AppendResult result = file->Append("ab");
  EXPECT_EQ(result.bytes_written, 0u);
  EXPECT_TRUE(result.status.IsErrno(EIO));
  EXPECT_EQ(Contents("/tmp/f"), "");
}

TEST_F(FaultInjectingFileSystemTest, ShortWritesAreTakenInOrderByTheFileTheyMatch) {
  std::unique_ptr<WritableFile> f = Create("/tmp/f");
  std::unique_ptr<WritableFile> g = Create("/tmp/g");
  ASSERT_NE(f, nullptr);
  ASSERT_NE(g, nullptr);
  fs_.AddShortWrite("/tmp/f", 1);
  fs_.AddShortWrite("/tmp/g", 2);
  fs_.AddShortWrite("/tmp/f", 3);
  EXPECT_EQ(g->Append("123456").bytes_written, 2u);
  EXPECT_EQ(f->Append("abcdef").bytes_written, 1u);
  EXPECT_EQ(f->Append("ABCDEF").bytes_written, 3u);
  AppendResult whole = f->Append("xy");
  EXPECT_TRUE(whole.status.ok());
  EXPECT_EQ(Contents("/tmp/f"), "aABCxy");
  EXPECT_EQ(Contents("/tmp/g"), "12");
}

TEST_F(FaultInjectingFileSystemTest, AnAppendFailedByARuleDoesNotUseUpAShortWrite) {
  std::unique_ptr<WritableFile> file = Create("/tmp/f");
  ASSERT_NE(file, nullptr);
  fs_.AddRule(Rule(OpKind::kWrite, ENOSPC, 0, 1));
  fs_.AddShortWrite("/tmp/f", 1);
  AppendResult refused = file->Append("abc");
  EXPECT_EQ(refused.bytes_written, 0u);
  EXPECT_TRUE(refused.status.IsErrno(ENOSPC));
  AppendResult short_write = file->Append("abc");
  EXPECT_EQ(short_write.bytes_written, 1u);
  EXPECT_TRUE(short_write.status.IsErrno(EIO));
  EXPECT_EQ(Contents("/tmp/f"), "a");
}

TEST_F(FaultInjectingFileSystemTest, AShortWriteReportsTheTargetsOwnErrorOnThePrefix) {
  mem_->SetCapacity(2);
  std::unique_ptr<WritableFile> file = Create("/tmp/f");
  ASSERT_NE(file, nullptr);
  fs_.AddShortWrite("/tmp/f", 4);
  AppendResult result = file->Append("abcdef");
  EXPECT_EQ(result.bytes_written, 2u);
  EXPECT_TRUE(result.status.IsErrno(ENOSPC)) << result.status.ToString();
  EXPECT_EQ(Contents("/tmp/f"), "ab");
}

// Which of `n` Stat calls fail, as '.' and 'x'.
std::string StatOutcomes(FileSystem& fs, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += fs.Stat("/tmp").ok() ? '.' : 'x';
  return out;
}

TEST_F(FaultInjectingFileSystemTest, RandomFaultsReplayFromTheSeedAndDifferForAnotherSeed) {
  auto run = [](uint64_t seed) {
    FaultInjectingFileSystem fs(MemFileSystem::Create(), seed);
    fs.SetRandomFaults(OpKind::kStat, EIO, 4);
    return StatOutcomes(fs, 200);
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
  FaultInjectingFileSystem plain(MemFileSystem::Create(), 5);
  FaultInjectingFileSystem interleaved(MemFileSystem::Create(), 5);
  plain.SetRandomFaults(OpKind::kStat, ENOENT, 3);
  interleaved.SetRandomFaults(OpKind::kStat, ENOENT, 3);
  std::string plain_outcomes = StatOutcomes(plain, 60);
  std::string interleaved_outcomes;
  for (int i = 0; i < 60; ++i) {
    // Mkdir calls are not stat calls: they neither fail nor move the generator.
    ASSERT_TRUE(interleaved.CreateDir("/tmp/d" + std::to_string(i)).ok());
    interleaved_outcomes += StatOutcomes(interleaved, 1);
  }
  EXPECT_EQ(interleaved_outcomes, plain_outcomes);
  std::vector<InjectedFault> faults = interleaved.injected();
  ASSERT_FALSE(faults.empty());
  for (const InjectedFault& f : faults) {
    EXPECT_EQ(f.op, OpKind::kStat);
    EXPECT_EQ(f.error_number, ENOENT);
  }
  EXPECT_EQ(faults.size(),
            static_cast<size_t>(std::count(plain_outcomes.begin(), plain_outcomes.end(), 'x')));
}

TEST_F(FaultInjectingFileSystemTest, RandomFaultsOneInOneFailEveryCallAndZeroTurnsThemOff) {
  fs_.SetRandomFaults(std::nullopt, EBUSY, 1);
  EXPECT_EQ(fs_.Stat("/tmp").status(), Status::FromErrno(EBUSY, "stat", "/tmp"));
  EXPECT_EQ(fs_.CreateDir("/tmp/a"), Status::FromErrno(EBUSY, "mkdir", "/tmp/a"));
  fs_.SetRandomFaults(std::nullopt, EBUSY, 0);
  EXPECT_EQ(StatOutcomes(fs_, 20), std::string(20, '.'));
}

TEST_F(FaultInjectingFileSystemTest, RulesComeBeforeRandomFaults) {
  fs_.AddRule(Rule(OpKind::kStat, EACCES, 0, 1));
  fs_.SetRandomFaults(OpKind::kStat, EIO, 1);
  EXPECT_EQ(fs_.Stat("/tmp").status(), Status::FromErrno(EACCES, "stat", "/tmp"));
  EXPECT_THAT(fs_.injected(), ElementsAre(InjectedFault{OpKind::kStat, "/tmp", EACCES, 0}));
  EXPECT_TRUE(fs_.Stat("/tmp").status().IsErrno(EIO));
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

TEST_F(FaultInjectingFileSystemTest, DestroyingAnOpenFileIsNotAClose) {
  fs_.AddRule(Rule(OpKind::kClose, EIO, 0, std::nullopt));
  std::unique_ptr<WritableFile> file = Create("/tmp/f");
  ASSERT_NE(file, nullptr);
  ASSERT_TRUE(file->Append("abc").status.ok());
  ASSERT_TRUE(mem_->RemoveFile("/tmp/f").ok());
  EXPECT_EQ(mem_->used_bytes(), 3u);  // Unlinked but open: its bytes still count.
  file.reset();
  EXPECT_EQ(fs_.calls(OpKind::kClose), 0u);
  EXPECT_THAT(fs_.injected(), IsEmpty());
  // The wrapper released the target's file, whose own destructor closed it.
  EXPECT_EQ(mem_->used_bytes(), 0u);
}

TEST_F(FaultInjectingFileSystemTest, AFailedCloseLeavesTheFileOpenAndUsable) {
  std::unique_ptr<WritableFile> file = Create("/tmp/f");
  ASSERT_NE(file, nullptr);
  fs_.AddRule(Rule(OpKind::kClose, EIO, 0, 1));
  EXPECT_EQ(file->Close(), Status::FromErrno(EIO, "close", "/tmp/f"));
  EXPECT_TRUE(file->Append("still open").status.ok());
  EXPECT_TRUE(file->Close().ok());
  // Now the target's file is closed, and says so.
  EXPECT_TRUE(file->Close().IsErrno(EBADF));
  EXPECT_TRUE(file->Append("x").status.IsErrno(EBADF));
  EXPECT_EQ(fs_.calls(OpKind::kClose), 3u);
  EXPECT_EQ(Contents("/tmp/f"), "still open");
}

TEST_F(FaultInjectingFileSystemTest, AFileMayOutliveTheInjector) {
  auto fs = std::make_unique<FaultInjectingFileSystem>(mem_);
  StatusOr<std::unique_ptr<WritableFile>> file = fs->CreateFile("/tmp/f");
  ASSERT_TRUE(file.ok());
  fs->AddShortWrite("/tmp/f", 1);
  fs.reset();
  EXPECT_EQ((*file)->Append("ab").bytes_written, 1u);
  EXPECT_TRUE((*file)->Append("cd").status.ok());
  EXPECT_TRUE((*file)->Close().ok());
  EXPECT_EQ(Contents("/tmp/f"), "acd");
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
  EXPECT_EQ(fs_.calls(OpKind::kStat), uint64_t{kThreads * kIterations});
  EXPECT_EQ(fs_.calls(OpKind::kWrite), uint64_t{kThreads * kIterations});
  EXPECT_EQ(fs_.calls(OpKind::kList), uint64_t{kThreads * kIterations});
  EXPECT_EQ(fs_.calls(OpKind::kClose), uint64_t{kThreads});
  EXPECT_EQ(fs_.total_calls(), uint64_t{kThreads * (3 + 3 * kIterations)});
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(Contents("/tmp/t" + std::to_string(t) + "/f"), std::string(kIterations, 'x'));
  }
}

}  // namespace
}  // namespace spillway
