// The fixture of the FileSystem conformance suite (file_system_conformance_*_test.cc).
//
// Each case runs on PosixFileSystem, rooted in a fresh private temp dir, and on
// MemFileSystem. Linux is the oracle: a case states what Linux does, and the in-memory
// filesystem must agree. Cases that need permission checks (EACCES) are skipped on POSIX
// when running as root, since root bypasses them; on Mem they run on an instance that
// enforces permissions.
//
// The suite is instantiated once, as AllFileSystems, in file_system_conformance.cc; the
// test files only define TEST_P cases.
#ifndef SPILLWAY_TESTS_SUPPORT_FILE_SYSTEM_CONFORMANCE_H_
#define SPILLWAY_TESTS_SUPPORT_FILE_SYSTEM_CONFORMANCE_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "spillway/vfs/file_system.h"
#include "spillway/vfs/status.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

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

namespace test_support {

enum class FsKind { kPosix, kMem };

inline void PrintTo(FsKind kind, std::ostream* os) {
  *os << (kind == FsKind::kPosix ? "Posix" : "Mem");
}

// Creates `path` holding `contents` and closes it.
Status WriteNewFile(FileSystem& fs, const std::string& path, std::string_view contents);

inline constexpr std::string_view kNoPermissionChecksAsRoot =
    "running as root: Linux bypasses permission checks, so EACCES cannot be provoked";

}  // namespace test_support

// Named without a namespace prefix, as test names show it. Thread safety: one test
// owns one fixture; fs_ itself may be shared with threads the test starts.
class FileSystemConformanceTest : public ::testing::TestWithParam<test_support::FsKind> {
 protected:
  void SetUp() override;

  // Switches fs_ to a filesystem that enforces permissions and returns true, or returns
  // false when there is none: POSIX as root.
  bool UsePermissionCheckingFileSystem();

  // fs_->Stat(path)'s type, or nullopt when it fails.
  std::optional<FileType> TypeOf(const std::string& path);

  std::unique_ptr<test_support::TempDir> temp_dir_;  // Set for POSIX only.
  std::shared_ptr<FileSystem> fs_;
};

}  // namespace spillway

#endif  // SPILLWAY_TESTS_SUPPORT_FILE_SYSTEM_CONFORMANCE_H_
