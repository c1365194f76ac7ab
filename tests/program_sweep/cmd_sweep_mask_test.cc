// `spillway sweep --mask REGEX -- CMD` on a program whose stdout varies on its own
// (varying_output.c: its pid and elapsed time): compared as printed, every run is
// silent_wrong_output; with the varying parts masked, every run is tolerated. MaskText and
// CompileMasks are called directly for what a mask does to a text.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "mask.h"
#include "support/inject_support.h"

namespace spillway::inject {
namespace {

using nlohmann::json;
using program_sweep::CompileMasks;
using program_sweep::MaskText;

TEST(MaskTest, EveryMatchOfEachMaskBecomesOnePlaceholderInOrder) {
  const StatusOr<std::vector<std::regex>> masks = CompileMasks({"pid [0-9]+", "[0-9]+ ns"});
  ASSERT_TRUE(masks.ok()) << masks.status().ToString();
  EXPECT_EQ(MaskText(*masks, "pid 12 answer 42\nelapsed 731 ns pid 9\n"),
            "{masked} answer 42\nelapsed {masked} {masked}\n");
  EXPECT_EQ(MaskText({}, "pid 12"), "pid 12");
  // Applied in order: a later mask sees what an earlier one left.
  const StatusOr<std::vector<std::regex>> ordered = CompileMasks({"[0-9]", "\\{masked\\}+"});
  ASSERT_TRUE(ordered.ok()) << ordered.status().ToString();
  EXPECT_EQ(MaskText(*ordered, "a12b"), "a{masked}{masked}b");
}

TEST(MaskTest, ABadPatternOrOneThatMatchesTheEmptyStringIsRefused) {
  const StatusOr<std::vector<std::regex>> bad = CompileMasks({"pid", "("});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), ::testing::StartsWith("--mask (: not a regular expression"));
  const StatusOr<std::vector<std::regex>> empty = CompileMasks({"[0-9]*"});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "--mask [0-9]*: matches the empty string");
  EXPECT_TRUE(CompileMasks({"[0-9]+", "\\bpid\\b"}).ok());
}

class CmdSweepMaskTest : public InjectTest {
 protected:
  // The runs of `spillway sweep --under SCOPE --json --op write --mode both ARGS --
  // VARYING_OUTPUT {dir}` (the errno modes: a kill run's restart is judged on its own).
  json Runs(const std::string& args) const {
    const CommandResult run =
        RunShell(std::string(SPILLWAY_BINARY) + " sweep --under " + ShellQuote(scope_.string()) +
                 " --json --op write --mode both " + args + " -- " + VARYING_OUTPUT + " {dir}");
    const json result = json::parse(run.out, nullptr, false);
    EXPECT_TRUE(result.is_object()) << run.out;
    return result.is_object() ? result["runs"] : json::array();
  }
};

std::vector<std::string> VerdictsOf(const json& runs) {
  std::vector<std::string> verdicts;
  for (const json& run : runs) {
    for (const json& verdict : run["verdicts"]) verdicts.push_back(verdict);
  }
  return verdicts;
}

TEST_F(CmdSweepMaskTest, MaskedPidAndElapsedTimeMakeTheRunsTolerated) {
  const json plain = Runs("");
  ASSERT_FALSE(plain.empty());
  EXPECT_THAT(VerdictsOf(plain), ::testing::Each("silent_wrong_output"));
  // One mask for the pid, one for the time; each alone leaves the other varying.
  EXPECT_THAT(VerdictsOf(Runs("--mask '^pid [0-9]+'")), ::testing::Each("silent_wrong_output"));
  const json masked = Runs("--mask '^pid [0-9]+' --mask '[0-9]+ ns'");
  ASSERT_EQ(masked.size(), plain.size());
  EXPECT_THAT(VerdictsOf(masked), ::testing::Each("tolerated"));
}

}  // namespace
}  // namespace spillway::inject
