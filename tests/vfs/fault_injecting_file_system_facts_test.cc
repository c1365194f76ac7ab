// FaultInjectingFileSystem injects only what Linux can return, and an injected ENOENT or
// EEXIST is made true first (fault_injecting_file_system.h). Each rule runs on the
// in-memory filesystem and on the real one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <string>
#include <vector>

#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/posix_file_system.h"
#include "support/fault_injecting_file_system_fixture.h"
#include "support/temp_dir.h"

namespace spillway {
namespace {

using test_support::Rule;
using ::testing::HasSubstr;
using ::testing::SizeIs;

TEST(FaultInjectingFileSystemTableTest, CheckFaultRuleRefusesWhatLinuxCannotReturn) {
  EXPECT_TRUE(CheckFaultRule(Rule(OpKind::kWrite, ENOSPC)).ok());
  EXPECT_TRUE(CheckFaultRule(Rule(OpKind::kMkdir, EEXIST)).ok());
  EXPECT_TRUE(CheckFaultRule(Rule(OpKind::kSize, EOVERFLOW)).ok());  // Size is a stat.
  EXPECT_TRUE(CheckFaultRule(Rule(OpKind::kChmod, EPERM)).ok());
  EXPECT_TRUE(CheckFaultRule(Rule(std::nullopt, ENOSPC)).ok());
  for (const FaultRule& bad :
       {Rule(OpKind::kRemove, ENOSPC), Rule(OpKind::kRmdir, ENOSPC), Rule(OpKind::kList, ENOSPC),
        Rule(OpKind::kWrite, ENOENT), Rule(OpKind::kWrite, EACCES), Rule(OpKind::kSize, ENOSPC),
        Rule(OpKind::kChmod, ENOSPC), Rule(std::nullopt, EXDEV), Rule(OpKind::kStat, 0)}) {
    const Status refused = CheckFaultRule(bad);
    EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument) << refused.ToString();
  }
  const Status refused = CheckFaultRule(Rule(OpKind::kRemove, ENOSPC));
  EXPECT_THAT(refused.message(), HasSubstr("remove cannot fail with ENOSPC"));
  EXPECT_THAT(refused.message(), HasSubstr("EACCES"));
  EXPECT_THAT(refused.message(), HasSubstr("EROFS"));
  const std::string allowed = refused.message().substr(refused.message().find(':'));
  EXPECT_THAT(allowed, ::testing::Not(HasSubstr("ENOSPC")));
}

TEST(FaultInjectingFileSystemTableTest, ARefusedRuleIsNeverAdded) {
  auto fs = NewFaultInjectingFileSystem(NewMemFileSystem());
  ASSERT_TRUE(fs->CreateDir("/d").ok());
  EXPECT_EQ(fs->TryAddRule(Rule(OpKind::kRmdir, ENOSPC)).code(), StatusCode::kInvalidArgument);
  fs->AddRule(Rule(OpKind::kRmdir, ENOSPC));
  EXPECT_TRUE(fs->RemoveDir("/d").ok());
  EXPECT_TRUE(fs->injected().empty());
  EXPECT_TRUE(fs->TryAddRule(Rule(OpKind::kRmdir, EBUSY)).ok());
  EXPECT_TRUE(fs->CreateDir("/d").ok());
  EXPECT_TRUE(fs->RemoveDir("/d").IsErrno(EBUSY));
}

// The test's filesystems: "mem", or "posix" rooted in a fresh directory.
class FactsTest : public ::testing::TestWithParam<std::string> {
 protected:
  FactsTest() {
    if (GetParam() == "mem") {
      target_ = NewMemFileSystem();
    } else {
      EXPECT_TRUE(root_.ok()) << root_.error();
      target_ = NewPosixFileSystem(PosixFileSystemOptions{.root = root_.path(), .temp_dir = {}});
    }
    fs_ = NewFaultInjectingFileSystem(target_);
  }

