// What only MemFileSystem has, for permissions: modes recorded whether or not they are
// enforced, and the checks it makes when they are.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <string>

#include "spillway/vfs/file_system.h"
#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/status.h"
#include "support/mem_file_system_test_support.h"
#include "support/status_matchers.h"

namespace spillway {
namespace {

using test_support::MustAppend;
using test_support::MustCreate;
using test_support::NewMem;
using test_support::Options;

// A tree in which /p is the directory under test: it holds a file "f" and a directory "d".
class MemPermissionsTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    fs_ = NewMem(Options().EnforcePermissions(GetParam()));
    ASSERT_THAT(fs_->CreateDir("/p"), IsOk());
    ASSERT_THAT(fs_->CreateDir("/p/d"), IsOk());
    std::unique_ptr<WritableFile> f = MustCreate(*fs_, "/p/f");
    ASSERT_NE(f, nullptr);
    MustAppend(*f, "data");
  }

  bool enforced() const { return GetParam(); }

  std::shared_ptr<MemFileSystem> fs_;
};

TEST_P(MemPermissionsTest, ModesAreRecordedEitherWay) {
  ASSERT_THAT(fs_->SetPermissions("/p", 0500), IsOk());
  ASSERT_THAT(fs_->SetPermissions("/p/f", 0444), IsOk());
  StatusOr<FileStat> dir = fs_->Stat("/p");
  ASSERT_THAT(dir.status(), IsOk());
  EXPECT_EQ(dir->mode, 0500u);
  StatusOr<FileStat> file = fs_->Stat("/p/f");
  ASSERT_THAT(file.status(), IsOk());
  EXPECT_EQ(file->mode, 0444u);
  EXPECT_THAT(fs_->SetPermissions("/p/missing", 0700), IsErrno(ENOENT, "chmod", "/p/missing"));
}

TEST_P(MemPermissionsTest, ReadOnlyDirectory) {
  ASSERT_THAT(fs_->SetPermissions("/p", 0500), IsOk());
  // Existence is decided before permission, as in the kernel.
  EXPECT_THAT(fs_->CreateDir("/p/d"), IsErrno(EEXIST, "mkdir", "/p/d"));
  EXPECT_THAT(fs_->CreateFile("/p/f").status(), IsErrno(EEXIST, "create", "/p/f"));
  EXPECT_THAT(fs_->RemoveFile("/p/missing"), IsErrno(ENOENT, "remove", "/p/missing"));
  // Listing and reading need no write permission.
  EXPECT_THAT(fs_->ListDir("/p").status(), IsOk());
  EXPECT_THAT(fs_->ReadFile("/p/f").status(), IsOk());
  if (enforced()) {
    EXPECT_THAT(fs_->CreateDir("/p/new"), IsErrno(EACCES, "mkdir", "/p/new"));
    EXPECT_THAT(fs_->CreateFile("/p/new").status(), IsErrno(EACCES, "create", "/p/new"));
    EXPECT_THAT(fs_->CreateUniqueDir("/p", "u-").status(), IsErrno(EACCES, "mkdir", "/p"));
    EXPECT_THAT(fs_->CreateUniqueFile("/p", "u-").status(), IsErrno(EACCES, "create", "/p"));
    // Permission on the parent comes before the type of the victim.
    EXPECT_THAT(fs_->RemoveFile("/p/f"), IsErrno(EACCES, "remove", "/p/f"));
    EXPECT_THAT(fs_->RemoveFile("/p/d"), IsErrno(EACCES, "remove", "/p/d"));
    EXPECT_THAT(fs_->RemoveDir("/p/d"), IsErrno(EACCES, "rmdir", "/p/d"));
    EXPECT_THAT(fs_->RemoveDir("/p/f"), IsErrno(EACCES, "rmdir", "/p/f"));
    EXPECT_THAT(fs_->RemoveTree("/p"), IsErrno(EACCES, "rmdir", "/p/d"));
    EXPECT_TRUE(fs_->Exists("/p/f"));
  } else {
    EXPECT_THAT(fs_->CreateDir("/p/new"), IsOk());
    EXPECT_THAT(fs_->CreateFile("/p/new2").status(), IsOk());
    EXPECT_THAT(fs_->RemoveFile("/p/f"), IsOk());
    EXPECT_THAT(fs_->RemoveDir("/p/d"), IsOk());
    EXPECT_THAT(fs_->RemoveTree("/p"), IsOk());
  }
}

