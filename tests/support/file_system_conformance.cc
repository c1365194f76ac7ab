// The conformance suite's fixture, and its one instantiation over both filesystems.
#include "support/file_system_conformance.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>

#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/posix_file_system.h"

namespace spillway {
namespace test_support {

namespace {

std::shared_ptr<MemFileSystem> NewMemFileSystem(bool enforce_permissions) {
  MemFileSystemOptions options;
  options.enforce_permissions = enforce_permissions;
  return NewMemFileSystem(options);
}

}  // namespace
}  // namespace test_support

using vocab::FsKind;

void FileSystemConformanceTest::SetUp() {
  if (GetParam() == FsKind::kPosix) {
    temp_dir_ = std::make_unique<test_support::TempDir>();
    ASSERT_TRUE(temp_dir_->ok()) << temp_dir_->error();
    PosixFileSystemOptions options;
    options.root = temp_dir_->path();
    fs_ = NewPosixFileSystem(options);
    // Every fresh filesystem starts with an empty /tmp, as a MemFileSystem does.
    ASSERT_THAT(fs_->CreateDir("/tmp"), IsOk());
  } else {
    // As on Linux, root is not subject to permission checks.
    fs_ = test_support::NewMemFileSystem(/*enforce_permissions=*/::geteuid() != 0);
  }
}

void FileSystemConformanceTest::RunWithPermissionChecks(const std::function<void()>& body) {
  if (GetParam() == FsKind::kMem) {
    fs_ = test_support::NewMemFileSystem(/*enforce_permissions=*/true);
    body();
    return;
  }
  if (::geteuid() != 0) {
    body();
    return;
  }
  // Root: hand the test's directory to the unprivileged user, and run `body` as that user
  // in a child process, so that this process stays root for the rest of the suite.
  const uid_t id = test_support::kUnprivilegedId;
  std::error_code ec;
  ASSERT_EQ(::lchown(temp_dir_->path().c_str(), id, id), 0) << std::strerror(errno);
  for (const auto& entry : std::filesystem::recursive_directory_iterator(temp_dir_->path(), ec)) {
    ASSERT_EQ(::lchown(entry.path().c_str(), id, id), 0)
        << entry.path() << ": " << std::strerror(errno);
  }
  ASSERT_FALSE(ec) << temp_dir_->path() << ": " << ec.message();

  switch (test_support::RunAsUnprivilegedChild([&body] {
    body();
    return !::testing::Test::HasFailure();
  })) {
    case test_support::ChildOutcome::kPassed:
      return;
    case test_support::ChildOutcome::kCannotSwitch:
      GTEST_SKIP() << "running as root and cannot switch to uid " << id
                   << ": Linux bypasses permission checks for root";
    case test_support::ChildOutcome::kFailed:
    case test_support::ChildOutcome::kNoChild:
      ADD_FAILURE() << "the checks failed as uid " << id
                    << " (the child's failures are printed above)";
  }
}

std::optional<FileType> FileSystemConformanceTest::TypeOf(const std::string& path) {
  StatusOr<FileStat> stat = fs_->Stat(path);
  if (!stat.ok()) return std::nullopt;
  return stat->type;
}

INSTANTIATE_TEST_SUITE_P(AllFileSystems, FileSystemConformanceTest,
                         ::testing::Values(FsKind::kPosix, FsKind::kMem),
                         test_support::FsKindParamName);

}  // namespace spillway
