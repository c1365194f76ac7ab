// FaultInjectingFileSystem's corrupt, lost and delay= rules: an Append stores, a ReadFile
// (and so ReadFileInChunks) returns, the data with the recorded bit flipped; a lost Append
// stores zeros and reports full success; delay= waits. The expected bytes come from the
// record, not from a run.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/read_file_in_chunks.h"

namespace spillway {
namespace {

class DamageTest : public ::testing::Test {
 protected:
  DamageTest() : mem_(NewMemFileSystem()), fs_(NewFaultInjectingFileSystem(mem_, 42)) {
    EXPECT_TRUE(mem_->CreateDir("/d").ok());
  }
  // Appends each piece to /d/f through fs_, checking that every Append reports success.
  void AppendAll(const std::vector<std::string>& pieces) {
    StatusOr<std::unique_ptr<WritableFile>> file = fs_->CreateFile("/d/f");
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    for (const std::string& piece : pieces) {
      const AppendResult r = (*file)->Append(piece);
      EXPECT_TRUE(r.status.ok()) << r.status.ToString();
      EXPECT_EQ(r.bytes_written, piece.size());
    }
    EXPECT_TRUE((*file)->Close().ok());
  }
  std::string Stored() { return mem_->ReadFile("/d/f").value(); }

  std::shared_ptr<MemFileSystem> mem_;
  std::shared_ptr<FaultInjectingFileSystem> fs_;
};

TEST_F(DamageTest, ACorruptAppendStoresTheRecordedBitFlippedInTheNamedCallOnly) {
  ASSERT_TRUE(fs_->AddRuleText("write corrupt nth=2").ok());
  AppendAll({"first piece", "second piece", "third"});
  const std::vector<InjectedFault> injected = fs_->injected();
  ASSERT_EQ(injected.size(), 1u);
  EXPECT_EQ(injected[0].action, FaultAction::kCorrupt);
  EXPECT_EQ(injected[0].path, "/d/f");
  // The flipped byte lies in the second Append's bytes.
  EXPECT_GE(injected[0].offset, 11u);
  EXPECT_LT(injected[0].offset, 23u);
  ASSERT_GE(injected[0].bit, 0);
  std::string expected = "first piecesecond piecethird";
  expected[injected[0].offset] =
      static_cast<char>(expected[injected[0].offset] ^ (1 << injected[0].bit));
  EXPECT_EQ(Stored(), expected);
}

TEST_F(DamageTest, TheSameSeedFlipsTheSameBitAndAnotherSeedMayNot) {
  const auto flipped = [](uint64_t seed) {
    auto fs = NewFaultInjectingFileSystem(NewMemFileSystem(), seed);
    EXPECT_TRUE(fs->CreateDir("/d").ok());
    EXPECT_TRUE(fs->AddRuleText("write corrupt").ok());
    auto file = fs->CreateFile("/d/f");
    EXPECT_TRUE((*file)->Append(std::string(4096, 'x')).status.ok());
    const InjectedFault f = fs->injected().at(0);
    return std::pair(f.offset, f.bit);
  };
  EXPECT_EQ(flipped(42), flipped(42));
  EXPECT_TRUE(flipped(42) != flipped(43) || flipped(42) != flipped(44));
}

TEST_F(DamageTest, ALostAppendReportsSuccessAndStoresZerosTheFileStillGrows) {
  ASSERT_TRUE(fs_->AddRuleText("write lost nth=2").ok());
  AppendAll({"abc", "defg", "hi"});
  EXPECT_EQ(Stored(), std::string("abc") + std::string(4, '\0') + "hi");
  const std::vector<InjectedFault> injected = fs_->injected();
  ASSERT_EQ(injected.size(), 1u);
  EXPECT_EQ(injected[0].action, FaultAction::kLost);
  EXPECT_EQ(injected[0].lost_bytes, 4u);
}

TEST_F(DamageTest, ACorruptReadFileReturnsTheRecordedBitFlippedAndLeavesTheFile) {
  AppendAll({"contents of the file"});
  ASSERT_TRUE(fs_->AddRuleText("read corrupt nth=2").ok());
  EXPECT_EQ(fs_->ReadFile("/d/f").value(), "contents of the file");
  const StatusOr<std::string> second = fs_->ReadFile("/d/f");
  ASSERT_TRUE(second.ok());
  const std::vector<InjectedFault> injected = fs_->injected();
  ASSERT_EQ(injected.size(), 1u);
  EXPECT_EQ(injected[0].op, OpKind::kRead);
  std::string expected = "contents of the file";
  ASSERT_LT(injected[0].offset, expected.size());
  expected[injected[0].offset] =
      static_cast<char>(expected[injected[0].offset] ^ (1 << injected[0].bit));
  EXPECT_EQ(*second, expected);
  EXPECT_EQ(Stored(), "contents of the file");  // Only what was read lied.
  EXPECT_EQ(fs_->ReadFile("/d/f").value(), "contents of the file");
}

TEST_F(DamageTest, ACorruptReadAppliesToReadFileInChunksAndItsCallbackSeesTheDamage) {
  AppendAll({"contents of the file"});
  ASSERT_TRUE(fs_->AddRuleText("read corrupt").ok());
  std::vector<std::string> seen;
  const StatusOr<std::string> read = ReadFileInChunks(
      *fs_, "/d/f", [&seen](std::string_view so_far) { seen.emplace_back(so_far); });
  ASSERT_TRUE(read.ok());
  const std::vector<InjectedFault> injected = fs_->injected();
  ASSERT_EQ(injected.size(), 1u);
  std::string expected = "contents of the file";
  ASSERT_LT(injected[0].offset, expected.size());
  expected[injected[0].offset] =
      static_cast<char>(expected[injected[0].offset] ^ (1 << injected[0].bit));
  EXPECT_EQ(*read, expected);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back(), expected);
}

TEST_F(DamageTest, DelayWaitsThenActsAndBadRulesAreRefused) {
  ASSERT_TRUE(fs_->AddRuleText("mkdir EIO delay=50").ok());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(fs_->CreateDir("/d/x").ok());
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(50));
  for (const char* bad : {"open corrupt", "read lost", "write lost EIO", "read ok",
                          "write EIO delay=0", "write EIO delay=3600001"}) {
    EXPECT_EQ(fs_->AddRuleText(bad).code(), StatusCode::kInvalidArgument) << bad;
  }
  FaultRule lost;
  lost.op = OpKind::kMkdir;
  lost.action = FaultAction::kLost;
  EXPECT_FALSE(fs_->TryAddRule(lost).ok());
  FaultRule slow;
  slow.op = OpKind::kWrite;
  slow.action = FaultAction::kOk;
  EXPECT_FALSE(fs_->TryAddRule(slow).ok());
  slow.delay_ms = 1;
  EXPECT_TRUE(fs_->TryAddRule(slow).ok());
}

}  // namespace
}  // namespace spillway