TEST_P(MemPermissionsTest, DirectoryWithoutSearchPermission) {
  ASSERT_THAT(fs_->SetPermissions("/p", 0600), IsOk());
  if (enforced()) {
    // Nothing below /p can be reached, so even missing paths give EACCES.
    EXPECT_THAT(fs_->Stat("/p/f").status(), IsErrno(EACCES, "stat", "/p/f"));
    EXPECT_THAT(fs_->Stat("/p/missing/x").status(), IsErrno(EACCES, "stat", "/p/missing/x"));
    EXPECT_THAT(fs_->CreateDir("/p/d"), IsErrno(EACCES, "mkdir", "/p/d"));
    EXPECT_THAT(fs_->OpenForAppend("/p/f").status(), IsErrno(EACCES, "open", "/p/f"));
    EXPECT_THAT(fs_->ReadFile("/p/f").status(), IsErrno(EACCES, "read", "/p/f"));
  } else {
    EXPECT_THAT(fs_->Stat("/p/f").status(), IsOk());
    EXPECT_THAT(fs_->Stat("/p/missing/x").status(), IsErrno(ENOENT, "stat", "/p/missing/x"));
  }
  // The directory itself is still visible and listable.
  EXPECT_THAT(fs_->Stat("/p").status(), IsOk());
  EXPECT_THAT(fs_->ListDir("/p").status(), IsOk());
}

TEST_P(MemPermissionsTest, DirectoryWithoutReadPermission) {
  ASSERT_THAT(fs_->SetPermissions("/p", 0300), IsOk());
  if (enforced()) {
    EXPECT_THAT(fs_->ListDir("/p").status(), IsErrno(EACCES, "list", "/p"));
    EXPECT_THAT(fs_->ReadFile("/p").status(), IsErrno(EACCES, "read", "/p"));
    EXPECT_THAT(fs_->RemoveTree("/p"), IsErrno(EACCES, "list", "/p"));
  } else {
    EXPECT_THAT(fs_->ListDir("/p").status(), IsOk());
    EXPECT_THAT(fs_->ReadFile("/p").status(), IsErrno(EISDIR, "read", "/p"));
  }
  // A listed directory's children can still be reached by name.
  EXPECT_THAT(fs_->Stat("/p/f").status(), IsOk());
  // Opening a directory for writing is EISDIR before any permission check.
  EXPECT_THAT(fs_->OpenForAppend("/p").status(), IsErrno(EISDIR, "open", "/p"));
}

TEST_P(MemPermissionsTest, FilePermissions) {
  ASSERT_THAT(fs_->SetPermissions("/p/f", 0400), IsOk());
  StatusOr<std::unique_ptr<WritableFile>> append = fs_->OpenForAppend("/p/f");
  if (enforced()) {
    EXPECT_THAT(append.status(), IsErrno(EACCES, "open", "/p/f"));
  } else {
    EXPECT_THAT(append.status(), IsOk());
  }
  ASSERT_THAT(fs_->SetPermissions("/p/f", 0200), IsOk());
  StatusOr<std::string> read = fs_->ReadFile("/p/f");
  if (enforced()) {
    EXPECT_THAT(read.status(), IsErrno(EACCES, "read", "/p/f"));
  } else {
    ASSERT_THAT(read.status(), IsOk());
    EXPECT_EQ(*read, "data");
  }
}

TEST_P(MemPermissionsTest, OpenFileStaysWritableAfterChmod) {
  StatusOr<std::unique_ptr<WritableFile>> file = fs_->OpenForAppend("/p/f");
  ASSERT_THAT(file.status(), IsOk());
  ASSERT_THAT(fs_->SetPermissions("/p/f", 0000), IsOk());
  ASSERT_THAT(fs_->SetPermissions("/p", 0000), IsOk());
  MustAppend(**file, "more");
  StatusOr<uint64_t> size = (*file)->Size();
  ASSERT_THAT(size.status(), IsOk());
  EXPECT_EQ(*size, 8u);
}

INSTANTIATE_TEST_SUITE_P(EnforcedOrNot, MemPermissionsTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& param_info) {
                           return param_info.param ? "Enforced" : "NotEnforced";
                         });

}  // namespace
}  // namespace spillway
