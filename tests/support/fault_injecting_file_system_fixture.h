// What the FaultInjectingFileSystem tests (fault_injecting_file_system_*_test.cc) share:
// a fixture with an injector over a fresh MemFileSystem, every OpKind, rules in one call,
// and readable printing of the injector's types.
#ifndef SPILLWAY_TESTS_SUPPORT_FAULT_INJECTING_FILE_SYSTEM_FIXTURE_H_
#define SPILLWAY_TESTS_SUPPORT_FAULT_INJECTING_FILE_SYSTEM_FIXTURE_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/status.h"

namespace spillway {

// For readable failure messages; found by argument-dependent lookup.
inline void PrintTo(OpKind kind, std::ostream* os) { *os << OpKindName(kind); }
inline void PrintTo(const InjectedFault& f, std::ostream* os) {
  *os << "{" << OpKindName(f.op) << " " << f.path << " " << ErrnoName(f.error_number) << " "
      << f.bytes_stored << "}";
}

namespace test_support {

// Every OpKind, in declaration order.
inline constexpr OpKind kAllKinds[] = {
    OpKind::kMkdir,  OpKind::kCreate, OpKind::kOpen,  OpKind::kWrite, OpKind::kSync,
    OpKind::kSize,   OpKind::kClose,  OpKind::kRead,  OpKind::kList,  OpKind::kStat,
    OpKind::kRemove, OpKind::kRmdir,  OpKind::kChmod,
};
static_assert(std::size(kAllKinds) == static_cast<size_t>(kOpKindCount));

inline FaultRule Rule(std::optional<OpKind> op, int error_number, uint64_t after = 0,
                      std::optional<uint64_t> times = 1, std::string path_glob = "") {
  return FaultRule{op, error_number, after, times, std::move(path_glob)};
}

}  // namespace test_support

// fs_ injects faults into mem_, with seed 7 for its random faults. The helpers act on
// mem_ directly, so they are neither counted nor faulted, except Create, which goes
// through fs_.
class FaultInjectingFileSystemTest : public ::testing::Test {
 protected:
  FaultInjectingFileSystemTest()
      : mem_(NewMemFileSystem()),
        injector_(NewFaultInjectingFileSystem(mem_, /*seed=*/7)),
        fs_(*injector_) {}

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

  // Creates `path` through the injector; null (and a test failure) when that fails.
  std::unique_ptr<WritableFile> Create(const std::string& path) {
    StatusOr<std::unique_ptr<WritableFile>> file = fs_.CreateFile(path);
    EXPECT_TRUE(file.ok()) << file.status().ToString();
    return file.ok() ? std::move(*file) : nullptr;
  }

  std::shared_ptr<MemFileSystem> mem_;
  std::shared_ptr<FaultInjectingFileSystem> injector_;  // Owns fs_.
  FaultInjectingFileSystem& fs_;
};

}  // namespace spillway

#endif  // SPILLWAY_TESTS_SUPPORT_FAULT_INJECTING_FILE_SYSTEM_FIXTURE_H_
