// The FileSystem contract (file_system.h) for removal, on every implementation:
// RemoveFile, RemoveDir and RemoveTree. The fixture and what the suite holds to are
// described in support/file_system_conformance.h.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
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
using ::testing::IsEmpty;

// --- RemoveFile / RemoveDir -----------------------------------------------------------

TEST_P(FileSystemConformanceTest, RemoveFileUnlinksAFile) {
  ASSERT_THAT(WriteNewFile(*fs_, "/f", "x"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/g", "y"), IsOk());
  EXPECT_THAT(fs_->RemoveFile("/f"), IsOk());
  EXPECT_FALSE(fs_->Exists("/f"));
  EXPECT_TRUE(fs_->Exists("/g"));
  EXPECT_THAT(fs_->RemoveFile("/f"), FailsWith(ENOENT));
}

TEST_P(FileSystemConformanceTest, RemoveFileFailsWithEisdirEnoentOrEnotdir) {
  ASSERT_THAT(fs_->CreateDir("/d"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/f", ""), IsOk());
  const Status on_dir = fs_->RemoveFile("/d");
  EXPECT_THAT(on_dir, FailsWith(EISDIR));
  EXPECT_EQ(on_dir.path(), "/d");
  EXPECT_EQ(TypeOf("/d"), FileType::kDirectory);
  EXPECT_THAT(fs_->RemoveFile("/nope"), FailsWith(ENOENT));
  EXPECT_THAT(fs_->RemoveFile("/nope/f"), FailsWith(ENOENT));
  EXPECT_THAT(fs_->RemoveFile("/f/g"), FailsWith(ENOTDIR));
}

TEST_P(FileSystemConformanceTest, RemoveDirRemovesOnlyAnEmptyDirectory) {
  ASSERT_THAT(fs_->CreateDir("/with_file"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/with_file/f", ""), IsOk());
  ASSERT_THAT(fs_->CreateDir("/with_dir"), IsOk());
  ASSERT_THAT(fs_->CreateDir("/with_dir/sub"), IsOk());
  ASSERT_THAT(fs_->CreateDir("/empty"), IsOk());

  const Status not_empty = fs_->RemoveDir("/with_file");
  EXPECT_THAT(not_empty, FailsWith(ENOTEMPTY));
  EXPECT_EQ(not_empty.path(), "/with_file");
  EXPECT_THAT(fs_->RemoveDir("/with_dir"), FailsWith(ENOTEMPTY));
  EXPECT_TRUE(fs_->Exists("/with_file/f"));
  EXPECT_TRUE(fs_->Exists("/with_dir/sub"));

  EXPECT_THAT(fs_->RemoveDir("/empty"), IsOk());
  EXPECT_FALSE(fs_->Exists("/empty"));
}

TEST_P(FileSystemConformanceTest, RemoveDirFailsWithEnoentOrEnotdir) {
  ASSERT_THAT(WriteNewFile(*fs_, "/f", ""), IsOk());
  EXPECT_THAT(fs_->RemoveDir("/nope"), FailsWith(ENOENT));
  EXPECT_THAT(fs_->RemoveDir("/f"), FailsWith(ENOTDIR));
  EXPECT_THAT(fs_->RemoveDir("/f/g"), FailsWith(ENOTDIR));
  EXPECT_TRUE(fs_->Exists("/f"));
}

// --- RemoveTree -----------------------------------------------------------------------

TEST_P(FileSystemConformanceTest, RemoveTreeRemovesEverythingBelow) {
  ASSERT_THAT(fs_->CreateDir("/t"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/t/a", "1"), IsOk());
  ASSERT_THAT(fs_->CreateDir("/t/b"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/t/b/c", "22"), IsOk());
  ASSERT_THAT(fs_->CreateDir("/t/b/d"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/t/b/d/e", "333"), IsOk());
  ASSERT_THAT(fs_->CreateDir("/t/empty"), IsOk());
  ASSERT_THAT(fs_->CreateDir("/keep"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/keep/f", "kept"), IsOk());

  EXPECT_THAT(fs_->RemoveTree("/t"), IsOk());
  EXPECT_FALSE(fs_->Exists("/t"));
  StatusOr<std::vector<DirEntry>> root = fs_->ListDir("/");
  ASSERT_THAT(root, IsOk());
  EXPECT_THAT(*root, ElementsAre(DirEntry{"keep", FileType::kDirectory},
                                 DirEntry{"tmp", FileType::kDirectory}));
  StatusOr<std::string> kept = fs_->ReadFile("/keep/f");
  ASSERT_THAT(kept, IsOk());
  EXPECT_EQ(*kept, "kept");
}

TEST_P(FileSystemConformanceTest, RemoveTreeOfAFileRemovesJustThatFile) {
  ASSERT_THAT(fs_->CreateDir("/d"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/d/f", "x"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/d/g", "y"), IsOk());
  EXPECT_THAT(fs_->RemoveTree("/d/f"), IsOk());
  StatusOr<std::vector<DirEntry>> listed = fs_->ListDir("/d");
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(*listed, ElementsAre(DirEntry{"g", FileType::kRegular}));
}

TEST_P(FileSystemConformanceTest, RemoveTreeOfAnEmptyDirectoryRemovesIt) {
  ASSERT_THAT(fs_->CreateDir("/d"), IsOk());
  EXPECT_THAT(fs_->RemoveTree("/d"), IsOk());
  EXPECT_FALSE(fs_->Exists("/d"));
}

TEST_P(FileSystemConformanceTest, RemoveTreeFailsWithEnoentOrEnotdir) {
  ASSERT_THAT(WriteNewFile(*fs_, "/f", ""), IsOk());
  const Status missing = fs_->RemoveTree("/nope");
  EXPECT_THAT(missing, FailsWith(ENOENT));
  EXPECT_EQ(missing.path(), "/nope");
  EXPECT_THAT(fs_->RemoveTree("/f/g"), FailsWith(ENOTDIR));
  EXPECT_TRUE(fs_->Exists("/f"));
}

TEST_P(FileSystemConformanceTest, AnOpenFileSurvivesRemoveTreeOfItsDirectory) {
  ASSERT_THAT(fs_->CreateDir("/d"), IsOk());
  StatusOr<std::unique_ptr<WritableFile>> file = fs_->CreateFile("/d/f");
  ASSERT_THAT(file, IsOk());
  ASSERT_THAT((*file)->Append("12"), IsOk());
  ASSERT_THAT(fs_->RemoveTree("/d"), IsOk());
  EXPECT_FALSE(fs_->Exists("/d"));
  EXPECT_THAT((*file)->Append("345"), IsOk());
  StatusOr<uint64_t> size = (*file)->Size();
  ASSERT_THAT(size, IsOk());
  EXPECT_EQ(*size, 5u);
  EXPECT_THAT((*file)->Close(), IsOk());
}

}  // namespace
}  // namespace spillway
