// corrupt, lost and delay= rules (docs/inject.md, "Faults that lie"): damage_probe.c moves
// known bytes through each call family; the trace says which call a rule damaged and how
// (offset, bit or lost bytes), and the probe's bytes must be exactly the input with that
// damage: the expected bytes are computed from the trace and the probe's input patterns,
// never copied from a run.
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "spillway/vfs/fault_rules.h"
#include "support/inject_support.h"

namespace spillway::inject {
namespace {

constexpr int kSize = 1024;
constexpr int kChunk = 128;
constexpr int kOld = 512;  // The write families' file holds A's first kOld bytes before.

// The probe's patterns (damage_probe.c).
unsigned char P(int i) { return static_cast<unsigned char>(1 + (13 * i + 5) % 255); }
unsigned char A(int i) { return static_cast<unsigned char>(1 + (7 * i + 3) % 255); }
std::vector<unsigned char> Pattern() {
  std::vector<unsigned char> bytes(kSize);
  for (int i = 0; i < kSize; ++i) bytes[i] = P(i);
  return bytes;
}

struct ProbeRun {
  CommandResult result;
  std::vector<unsigned char> bytes;      // What the probe printed, decoded.
  std::vector<nlohmann::json> trace;     // Every call line.
  std::vector<nlohmann::json> injected;  // The injected ones.
  std::vector<int> injected_ordinal;     // Each injected line's ordinal among its op's.
};

class InjectDamageTest : public InjectTest {
 protected:
  ProbeRun Probe(const std::string& family, const std::string& args) {
    ProbeRun run;
    run.result =
        RunShellWithStderr(Inject(args, std::string(DAMAGE_PROBE) + " " + ShellQuote(scope_) + " " +
                                            ShellQuote(twin_) + " " + family));
    const std::string& out = run.result.out;
    const size_t space = out.find(' ');
    const size_t end = out.find('\n');
    if (space != std::string::npos && end != std::string::npos) {
      for (size_t i = space + 1; i + 1 < end; i += 2) {
        run.bytes.push_back(static_cast<unsigned char>(std::stoi(out.substr(i, 2), nullptr, 16)));
      }
    }
    std::map<std::string, int> per_op;
    for (const nlohmann::json& line : ReadTrace(trace_)) {
      if (!line.contains("op")) continue;  // A site line.
      run.trace.push_back(line);
      const int ordinal = ++per_op[line["op"].get<std::string>()];
      if (line["injected"] == true) {
        run.injected.push_back(line);
        run.injected_ordinal.push_back(ordinal);
      }
    }
    return run;
  }
};

const char* const kReadFamilies[] = {"read",  "pread",     "readv",        "preadv",
                                     "fread", "fgets",     "getline",      "fgetc",
                                     "getc",  "copy_from", "sendfile_from"};
const char* const kWriteFamilies[] = {"write", "pwrite", "writev",  "pwritev", "fwrite",
                                      "fputs", "fputc",  "fprintf", "copy_to", "sendfile_to"};

// Families whose calls each move one character (the others move kChunk bytes a call, but
// fgets and getline, which stop at a newline).
bool ByChar(const std::string& family) {
  return family == "fgetc" || family == "getc" || family == "fputc";
}
bool ByChunk(const std::string& family) {
  return !ByChar(family) && family != "fgets" && family != "getline";
}

// A damaged byte at `offset` lies in the family's third call: the third character, or the
// third chunk (fgets and getline stop at newlines: no fixed place).
void ExpectInThirdCall(const std::string& family, int64_t offset) {
  if (ByChar(family)) {
    EXPECT_EQ(offset, 2);
  }
  if (ByChunk(family)) {
    EXPECT_GE(offset, 2 * kChunk);
    EXPECT_LT(offset, 3 * kChunk);
  }
}

// P with the bit the injected line names flipped.
std::vector<unsigned char> Flipped(const nlohmann::json& line) {
  std::vector<unsigned char> bytes = Pattern();
  const int64_t offset = line.at("offset").get<int64_t>();
  const int bit = line.at("bit").get<int>();
  if (offset >= 0 && offset < kSize && bit >= 0 && bit < 8) bytes[offset] ^= 1U << bit;
  return bytes;
}

class DamageReadTest : public InjectDamageTest,
                       public ::testing::WithParamInterface<const char*> {};

TEST_P(DamageReadTest, ACorruptReadFlipsTheSeedsBitOfTheNamedCallOnly) {
  const std::string family = GetParam();
  const ProbeRun run = Probe(family, "--seed 7 --fault 'read corrupt nth=3'");
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  ASSERT_EQ(run.injected.size(), 1u) << run.result.err;
  const nlohmann::json& line = run.injected[0];
  EXPECT_EQ(run.injected_ordinal[0], 3);  // Exactly the call the rule names.
  EXPECT_EQ(line["action"], "corrupt");
  EXPECT_EQ(line["result"], 0);
  EXPECT_EQ(run.bytes, Flipped(line));
  ExpectInThirdCall(family, line["offset"].get<int64_t>());

  // The same seed damages the same byte and bit, every run.
  const ProbeRun again = Probe(family, "--seed 7 --fault 'read corrupt nth=3'");
  ASSERT_EQ(again.injected.size(), 1u);
  EXPECT_EQ(again.injected[0]["offset"], line["offset"]);
  EXPECT_EQ(again.injected[0]["bit"], line["bit"]);
  EXPECT_EQ(again.result.out, run.result.out);

  // Another seed picks another byte or bit (one of three seeds at least).
  bool moved = false;
  for (const char* seed : {"8", "9", "10"}) {
    const ProbeRun other =
        Probe(family, std::string("--seed ") + seed + " --fault 'read corrupt nth=3'");
    ASSERT_EQ(other.injected.size(), 1u);
    EXPECT_EQ(other.bytes, Flipped(other.injected[0]));
    moved |=
        other.injected[0]["offset"] != line["offset"] || other.injected[0]["bit"] != line["bit"];
  }
  EXPECT_TRUE(moved);
}
INSTANTIATE_TEST_SUITE_P(Families, DamageReadTest, ::testing::ValuesIn(kReadFamilies));

class DamageWriteTest : public InjectDamageTest,
                        public ::testing::WithParamInterface<const char*> {};

TEST_P(DamageWriteTest, ACorruptWriteStoresTheSeedsBitFlippedForEveryLaterReader) {
  const std::string family = GetParam();
  // Write 1 is the probe's own write() of A; the family's calls are 2, 3, ...
  const ProbeRun run = Probe(family, "--seed 11 --fault 'write corrupt nth=4'");
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  ASSERT_EQ(run.injected.size(), 1u) << run.result.err;
  const nlohmann::json& line = run.injected[0];
  EXPECT_EQ(run.injected_ordinal[0], 4);
  EXPECT_EQ(line["action"], "corrupt");
  EXPECT_EQ(run.bytes, Flipped(line));  // Read back by raw system calls, after the run's close.
  ExpectInThirdCall(family, line["offset"].get<int64_t>());
  const ProbeRun again = Probe(family, "--seed 11 --fault 'write corrupt nth=4'");
  ASSERT_EQ(again.injected.size(), 1u);
  EXPECT_EQ(again.injected[0]["offset"], line["offset"]);
  EXPECT_EQ(again.injected[0]["bit"], line["bit"]);
}

TEST_P(DamageWriteTest, ALostWriteKeepsWhatTheRangeHadAndZerosPastTheOldEnd) {
  const std::string family = GetParam();
  // One lost call inside the old 512 bytes, and the family's last call, past them: only
  // the lost write itself can make the file reach its full size. (The second rule does not
  // see the call the first took: its K-th write is the family's K-th.)
  const std::string last = ByChar(family) ? std::to_string(kSize) : std::to_string(kSize / kChunk);
  const ProbeRun run =
      Probe(family, "--fault 'write lost nth=2' --fault 'write lost nth=" + last + "'");
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  ASSERT_EQ(run.injected.size(), 2u) << run.result.err;
  std::vector<unsigned char> expected = Pattern();
  for (const nlohmann::json& line : run.injected) {
    EXPECT_EQ(line["action"], "lost");
    const int64_t offset = line["offset"].get<int64_t>();
    const int64_t lost = line["lost_bytes"].get<int64_t>();
    EXPECT_EQ(lost, ByChar(family) ? 1 : kChunk);
    for (int64_t i = offset; i < offset + lost && i < kSize; ++i) {
      expected[i] = i < kOld ? A(static_cast<int>(i)) : 0;
    }
  }
  EXPECT_EQ(run.injected[0]["offset"], 0);
  EXPECT_EQ(run.injected[1]["offset"], kSize - (ByChar(family) ? 1 : kChunk));
  EXPECT_EQ(run.bytes, expected);  // The file still grew to its full size.
}
INSTANTIATE_TEST_SUITE_P(Families, DamageWriteTest, ::testing::ValuesIn(kWriteFamilies));

// The calls a sweep plans no damage run at (FaultCallMovesBytes) are exactly those the
// shim lets through undamaged: under a corrupt rule on every write, each write call that
// moves bytes is damaged (its line names a bit), and no other is. The stdio families end
// with an fclose that flushes their last bytes.
TEST_F(InjectDamageTest, OnlyTheCallsThatMoveNoBytesGoThroughUndamaged) {
  std::set<std::string> calls;
  for (const char* family : kWriteFamilies) {
    const ProbeRun run = Probe(family, "--seed 3 --fault 'write corrupt times=forever'");
    ASSERT_EQ(run.result.exit_code, 0) << family << ": " << run.result.err;
    for (const nlohmann::json& line : run.trace) {
      if (line["op"] != "write") continue;
      const std::string call = line["call"];
      EXPECT_EQ(line.contains("bit"), FaultCallMovesBytes(call)) << family << ": " << line;
      calls.insert(call);
    }
  }
  EXPECT_EQ(calls.count("fclose"), 1u);  // A call that moves no bytes was made.
  EXPECT_EQ(calls.count("fwrite"), 1u);
}

TEST_F(InjectDamageTest, ADelayIsSeenInTheCallsTimesAndThenTheRuleActs) {
  // Only a wait: the second read ends at least 300 ms after the call before it.
  const ProbeRun slow = Probe("read", "--fault 'read ok delay=300 nth=2'");
  ASSERT_EQ(slow.result.exit_code, 0) << slow.result.err;
  EXPECT_EQ(slow.bytes, Pattern());
  EXPECT_TRUE(slow.injected.empty());
  int reads = 0;
  for (size_t i = 1; i < slow.trace.size(); ++i) {
    const nlohmann::json& line = slow.trace[i];
    if (line["op"] != "read") continue;
    ++reads;
    EXPECT_EQ(line.contains("delay_ms"), reads == 2) << line;
    if (reads != 2) continue;
    EXPECT_EQ(line["delay_ms"], 300);
    const uint64_t gap = line["t_ns"].get<uint64_t>() - slow.trace[i - 1]["t_ns"].get<uint64_t>();
    EXPECT_GE(gap, 300'000'000u);
  }
  EXPECT_GT(reads, 2);

  // A delay before a failure and before a corruption.
  const ProbeRun failed = Probe("write", "--fault 'write EIO delay=200 nth=3'");
  EXPECT_EQ(failed.result.exit_code, 2);
  ASSERT_EQ(failed.injected.size(), 1u);
  EXPECT_EQ(failed.injected[0]["errno"], "EIO");
  EXPECT_EQ(failed.injected[0]["delay_ms"], 200);
  const ProbeRun corrupt = Probe("pread", "--seed 3 --fault 'read corrupt delay=100 nth=1'");
  ASSERT_EQ(corrupt.injected.size(), 1u);
  EXPECT_EQ(corrupt.injected[0]["delay_ms"], 100);
  EXPECT_EQ(corrupt.bytes, Flipped(corrupt.injected[0]));
}

TEST_F(InjectDamageTest, TheJsonSummaryNamesTheFileOffsetAndBitOrTheBytesLost) {
  const ProbeRun run = Probe("pwrite",
                             "--json --seed 5 --fault 'write corrupt nth=2' "
                             "--fault 'write lost nth=3'");
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  ASSERT_EQ(run.injected.size(), 2u);
  const std::string& out = run.result.out;
  const nlohmann::json summary = nlohmann::json::parse(out.substr(out.find('\n') + 1));
  ASSERT_EQ(summary["faults"].size(), 2u) << summary.dump();
  const nlohmann::json& corrupt = summary["faults"][0];
  EXPECT_EQ(corrupt["action"], "corrupt");
  EXPECT_EQ(corrupt["path"], run.injected[0]["path"]);
  EXPECT_EQ(corrupt["offset"], run.injected[0]["offset"]);
  EXPECT_EQ(corrupt["bit"], run.injected[0]["bit"]);
  const nlohmann::json& lost = summary["faults"][1];
  EXPECT_EQ(lost["action"], "lost");
  // pwrite 1 (write 2) was the first rule's, which the second does not see: its third
  // write is pwrite 3.
  EXPECT_EQ(lost["offset"], 2 * kChunk);
  EXPECT_EQ(lost["lost_bytes"], kChunk);
}

TEST_F(InjectDamageTest, DamageOnTheWrongOpAnErrnoBesideItOrABadDelayIsBadInput) {
  for (const char* rule :
       {"open corrupt", "any corrupt", "read lost", "create lost", "write corrupt EIO",
        "write EIO lost", "read ok", "write ok times=2", "write EIO delay=0",
        "write EIO delay=3600001", "read corrupt delay=x", "write lost delay=-1"}) {
    const CommandResult r = RunShellWithStderr(Inject(
        std::string("--fault '") + rule + "'", "touch " + ShellQuote((scope_ / "never").string())));
    ExpectUsageError(r, "inject", rule);
    EXPECT_FALSE(std::filesystem::exists(scope_ / "never")) << rule;
  }
}

}  // namespace
}  // namespace spillway::inject
