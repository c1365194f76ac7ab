// FaultInjectingFileSystem's rules: op names, which calls a rule fails and how (after,
// times, path globs, the order of rules), the record of injected faults, and ClearFaults.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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
using ::testing::ElementsAre;
using ::testing::IsEmpty;

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
  fs_.AddRule(Rule(kind, EIO, 0, std::nullopt));
  std::vector<InjectedFault> expected_faults;
  for (const Action& action : Actions()) {
    Status status = action.run();
    if (action.kind == kind) {
      EXPECT_EQ(status, Status::FromErrno(EIO, action.op, action.path));
      expected_faults.push_back(InjectedFault{kind, action.path, EIO, 0});
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
  fs_.AddRule(Rule(std::nullopt, EIO, 0, std::nullopt));
  for (const Action& action : Actions()) {
    EXPECT_EQ(action.run(), Status::FromErrno(EIO, action.op, action.path));
  }
  EXPECT_EQ(fs_.injected().size(), Actions().size());
}

TEST_P(EachKindTest, AKillAtAKindStopsThatCallAndEveryLaterOneWithoutEffect) {
  const OpKind kind = GetParam();
  FaultRule kill = Rule(kind, 0);
  kill.action = FaultAction::kKill;
  ASSERT_TRUE(fs_.TryAddRule(kill).ok());
  // The target as a listing of /d and the contents of every file in it.
  const auto snapshot = [this] {
    std::string out;
    StatusOr<std::vector<DirEntry>> listed = mem_->ListDir("/d");
    if (!listed.ok()) return listed.status().ToString();
    for (const DirEntry& entry : *listed) {
      out += entry.name +
             (entry.type == FileType::kRegular ? "=" + Contents("/d/" + entry.name) : "/") + ";";
    }
    return out;
  };
  std::optional<std::string> at_kill;
  uint64_t calls_before = 0;
  for (const Action& action : Actions()) {
    const Status status = action.run();
    if (!at_kill.has_value() && action.kind != kind) {
      EXPECT_TRUE(status.ok()) << action.op << ": " << status.ToString();
      ++calls_before;
      continue;
    }
    if (!at_kill.has_value()) {
      at_kill = snapshot();
      EXPECT_EQ(status.message(), "killed at " + action.op + " " + action.path);
    }
    EXPECT_EQ(status.code(), StatusCode::kAborted) << action.op;
    EXPECT_FALSE(status.ok());
  }
  ASSERT_TRUE(at_kill.has_value());
  EXPECT_TRUE(fs_.killed());
  EXPECT_EQ(snapshot(), *at_kill);                 // Nothing after the kill reached the target.
  EXPECT_EQ(fs_.total_calls(), calls_before + 1);  // A dead process makes no more calls.
  const std::vector<InjectedFault> injected = fs_.injected();
  ASSERT_EQ(injected.size(), 1u);
  EXPECT_EQ(injected[0].op, kind);
  EXPECT_EQ(injected[0].action, FaultAction::kKill);
  EXPECT_EQ(injected[0].error_number, 0);
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
  results.reserve(4);
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

TEST_F(FaultInjectingFileSystemTest, AKillRuleHasNoErrnoAndActsOnce) {
  FaultRule kill = Rule(OpKind::kWrite, 0);
  kill.action = FaultAction::kKill;
  EXPECT_TRUE(CheckFaultRule(kill).ok());
  FaultRule with_errno = kill;
  with_errno.error_number = EIO;
  EXPECT_EQ(CheckFaultRule(with_errno).code(), StatusCode::kInvalidArgument);
  for (const std::optional<uint64_t> times :
       {std::optional<uint64_t>(2), std::optional<uint64_t>()}) {
    FaultRule often = kill;
    often.times = times;
    EXPECT_EQ(CheckFaultRule(often).code(), StatusCode::kInvalidArgument);
  }
  EXPECT_EQ(fs_.AddRuleText("mkdir kill EIO").code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(fs_.AddRuleText("mkdir kill nth=2").ok());
  EXPECT_TRUE(fs_.CreateDir("/a").ok());
  EXPECT_FALSE(fs_.killed());
  EXPECT_EQ(fs_.CreateDir("/b").code(), StatusCode::kAborted);
  EXPECT_TRUE(fs_.killed());
  // A process from outside still sees what the dead one left, and can act.
  EXPECT_TRUE(mem_->Exists("/a"));
  EXPECT_FALSE(mem_->Exists("/b"));
  EXPECT_TRUE(fs_.RemoveTreeFromOutside("/a").ok());
}

TEST_F(FaultInjectingFileSystemTest, TakesTheRuleTextOfInjectAndItsSiteRulesMatchNoCall) {
  MakeDir("/d");
  // nth=2: the second matching call; the op names map onto this filesystem's kinds.
  ASSERT_TRUE(fs_.AddRuleText("mkdir ENOSPC nth=2 path=/d/*").ok());
  EXPECT_TRUE(fs_.CreateDir("/d/1").ok());
  EXPECT_EQ(fs_.CreateDir("/d/2"), Status::FromErrno(ENOSPC, "mkdir", "/d/2"));
  EXPECT_TRUE(fs_.CreateDir("/d/3").ok());
  // This filesystem's calls carry no call site: a site= rule is taken, and fails nothing.
  ASSERT_TRUE(fs_.AddRuleText("any EIO site=9f3a1c0b77e2 times=forever").ok());
  ASSERT_TRUE(fs_.AddRuleText("any EIO site=9f3a1c0b77e2 times=forever then=any").ok());
  EXPECT_TRUE(fs_.CreateDir("/d/4").ok());
  EXPECT_TRUE(fs_.Stat("/d/4").ok());
  EXPECT_EQ(fs_.injected().size(), 1u);
  // Bad text is the engine's one-line reason; probability= belongs to SetRandomFaults; a
  // FileSystem has no rename (the engine's op must not become "any").
  for (const char* bad :
       {"mkdir ENOSPC nth=0", "mkdir ENOSPC nth=1 after=0", "mkdir ENOSPC site=xyz",
        "mkdir ENOSPC then=any", "read ENOSPC", "mkdir EIO probability=0.5", "rename EIO"}) {
    const Status status = fs_.AddRuleText(bad);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(status.ToString().find('\n'), std::string::npos) << bad;
  }
  EXPECT_TRUE(fs_.CreateDir("/d/5").ok());
}

}  // namespace
}  // namespace spillway
