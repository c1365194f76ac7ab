// GoogleMock doubles of FileSystem and WritableFile, for tests of call sequences: which
// calls a component makes, with which arguments, in which order, and what it does with
// each answer.
//
// Neither has a useful default for calls returning a StatusOr (it has no default value),
// so give every expected call an action. MockFileSystem::DelegateTo() makes a real
// FileSystem the default action of every call, for tests that expect only some calls.
#ifndef SPILLWAY_TESTS_SUPPORT_MOCK_FILE_SYSTEM_H_
#define SPILLWAY_TESTS_SUPPORT_MOCK_FILE_SYSTEM_H_

#include <gmock/gmock.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spillway/vfs/file_system.h"
#include "spillway/vfs/status.h"

namespace spillway {

class MockWritableFile : public WritableFile {
 public:
  // path() answers `path` unless a test sets another action.
  explicit MockWritableFile(std::string path = "/mock") : path_(std::move(path)) {
    ON_CALL(*this, path()).WillByDefault(::testing::ReturnRef(path_));
  }

  MOCK_METHOD(const std::string&, path, (), (const, override));
  MOCK_METHOD(AppendResult, Append, (std::string_view data), (override));
  MOCK_METHOD(Status, Sync, (), (override));
  MOCK_METHOD(StatusOr<uint64_t>, Size, (), (override));
  MOCK_METHOD(Status, Close, (), (override));

 private:
  const std::string path_;
};

class MockFileSystem : public FileSystem {
 public:
  MOCK_METHOD(Status, CreateDir, (const std::string& path), (override));
  MOCK_METHOD(StatusOr<std::string>, CreateUniqueDir,
              (const std::string& parent, std::string_view prefix), (override));
  MOCK_METHOD(StatusOr<std::unique_ptr<WritableFile>>, CreateFile, (const std::string& path),
              (override));
  MOCK_METHOD(StatusOr<std::unique_ptr<WritableFile>>, CreateUniqueFile,
              (const std::string& dir, std::string_view prefix), (override));
  MOCK_METHOD(StatusOr<std::unique_ptr<WritableFile>>, OpenForAppend, (const std::string& path),
              (override));
  MOCK_METHOD(StatusOr<std::string>, ReadFile, (const std::string& path), (override));
  MOCK_METHOD(StatusOr<std::vector<DirEntry>>, ListDir, (const std::string& path), (override));
  MOCK_METHOD(StatusOr<FileStat>, Stat, (const std::string& path), (override));
  MOCK_METHOD(Status, RemoveFile, (const std::string& path), (override));
  MOCK_METHOD(Status, RemoveDir, (const std::string& path), (override));
  MOCK_METHOD(Status, RemoveTree, (const std::string& path), (override));
  MOCK_METHOD(Status, SetPermissions, (const std::string& path, uint32_t mode), (override));
  MOCK_METHOD(std::string, TempDir, (), (override));

  // Makes `real` answer every call that no expectation with an action answers. `real`
  // is shared, so it lives as long as this mock. REQUIRES: real != nullptr.
  void DelegateTo(std::shared_ptr<FileSystem> real) {
    using ::testing::_;
    FileSystem* fs = real.get();
    delegate_ = std::move(real);
    ON_CALL(*this, CreateDir(_)).WillByDefault([fs](const std::string& path) {
      return fs->CreateDir(path);
    });
    ON_CALL(*this, CreateUniqueDir(_, _))
        .WillByDefault([fs](const std::string& parent, std::string_view prefix) {
          return fs->CreateUniqueDir(parent, prefix);
        });
    ON_CALL(*this, CreateFile(_)).WillByDefault([fs](const std::string& path) {
      return fs->CreateFile(path);
    });
    ON_CALL(*this, CreateUniqueFile(_, _))
        .WillByDefault([fs](const std::string& dir, std::string_view prefix) {
          return fs->CreateUniqueFile(dir, prefix);
        });
    ON_CALL(*this, OpenForAppend(_)).WillByDefault([fs](const std::string& path) {
      return fs->OpenForAppend(path);
    });
    ON_CALL(*this, ReadFile(_)).WillByDefault([fs](const std::string& path) {
      return fs->ReadFile(path);
    });
    ON_CALL(*this, ListDir(_)).WillByDefault([fs](const std::string& path) {
      return fs->ListDir(path);
    });
    ON_CALL(*this, Stat(_)).WillByDefault([fs](const std::string& path) { return fs->Stat(path); });
    ON_CALL(*this, RemoveFile(_)).WillByDefault([fs](const std::string& path) {
      return fs->RemoveFile(path);
    });
    ON_CALL(*this, RemoveDir(_)).WillByDefault([fs](const std::string& path) {
      return fs->RemoveDir(path);
    });
    ON_CALL(*this, RemoveTree(_)).WillByDefault([fs](const std::string& path) {
      return fs->RemoveTree(path);
    });
    ON_CALL(*this, SetPermissions(_, _))
        .WillByDefault([fs](const std::string& path, uint32_t mode) {
          return fs->SetPermissions(path, mode);
        });
    ON_CALL(*this, TempDir()).WillByDefault([fs] { return fs->TempDir(); });
  }

 private:
  std::shared_ptr<FileSystem> delegate_;
};

}  // namespace spillway

#endif  // SPILLWAY_TESTS_SUPPORT_MOCK_FILE_SYSTEM_H_
