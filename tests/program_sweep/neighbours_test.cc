// `spillway sweep --neighbours N -- CMD`: rounds of N+1 instances in one scope, each judged
// as a run, on programs whose behaviour towards a neighbour is known (neighbour_probe.c,
// spill_program.c); and the seeded offsets and option checks of the library.
#include "neighbours.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "support/inject_support.h"

namespace spillway::inject {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// An empty plan (none of these programs renames): the sweep is its neighbour rounds only.
constexpr char kNoPlan[] = "--op rename";

class NeighboursTest : public InjectTest {
 protected:
  // `spillway sweep --under SCOPE ARGS -- PROGRAM {dir}`: exit status and stdout.
  CommandResult Sweep(const std::string& args, const std::string& program) const {
    return RunShell(std::string(SPILLWAY_BINARY) + " sweep --under " + ShellQuote(scope_) + " " +
                    args + " -- " + program + " {dir}");
  }
  // The same with --json, parsed (null when stdout is no JSON).
  std::pair<int, json> SweepJson(const std::string& args, const std::string& program) const {
    const CommandResult run = Sweep("--json " + args, program);
    json result = json::parse(run.out, nullptr, false);
    if (result.is_discarded()) result = nullptr;
    return {run.exit_code, result};
  }
};

bool HasVerdict(const json& run, const std::string& verdict) {
  for (const json& v : run["verdicts"]) {
    if (v == verdict) return true;
  }
  return false;
}

int CountVerdict(const json& runs, const std::string& verdict) {
  int count = 0;
  for (const json& run : runs) count += HasVerdict(run, verdict) ? 1 : 0;
  return count;
}

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_F(NeighboursTest, ProgramThatWipesTheSharedDirectoryIsAViolationWithANeighbour) {
  const auto [exit_code, result] = SweepJson(std::string(kNoPlan) + " --neighbours 1", PROBE_WIPE);
  ASSERT_TRUE(result.is_object());
  EXPECT_EQ(exit_code, 1);
  const json& neighbours = result["neighbours"];
  EXPECT_EQ(neighbours["instances"], 2);
  EXPECT_EQ(neighbours["rounds"], 3);
  ASSERT_EQ(neighbours["runs"].size(), 6U);
  // The later instance of a round removes the earlier one's spill file while it waits: the
  // earlier one prints a wrong checksum, the later one is fine.
  const int wrong = CountVerdict(neighbours["runs"], "silent_wrong_output");
  EXPECT_GE(wrong, 1);
  EXPECT_EQ(neighbours["violations"], wrong);
  EXPECT_EQ(result["summary"]["neighbour_violations"], wrong);
  EXPECT_EQ(result["summary"]["runs"], 0);
  for (const json& run : neighbours["runs"]) {
    EXPECT_TRUE(HasVerdict(run, "silent_wrong_output") || HasVerdict(run, "tolerated"))
        << run.dump();
    EXPECT_EQ(run["exit"], 0) << run.dump();
  }
  EXPECT_TRUE(fs::is_empty(scope_));
}

TEST_F(NeighboursTest, ProgramThatWipesTheSharedDirectoryPassesAlone) {
  const auto [exit_code, result] = SweepJson(std::string(kNoPlan) + " --neighbours 0", PROBE_WIPE);
  ASSERT_TRUE(result.is_object());
  EXPECT_EQ(exit_code, 0);
  EXPECT_EQ(result["neighbours"]["instances"], 0);
  EXPECT_TRUE(result["neighbours"]["runs"].empty());
  EXPECT_EQ(result["summary"]["neighbour_violations"], 0);
}

TEST_F(NeighboursTest, ProgramThatRefusesASharedDirectoryIsACleanError) {
  const auto [exit_code, result] = SweepJson(std::string(kNoPlan) + " --neighbours 1", PROBE_LOCK);
  ASSERT_TRUE(result.is_object());
  EXPECT_EQ(exit_code, 0);
  const json& runs = result["neighbours"]["runs"];
  ASSERT_EQ(runs.size(), 6U);
  // Each round: one instance holds the directory, the other says so and exits 1.
  EXPECT_EQ(CountVerdict(runs, "clean_error"), 3);
  EXPECT_EQ(CountVerdict(runs, "tolerated"), 3);
  EXPECT_EQ(result["neighbours"]["violations"], 0);
}

TEST_F(NeighboursTest, ProgramWithUniqueTempNamesOnlyTolerates) {
  const auto [exit_code, result] =
      SweepJson(std::string(kNoPlan) + " --neighbours 2 --neighbour-rounds 2 --seed 7", SPILL_GOOD);
  ASSERT_TRUE(result.is_object());
  EXPECT_EQ(exit_code, 0);
  const json& neighbours = result["neighbours"];
  EXPECT_EQ(neighbours["instances"], 3);
  EXPECT_EQ(neighbours["rounds"], 2);
  EXPECT_EQ(neighbours["seed"], 7);
  std::set<std::pair<int, int>> seen;
  for (const json& run : neighbours["runs"]) {
    EXPECT_EQ(run["verdicts"], json::array({"tolerated"})) << run.dump();
    seen.insert({run["round"].get<int>(), run["instance"].get<int>()});
    EXPECT_GE(run["offset"].get<double>(), 0);
    EXPECT_LT(run["offset"].get<double>(), result["baseline"]["seconds"].get<double>() / 2);
  }
  EXPECT_EQ(seen, (std::set<std::pair<int, int>>{{1, 1}, {1, 2}, {1, 3}, {2, 1}, {2, 2}, {2, 3}}));
}

TEST_F(NeighboursTest, RoundLeftoversAreJudgedAsARunsLeftovers) {
  // Each instance leaves a file: the baseline's leftover excuses one per instance, unless
  // --scratch makes every leftover a leak.
  const std::string program = "/bin/sh -c 'touch \"$0\"/left-$$'";
  const auto [plain_exit, plain] = SweepJson("--neighbours 1 --neighbour-rounds 1", program);
  ASSERT_TRUE(plain.is_object());
  EXPECT_EQ(plain_exit, 0);
  for (const json& run : plain["neighbours"]["runs"]) {
    EXPECT_EQ(run["verdicts"], json::array({"tolerated"})) << run.dump();
    EXPECT_EQ(run["leftovers"].size(), 2U) << run.dump();
  }
  const auto [scratch_exit, scratch] =
      SweepJson("--scratch --neighbours 1 --neighbour-rounds 1", program);
  ASSERT_TRUE(scratch.is_object());
  EXPECT_EQ(scratch_exit, 1);
  EXPECT_EQ(CountVerdict(scratch["neighbours"]["runs"], "leak"), 2);
  EXPECT_TRUE(fs::is_empty(scope_));
}

TEST_F(NeighboursTest, TextAndJunitReportTheNeighbourViolations) {
  const fs::path junit = root_ / "junit.xml";
  const CommandResult text = Sweep(
      std::string(kNoPlan) + " --neighbours 1 --junit " + ShellQuote(junit.string()), PROBE_WIPE);
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.out.find("neighbours: 3 rounds of 2 instances in one scope"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("violation: neighbours round "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("; neighbours: "), std::string::npos) << text.out;
  const std::string xml = ReadText(junit);
  EXPECT_NE(xml.find("tests=\"6\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("classname=\"spillway.sweep.neighbours\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure message=\"silent_wrong_output\""), std::string::npos) << xml;
}

TEST_F(NeighboursTest, MergeKeepsTheFirstShardsRounds) {
  const fs::path one = root_ / "1.json";
  const fs::path two = root_ / "2.json";
  // Shards of one plan share a baseline: the first records it, the second plans from it.
  const std::string baseline = ShellQuote((root_ / "baseline.json").string());
  for (const auto& [shard, file] : {std::pair{"1/2", one}, std::pair{"2/2", two}}) {
    const CommandResult run =
        Sweep(std::string(kNoPlan) + " --neighbours 1 --json --baseline " + baseline + " --shard " +
                  shard + " > " + ShellQuote(file.string()),
              PROBE_WIPE);
    EXPECT_EQ(run.exit_code, shard == std::string("1/2") ? 1 : 0) << shard;
  }
  const json second = json::parse(ReadText(two), nullptr, false);
  ASSERT_TRUE(second.is_object());
  EXPECT_EQ(second["neighbours"]["instances"], 0);
  const CommandResult merged = RunShell(std::string(SPILLWAY_BINARY) + " sweep merge --json " +
                                        ShellQuote(two.string()) + " " + ShellQuote(one.string()));
  EXPECT_EQ(merged.exit_code, 1);
  const json result = json::parse(merged.out, nullptr, false);
  ASSERT_TRUE(result.is_object());
  EXPECT_EQ(result["neighbours"]["runs"].size(), 6U);
  EXPECT_GE(result["summary"]["neighbour_violations"], 1);
  EXPECT_EQ(result["neighbours"], json::parse(ReadText(one))["neighbours"]);
}

}  // namespace
}  // namespace spillway::inject