  void MakeTree(const std::string& top) {
    ASSERT_TRUE(target_->CreateDir(top).ok());
    ASSERT_TRUE(target_->CreateDir(top + "/sub").ok());
    ASSERT_TRUE(target_->CreateFile(top + "/sub/f").ok());
  }

  std::vector<DirEntry> Entries(const std::string& dir) {
    StatusOr<std::vector<DirEntry>> entries = target_->ListDir(dir);
    EXPECT_TRUE(entries.ok()) << entries.status().ToString();
    return entries.ok() ? *entries : std::vector<DirEntry>{};
  }

  test_support::TempDir root_;
  std::shared_ptr<FileSystem> target_;
  std::shared_ptr<FaultInjectingFileSystem> fs_;
};

TEST_P(FactsTest, AnAnyRuleMatchesOnlyTheCallsThatCanReturnItsErrno) {
  MakeTree("/t");
  fs_->AddRule(Rule(std::nullopt, ENOSPC, /*after=*/0, /*times=*/std::nullopt));
  EXPECT_TRUE(fs_->Stat("/t").ok());
  EXPECT_TRUE(fs_->ListDir("/t").ok());
  EXPECT_TRUE(fs_->RemoveFile("/t/sub/f").ok());
  EXPECT_TRUE(fs_->RemoveDir("/t/sub").ok());
  EXPECT_TRUE(fs_->CreateDir("/t/x").IsErrno(ENOSPC));
  EXPECT_TRUE(fs_->CreateFile("/t/y").status().IsErrno(ENOSPC));
  EXPECT_THAT(fs_->injected(), SizeIs(2));
}

TEST_P(FactsTest, RandomFaultsReachOnlyTheCallsThatCanReturnTheirErrno) {
  MakeTree("/t");
  fs_->SetRandomFaults(std::nullopt, ENOSPC, 1);
  EXPECT_TRUE(fs_->Stat("/t").ok());
  EXPECT_TRUE(fs_->RemoveFile("/t/sub/f").ok());
  EXPECT_TRUE(fs_->CreateDir("/t/x").IsErrno(ENOSPC));
  fs_->SetRandomFaults(OpKind::kRmdir, ENOSPC, 1);
  EXPECT_TRUE(fs_->RemoveDir("/t/sub").ok());
  EXPECT_TRUE(fs_->injected().size() == 1);
}

TEST_P(FactsTest, EnoentOnRemovalOrListRemovesTheObjectWithEverythingUnderIt) {
  for (OpKind kind : {OpKind::kRemove, OpKind::kRmdir, OpKind::kList}) {
    SCOPED_TRACE(OpKindName(kind));
    MakeTree("/t");
    const std::string path = kind == OpKind::kRemove ? "/t/sub/f" : "/t/sub";
    fs_->AddRule(Rule(kind, ENOENT, 0, 1, path));
    Status status = kind == OpKind::kRemove  ? fs_->RemoveFile(path)
                    : kind == OpKind::kRmdir ? fs_->RemoveDir(path)
                                             : fs_->ListDir(path).status();
    EXPECT_TRUE(status.IsErrno(ENOENT)) << status.ToString();
    EXPECT_FALSE(target_->Exists(path));
    EXPECT_TRUE(target_->Exists("/t"));
    if (kind == OpKind::kRemove) {
      EXPECT_TRUE(target_->Exists("/t/sub"));
    }
    ASSERT_TRUE(target_->RemoveTree("/t").ok());
  }
}

// Inside a tree removal, an injected ENOENT on a child's step makes the child gone, and
// the removal goes on past it, as rm -rf does with an entry that vanished.
TEST_P(FactsTest, ATreeRemovalGoesOnPastAChildAnEnoentMadeGone) {
  for (OpKind kind : {OpKind::kRemove, OpKind::kRmdir, OpKind::kList}) {
    SCOPED_TRACE(OpKindName(kind));
    MakeTree("/t");
    const std::string path = kind == OpKind::kRemove ? "/t/sub/f" : "/t/sub";
    fs_->AddRule(Rule(kind, ENOENT, 0, 1, path));
    const Status status = fs_->RemoveTree("/t");
    EXPECT_TRUE(status.ok()) << status.ToString();
    EXPECT_FALSE(target_->Exists("/t"));
    EXPECT_THAT(fs_->injected(), SizeIs(1));
    fs_->ClearFaults();
    fs_->ResetCounters();
  }
}

TEST_P(FactsTest, EnoentOnCreateOrMkdirRemovesTheDirectoryItIsMadeIn) {
  MakeTree("/t");
  fs_->AddRule(Rule(OpKind::kCreate, ENOENT, 0, 1));
  EXPECT_TRUE(fs_->CreateFile("/t/sub/new").status().IsErrno(ENOENT));
  EXPECT_FALSE(target_->Exists("/t/sub"));
  EXPECT_TRUE(target_->Exists("/t"));
  fs_->AddRule(Rule(OpKind::kMkdir, ENOENT, 0, 1));
  EXPECT_TRUE(fs_->CreateUniqueDir("/t", "p-").status().IsErrno(ENOENT));
  EXPECT_FALSE(target_->Exists("/t"));
}

TEST_P(FactsTest, EnoentOnStatIsAFactOnlyThroughAny) {
  MakeTree("/t");
  fs_->AddRule(Rule(OpKind::kStat, ENOENT, 0, 1));
  EXPECT_TRUE(fs_->Stat("/t/sub").status().IsErrno(ENOENT));
  EXPECT_TRUE(target_->Exists("/t/sub"));  // Only an answer.
  fs_->AddRule(Rule(std::nullopt, ENOENT, 0, 1, "/t/sub"));
  EXPECT_FALSE(fs_->Exists("/t/sub"));
  EXPECT_FALSE(target_->Exists("/t/sub"));
}

TEST_P(FactsTest, EexistOnANamedMkdirOrCreateCreatesTheName) {
  ASSERT_TRUE(target_->CreateDir("/t").ok());
  fs_->AddRule(Rule(OpKind::kMkdir, EEXIST, 0, 1));
  EXPECT_TRUE(fs_->CreateDir("/t/d").IsErrno(EEXIST));
  StatusOr<FileStat> dir = target_->Stat("/t/d");
  ASSERT_TRUE(dir.ok());
  EXPECT_EQ(dir->type, FileType::kDirectory);
  fs_->AddRule(Rule(std::nullopt, EEXIST, 0, 1));
  EXPECT_TRUE(fs_->CreateFile("/t/f").status().IsErrno(EEXIST));
  StatusOr<FileStat> file = target_->Stat("/t/f");
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(file->type, FileType::kRegular);
}

TEST_P(FactsTest, EexistOnAUniqueNameLeavesAForeignEntryAndRetries) {
  ASSERT_TRUE(target_->CreateDir("/t").ok());
  fs_->AddRule(Rule(OpKind::kMkdir, EEXIST, 0, 1));
  StatusOr<std::string> dir = fs_->CreateUniqueDir("/t", "p-");
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  EXPECT_THAT(Entries("/t"), SizeIs(2));  // Ours and the racing process's.
  fs_->AddRule(Rule(OpKind::kCreate, EEXIST, 0, 1));
  StatusOr<std::unique_ptr<WritableFile>> file = fs_->CreateUniqueFile(*dir, "f-");
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_TRUE((*file)->Append("x").status.ok());
  EXPECT_THAT(Entries(*dir), SizeIs(2));
  EXPECT_THAT(fs_->injected(), SizeIs(2));
}

INSTANTIATE_TEST_SUITE_P(Filesystems, FactsTest, ::testing::Values("mem", "posix"));

}  // namespace
}  // namespace spillway
