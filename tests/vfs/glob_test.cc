// GlobMatch and ExpandGlob: '*' and '?' within one component, dot names matched, and
// expansion over a FileSystem with ListDir only.
#include "spillway/vfs/glob.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/status.h"
#include "support/mock_file_system.h"

namespace spillway {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Return;
using ::testing::StrictMock;

// GlobMatch(pattern, path) must be `matches`.
struct GlobCase {
  std::string_view pattern;
  std::string_view path;
  bool matches;
};

void ExpectGlobMatches(std::initializer_list<GlobCase> cases) {
  for (const GlobCase& c : cases) {
    EXPECT_EQ(GlobMatch(c.pattern, c.path), c.matches)
        << "GlobMatch(\"" << c.pattern << "\", \"" << c.path << "\")";
  }
}

TEST(GlobMatchTest, ALiteralPatternMatchesOnlyItself) {
  ExpectGlobMatches({
      {"/a/b", "/a/b", true},
      {"/a/b", "/a/bc", false},
      {"/a/b", "/a", false},
      {"/a/b", "/a/b/c", false},
      {"/a/b", "/A/b", false},
      {"/", "/", true},
      {"/", "/a", false},
  });
}

TEST(GlobMatchTest, StarMatchesAnyRunWithinOneComponent) {
  ExpectGlobMatches({
      {"/a/*", "/a/b", true},
      {"/a/*", "/a/datafusion-x1y2", true},
      {"/a/*", "/a", false},
      {"/a/*", "/a/b/c", false},  // Never across a '/'.
      {"/a*", "/a/b", false},
      {"/a*b", "/a/b", false},
      {"/local*", "/local", true},  // The run may be empty...
      {"/local*", "/local17", true},
      {"/*", "/", false},  // ...but a whole component may not.
      {"/local*/datafusion-*/*", "/local0/datafusion-abc/spill-1", true},
      {"/local*/datafusion-*/*", "/local0/datafusion-abc", false},
      {"/local*/datafusion-*/*", "/local0/other/spill-1", false},
  });
}

TEST(GlobMatchTest, QuestionMarkMatchesExactlyOneCharacterButNotASlash) {
  ExpectGlobMatches({
      {"/a/?", "/a/b", true},
      {"/a/?", "/a/bc", false},
      {"/a/b?", "/a/b", false},
      {"/a?b", "/a/b", false},
      {"/d/?\?-?", "/d/ab-c", true},  // "\?" is a '?' that cannot start a trigraph.
  });
}

TEST(GlobMatchTest, WildcardsMatchNamesThatBeginWithADot) {
  ExpectGlobMatches({
      {"/tmp/*", "/tmp/.hidden", true},
      {"/tmp/?x", "/tmp/.x", true},
      {"/*/f", "/.cache/f", true},
  });
}

TEST(GlobMatchTest, SeveralStarsBacktrack) {
  ExpectGlobMatches({
      {"/d/*-*-*", "/d/a-b-c", true},
      {"/d/*-*-*", "/d/--", true},
      {"/d/*-*-*", "/d/a-b", false},
      {"/d/*ab", "/d/aab", true},
      {"/d/a*a*a", "/d/aaa", true},
      {"/d/a*a*a", "/d/aa", false},
      {"/d/a*b*c", "/d/aXbYbZc", true},
      {"/d/a*b*c", "/d/aXbYcZ", false},
      {"/d/**", "/d/x", true},
      {"/d/*?", "/d/x", true},
      {"/d/*??", "/d/x", false},
  });
}

TEST(GlobMatchTest, EveryOtherCharacterIsLiteral) {
  ExpectGlobMatches({
      {"/d/[a]", "/d/[a]", true},
      {"/d/[a]", "/d/a", false},
      {"/d/a\\*", "/d/a\\xyz", true},  // No escapes: '\' is itself.
      {"/d/a\\*", "/d/a*", false},
      {"/d/a.b", "/d/a.b", true},
      {"/d/a.b", "/d/axb", false},
  });
}

TEST(GlobMatchTest, AbsoluteAndRelativeDoNotMix) {
  ExpectGlobMatches({
      {"a/*", "/a/b", false},
      {"/a/*", "a/b", false},
      {"spill-*", "spill-12", true},  // A bare name works too.
  });
}

DirEntry Dir(std::string name) { return {std::move(name), FileType::kDirectory}; }
DirEntry File(std::string name) { return {std::move(name), FileType::kRegular}; }
DirEntry Link(std::string name) { return {std::move(name), FileType::kSymlink}; }

StatusOr<std::vector<DirEntry>> Listing(std::vector<DirEntry> entries) { return entries; }

TEST(ExpandGlobMockTest, ListsLevelByLevelAndOnlyWalksIntoDirectories) {
  StrictMock<MockFileSystem> fs;  // Any call but the ListDirs below fails the test.
  EXPECT_CALL(fs, ListDir("/"))
      .WillOnce(Return(Listing(
          {Dir("local0"), Dir("local1"), File("localfile"), Link("locallink"), Dir("other")})));
  EXPECT_CALL(fs, ListDir("/local0"))
      .WillOnce(Return(Listing({Dir("datafusion-b"), File("datafusion-f"), Dir("x")})));
  EXPECT_CALL(fs, ListDir("/local1"))
      .WillOnce(Return(Listing({Dir("datafusion-a"), Link("datafusion-l")})));
  EXPECT_THAT(ExpandGlob(fs, "/local*/datafusion-*"),
              ElementsAre("/local0/datafusion-b", "/local0/datafusion-f", "/local1/datafusion-a",
                          "/local1/datafusion-l"));
}

TEST(ExpandGlobMockTest, AnUnlistableDirectoryContributesNothing) {
  StrictMock<MockFileSystem> fs;
  EXPECT_CALL(fs, ListDir("/")).WillOnce(Return(Listing({Dir("a"), Dir("b"), Dir("c")})));
  EXPECT_CALL(fs, ListDir("/a")).WillOnce(Return(Listing({File("f")})));
  EXPECT_CALL(fs, ListDir("/b"))
      .WillOnce(Return(StatusOr<std::vector<DirEntry>>(Status::FromErrno(EACCES, "list", "/b"))));
  EXPECT_CALL(fs, ListDir("/c"))
      .WillOnce(Return(StatusOr<std::vector<DirEntry>>(Status::FromErrno(ENOENT, "list", "/c"))));
  EXPECT_THAT(ExpandGlob(fs, "/*/*"), ElementsAre("/a/f"));
}

TEST(ExpandGlobMockTest, ResultsAreSortedWhateverOrderTheListingsCameIn) {
  StrictMock<MockFileSystem> fs;
  EXPECT_CALL(fs, ListDir("/")).WillOnce(Return(Listing({Dir("b"), Dir("a")})));
  EXPECT_CALL(fs, ListDir("/b")).WillOnce(Return(Listing({File("z"), File("y")})));
  EXPECT_CALL(fs, ListDir("/a")).WillOnce(Return(Listing({File("x")})));
  EXPECT_THAT(ExpandGlob(fs, "/?/?"), ElementsAre("/a/x", "/b/y", "/b/z"));
}

TEST(ExpandGlobMockTest, ALiteralPatternIsFoundByListingItsParents) {
  StrictMock<MockFileSystem> fs;
  EXPECT_CALL(fs, ListDir("/")).Times(2).WillRepeatedly(Return(Listing({Dir("a")})));
  EXPECT_CALL(fs, ListDir("/a")).Times(2).WillRepeatedly(Return(Listing({File("b")})));
  EXPECT_THAT(ExpandGlob(fs, "/a/b"), ElementsAre("/a/b"));
  EXPECT_THAT(ExpandGlob(fs, "/a/c"), IsEmpty());
}

TEST(ExpandGlobMockTest, AMissingLevelStopsTheWalkEarly) {
  StrictMock<MockFileSystem> fs;
  EXPECT_CALL(fs, ListDir("/")).WillOnce(Return(Listing({Dir("a")})));
  EXPECT_THAT(ExpandGlob(fs, "/z*/deeper/still"), IsEmpty());
}

TEST(ExpandGlobMockTest, MalformedPatternsMatchNothingWithoutAnyCall) {
  StrictMock<MockFileSystem> fs;
  EXPECT_THAT(ExpandGlob(fs, ""), IsEmpty());
  EXPECT_THAT(ExpandGlob(fs, "relative/*"), IsEmpty());
  EXPECT_THAT(ExpandGlob(fs, "/a//b"), IsEmpty());
  EXPECT_THAT(ExpandGlob(fs, "/a/"), IsEmpty());
  // The root always exists, so it needs no call either.
  EXPECT_THAT(ExpandGlob(fs, "/"), ElementsAre("/"));
}

class ExpandGlobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* dir : {"/local0", "/local0/datafusion-aa", "/local0/datafusion-bb", "/local1",
                            "/local1/datafusion-cc", "/local1/.hidden", "/data"}) {
      ASSERT_TRUE(fs_->CreateDir(dir).ok()) << dir;
    }
    for (const char* file : {"/local0/datafusion-aa/spill-1", "/local0/datafusion-aa/spill-2",
                             "/local1/datafusion-cc/spill-3", "/local1/.hidden/f", "/localfile"}) {
      StatusOr<std::unique_ptr<WritableFile>> created = fs_->CreateFile(file);
      ASSERT_TRUE(created.ok()) << file;
    }
  }

  std::shared_ptr<MemFileSystem> fs_ = NewMemFileSystem();
};

