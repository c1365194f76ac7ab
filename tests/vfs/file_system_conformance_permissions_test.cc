// The FileSystem contract (file_system.h) for permissions, on every implementation:
// SetPermissions, and the EACCES of every call that a mode forbids (on POSIX as root, checked
// in a child process that gives root up). The fixture and what the suite holds to are described in
// support/file_system_conformance.h.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <string>
#include <vector>

#include "spillway/vfs/file_system.h"
#include "spillway/vfs/status.h"
#include "support/file_system_conformance.h"
#include "support/status_matchers.h"

namespace spillway {
namespace {

using test_support::WriteNewFile;
using ::testing::ElementsAre;

// --- SetPermissions -------------------------------------------------------------------

TEST_P(FileSystemConformanceTest, SetPermissionsChangesTheMode) {
  ASSERT_THAT(WriteNewFile(*fs_, "/f", "x"), IsOk());
  ASSERT_THAT(fs_->CreateDir("/d"), IsOk());
  EXPECT_THAT(fs_->SetPermissions("/f", 0640), IsOk());
  EXPECT_THAT(fs_->SetPermissions("/d", 0755), IsOk());
  StatusOr<FileStat> file = fs_->Stat("/f");
  ASSERT_THAT(file, IsOk());
  EXPECT_EQ(*file, (FileStat{FileType::kRegular, 1, 0640}));
  StatusOr<FileStat> dir = fs_->Stat("/d");
  ASSERT_THAT(dir, IsOk());
  EXPECT_EQ(*dir, (FileStat{FileType::kDirectory, 0, 0755}));
}

TEST_P(FileSystemConformanceTest, SetPermissionsFailsWithEnoentOrEnotdir) {
  ASSERT_THAT(WriteNewFile(*fs_, "/f", ""), IsOk());
  const Status missing = fs_->SetPermissions("/nope", 0700);
  EXPECT_THAT(missing, FailsWith(ENOENT));
  EXPECT_EQ(missing.path(), "/nope");
  EXPECT_THAT(fs_->SetPermissions("/f/g", 0700), FailsWith(ENOTDIR));
}

// --- Permissions (EACCES) -------------------------------------------------------------

TEST_P(FileSystemConformanceTest, ADirectoryWithoutWritePermissionRefusesChanges) {
  RunWithPermissionChecks([&] {
    ASSERT_THAT(fs_->CreateDir("/ro"), IsOk());
    ASSERT_THAT(WriteNewFile(*fs_, "/ro/f", "abc"), IsOk());
    ASSERT_THAT(fs_->CreateDir("/ro/sub"), IsOk());
    ASSERT_THAT(fs_->SetPermissions("/ro", 0500), IsOk());

    const Status mkdir = fs_->CreateDir("/ro/x");
    EXPECT_THAT(mkdir, FailsWith(EACCES));
    EXPECT_EQ(mkdir.path(), "/ro/x");
    EXPECT_THAT(fs_->CreateFile("/ro/x"), FailsWith(EACCES));
    EXPECT_THAT(fs_->CreateUniqueDir("/ro", "p"), FailsWith(EACCES));
    EXPECT_THAT(fs_->CreateUniqueFile("/ro", "p"), FailsWith(EACCES));
    EXPECT_THAT(fs_->RemoveFile("/ro/f"), FailsWith(EACCES));
    EXPECT_THAT(fs_->RemoveDir("/ro/sub"), FailsWith(EACCES));
    EXPECT_THAT(fs_->RemoveTree("/ro/sub"), FailsWith(EACCES));

    // What is there stays, readable and (being 0600) writable.
    StatusOr<std::vector<DirEntry>> listed = fs_->ListDir("/ro");
    ASSERT_THAT(listed, IsOk());
    EXPECT_THAT(*listed, ElementsAre(DirEntry{"f", FileType::kRegular},
                                     DirEntry{"sub", FileType::kDirectory}));
    StatusOr<std::unique_ptr<WritableFile>> file = fs_->OpenForAppend("/ro/f");
    ASSERT_THAT(file, IsOk());
    EXPECT_THAT((*file)->Append("def"), IsOk());
    EXPECT_THAT((*file)->Close(), IsOk());

    // Given back its write permission, the directory can be changed again.
    ASSERT_THAT(fs_->SetPermissions("/ro", 0700), IsOk());
    EXPECT_THAT(fs_->RemoveTree("/ro"), IsOk());
  });
}

TEST_P(FileSystemConformanceTest, RemoveTreeStopsAtTheFirstErrorAndNamesItsPath) {
  RunWithPermissionChecks([&] {
    ASSERT_THAT(fs_->CreateDir("/t"), IsOk());
    ASSERT_THAT(fs_->CreateDir("/t/locked"), IsOk());
    ASSERT_THAT(WriteNewFile(*fs_, "/t/locked/f", ""), IsOk());
    ASSERT_THAT(fs_->SetPermissions("/t/locked", 0500), IsOk());

    const Status status = fs_->RemoveTree("/t");
    EXPECT_THAT(status, FailsWith(EACCES));
    EXPECT_EQ(status.path(), "/t/locked/f");
    EXPECT_TRUE(fs_->Exists("/t/locked/f"));

    ASSERT_THAT(fs_->SetPermissions("/t/locked", 0700), IsOk());
    EXPECT_THAT(fs_->RemoveTree("/t"), IsOk());
    EXPECT_FALSE(fs_->Exists("/t"));
  });
}

TEST_P(FileSystemConformanceTest, ADirectoryWithoutReadPermissionCannotBeListed) {
  RunWithPermissionChecks([&] {
    ASSERT_THAT(fs_->CreateDir("/wx"), IsOk());
    ASSERT_THAT(WriteNewFile(*fs_, "/wx/f", "abc"), IsOk());
    ASSERT_THAT(fs_->SetPermissions("/wx", 0300), IsOk());

    EXPECT_THAT(fs_->ListDir("/wx"), FailsWith(EACCES));
    // Search permission alone still reaches a known name.
    StatusOr<std::string> contents = fs_->ReadFile("/wx/f");
    ASSERT_THAT(contents, IsOk());
    EXPECT_EQ(*contents, "abc");
  });
}

TEST_P(FileSystemConformanceTest, ADirectoryWithoutSearchPermissionHidesItsEntries) {
  RunWithPermissionChecks([&] {
    ASSERT_THAT(fs_->CreateDir("/rw"), IsOk());
    ASSERT_THAT(WriteNewFile(*fs_, "/rw/f", "abc"), IsOk());
    ASSERT_THAT(fs_->SetPermissions("/rw", 0600), IsOk());

    EXPECT_THAT(fs_->Stat("/rw/f"), FailsWith(EACCES));
    EXPECT_THAT(fs_->ReadFile("/rw/f"), FailsWith(EACCES));
    EXPECT_THAT(fs_->OpenForAppend("/rw/f"), FailsWith(EACCES));
    EXPECT_THAT(fs_->CreateFile("/rw/g"), FailsWith(EACCES));
  });
}

TEST_P(FileSystemConformanceTest, AFileWithoutPermissionCannotBeOpened) {
  RunWithPermissionChecks([&] {
    ASSERT_THAT(WriteNewFile(*fs_, "/read_only", "r"), IsOk());
    ASSERT_THAT(WriteNewFile(*fs_, "/write_only", "w"), IsOk());
    ASSERT_THAT(fs_->SetPermissions("/read_only", 0400), IsOk());
    ASSERT_THAT(fs_->SetPermissions("/write_only", 0200), IsOk());

    EXPECT_THAT(fs_->OpenForAppend("/read_only"), FailsWith(EACCES));
    EXPECT_THAT(fs_->ReadFile("/write_only"), FailsWith(EACCES));
    StatusOr<std::string> readable = fs_->ReadFile("/read_only");
    ASSERT_THAT(readable, IsOk());
    EXPECT_EQ(*readable, "r");
  });
}

}  // namespace
}  // namespace spillway
