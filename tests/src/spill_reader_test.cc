// SpillReader on the files SpillWriter writes: framed batches come back as written, and
// every kind of damage (a flipped bit, a lost write's zeros, a truncation) is reported as
// DATA_LOSS at the offset of the first frame that does not check out, while the
// filesystem's own errors come back as themselves. Unframed (the default) files are
// upstream's plain byte stream.
//
// The frame's hash comes from the library's private spill_frame.h, to forge a header.
#include "spillway/spill/spill_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spill_frame.h"
#include "spillway/spill/disk_manager.h"
#include "spillway/spill/spill_writer.h"
#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/posix_file_system.h"
#include "support/spill_test_support.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace spillway {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

// The header in front of every framed batch (spill_reader.h).
constexpr uint64_t kHeader = 20;

// A batch of `n` bytes, none of them zero (so that zeroing any of them changes the file),
// drawn from `seed`.
std::string Batch(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::string batch(n, '\0');
  for (char& c : batch) c = static_cast<char>(1 + gen() % 255);
  return batch;
}

// Where each frame of `batches` starts, and where the file ends (the last element).
std::vector<uint64_t> FrameStarts(const std::vector<std::string>& batches) {
  std::vector<uint64_t> starts = {0};
  for (const std::string& batch : batches) starts.push_back(starts.back() + kHeader + batch.size());
  return starts;
}

// What a reader gave: the batches it returned, then the error that stopped it (OK at a
// clean end) and its offset() then.
struct Outcome {
  std::vector<std::string> batches;
  Status error;
  uint64_t offset = 0;
};

Outcome ReadAll(SpillReader& reader) {
  Outcome outcome;
  for (;;) {
    StatusOr<std::optional<std::string_view>> next = reader.Next();
    if (!next.ok()) {
      outcome.error = next.status();
      break;
    }
    if (!next->has_value()) break;
    outcome.batches.emplace_back(**next);
  }
  outcome.offset = reader.offset();
  return outcome;
}

class SpillReaderTest : public ::testing::Test {
 protected:
  // Writes `batches` through a SpillWriter into a new file of a manager over /local0 that
  // frames (or not); returns the file, which keeps it on disk.
  SpillFile Write(const std::vector<std::string>& batches, bool framed = true) {
    if (!mem_->Exists("/local0")) EXPECT_OK(mem_->CreateDir("/local0"));
    StatusOr<std::shared_ptr<DiskManager>> manager = DiskManagerBuilder()
                                                         .WithDirectories({"/local0"})
                                                         .WithSeed(5)
                                                         .WithFrameSpillFiles(framed)
                                                         .Build(fs_);
    EXPECT_OK(manager.status());
    StatusOr<SpillFile> file = (*manager)->CreateTempFile("sort");
    EXPECT_OK(file.status());
    SpillWriter writer(*file);
    for (const std::string& batch : batches) EXPECT_OK(writer.Write(batch));
    return *file;
  }

  std::string Contents(const std::string& path) {
    StatusOr<std::string> contents = mem_->ReadFile(path);
    EXPECT_OK(contents.status());
    return contents.ok() ? *contents : "";
  }

  // Stores `bytes` as the new file /damaged and returns what a framed reader of it gives.
  Outcome ReadDamaged(const std::string& bytes) {
    (void)mem_->RemoveFile(kDamaged);
    StatusOr<std::unique_ptr<WritableFile>> file = mem_->CreateFile(kDamaged);
    EXPECT_OK(file.status());
    if (!file.ok()) return {};
    EXPECT_OK((*file)->Append(bytes).status);
    EXPECT_OK((*file)->Close());
    StatusOr<std::unique_ptr<SpillReader>> reader = NewSpillReader(*mem_, kDamaged, true);
    EXPECT_OK(reader.status());
    return reader.ok() ? ReadAll(**reader) : Outcome{};
  }

  // Expects `outcome` to be the batches before the frame starting at `bad` (an element of
  // `starts`), then DATA_LOSS naming /damaged and that offset.
  static void ExpectCaughtAt(const Outcome& outcome, const std::vector<std::string>& batches,
                             const std::vector<uint64_t>& starts, uint64_t bad,
                             const std::string& what) {
    SCOPED_TRACE(what);
    size_t frame = 0;
    while (starts[frame] != bad) ++frame;
    EXPECT_THAT(outcome.batches,
                ElementsAreArray(batches.begin(), batches.begin() + static_cast<long>(frame)));
    EXPECT_EQ(outcome.error.code(), StatusCode::kDataLoss) << outcome.error.ToString();
    EXPECT_THAT(outcome.error.message(),
                HasSubstr("spill file " + std::string(kDamaged) + ": frame at offset " +
                          std::to_string(bad) + ":"));
    EXPECT_EQ(outcome.offset, bad);
  }

