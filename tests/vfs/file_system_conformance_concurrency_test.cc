// The FileSystem contract (file_system.h) under concurrent use, on every implementation:
// unique names stay distinct and appends to one file all land. The fixture and what the
// suite holds to are described in support/file_system_conformance.h.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "spillway/vfs/file_system.h"
#include "spillway/vfs/status.h"
#include "support/file_system_conformance.h"
#include "support/status_matchers.h"

namespace spillway {
namespace {

using ::testing::SizeIs;

// --- Concurrency ----------------------------------------------------------------------

TEST_P(FileSystemConformanceTest, ConcurrentUniqueCreatesGetDistinctNames) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 25;
  ASSERT_THAT(fs_->CreateDir("/shared"), IsOk());
  std::vector<std::vector<std::string>> made(kThreads);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, t, &made] {
      for (int i = 0; i < kPerThread; ++i) {
        if (i % 2 == 0) {
          StatusOr<std::unique_ptr<WritableFile>> file = fs_->CreateUniqueFile("/shared", "f-");
          if (file.ok()) made[t].push_back((*file)->path());
        } else {
          StatusOr<std::string> dir = fs_->CreateUniqueDir("/shared", "d-");
          if (dir.ok()) made[t].push_back(*dir);
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  std::set<std::string> all;
  for (const std::vector<std::string>& paths : made) {
    EXPECT_THAT(paths, SizeIs(kPerThread));
    all.insert(paths.begin(), paths.end());
  }
  EXPECT_THAT(all, SizeIs(kThreads * kPerThread));
  StatusOr<std::vector<DirEntry>> listed = fs_->ListDir("/shared");
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(*listed, SizeIs(kThreads * kPerThread));
}

TEST_P(FileSystemConformanceTest, ConcurrentAppendsToOneFileAllLand) {
  constexpr int kThreads = 4;
  constexpr int kAppends = 100;
  const std::string chunk(10, 'x');
  StatusOr<std::unique_ptr<WritableFile>> file = fs_->CreateFile("/f");
  ASSERT_THAT(file, IsOk());
  WritableFile* f = file->get();
  std::vector<uint64_t> written(kThreads, 0);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([f, t, &chunk, &written] {
      for (int i = 0; i < kAppends; ++i) {
        const AppendResult appended = f->Append(chunk);
        if (appended.status.ok()) written[t] += appended.bytes_written;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  for (uint64_t bytes : written) EXPECT_EQ(bytes, kAppends * chunk.size());
  StatusOr<uint64_t> size = f->Size();
  ASSERT_THAT(size, IsOk());
  EXPECT_EQ(*size, chunk.size() * kThreads * kAppends);
  EXPECT_THAT(f->Close(), IsOk());
}

}  // namespace
}  // namespace spillway
