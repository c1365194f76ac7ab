// What the MemFileSystem tests (mem_file_system_*_test.cc) share: options built field by
// field, and creating and appending that expect to succeed.
#ifndef SPILLWAY_TESTS_SUPPORT_MEM_FILE_SYSTEM_TEST_SUPPORT_H_
#define SPILLWAY_TESTS_SUPPORT_MEM_FILE_SYSTEM_TEST_SUPPORT_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "spillway/vfs/file_system.h"
#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/status.h"
#include "support/status_matchers.h"

namespace spillway::test_support {

// Builds options field by field (designated initializers would trip
// -Wmissing-field-initializers).
struct Options {
  MemFileSystemOptions value;
  Options& Seed(uint64_t seed) {
    value.seed = seed;
    return *this;
  }
  Options& Capacity(uint64_t capacity) {
    value.capacity = capacity;
    return *this;
  }
  Options& KeepContents(bool keep) {
    value.keep_contents = keep;
    return *this;
  }
  Options& EnforcePermissions(bool enforce) {
    value.enforce_permissions = enforce;
    return *this;
  }
};

inline std::shared_ptr<MemFileSystem> NewMem(const Options& options = {}) {
  return NewMemFileSystem(options.value);
}

// Creates `path`; null (and a test failure) when that fails.
inline std::unique_ptr<WritableFile> MustCreate(FileSystem& fs, const std::string& path) {
  StatusOr<std::unique_ptr<WritableFile>> file = fs.CreateFile(path);
  EXPECT_THAT(file.status(), IsOk()) << path;
  return file.ok() ? std::move(file).value() : nullptr;
}

// Appends and expects every byte to be stored.
inline void MustAppend(WritableFile& file, std::string_view data) {
  AppendResult result = file.Append(data);
  EXPECT_THAT(result.status, IsOk()) << file.path();
  EXPECT_EQ(result.bytes_written, data.size()) << file.path();
}

}  // namespace spillway::test_support

#endif  // SPILLWAY_TESTS_SUPPORT_MEM_FILE_SYSTEM_TEST_SUPPORT_H_
