// `spillway sweep -- CMD` when a run does not reach the call it was planned for: a program
// whose call order varies diverges, a diverged run is made again, baselines plan the sites
// only some runs reach, and call numbers survive a call whose process died inside it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cmd_sweep_test_support.h"
#include "support/inject_support.h"

namespace spillway::inject {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

TEST_F(CmdSweepTest, ProgramWhoseCallOrderIsRandomDiverges) {
  // By call number: a call site's first call comes whatever the order.
  const SweepOutcome sweep =
      Sweep("--depth all --op write --mode transient --jobs 2 --retries 0", SPILL_RANDOM);
  ASSERT_TRUE(sweep.result.is_object());
  EXPECT_EQ(sweep.exit_code, 0);  // diverged is reported, not a violation.
  EXPECT_GT(sweep.result["summary"]["by_verdict"]["diverged"], 0);
  EXPECT_GT(sweep.result["summary"]["by_verdict"]["clean_error"], 0);
}

// A process of the program killed inside an in-scope call (a child blocked opening a
// FIFO's writer end) leaves a call number with no trace line: the baseline's call n is then
// the shim's call n+1, and an untraced run by number, judged by the call number its fault
// record holds, must be compared with that, not with n.
TEST_F(CmdSweepTest, ACallWhoseProcessDiedInsideItShiftsNoLaterCallNumber) {
  const fs::path script = root_ / "gap.sh";
  std::ofstream(script) << R"sh(d=$1
mkfifo "$d/p"
sh -c 'echo x > "$1/p"' sh "$d" &
c=$!
i=0
until [ "$(cut -d' ' -f1 /proc/$c/syscall 2>/dev/null)" = 257 ]; do
  i=$((i+1)); [ $i -le 500 ] || exit 3; sleep 0.01
done
kill -9 $c; wait $c; rm -f "$d/p"
echo data > "$d/f" || exit 1
rm "$d/f"
)sh";
  // Blocked in openat (257) when killed, or the baseline exits 3 and the sweep stops.
  const SweepOutcome sweep = Sweep("--depth all --op write --mode transient --jobs 1 --retries 0",
                                   "sh " + ShellQuote(script));
  ASSERT_TRUE(sweep.result.is_object());
  EXPECT_EQ(sweep.result["summary"]["by_verdict"]["diverged"], 0) << sweep.result["runs"].dump();
  // Each write failed leaves f behind (the shell gives up at once): a leak, judged as such.
  EXPECT_EQ(sweep.result["summary"]["by_verdict"]["leak"], 2) << sweep.result["runs"].dump();
}

TEST_F(CmdSweepTest, ADivergedRunIsMadeAgainUntilItReachesItsSite) {
  // Writes its file from /bin/echo on odd invocations (the baseline's, counted in a file
  // outside the scope) and from the shell's own echo on even ones: another call site.
  auto alternating = [this](const std::string& counter) {
    return "sh -c 'n=$(cat " + ShellQuote(root_ / counter) +
           " 2>/dev/null || echo 0); n=$((n+1)); " + "echo $n >" + ShellQuote(root_ / counter) +
           "; if [ $((n % 2)) -eq 1 ]; then /bin/echo data >\"$1\"/f; " +
           "else echo data >\"$1\"/f; fi; rm -f \"$1\"/f' sh";
  };
  // /bin/echo writes from two sites (fputs, fflush): two runs, made one after the other, so
  // every run's first attempt is an even invocation and its second an odd one.
  const std::string args = "--op write --mode transient --errno EIO --jobs 1";
  const SweepOutcome once = Sweep(args + " --retries 0", alternating("once"));
  ASSERT_TRUE(once.result.is_object());
  ASSERT_EQ(once.result["runs"].size(), 2u);
  EXPECT_TRUE(HasVerdict(once.result["runs"][0], "diverged")) << once.result["runs"][0].dump();
  EXPECT_EQ(once.result["runs"][0]["attempts"], 1);
  const SweepOutcome again = Sweep(args + " --retries 1", alternating("again"));
  ASSERT_TRUE(again.result.is_object());
  ASSERT_EQ(again.result["runs"].size(), 2u);
  for (const json& run : again.result["runs"]) {
    EXPECT_FALSE(HasVerdict(run, "diverged")) << run.dump();
    EXPECT_EQ(run["attempts"], 2) << run.dump();
  }
  EXPECT_EQ(again.result["summary"]["by_verdict"]["diverged"], 0);
}

// The sites of `result` that not every baseline run reached, with how many did.
std::map<std::string, int> SitesSomeRunsReached(const json& result) {
  std::map<std::string, int> sites;
  for (const json& site : result["sites"]) {
    if (site["baselines"] != result["baseline"]["runs"]) sites[site["id"]] = site["baselines"];
  }
  return sites;
}

