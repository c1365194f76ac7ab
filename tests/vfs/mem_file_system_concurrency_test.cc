// MemFileSystem under concurrent use: appends beside tree changes, a capacity filled by
// racing threads, and unique names made at once.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

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

// Several threads append to their own files and to one shared file while others create
// and remove directory trees beside them.
TEST(MemFileSystemConcurrencyTest, AppendsAndTreeChangesInterleaveSafely) {
  auto fs = NewMem();
  constexpr int kWriters = 4;
  constexpr int kAppends = 500;
  constexpr int kTreeWorkers = 2;
  constexpr int kTreeRounds = 200;
  std::unique_ptr<WritableFile> shared = MustCreate(*fs, "/tmp/shared");
  ASSERT_NE(shared, nullptr);

  std::vector<std::thread> threads;
  threads.reserve(kWriters + kTreeWorkers);
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      const std::string path = "/tmp/w" + std::to_string(w);
      std::unique_ptr<WritableFile> own = MustCreate(*fs, path);
      if (own == nullptr) return;
      const std::string chunk(static_cast<size_t>(w + 1), static_cast<char>('a' + w));
      for (int i = 0; i < kAppends; ++i) {
        MustAppend(*own, chunk);
        MustAppend(*shared, chunk);
      }
      EXPECT_THAT(own->Close(), IsOk());
    });
  }
  for (int t = 0; t < kTreeWorkers; ++t) {
    threads.emplace_back([&, t] {
      const std::string top = "/tmp/tree" + std::to_string(t);
      for (int i = 0; i < kTreeRounds; ++i) {
        EXPECT_THAT(fs->CreateDir(top), IsOk());
        StatusOr<std::string> dir = fs->CreateUniqueDir(top, "u-");
        EXPECT_THAT(dir.status(), IsOk());
        if (dir.ok()) {
          StatusOr<std::unique_ptr<WritableFile>> file = fs->CreateUniqueFile(*dir, "f-");
          EXPECT_THAT(file.status(), IsOk());
          if (file.ok()) MustAppend(**file, "xyz");
        }
        EXPECT_THAT(fs->ListDir("/tmp").status(), IsOk());
        EXPECT_THAT(fs->RemoveTree(top), IsOk());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  uint64_t expected_shared = 0;
  for (int w = 0; w < kWriters; ++w) {
    const std::string path = "/tmp/w" + std::to_string(w);
    StatusOr<std::string> contents = fs->ReadFile(path);
    ASSERT_THAT(contents.status(), IsOk());
    const std::string chunk(static_cast<size_t>(w + 1), static_cast<char>('a' + w));
    std::string expected;
    for (int i = 0; i < kAppends; ++i) expected += chunk;
    EXPECT_EQ(*contents, expected) << path;
    expected_shared += expected.size();
  }
  StatusOr<uint64_t> shared_size = shared->Size();
  ASSERT_THAT(shared_size.status(), IsOk());
  EXPECT_EQ(*shared_size, expected_shared);
  // The trees are gone, and so are their bytes.
  EXPECT_EQ(fs->used_bytes(), 2 * expected_shared);
  StatusOr<std::vector<DirEntry>> tmp = fs->ListDir("/tmp");
  ASSERT_THAT(tmp.status(), IsOk());
  EXPECT_EQ(tmp->size(), static_cast<size_t>(kWriters + 1));
}

// Threads race to fill a capacity: together they store exactly the capacity, never more,
// and each one's failing append reports ENOSPC with the bytes it did store.
TEST(MemFileSystemConcurrencyTest, ConcurrentAppendsFillCapacityExactly) {
  constexpr uint64_t kCapacity = 10007;
  constexpr int kThreads = 4;
  auto fs = NewMem(Options().Capacity(kCapacity));
  std::vector<uint64_t> stored(kThreads, 0);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::unique_ptr<WritableFile> file = MustCreate(*fs, "/tmp/f" + std::to_string(t));
      if (file == nullptr) return;
      while (true) {
        AppendResult result = file->Append(std::string(13, 'z'));
        stored[t] += result.bytes_written;
        if (!result.status.ok()) {
          EXPECT_THAT(result.status, IsErrno(ENOSPC, "write", file->path()));
          break;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  uint64_t total = 0;
  for (int t = 0; t < kThreads; ++t) {
    total += stored[t];
    StatusOr<FileStat> stat = fs->Stat("/tmp/f" + std::to_string(t));
    ASSERT_THAT(stat.status(), IsOk());
    EXPECT_EQ(stat->size, stored[t]);
  }
  EXPECT_EQ(total, kCapacity);
  EXPECT_EQ(fs->used_bytes(), kCapacity);
}

TEST(MemFileSystemConcurrencyTest, ConcurrentUniqueNamesAreDistinct) {
  auto fs = NewMem(Options().Seed(3));
  constexpr int kThreads = 4;
  constexpr int kEach = 200;
  std::vector<std::vector<std::string>> names(kThreads);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        StatusOr<std::string> dir = fs->CreateUniqueDir("/tmp", "c-");
        EXPECT_THAT(dir.status(), IsOk());
        if (dir.ok()) names[t].push_back(*dir);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::set<std::string> all;
  for (const auto& list : names) all.insert(list.begin(), list.end());
  EXPECT_EQ(all.size(), static_cast<size_t>(kThreads * kEach));
  StatusOr<std::vector<DirEntry>> tmp = fs->ListDir("/tmp");
  ASSERT_THAT(tmp.status(), IsOk());
  EXPECT_EQ(tmp->size(), all.size());
}
}  // namespace
}  // namespace spillway
