// What only MemFileSystem has, for names and paths: the empty tree it starts with, seeded
// unique names, and its name and path limits. The Linux semantics it shares with
// PosixFileSystem are held to Linux by the conformance suite and the differential
// property test.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
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
using ::testing::ElementsAre;
using ::testing::MatchesRegex;
using ::testing::StartsWith;

TEST(MemFileSystemTest, StartsWithRootAndEmptyTmp) {
  auto fs = NewMem();
  EXPECT_EQ(fs->TempDir(), "/tmp");
  StatusOr<std::vector<DirEntry>> root = fs->ListDir("/");
  ASSERT_THAT(root.status(), IsOk());
  EXPECT_THAT(*root, ElementsAre(DirEntry{"tmp", FileType::kDirectory}));
  StatusOr<std::vector<DirEntry>> tmp = fs->ListDir("/tmp");
  ASSERT_THAT(tmp.status(), IsOk());
  EXPECT_TRUE(tmp->empty());
  EXPECT_EQ(fs->used_bytes(), 0u);
}

TEST(MemFileSystemTest, UniqueNamesArePrefixPlusSixAlphanumerics) {
  auto fs = NewMem();
  StatusOr<std::string> dir = fs->CreateUniqueDir("/tmp", "datafusion-");
  ASSERT_THAT(dir.status(), IsOk());
  EXPECT_THAT(*dir, MatchesRegex("/tmp/datafusion-[A-Za-z0-9]{6}"));
  StatusOr<std::unique_ptr<WritableFile>> file = fs->CreateUniqueFile(*dir, "spill-");
  ASSERT_THAT(file.status(), IsOk());
  EXPECT_THAT((*file)->path(), MatchesRegex(*dir + "/spill-[A-Za-z0-9]{6}"));
  StatusOr<FileStat> stat = fs->Stat((*file)->path());
  ASSERT_THAT(stat.status(), IsOk());
  EXPECT_EQ(*stat, (FileStat{FileType::kRegular, 0, 0600}));
  stat = fs->Stat(*dir);
  ASSERT_THAT(stat.status(), IsOk());
  EXPECT_EQ(*stat, (FileStat{FileType::kDirectory, 0, 0700}));
}

// The names a fresh filesystem with `seed` hands out for a fixed series of calls.
std::vector<std::string> NamesFromSeed(uint64_t seed) {
  auto fs = NewMem(Options().Seed(seed));
  std::vector<std::string> names;
  for (int i = 0; i < 3; ++i) {
    StatusOr<std::string> dir = fs->CreateUniqueDir("/tmp", "d-");
    EXPECT_THAT(dir.status(), IsOk());
    if (!dir.ok()) return names;
    names.push_back(*dir);
    StatusOr<std::unique_ptr<WritableFile>> file = fs->CreateUniqueFile(*dir, "f-");
    EXPECT_THAT(file.status(), IsOk());
    if (!file.ok()) return names;
    names.push_back((*file)->path());
  }
  return names;
}

TEST(MemFileSystemTest, SameSeedGivesSameNames) {
  std::vector<std::string> first = NamesFromSeed(42);
  EXPECT_EQ(first.size(), 6u);
  EXPECT_EQ(first, NamesFromSeed(42));
  EXPECT_EQ(std::set<std::string>(first.begin(), first.end()).size(), first.size());
}

TEST(MemFileSystemTest, DifferentSeedsGiveDifferentNames) {
  std::vector<std::string> a = NamesFromSeed(1);
  std::vector<std::string> b = NamesFromSeed(2);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NE(a[i], b[i]) << i;
}

TEST(MemFileSystemTest, UniqueNameRetriesOnCollision) {
  // Learn the first name seed 9 draws, then occupy it in a fresh filesystem with the same
  // seed: the next attempt must pick another name rather than fail.
  StatusOr<std::string> first = NewMem(Options().Seed(9))->CreateUniqueDir("/tmp", "x-");
  ASSERT_THAT(first.status(), IsOk());

  auto dir_fs = NewMem(Options().Seed(9));
  ASSERT_THAT(dir_fs->CreateDir(*first), IsOk());
  StatusOr<std::string> second = dir_fs->CreateUniqueDir("/tmp", "x-");
  ASSERT_THAT(second.status(), IsOk());
  EXPECT_NE(*second, *first);
  EXPECT_THAT(*second, StartsWith("/tmp/x-"));

  auto file_fs = NewMem(Options().Seed(9));
  std::unique_ptr<WritableFile> squatter = MustCreate(*file_fs, *first);
  StatusOr<std::unique_ptr<WritableFile>> file = file_fs->CreateUniqueFile("/tmp", "x-");
  ASSERT_THAT(file.status(), IsOk());
  EXPECT_NE((*file)->path(), *first);
  EXPECT_THAT((*file)->path(), StartsWith("/tmp/x-"));
}

TEST(MemFileSystemTest, UniqueNameErrorsNameTheParent) {
  auto fs = NewMem();
  EXPECT_THAT(fs->CreateUniqueDir("/missing", "d-").status(), IsErrno(ENOENT, "mkdir", "/missing"));
  EXPECT_THAT(fs->CreateUniqueFile("/missing", "f-").status(),
              IsErrno(ENOENT, "create", "/missing"));
  EXPECT_EQ(fs->CreateUniqueDir("/tmp", "a/b").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(fs->CreateUniqueFile("/tmp", std::string("a\0b", 3)).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(fs->CreateUniqueDir("tmp", "d-").status().code(), StatusCode::kInvalidArgument);
}

TEST(MemFileSystemTest, InvalidPathsAreRejected) {
  auto fs = NewMem();
  for (const char* bad : {"", "tmp", "/tmp/", "//tmp", "/tmp/./a", "/tmp/../a"}) {
    EXPECT_EQ(fs->CreateDir(bad).code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(fs->Stat(bad).status().code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(fs->RemoveTree(bad).code(), StatusCode::kInvalidArgument) << bad;
  }
}

TEST(MemFileSystemTest, NameAndPathLengthLimits) {
  auto fs = NewMem();
  const std::string longest = "/tmp/" + std::string(255, 'n');
  EXPECT_THAT(fs->CreateDir(longest), IsOk());
  const std::string too_long = "/tmp/" + std::string(256, 'n');
  EXPECT_THAT(fs->CreateDir(too_long), IsErrno(ENAMETOOLONG, "mkdir", too_long));
  EXPECT_THAT(fs->Stat(too_long + "/x").status(), IsErrno(ENAMETOOLONG, "stat", too_long + "/x"));
  EXPECT_THAT(fs->CreateUniqueDir("/tmp", std::string(250, 'p')).status(),
              IsErrno(ENAMETOOLONG, "mkdir", "/tmp"));
  std::string deep;
  while (deep.size() < 4096) deep += "/d";
  EXPECT_THAT(fs->Stat(deep).status(), IsErrno(ENAMETOOLONG, "stat", deep));
}

TEST(MemFileSystemTest, RootCannotBeRemoved) {
  auto fs = NewMem();
  EXPECT_THAT(fs->RemoveDir("/"), IsErrno(EBUSY, "rmdir", "/"));
  EXPECT_THAT(fs->RemoveFile("/"), IsErrno(EISDIR, "remove", "/"));
  EXPECT_THAT(fs->CreateDir("/"), IsErrno(EEXIST, "mkdir", "/"));
  EXPECT_TRUE(fs->Exists("/"));
}

}  // namespace
}  // namespace spillway