TEST_F(CmdSweepTest, BaselinesPlanTheSitesOnlySomeRunsReachAndTryThemUntilReached) {
  // Every invocation writes its file from /bin/echo; those numbered 2 mod 3 (counted in a
  // file outside the scope) also write from the shell's own echo: a site the first
  // invocation never reaches, and that the second of three does.
  auto every_third = [this](const std::string& counter) {
    const std::string count = ShellQuote(root_ / counter);
    return "sh -c 'n=$(cat " + count + " 2>/dev/null || echo 0); n=$((n+1)); echo $n >" + count +
           "; /bin/echo data >\"$1\"/f; if [ $((n % 3)) -eq 2 ]; then echo more >\"$1\"/g; fi; " +
           "rm -f \"$1\"/f \"$1\"/g' sh";
  };
  const std::string args = "--op write --mode transient --errno EIO --jobs 1 --retries 0";
  const SweepOutcome one = Sweep(args, every_third("one"));
  ASSERT_TRUE(one.result.is_object());
  EXPECT_EQ(one.result["baseline"]["runs"], 1);
  EXPECT_TRUE(SitesSomeRunsReached(one.result).empty()) << one.result["sites"].dump();

  const std::string file = (root_ / "baseline.jsonl").string();
  const SweepOutcome three =
      Sweep(args + " --baselines 3 --baseline " + ShellQuote(file), every_third("three"));
  ASSERT_TRUE(three.result.is_object());
  EXPECT_EQ(three.result["baseline"]["runs"], 3);
  // The shell's create, write and close of g.
  const std::map<std::string, int> some = SitesSomeRunsReached(three.result);
  EXPECT_EQ(some.size(), 3u) << three.result["sites"].dump();
  EXPECT_EQ(three.result["sites"].size(), one.result["sites"].size() + some.size());
  for (const json& site : three.result["sites"]) {
    if (some.count(site["id"]) == 0) continue;
    EXPECT_EQ(site["baselines"], 1) << site.dump();
    EXPECT_EQ(site["path"], "{dir}/g") << site.dump();
  }
  // The run of its write came at invocations 6, 7 and 8 (runs are made one after another,
  // after the baseline's three and the two of /bin/echo's sites): reached at the third
  // try, which --retries 0 would not have allowed for a site every baseline run reached.
  for (const json& run : three.result["runs"]) {
    EXPECT_FALSE(HasVerdict(run, "diverged")) << run.dump();
    EXPECT_EQ(run["attempts"], some.count(run["site"]) != 0 ? 3 : 1) << run.dump();
  }
  // A shard planning from the recorded file sees the same sites, reached as often.
  const SweepOutcome again =
      Sweep(args + " --baseline " + ShellQuote(file) + " --max-runs 1", every_third("three"));
  ASSERT_TRUE(again.result.is_object());
  EXPECT_EQ(again.result["baseline"]["runs"], 3);
  EXPECT_EQ(SitesSomeRunsReached(again.result), some);
}

TEST_F(CmdSweepTest, ASiteNoTryReachesGetsItsFullTriesOnlyOnce) {
  // Only the second invocation writes from the shell's own echo: a site one of three
  // baseline runs reached, and no run after them.
  const std::string count = ShellQuote(root_ / "count");
  const std::string once = "sh -c 'n=$(cat " + count + " 2>/dev/null || echo 0); n=$((n+1)); " +
                           "echo $n >" + count + "; /bin/echo data >\"$1\"/f; " +
                           "if [ $n -eq 2 ]; then echo more >\"$1\"/g; fi; " +
                           "rm -f \"$1\"/f \"$1\"/g' sh";
  const SweepOutcome sweep =
      Sweep("--op write --errno EIO --jobs 1 --retries 0 --baselines 3 --mode both", once);
  ASSERT_TRUE(sweep.result.is_object());
  const std::map<std::string, int> some = SitesSomeRunsReached(sweep.result);
  std::vector<int> attempts;  // Of the runs of the site some baseline runs reached.
  for (const json& run : sweep.result["runs"]) {
    if (some.count(run["site"]) == 0) continue;
    EXPECT_TRUE(HasVerdict(run, "diverged")) << run.dump();
    attempts.push_back(run["attempts"]);
  }
  // Its transient run made the 18 tries a site reached by 1 of 3 runs gets
  // (ln 0.001 / ln(2/3) = 17.04); its persistent run, after that, one.
  EXPECT_EQ(attempts, (std::vector<int>{18, 1}));
}

}  // namespace
}  // namespace spillway::inject