  // The start of the frame that holds byte `at`.
  static uint64_t FrameOf(const std::vector<uint64_t>& starts, uint64_t at) {
    size_t frame = 0;
    while (starts[frame + 1] <= at) ++frame;
    return starts[frame];
  }

  static constexpr const char* kDamaged = "/damaged";
  std::shared_ptr<MemFileSystem> mem_ = NewMemFileSystem(3);
  std::shared_ptr<FaultInjectingFileSystem> fs_ = NewFaultInjectingFileSystem(mem_);
  // A small file of four frames, one of them empty.
  const std::vector<std::string> small_ = {Batch(2, 1), "", Batch(11, 2), Batch(7, 3)};
};

TEST_F(SpillReaderTest, FramedBatchesRoundTripIncludingEmptyAndOneMiB) {
  std::vector<std::string> batches = {"", Batch(1, 4), Batch(size_t{1} << 20, 5)};
  std::mt19937 sizes(6);
  for (uint32_t i = 0; i < 200; ++i) batches.push_back(Batch(sizes() % 5000, 100 + i));
  batches.emplace_back("");
  const SpillFile file = Write(batches);

  const uint64_t size = FrameStarts(batches).back();
  EXPECT_EQ(Contents(file.path()).size(), size);
  EXPECT_EQ(file.size(), size);  // The headers are counted with their batches.
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<SpillReader> reader, NewSpillReader(file));
  const Outcome outcome = ReadAll(*reader);
  EXPECT_OK(outcome.error);
  EXPECT_THAT(outcome.batches, ElementsAreArray(batches));
  EXPECT_EQ(outcome.offset, size);
  EXPECT_EQ(reader->path(), file.path());
}

TEST_F(SpillReaderTest, UnframedByDefaultTheFileIsTheBytesWrittenReadBackWhole) {
  EXPECT_FALSE(DiskManagerOptions().spill.frame_spill_files);
  const SpillFile file = Write({"ab", "", "cde"}, /*framed=*/false);
  EXPECT_EQ(Contents(file.path()), "abcde");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<SpillReader> reader, NewSpillReader(file));
  const Outcome outcome = ReadAll(*reader);
  EXPECT_OK(outcome.error);
  EXPECT_THAT(outcome.batches, ElementsAreArray({"abcde"}));

  // Unchecked, as upstream: damage goes unnoticed.
  ASSERT_OK_AND_ASSIGN(reader, NewSpillReader(*mem_, file.path(), /*framed=*/false));
  EXPECT_OK(ReadAll(*reader).error);
  const SpillFile empty = Write({}, /*framed=*/false);
  ASSERT_OK_AND_ASSIGN(reader, NewSpillReader(empty));
  EXPECT_TRUE(ReadAll(*reader).batches.empty());
}

TEST_F(SpillReaderTest, EverySingleBitFlipIsCaughtAtItsFramesOffset) {
  const std::string good = Contents(Write(small_).path());
  const std::vector<uint64_t> starts = FrameStarts(small_);
  ASSERT_EQ(good.size(), starts.back());
  for (uint64_t at = 0; at < good.size(); ++at) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = good;
      bad[at] = static_cast<char>(bad[at] ^ (1 << bit));
      ExpectCaughtAt(ReadDamaged(bad), small_, starts, FrameOf(starts, at),
                     "bit " + std::to_string(bit) + " of byte " + std::to_string(at));
    }
  }
}

TEST_F(SpillReaderTest, ALostWritesZerosAreCaughtAtTheFirstFrameTheyChange) {
  const std::string good = Contents(Write(small_).path());
  const std::vector<uint64_t> starts = FrameStarts(small_);
  // Every range of every length: one that zeroes only zeros changes nothing and reads
  // back clean; any other is caught at the frame of the first byte it changes.
  for (uint64_t from = 0; from < good.size(); ++from) {
    for (uint64_t to = from + 1; to <= good.size(); ++to) {
      std::string bad = good;
      std::fill(bad.begin() + static_cast<long>(from), bad.begin() + static_cast<long>(to), '\0');
      const Outcome outcome = ReadDamaged(bad);
      const std::string what =
          "zeros at [" + std::to_string(from) + ", " + std::to_string(to) + ")";
      uint64_t changed = from;
      while (changed < to && good[changed] == '\0') ++changed;
      if (changed == to) {
        EXPECT_TRUE(outcome.error.ok()) << what << ": " << outcome.error.ToString();
        EXPECT_THAT(outcome.batches, ElementsAreArray(small_)) << what;
        continue;
      }
      ExpectCaughtAt(outcome, small_, starts, FrameOf(starts, changed), what);
    }
  }
  // A whole file of zeros (a lost write past the old end) is never a frame.
  ExpectCaughtAt(ReadDamaged(std::string(kHeader, '\0')), small_, starts, 0, "a header of zeros");
  ExpectCaughtAt(ReadDamaged(std::string(4096, '\0')), small_, starts, 0, "4096 zeros");
}