TEST_F(ExpandGlobTest, FindsSpillDirectoriesAndTheirFiles) {
  EXPECT_THAT(
      ExpandGlob(*fs_, "/local*/datafusion-*"),
      ElementsAre("/local0/datafusion-aa", "/local0/datafusion-bb", "/local1/datafusion-cc"));
  EXPECT_THAT(ExpandGlob(*fs_, "/local*/datafusion-*/*"),
              ElementsAre("/local0/datafusion-aa/spill-1", "/local0/datafusion-aa/spill-2",
                          "/local1/datafusion-cc/spill-3"));
  EXPECT_THAT(ExpandGlob(*fs_, "/local0/datafusion-bb/*"), IsEmpty());
}

TEST_F(ExpandGlobTest, MatchesDotNamesAndBothFilesAndDirectoriesAtTheLastLevel) {
  EXPECT_THAT(ExpandGlob(*fs_, "/local1/*"),
              ElementsAre("/local1/.hidden", "/local1/datafusion-cc"));
  EXPECT_THAT(ExpandGlob(*fs_, "/*/*/f"), ElementsAre("/local1/.hidden/f"));
  EXPECT_THAT(ExpandGlob(*fs_, "/local*"), ElementsAre("/local0", "/local1", "/localfile"));
}

TEST_F(ExpandGlobTest, FindsExactlyTheEntriesThatExist) {
  EXPECT_THAT(ExpandGlob(*fs_, "/local0/datafusion-aa/spill-1"),
              ElementsAre("/local0/datafusion-aa/spill-1"));
  EXPECT_THAT(ExpandGlob(*fs_, "/local0/datafusion-aa/spill-9"), IsEmpty());
  EXPECT_THAT(ExpandGlob(*fs_, "/nowhere/*"), IsEmpty());
  EXPECT_THAT(ExpandGlob(*fs_, "/localfile/*"), IsEmpty());  // A file has no entries.
  ASSERT_TRUE(fs_->RemoveTree("/local0").ok());
  EXPECT_THAT(ExpandGlob(*fs_, "/local*/datafusion-*"), ElementsAre("/local1/datafusion-cc"));
}

TEST_F(ExpandGlobTest, EveryResultMatchesThePatternItCameFrom) {
  for (const char* pattern : {"/*", "/*/*", "/*/*/*", "/local?/*-??", "/*/.*"}) {
    const std::vector<std::string> paths = ExpandGlob(*fs_, pattern);
    EXPECT_FALSE(paths.empty()) << pattern;
    for (const std::string& path : paths) EXPECT_TRUE(GlobMatch(pattern, path)) << path;
  }
}

}  // namespace
}  // namespace spillway
