// Corrupt and lost runs of `spillway sweep -- CMD` on checksum_probe.c, built two ways: a
// program that trusts what it reads back prints damaged data (silent_wrong_output), one that
// verifies a checksum it stored notices (clean_error). Each run's JSON names the damage the
// shim did, which --seed fixes, and its reproducer does the same damage again.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/inject_support.h"

namespace spillway::inject {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr uint64_t kBlock = 1024;  // checksum_probe.c's BLOCK.
constexpr int kBlocks = 4;         // Its BLOCKS: the calls of the data sites.

class DamageSweepTest : public InjectTest {
 protected:
  // `spillway sweep --json --mode corrupt,lost ARGS -- PROGRAM {dir}` (SweepJson).
  json Sweep(const std::string& args, const std::string& program, int expected_exit) const {
    return SweepJson("--mode corrupt,lost " + args, program, expected_exit);
  }
};

// The run of `mode` at the site whose calls are `op` and that made `calls` of them (the
// probe's data sites make kBlocks, its checksum sites 1).
json RunAt(const json& result, const std::string& mode, const std::string& op, uint64_t calls) {
  std::map<std::string, uint64_t> calls_of;
  for (const json& site : result["sites"]) calls_of[site["id"]] = site["calls"];
  for (const json& run : result["runs"]) {
    if (run["mode"] == mode && run["op"] == op && calls_of[run["site"]] == calls) return run;
  }
  ADD_FAILURE() << "no " << mode << " run at a " << op << " site of " << calls << " calls";
  return json::object();
}

std::vector<std::string> Verdicts(const json& run) {
  return run["verdicts"].get<std::vector<std::string>>();
}

const std::vector<std::string> kSilent = {"silent_wrong_output"};
const std::vector<std::string> kTolerated = {"tolerated"};
const std::vector<std::string> kNoticed = {"clean_error"};

// One corrupt run per read site and per write site, one lost run per write site: at the
// data sites the trusting probe prints another checksum; a damaged stored checksum it
// never looks at does not matter to it.
TEST_F(DamageSweepTest, AProgramThatDoesNotCheckPrintsDamagedDataSilently) {
  const fs::path junit = root_ / "junit.xml";
  const json result = Sweep("--seed 7 --junit " + ShellQuote(junit.string()), CHECKSUM_TRUST, 1);
  ASSERT_TRUE(result.is_object());
  ASSERT_EQ(result["runs"].size(), 6u);
  const json read_data = RunAt(result, "corrupt", "read", kBlocks);
  EXPECT_EQ(Verdicts(read_data), kSilent);
  EXPECT_TRUE(read_data["errno"].is_null());
  EXPECT_EQ(read_data["damage"]["op"], "read");
  EXPECT_EQ(read_data["damage"]["path"], "{dir}/spill");
  EXPECT_LT(read_data["damage"]["offset"].get<int64_t>(), static_cast<int64_t>(kBlock));
  EXPECT_LT(read_data["damage"]["bit"].get<int>(), 8);
  const json write_data = RunAt(result, "corrupt", "write", kBlocks);
  EXPECT_EQ(Verdicts(write_data), kSilent);
  EXPECT_EQ(write_data["damage"]["op"], "write");
  EXPECT_LT(write_data["damage"]["offset"].get<int64_t>(), static_cast<int64_t>(kBlock));
  const json lost_data = RunAt(result, "lost", "write", kBlocks);
  EXPECT_EQ(Verdicts(lost_data), kSilent);
  EXPECT_EQ(
      lost_data["damage"],
      json({{"op", "write"}, {"path", "{dir}/spill"}, {"offset", 0}, {"lost_bytes", kBlock}}));
  // The stored checksum, after the blocks: damaged, and never read by this program.
  EXPECT_EQ(Verdicts(RunAt(result, "corrupt", "read", 1)), kTolerated);
  EXPECT_EQ(Verdicts(RunAt(result, "corrupt", "write", 1)), kTolerated);
  const json lost_sum = RunAt(result, "lost", "write", 1);
  EXPECT_EQ(Verdicts(lost_sum), kTolerated);
  EXPECT_EQ(lost_sum["damage"]["offset"], kBlocks * kBlock);
  EXPECT_EQ(lost_sum["damage"]["lost_bytes"], 8);
  EXPECT_EQ(result["summary"]["damage_runs"], 6);
  EXPECT_EQ(result["summary"]["damage_by_verdict"]["silent_wrong_output"], 3);
  // The reproducer names the seed and the rule.
  const std::string line = read_data["reproducer"];
  EXPECT_NE(line.find(" --seed 7 "), std::string::npos) << line;
  EXPECT_NE(
      line.find("--fault 'read corrupt site=" + read_data["site"].get<std::string>() + " nth=1'"),
      std::string::npos)
      << line;
  std::ifstream xml(junit);
  const std::string text((std::istreambuf_iterator<char>(xml)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("classname=\"spillway.sweep.damage\""), std::string::npos);
  EXPECT_NE(text.find("damage: bit "), std::string::npos);
}

// The probe that verifies its stored checksum notices every damage that matters to it and
// every damage of the checksum itself.
TEST_F(DamageSweepTest, AProgramThatVerifiesAChecksumNoticesEveryDamage) {
  const json result = Sweep("", CHECKSUM_VERIFY, 0);
  ASSERT_TRUE(result.is_object());
  ASSERT_EQ(result["runs"].size(), 6u);
  for (const json& run : result["runs"]) {
    EXPECT_EQ(Verdicts(run), kNoticed) << run.dump();
    EXPECT_EQ(run["exit"], 1);
    EXPECT_TRUE(run["damage"].is_object()) << run.dump();
  }
  EXPECT_EQ(result["summary"]["damage_by_verdict"]["clean_error"], 6);
}

// The same seed damages the same byte and bit; another seed, another (the probe's data
// read site: 8192 bits to choose from).
TEST_F(DamageSweepTest, TheSeedChoosesTheDamage) {
  const json first = Sweep("--seed 11", CHECKSUM_TRUST, 1);
  const json again = Sweep("--seed 11", CHECKSUM_TRUST, 1);
  const json other = Sweep("--seed 12", CHECKSUM_TRUST, 1);
  ASSERT_TRUE(first.is_object() && again.is_object() && other.is_object());
  for (const char* op : {"read", "write"}) {
    const json damage = RunAt(first, "corrupt", op, kBlocks)["damage"];
    EXPECT_EQ(damage, RunAt(again, "corrupt", op, kBlocks)["damage"]) << op;
    EXPECT_NE(damage, RunAt(other, "corrupt", op, kBlocks)["damage"]) << op;
  }
}

// The reproducer makes the run again: the same damage (by `spillway inject --json`'s
// record of it) and the same wrong output.
TEST_F(DamageSweepTest, TheReproducerDoesTheSameDamage) {
  const json result = Sweep("--seed 5", CHECKSUM_TRUST, 1);
  ASSERT_TRUE(result.is_object());
  const json run = RunAt(result, "corrupt", "read", kBlocks);
  std::string line = run["reproducer"];
  const size_t inject = line.find(" inject ");
  ASSERT_NE(inject, std::string::npos) << line;
  line.insert(inject + 8, "--json ");
  const CommandResult replay = RunShell("(" + line + ") 2>/dev/null");
  EXPECT_EQ(replay.exit_code, 0) << line;
  std::istringstream out(replay.out);
  std::string printed;
  std::string summary;
  std::getline(out, printed);
  std::getline(out, summary);
  const std::string baseline = "checksum ";
  ASSERT_EQ(printed.rfind(baseline, 0), 0u) << replay.out;
  const json done = json::parse(summary, nullptr, false);
  ASSERT_TRUE(done.is_object()) << replay.out;
  ASSERT_EQ(done["faults"].size(), 1u);
  const json& fault = done["faults"][0];
  EXPECT_EQ(fault["action"], "corrupt");
  EXPECT_EQ(fault["offset"], run["damage"]["offset"]);
  EXPECT_EQ(fault["bit"], run["damage"]["bit"]);
  // Its output is not the baseline's, as the run's was not.
  const CommandResult clean = RunShell(std::string(CHECKSUM_TRUST) + " " + ShellQuote(twin_));
  EXPECT_NE(printed + "\n", clean.out);
}

// A program with no read or write call in scope gets no corrupt or lost run: nothing to
// sweep, no error.
TEST_F(DamageSweepTest, NoReadOrWriteSiteIsNoRun) {
  const json result = Sweep("", "/bin/sh -c 'mkdir \"$0/d\" && rmdir \"$0/d\"'", 0);
  ASSERT_TRUE(result.is_object());
  EXPECT_GT(result["baseline"]["calls"].get<uint64_t>(), 0u);
  EXPECT_TRUE(result["runs"].empty());
  EXPECT_EQ(result["summary"]["planned_runs"], 0);
}

// An unknown mode beside the damage modes is bad input; the reference sweep has no damage
// modes.
TEST_F(DamageSweepTest, AnUnknownModeIsBadInput) {
  const std::string scope = ShellQuote(scope_);
  const std::string bin = SPILLWAY_BINARY;
  ExpectUsageError(
      RunShellWithStderr(bin + " sweep --under " + scope + " --mode corrupt,rotten -- true"),
      "sweep", "--mode corrupt,rotten");
  ExpectUsageError(RunShellWithStderr(bin + " sweep-workload --mode corrupt,rotten"),
                   "sweep-workload", "sweep-workload --mode corrupt,rotten");
}

}  // namespace
}  // namespace spillway::inject