TEST_F(SpillReaderTest, AHeaderWithoutTheMagicIsNoFrameEvenWithItsHashesRight) {
  // An empty batch's frame with the magic zeroed and the header's hash made to match: only
  // the magic tells it from a frame, as it tells a zeroed header from one whatever the
  // hash of zeros is.
  std::string bad = Contents(Write({""}).path());
  ASSERT_EQ(bad.size(), kHeader);
  std::fill(bad.begin(), bad.begin() + 4, '\0');
  const uint64_t hash = internal::SpillFrameHash(std::string_view(bad).substr(0, 16));
  for (size_t i = 0; i < 4; ++i) bad[16 + i] = static_cast<char>((hash >> (8 * i)) & 0xff);
  const Outcome outcome = ReadDamaged(bad);
  ExpectCaughtAt(outcome, small_, FrameStarts(small_), 0, "no magic");
  EXPECT_THAT(outcome.error.message(), HasSubstr("no frame magic"));
}

TEST_F(SpillReaderTest, ATruncationIsCaughtUnlessItEndsAtAFrameBoundary) {
  const std::string good = Contents(Write(small_).path());
  const std::vector<uint64_t> starts = FrameStarts(small_);
  for (uint64_t size = 0; size < good.size(); ++size) {
    const Outcome outcome = ReadDamaged(good.substr(0, size));
    const std::string what = "cut at " + std::to_string(size);
    const auto boundary = std::find(starts.begin(), starts.end(), size);
    if (boundary != starts.end()) {
      EXPECT_TRUE(outcome.error.ok()) << what << ": " << outcome.error.ToString();
      EXPECT_THAT(outcome.batches,
                  ElementsAreArray(small_.begin(), small_.begin() + (boundary - starts.begin())))
          << what;
      continue;
    }
    ExpectCaughtAt(outcome, small_, starts, FrameOf(starts, size), what);
    EXPECT_THAT(outcome.error.message(), HasSubstr("truncated")) << what;
  }
}

TEST_F(SpillReaderTest, AnErrorIsRepeatedByEveryLaterNext) {
  std::string bad = Contents(Write(small_).path());
  bad[FrameStarts(small_)[2] + kHeader] ^= 1;  // The third frame's body.
  (void)ReadDamaged(bad);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<SpillReader> reader, NewSpillReader(*mem_, kDamaged, true));
  const Outcome first = ReadAll(*reader);
  EXPECT_THAT(first.error.message(), HasSubstr("body checksum mismatch"));
  EXPECT_EQ(reader->Next().status(), first.error);
  EXPECT_EQ(reader->offset(), FrameStarts(small_)[2]);
}

TEST_F(SpillReaderTest, TheFileSystemsErrorsComeBackAsThemselvesNotAsDataLoss) {
  const SpillFile file = Write(small_);
  ASSERT_OK(fs_->AddRuleText("read EIO"));
  StatusOr<std::unique_ptr<SpillReader>> reader = NewSpillReader(file);
  EXPECT_THAT(reader, FailsWith(EIO));
  EXPECT_NE(reader.status().code(), StatusCode::kDataLoss);
  EXPECT_THAT(NewSpillReader(*mem_, "/local0/missing", true), FailsWith(ENOENT));
  // The rule was used up: the file itself is intact.
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<SpillReader> again, NewSpillReader(file));
  EXPECT_THAT(ReadAll(*again).batches, ElementsAreArray(small_));
}

