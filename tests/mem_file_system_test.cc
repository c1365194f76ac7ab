// What only MemFileSystem has: seeded unique names, a byte capacity, size-only files,
// switchable permission checks, used_bytes(), and its behaviour under concurrent use.
// The Linux semantics it shares with PosixFileSystem are held to Linux by the conformance
// suite and the differential property test.

#include "spillway/vfs/mem_file_system.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "spillway/vfs/file_system.h"
#include "spillway/vfs/status.h"

namespace spillway {
namespace {

using ::testing::ElementsAre;
using ::testing::MatchesRegex;
using ::testing::StartsWith;

// Matches a kErrno Status with this errno, op and path.
MATCHER_P3(IsErrno, error_number, op, path,
           ErrnoName(error_number) + " from " + op + " on " + path) {
  *result_listener << "which is " << arg.ToString();
  return arg.IsErrno(error_number) && arg.op() == op && arg.path() == path;
}

// Matches an OK Status.
MATCHER(IsOk, "is OK") {
  *result_listener << "which is " << arg.ToString();
  return arg.ok();
}

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

std::shared_ptr<MemFileSystem> NewMem(const Options& options = {}) {
  return MemFileSystem::Create(options.value);
}

std::unique_ptr<WritableFile> MustCreate(FileSystem& fs, const std::string& path) {
  StatusOr<std::unique_ptr<WritableFile>> file = fs.CreateFile(path);
  EXPECT_THAT(file.status(), IsOk()) << path;
  return file.ok() ? std::move(file).value() : nullptr;
}

// Appends and expects every byte to be stored.
void MustAppend(WritableFile& file, std::string_view data) {
  AppendResult result = file.Append(data);
  EXPECT_THAT(result.status, IsOk()) << file.path();
  EXPECT_EQ(result.bytes_written, data.size()) << file.path();
}

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

TEST(MemFileSystemTest, UniqueNamesArePrefixPlusTwelveAlphanumerics) {
  auto fs = NewMem();
  StatusOr<std::string> dir = fs->CreateUniqueDir("/tmp", "datafusion-");
  ASSERT_THAT(dir.status(), IsOk());
  EXPECT_THAT(*dir, MatchesRegex("/tmp/datafusion-[A-Za-z0-9]{12}"));
  StatusOr<std::unique_ptr<WritableFile>> file = fs->CreateUniqueFile(*dir, "spill-");
  ASSERT_THAT(file.status(), IsOk());
  EXPECT_THAT((*file)->path(), MatchesRegex(*dir + "/spill-[A-Za-z0-9]{12}"));
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

TEST(MemFileSystemTest, PartialFitStoresWhatFitsThenFailsWithEnospc) {
  auto fs = NewMem(Options().Capacity(10));
  std::unique_ptr<WritableFile> file = MustCreate(*fs, "/tmp/f");
  ASSERT_NE(file, nullptr);
  MustAppend(*file, "abcdef");

  AppendResult partial = file->Append("ghijkl");
  EXPECT_EQ(partial.bytes_written, 4u);
  EXPECT_THAT(partial.status, IsErrno(ENOSPC, "write", "/tmp/f"));

  AppendResult next = file->Append("x");
  EXPECT_EQ(next.bytes_written, 0u);
  EXPECT_THAT(next.status, IsErrno(ENOSPC, "write", "/tmp/f"));

  // Writing nothing needs no space.
  AppendResult empty = file->Append("");
  EXPECT_EQ(empty.bytes_written, 0u);
  EXPECT_THAT(empty.status, IsOk());

  EXPECT_EQ(fs->used_bytes(), 10u);
  StatusOr<uint64_t> size = file->Size();
  ASSERT_THAT(size.status(), IsOk());
  EXPECT_EQ(*size, 10u);
  StatusOr<std::string> contents = fs->ReadFile("/tmp/f");
  ASSERT_THAT(contents.status(), IsOk());
  EXPECT_EQ(*contents, "abcdefghij");
}

TEST(MemFileSystemTest, RemovingAFileFreesItsSpace) {
  auto fs = NewMem(Options().Capacity(8));
  std::unique_ptr<WritableFile> a = MustCreate(*fs, "/tmp/a");
  ASSERT_NE(a, nullptr);
  MustAppend(*a, "12345678");
  ASSERT_THAT(a->Close(), IsOk());

  std::unique_ptr<WritableFile> b = MustCreate(*fs, "/tmp/b");
  ASSERT_NE(b, nullptr);
  EXPECT_THAT(b->Append("z").status, IsErrno(ENOSPC, "write", "/tmp/b"));

  ASSERT_THAT(fs->RemoveFile("/tmp/a"), IsOk());
  EXPECT_EQ(fs->used_bytes(), 0u);
  MustAppend(*b, "87654321");
  EXPECT_EQ(fs->used_bytes(), 8u);

  // RemoveTree frees the bytes of every file below it.
  ASSERT_THAT(fs->CreateDir("/tmp/d"), IsOk());
  ASSERT_THAT(b->Close(), IsOk());
  ASSERT_THAT(fs->RemoveFile("/tmp/b"), IsOk());
  std::unique_ptr<WritableFile> c = MustCreate(*fs, "/tmp/d/c");
  ASSERT_NE(c, nullptr);
  MustAppend(*c, "ccc");
  c.reset();
  EXPECT_EQ(fs->used_bytes(), 3u);
  ASSERT_THAT(fs->RemoveTree("/tmp/d"), IsOk());
  EXPECT_EQ(fs->used_bytes(), 0u);
}

TEST(MemFileSystemTest, UnlinkedOpenFileKeepsItsBytesUntilClosed) {
  auto fs = NewMem(Options().Capacity(10));
  std::unique_ptr<WritableFile> file = MustCreate(*fs, "/tmp/gone");
  ASSERT_NE(file, nullptr);
  MustAppend(*file, "1234");
  ASSERT_THAT(fs->RemoveFile("/tmp/gone"), IsOk());
  EXPECT_FALSE(fs->Exists("/tmp/gone"));

  // Still writable, still sized, still counted, and still holding capacity.
  MustAppend(*file, "56");
  StatusOr<uint64_t> size = file->Size();
  ASSERT_THAT(size.status(), IsOk());
  EXPECT_EQ(*size, 6u);
  EXPECT_THAT(file->Sync(), IsOk());
  EXPECT_EQ(fs->used_bytes(), 6u);
  std::unique_ptr<WritableFile> other = MustCreate(*fs, "/tmp/other");
  ASSERT_NE(other, nullptr);
  AppendResult squeezed = other->Append("abcdefgh");
  EXPECT_EQ(squeezed.bytes_written, 4u);
  EXPECT_THAT(squeezed.status, IsErrno(ENOSPC, "write", "/tmp/other"));

  ASSERT_THAT(file->Close(), IsOk());
  EXPECT_EQ(fs->used_bytes(), 4u);
  MustAppend(*other, "efghij");
  EXPECT_EQ(fs->used_bytes(), 10u);
}

TEST(MemFileSystemTest, UnlinkedFileIsFreedWhenItsLastHandleGoes) {
  auto fs = NewMem();
  std::unique_ptr<WritableFile> first = MustCreate(*fs, "/tmp/f");
  ASSERT_NE(first, nullptr);
  MustAppend(*first, "abc");
  StatusOr<std::unique_ptr<WritableFile>> second = fs->OpenForAppend("/tmp/f");
  ASSERT_THAT(second.status(), IsOk());
  ASSERT_THAT(fs->RemoveFile("/tmp/f"), IsOk());

  MustAppend(**second, "de");
  ASSERT_THAT(first->Close(), IsOk());
  EXPECT_EQ(fs->used_bytes(), 5u);  // The second handle still holds the file.
  StatusOr<uint64_t> size = (*second)->Size();
  ASSERT_THAT(size.status(), IsOk());
  EXPECT_EQ(*size, 5u);

  second->reset();  // Destroying the last handle closes it.
  EXPECT_EQ(fs->used_bytes(), 0u);
}

TEST(MemFileSystemTest, OpenFileOutlivesTheFileSystemObject) {
  auto fs = NewMem();
  std::unique_ptr<WritableFile> file = MustCreate(*fs, "/tmp/f");
  ASSERT_NE(file, nullptr);
  fs.reset();
  MustAppend(*file, "still here");
  StatusOr<uint64_t> size = file->Size();
  ASSERT_THAT(size.status(), IsOk());
  EXPECT_EQ(*size, 10u);
  EXPECT_THAT(file->Close(), IsOk());
}

TEST(MemFileSystemTest, SetCapacityTakesEffectAtOnce) {
  auto fs = NewMem();
  std::unique_ptr<WritableFile> file = MustCreate(*fs, "/tmp/f");
  ASSERT_NE(file, nullptr);
  MustAppend(*file, "0123456789");

  // Below what is stored: the bytes stay, and nothing more fits.
  fs->SetCapacity(4);
  EXPECT_EQ(fs->used_bytes(), 10u);
  AppendResult full = file->Append("x");
  EXPECT_EQ(full.bytes_written, 0u);
  EXPECT_THAT(full.status, IsErrno(ENOSPC, "write", "/tmp/f"));

  fs->SetCapacity(12);
  AppendResult partial = file->Append("abc");
  EXPECT_EQ(partial.bytes_written, 2u);
  EXPECT_THAT(partial.status, IsErrno(ENOSPC, "write", "/tmp/f"));

  fs->SetCapacity(std::nullopt);
  MustAppend(*file, std::string(1000, 'y'));
  EXPECT_EQ(fs->used_bytes(), 1012u);
}

TEST(MemFileSystemTest, WithoutContentsFilesKeepOnlyTheirSizes) {
  auto fs = NewMem(Options().KeepContents(false));
  std::unique_ptr<WritableFile> file = MustCreate(*fs, "/tmp/f");
  ASSERT_NE(file, nullptr);
  MustAppend(*file, "hello");
  MustAppend(*file, "world!");
  StatusOr<std::string> contents = fs->ReadFile("/tmp/f");
  ASSERT_THAT(contents.status(), IsOk());
  EXPECT_EQ(*contents, std::string(11, '\0'));
  StatusOr<uint64_t> size = file->Size();
  ASSERT_THAT(size.status(), IsOk());
  EXPECT_EQ(*size, 11u);
  StatusOr<FileStat> stat = fs->Stat("/tmp/f");
  ASSERT_THAT(stat.status(), IsOk());
  EXPECT_EQ(stat->size, 11u);
  EXPECT_EQ(fs->used_bytes(), 11u);
}

TEST(MemFileSystemTest, WithoutContentsCapacityStillApplies) {
  auto fs = NewMem(Options().Capacity(3).KeepContents(false));
  std::unique_ptr<WritableFile> file = MustCreate(*fs, "/tmp/f");
  ASSERT_NE(file, nullptr);
  AppendResult result = file->Append("abcd");
  EXPECT_EQ(result.bytes_written, 3u);
  EXPECT_THAT(result.status, IsErrno(ENOSPC, "write", "/tmp/f"));
  StatusOr<std::string> contents = fs->ReadFile("/tmp/f");
  ASSERT_THAT(contents.status(), IsOk());
  EXPECT_EQ(*contents, std::string(3, '\0'));
}

TEST(MemFileSystemTest, UsedBytesSumsEveryFile) {
  auto fs = NewMem();
  ASSERT_THAT(fs->CreateDir("/tmp/d"), IsOk());
  std::unique_ptr<WritableFile> a = MustCreate(*fs, "/tmp/a");
  std::unique_ptr<WritableFile> b = MustCreate(*fs, "/tmp/d/b");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  MustAppend(*a, "12");
  MustAppend(*b, "345");
  MustAppend(*a, "6789");
  EXPECT_EQ(fs->used_bytes(), 9u);
  ASSERT_THAT(a->Close(), IsOk());
  EXPECT_EQ(fs->used_bytes(), 9u);  // Closing a linked file keeps its bytes.
  ASSERT_THAT(fs->RemoveFile("/tmp/a"), IsOk());
  EXPECT_EQ(fs->used_bytes(), 3u);
}

TEST(MemFileSystemTest, ClosedFileFailsWithEbadf) {
  auto fs = NewMem();
  std::unique_ptr<WritableFile> file = MustCreate(*fs, "/tmp/f");
  ASSERT_NE(file, nullptr);
  ASSERT_THAT(file->Close(), IsOk());
  AppendResult append = file->Append("x");
  EXPECT_EQ(append.bytes_written, 0u);
  EXPECT_THAT(append.status, IsErrno(EBADF, "write", "/tmp/f"));
  EXPECT_THAT(file->Sync(), IsErrno(EBADF, "sync", "/tmp/f"));
  EXPECT_THAT(file->Size().status(), IsErrno(EBADF, "size", "/tmp/f"));
  EXPECT_THAT(file->Close(), IsErrno(EBADF, "close", "/tmp/f"));
}

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
