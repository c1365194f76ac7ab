// MockFileSystem and MockWritableFile in use: call-sequence tests of the FileSystem
// decorators (FileSystemWrapper, FaultInjectingFileSystem).
#include "support/mock_file_system.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/status.h"

namespace spillway {
namespace {

using ::testing::_;
using ::testing::AnyNumber;
using ::testing::ByMove;
using ::testing::InSequence;
using ::testing::NiceMock;
using ::testing::Return;
using ::testing::StrictMock;

using FileOr = StatusOr<std::unique_ptr<WritableFile>>;

// Moves a mock file into the StatusOr a mocked Create/Open returns.
auto ReturnFile(std::unique_ptr<WritableFile> file) {
  return Return(ByMove(FileOr(std::move(file))));
}

TEST(FileSystemWrapperTest, ForwardsEveryCallWithItsArgumentsAndReturnsTheAnswerUnchanged) {
  auto target = std::make_shared<StrictMock<MockFileSystem>>();
  FileSystemWrapper wrapper(target);

  auto created = std::make_unique<NiceMock<MockWritableFile>>("/a/f");
  auto opened = std::make_unique<NiceMock<MockWritableFile>>("/a/g");
  WritableFile* const created_raw = created.get();
  WritableFile* const opened_raw = opened.get();
  const std::vector<DirEntry> entries = {{"f", FileType::kRegular}, {"sub", FileType::kDirectory}};
  const FileStat stat{FileType::kDirectory, 0, 0700};
  {
    InSequence in_order;
    EXPECT_CALL(*target, CreateDir("/a"))
        .WillOnce(Return(Status::FromErrno(EEXIST, "mkdir", "/a")));
    EXPECT_CALL(*target, CreateUniqueDir("/a", "datafusion-"))
        .WillOnce(Return(StatusOr<std::string>("/a/datafusion-x1")));
    EXPECT_CALL(*target, CreateFile("/a/f")).WillOnce(ReturnFile(std::move(created)));
    EXPECT_CALL(*target, CreateUniqueFile("/a", "spill-"))
        .WillOnce(Return(ByMove(FileOr(Status::FromErrno(ENOSPC, "create", "/a")))));
    EXPECT_CALL(*target, OpenForAppend("/a/g")).WillOnce(ReturnFile(std::move(opened)));
    EXPECT_CALL(*target, ReadFile("/a/f")).WillOnce(Return(StatusOr<std::string>("bytes")));
    EXPECT_CALL(*target, ListDir("/a")).WillOnce(Return(StatusOr<std::vector<DirEntry>>(entries)));
    EXPECT_CALL(*target, Stat("/a")).WillOnce(Return(StatusOr<FileStat>(stat)));
    EXPECT_CALL(*target, RemoveFile("/a/f"))
        .WillOnce(Return(Status::FromErrno(ENOENT, "remove", "/a/f")));
    EXPECT_CALL(*target, RemoveDir("/a"))
        .WillOnce(Return(Status::FromErrno(ENOTEMPTY, "rmdir", "/a")));
    EXPECT_CALL(*target, RemoveTree("/a/sub")).WillOnce(Return(OkStatus()));
    EXPECT_CALL(*target, SetPermissions("/a", 0500u))
        .WillOnce(Return(Status::FromErrno(EPERM, "chmod", "/a")));
    EXPECT_CALL(*target, TempDir()).WillOnce(Return("/scratch"));
  }

  EXPECT_EQ(wrapper.CreateDir("/a"), Status::FromErrno(EEXIST, "mkdir", "/a"));
  StatusOr<std::string> unique_dir = wrapper.CreateUniqueDir("/a", "datafusion-");
  ASSERT_TRUE(unique_dir.ok());
  EXPECT_EQ(*unique_dir, "/a/datafusion-x1");
  FileOr file = wrapper.CreateFile("/a/f");
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(file->get(), created_raw);  // The target's own file, not a copy or a wrapper.
  EXPECT_EQ(wrapper.CreateUniqueFile("/a", "spill-").status(),
            Status::FromErrno(ENOSPC, "create", "/a"));
  FileOr reopened = wrapper.OpenForAppend("/a/g");
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ(reopened->get(), opened_raw);
  StatusOr<std::string> bytes = wrapper.ReadFile("/a/f");
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(*bytes, "bytes");
  StatusOr<std::vector<DirEntry>> listed = wrapper.ListDir("/a");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(*listed, entries);
  StatusOr<FileStat> stated = wrapper.Stat("/a");
  ASSERT_TRUE(stated.ok());
  EXPECT_EQ(*stated, stat);
  EXPECT_EQ(wrapper.RemoveFile("/a/f"), Status::FromErrno(ENOENT, "remove", "/a/f"));
  EXPECT_EQ(wrapper.RemoveDir("/a"), Status::FromErrno(ENOTEMPTY, "rmdir", "/a"));
  EXPECT_TRUE(wrapper.RemoveTree("/a/sub").ok());
  EXPECT_EQ(wrapper.SetPermissions("/a", 0500), Status::FromErrno(EPERM, "chmod", "/a"));
  EXPECT_EQ(wrapper.TempDir(), "/scratch");
}

TEST(FaultInjectingFileSystemMockTest, AFailedCallDoesNotReachTheTargetALetThroughOneDoes) {
  auto target = std::make_shared<StrictMock<MockFileSystem>>();
  auto fs = NewFaultInjectingFileSystem(target);
  fs->AddRule(FaultRule{OpKind::kMkdir, EACCES, /*after=*/1, /*times=*/1, "/a*"});
  {
    // The StrictMock fails the test if "/a2" reaches it.
    InSequence in_order;
    EXPECT_CALL(*target, CreateDir("/a1")).WillOnce(Return(OkStatus()));
    EXPECT_CALL(*target, CreateDir("/b")).WillOnce(Return(OkStatus()));
    EXPECT_CALL(*target, CreateDir("/a3"))
        .WillOnce(Return(Status::FromErrno(EEXIST, "mkdir", "/a3")));
  }

  EXPECT_TRUE(fs->CreateDir("/a1").ok());  // The rule's `after` call.
  EXPECT_TRUE(fs->CreateDir("/b").ok());   // Outside the rule's glob.
  EXPECT_EQ(fs->CreateDir("/a2"), Status::FromErrno(EACCES, "mkdir", "/a2"));
  // Spent after one failure: the next call reaches the target, whose answer comes back.
  EXPECT_EQ(fs->CreateDir("/a3"), Status::FromErrno(EEXIST, "mkdir", "/a3"));
  EXPECT_EQ(fs->calls(OpKind::kMkdir), 4u);
}

TEST(FaultInjectingFileSystemMockTest, AWrappedFileForwardsLetThroughCallsToTheTargetFile) {
  auto target = std::make_shared<StrictMock<MockFileSystem>>();
  auto fs = NewFaultInjectingFileSystem(target);
  auto file = std::make_unique<StrictMock<MockWritableFile>>("/d/f");
  MockWritableFile& mock_file = *file;
  EXPECT_CALL(mock_file, path()).Times(AnyNumber());
  EXPECT_CALL(*target, CreateUniqueFile("/d", "spill-")).WillOnce(ReturnFile(std::move(file)));
  {
    InSequence in_order;
    EXPECT_CALL(mock_file, Append("abc")).WillOnce(Return(AppendResult{3, OkStatus()}));
    // The second append is failed by the rule and never arrives; the short write sends
    // only its first two bytes.
    EXPECT_CALL(mock_file, Append("gh")).WillOnce(Return(AppendResult{2, OkStatus()}));
    EXPECT_CALL(mock_file, Sync()).WillOnce(Return(OkStatus()));
    EXPECT_CALL(mock_file, Size()).WillOnce(Return(StatusOr<uint64_t>(5)));
    EXPECT_CALL(mock_file, Close()).WillOnce(Return(OkStatus()));
  }

  FileOr opened = fs->CreateUniqueFile("/d", "spill-");
  ASSERT_TRUE(opened.ok());
  WritableFile& wrapped = **opened;
  EXPECT_NE(&wrapped, &mock_file);  // The caller gets the injector's wrapper.
  EXPECT_EQ(wrapped.path(), "/d/f");

  fs->AddRule(FaultRule{OpKind::kWrite, EIO, /*after=*/1, /*times=*/1, "/d/f"});
  AppendResult first = wrapped.Append("abc");
  EXPECT_TRUE(first.status.ok());
  EXPECT_EQ(first.bytes_written, 3u);
  AppendResult failed = wrapped.Append("def");
  EXPECT_EQ(failed.status, Status::FromErrno(EIO, "write", "/d/f"));
  EXPECT_EQ(failed.bytes_written, 0u);

  fs->AddShortWrite("/d/*", 2);
  AppendResult short_write = wrapped.Append("ghij");
  EXPECT_EQ(short_write.status, Status::FromErrno(EIO, "write", "/d/f"));
  EXPECT_EQ(short_write.bytes_written, 2u);

  EXPECT_TRUE(wrapped.Sync().ok());
  StatusOr<uint64_t> size = wrapped.Size();
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(*size, 5u);
  EXPECT_TRUE(wrapped.Close().ok());
  EXPECT_EQ(fs->calls(OpKind::kWrite), 3u);
  EXPECT_EQ(fs->total_calls(), 7u);  // create, 3 appends, sync, size, close.
}

TEST(FaultInjectingFileSystemMockTest, RemoveTreeIsListRemoveRmdirOnTheTargetStepByStep) {
  auto target = std::make_shared<StrictMock<MockFileSystem>>();
  auto fs = NewFaultInjectingFileSystem(target);
  {
    InSequence in_order;
    EXPECT_CALL(*target, ListDir("/t"))
        .WillOnce(Return(StatusOr<std::vector<DirEntry>>(std::vector<DirEntry>{
            {"a", FileType::kRegular}, {"d", FileType::kDirectory}, {"l", FileType::kSymlink}})));
    EXPECT_CALL(*target, RemoveFile("/t/a")).WillOnce(Return(OkStatus()));
    EXPECT_CALL(*target, ListDir("/t/d"))
        .WillOnce(Return(StatusOr<std::vector<DirEntry>>(std::vector<DirEntry>{})));
    EXPECT_CALL(*target, RemoveDir("/t/d")).WillOnce(Return(OkStatus()));
    EXPECT_CALL(*target, RemoveFile("/t/l")).WillOnce(Return(OkStatus()));
    EXPECT_CALL(*target, RemoveDir("/t")).WillOnce(Return(OkStatus()));
  }
  EXPECT_TRUE(fs->RemoveTree("/t").ok());
  EXPECT_EQ(fs->calls(OpKind::kList), 2u);
  EXPECT_EQ(fs->calls(OpKind::kRemove), 2u);
  EXPECT_EQ(fs->calls(OpKind::kRmdir), 2u);
}

TEST(FaultInjectingFileSystemMockTest, OutsideActionsGoStraightToTheTargetEvenUnderFaults) {
  auto target = std::make_shared<StrictMock<MockFileSystem>>();
  auto fs = NewFaultInjectingFileSystem(target);
  fs->AddRule(FaultRule{std::nullopt, EIO, 0, std::nullopt, ""});  // Fail every call.
  {
    InSequence in_order;
    EXPECT_CALL(*target, RemoveTree("/t")).WillOnce(Return(OkStatus()));
    EXPECT_CALL(*target, SetPermissions("/u", 0500u)).WillOnce(Return(OkStatus()));
    EXPECT_CALL(*target, TempDir()).WillOnce(Return("/tmp"));
  }
  EXPECT_TRUE(fs->RemoveTreeFromOutside("/t").ok());
  EXPECT_TRUE(fs->SetPermissionsFromOutside("/u", 0500).ok());
  EXPECT_EQ(fs->TempDir(), "/tmp");
  EXPECT_EQ(fs->total_calls(), 0u);
  EXPECT_TRUE(fs->injected().empty());
}

TEST(MockFileSystemTest, DelegateToLetsARealFileSystemAnswerWhatATestDoesNotOverride) {
  auto mem = NewMemFileSystem();
  auto mock = std::make_shared<StrictMock<MockFileSystem>>();
  mock->DelegateTo(mem);
  // Every CreateDir is expected and answered by `mem`, except the one on "/tmp/b" (newer
  // expectations are tried first).
  EXPECT_CALL(*mock, CreateDir(_)).Times(3);
  EXPECT_CALL(*mock, CreateDir("/tmp/b"))
      .WillOnce(Return(Status::FromErrno(EROFS, "mkdir", "/tmp/b")));
  EXPECT_CALL(*mock, CreateFile("/tmp/a/f"));
  EXPECT_CALL(*mock, ListDir("/tmp"));

  EXPECT_TRUE(mock->CreateDir("/tmp/a").ok());
  EXPECT_TRUE(mock->CreateDir("/tmp/b").IsErrno(EROFS));
  EXPECT_TRUE(mock->CreateDir("/tmp/c").ok());
  EXPECT_TRUE(mock->CreateDir("/tmp/a").IsErrno(EEXIST));  // `mem`'s own answer.
  EXPECT_TRUE(mock->CreateFile("/tmp/a/f").ok());
  StatusOr<std::vector<DirEntry>> listed = mock->ListDir("/tmp");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(*listed,
            (std::vector<DirEntry>{{"a", FileType::kDirectory}, {"c", FileType::kDirectory}}));
  EXPECT_TRUE(mem->Exists("/tmp/a/f"));
  EXPECT_FALSE(mem->Exists("/tmp/b"));
}

}  // namespace
}  // namespace spillway
