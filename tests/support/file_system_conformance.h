// The fixture of the FileSystem conformance suite (file_system_conformance_*_test.cc).
//
// Each case runs on PosixFileSystem, rooted in a fresh private temp dir, and on
// MemFileSystem. Linux is the oracle: a case states what Linux does, and the in-memory
// filesystem must agree. Cases that need permission checks (EACCES) run their body through
// RunWithPermissionChecks: on Mem on an instance that enforces permissions, on POSIX as an
// unprivileged user, since root bypasses the checks (as root, in a child process that
// gives root up).
//
// The suite is instantiated once, as AllFileSystems, in file_system_conformance.cc; the
// test files only define TEST_P cases.
#ifndef SPILLWAY_TESTS_SUPPORT_FILE_SYSTEM_CONFORMANCE_H_
#define SPILLWAY_TESTS_SUPPORT_FILE_SYSTEM_CONFORMANCE_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "spillway/vfs/file_system.h"
#include "spillway/vfs/status.h"
#include "spillway/vocab/vocab.h"
#include "support/file_helpers.h"
#include "support/fs_kind_param.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "support/unprivileged_child.h"

namespace spillway {

// Readable failure messages for the value types the suite compares (found by ADL).
inline void PrintTo(const DirEntry& entry, std::ostream* os) {
  *os << "{" << entry.name << ", type " << static_cast<int>(entry.type) << "}";
}
inline void PrintTo(const FileStat& stat, std::ostream* os) {
  *os << "{type " << static_cast<int>(stat.type) << ", size " << stat.size << ", mode 0" << std::oct
      << stat.mode << std::dec << "}";
}

MATCHER(IsInvalidArgument, "is kInvalidArgument") {
  const Status status = StatusOf(arg);
  *result_listener << status.ToString();
  return status.code() == StatusCode::kInvalidArgument;
}

// Named without a namespace prefix, as test names show it. Thread safety: one test
// owns one fixture; fs_ itself may be shared with threads the test starts.
class FileSystemConformanceTest : public ::testing::TestWithParam<vocab::FsKind> {
 protected:
  void SetUp() override;

  // Runs `body` (the test's checks) on a filesystem that enforces permissions. On Mem, fs_
  // becomes an instance that enforces them. On POSIX as root, who bypasses them, `body`
  // runs in a forked child that has switched to kUnprivilegedId and been given the test's
  // directory; the child prints its failures, and its exit status fails the test here.
  // Skips the test if the child cannot give up root (no CAP_SETUID). REQUIRES: `body`
  // uses only fs_ and gtest assertions, and starts no thread.
  void RunWithPermissionChecks(const std::function<void()>& body);

  // fs_->Stat(path)'s type, or nullopt when it fails.
  std::optional<FileType> TypeOf(const std::string& path);

  std::unique_ptr<test_support::TempDir> temp_dir_;  // Set for POSIX only.
  std::shared_ptr<FileSystem> fs_;
};

}  // namespace spillway

#endif  // SPILLWAY_TESTS_SUPPORT_FILE_SYSTEM_CONFORMANCE_H_