TEST_F(SpillReaderTest, AWriteCutShortReportsItsErrorAndReadsBackAsATruncation) {
  if (!mem_->Exists("/local0")) ASSERT_OK(mem_->CreateDir("/local0"));
  ASSERT_OK_AND_ASSIGN(
      std::shared_ptr<DiskManager> manager,
      DiskManagerBuilder().WithDirectories({"/local0"}).WithFrameSpillFiles(true).Build(fs_));
  ASSERT_OK_AND_ASSIGN(SpillFile file, manager->CreateTempFile("sort"));
  SpillWriter writer(file);
  ASSERT_OK(writer.Write("first"));
  fs_->AddShortWrite("", 3);  // The second frame's header: 3 of its 20 bytes, then EIO.
  EXPECT_THAT(writer.Write("second"), FailsWith(EIO));
  EXPECT_EQ(file.size(), kHeader + 5 + 3);  // What reached the file is counted.
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<SpillReader> reader, NewSpillReader(file));
  Outcome outcome = ReadAll(*reader);
  EXPECT_THAT(outcome.batches, ElementsAreArray({"first"}));
  EXPECT_EQ(outcome.error.code(), StatusCode::kDataLoss);
  EXPECT_THAT(outcome.error.message(), HasSubstr("frame at offset 25: truncated header"));

  // A header that reached the file whole before the write failed: its body is missing.
  ASSERT_OK_AND_ASSIGN(file, manager->CreateTempFile("sort"));
  writer = SpillWriter(file);
  fs_->AddShortWrite("", kHeader);
  EXPECT_THAT(writer.Write("second"), FailsWith(EIO));
  ASSERT_OK_AND_ASSIGN(reader, NewSpillReader(file));
  outcome = ReadAll(*reader);
  EXPECT_TRUE(outcome.batches.empty());
  EXPECT_THAT(outcome.error.message(), HasSubstr("frame at offset 0: truncated body: 0 of 6"));
}

// On POSIX the reader checks frames as the file comes in, 64 KiB at a time, and the
// writer copies a large batch that the kernel would copy slowly (one whose frame's body
// lies 1 to 31 bytes past the batch's start modulo a page, spill_writer.cc) before writing
// it: batches across those chunks, the first one copied, come back as written, and a bit
// flipped inside a frame that was checked as it came in is caught at that frame.
TEST(SpillReaderPosixTest, FramesAcrossReadChunksAndACopiedBatchReadBackAndDamageIsCaught) {
  test_support::TempDir temp;
  ASSERT_TRUE(temp.ok()) << temp.error();
  std::shared_ptr<FileSystem> posix =
      NewPosixFileSystem(PosixFileSystemOptions{.root = temp.path(), .temp_dir = ""});
  ASSERT_OK(posix->CreateDir("/local0"));
  ASSERT_OK_AND_ASSIGN(
      std::shared_ptr<DiskManager> manager,
      DiskManagerBuilder().WithDirectories({"/local0"}).WithFrameSpillFiles(true).Build(posix));
  ASSERT_OK_AND_ASSIGN(SpillFile file, manager->CreateTempFile("sort"));
  // The first batch starts 16 bytes into a page, so that its body, at offset 20 of the
  // file, lies 4 bytes past it: the writer copies it.
  constexpr size_t kPage = 4096;
  const std::string first = Batch(size_t{200} << 10, 7);
  std::vector<char> placed(first.size() + 2 * kPage);
  char* at = placed.data() + (kPage - reinterpret_cast<uintptr_t>(placed.data()) % kPage) + 16;
  std::copy(first.begin(), first.end(), at);
  const std::vector<std::string> batches = {first, Batch(100 << 10, 8), Batch(30, 9),
                                            Batch(150 << 10, 10)};
  SpillWriter writer(file);
  ASSERT_OK(writer.Write(std::string_view(at, first.size())));
  for (size_t i = 1; i < batches.size(); ++i) ASSERT_OK(writer.Write(batches[i]));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<SpillReader> reader, NewSpillReader(file));
  const Outcome outcome = ReadAll(*reader);
  EXPECT_OK(outcome.error);
  EXPECT_THAT(outcome.batches, ElementsAreArray(batches));

  // A bit of the second batch, which lies across read chunks.
  const std::vector<uint64_t> starts = FrameStarts(batches);
  ASSERT_OK_AND_ASSIGN(std::string bad, posix->ReadFile(file.path()));
  bad[starts[1] + kHeader + (70 << 10)] ^= 4;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<WritableFile> damaged, posix->CreateFile("/damaged"));
  ASSERT_OK(damaged->Append(bad).status);
  ASSERT_OK(damaged->Close());
  ASSERT_OK_AND_ASSIGN(reader, NewSpillReader(*posix, "/damaged", true));
  const Outcome caught = ReadAll(*reader);
  EXPECT_THAT(caught.batches, ElementsAreArray({first}));
  EXPECT_EQ(caught.error.code(), StatusCode::kDataLoss) << caught.error.ToString();
  EXPECT_THAT(caught.error.message(),
              HasSubstr("frame at offset " + std::to_string(starts[1]) + ": body checksum"));
}

TEST_F(SpillReaderTest, ACustomManagerRefusesFramingItCannotApply) {
  DiskManagerOptions options;
  options.mode = DiskManagerMode::kCustom;
  options.spill.frame_spill_files = true;
  StatusOr<std::shared_ptr<DiskManager>> manager = NewDiskManager(fs_, options);
  EXPECT_EQ(manager.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(manager.status().message(), HasSubstr("frame_spill_files"));
}

}  // namespace
}  // namespace spillway