namespace spillway::program_sweep {
namespace {

TEST(NeighbourOffsetsTest, SameSeedSameOffsetsWithinTheFirstHalf) {
  const auto offsets = NeighbourOffsets(42, 3, 4, 2.0);
  EXPECT_EQ(offsets, NeighbourOffsets(42, 3, 4, 2.0));
  EXPECT_NE(offsets, NeighbourOffsets(43, 3, 4, 2.0));
  ASSERT_EQ(offsets.size(), 3U);
  std::set<double> distinct;
  for (const std::vector<double>& round : offsets) {
    ASSERT_EQ(round.size(), 4U);
    for (double offset : round) {
      EXPECT_GE(offset, 0);
      EXPECT_LT(offset, 1.0);
      distinct.insert(offset);
    }
  }
  EXPECT_EQ(distinct.size(), 12U);
  // A round's offsets do not depend on how many rounds follow it.
  EXPECT_EQ(NeighbourOffsets(42, 1, 4, 2.0).front(), offsets.front());
}

TEST(NeighbourOffsetsTest, OptionsOutsideTheirRangeAreRefused) {
  CmdSweepOptions options;
  EXPECT_TRUE(CheckNeighbourOptions(options).ok());
  options.neighbours = kMaxNeighbours;
  EXPECT_TRUE(CheckNeighbourOptions(options).ok());
  options.neighbours = kMaxNeighbours + 1;
  EXPECT_EQ(CheckNeighbourOptions(options).message(), "--neighbours 17: not in 0..16");
  options.neighbours = -1;
  EXPECT_FALSE(CheckNeighbourOptions(options).ok());
  options.neighbours = 1;
  options.neighbour_rounds = 0;
  EXPECT_EQ(CheckNeighbourOptions(options).message(), "--neighbour-rounds 0: must be at least 1");
}

}  // namespace
}  // namespace spillway::program_sweep
