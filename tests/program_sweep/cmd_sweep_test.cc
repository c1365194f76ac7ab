// `spillway sweep -- CMD` on small C programs (spill_program.c) with known behaviour on
// errors: each verdict is found where the program earns it, and each violation's
// reproducer replays it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "support/inject_support.h"

namespace spillway::inject {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// NOLINTNEXTLINE(bugprone-exception-escape): json's noexcept move and destructor look throwing.
struct SweepOutcome {
  int exit_code = -1;
  json result;  // The --json object (null when there is none).
};

class CmdSweepTest : public InjectTest {
 protected:
  // `spillway sweep --under SCOPE --json ARGS -- PROGRAM {dir}`.
  SweepOutcome Sweep(const std::string& args, const std::string& program,
                     const std::string& dir_arg = "{dir}") const {
    const CommandResult run =
        RunShell(std::string(SPILLWAY_BINARY) + " sweep --under " + ShellQuote(scope_) +
                 " --json " + args + " -- " + program + " " + ShellQuote(dir_arg));
    SweepOutcome outcome;
    outcome.exit_code = run.exit_code;
    outcome.result = json::parse(run.out, nullptr, false);
    if (outcome.result.is_discarded()) outcome.result = nullptr;
    return outcome;
  }

  // The program's stdout without faults, in a directory of its own.
  std::string PlainOutput(const std::string& program) const {
    const fs::path dir = root_ / "plain";
    fs::create_directories(dir);
    return RunShell(program + " " + ShellQuote(dir)).out;
  }
};

bool HasVerdict(const json& run, const std::string& verdict) {
  for (const json& v : run["verdicts"]) {
    if (v == verdict) return true;
  }
  return false;
}

// The runs of `result` with `verdict`.
std::vector<json> RunsWith(const json& result, const std::string& verdict) {
  std::vector<json> runs;
  for (const json& run : result["runs"]) {
    if (HasVerdict(run, verdict)) runs.push_back(run);
  }
  return runs;
}

// Replays a reproducer: its exit status, stdout, and the leftovers its summary lists.
struct Replay {
  int exit_code;
  std::string out;
  int leftovers;
};

Replay RunReproducer(const json& run, const fs::path& err_file) {
  const CommandResult result =
      RunShell("(" + run["reproducer"].get<std::string>() + ") 2>" + ShellQuote(err_file));
  std::ifstream err(err_file);
  int leftovers = -1;
  for (std::string line; std::getline(err, line);) {
    if (line.find(" leftover(s)") != std::string::npos) {
      leftovers = std::stoi(line.substr(line.find(": ") + 2));
    }
  }
  return {result.exit_code, result.out, leftovers};
}

TEST_F(CmdSweepTest, ProgramThatSpillsCorrectlyHasNoViolation) {
  const SweepOutcome sweep = Sweep("--jobs 2 --mode both", SPILL_GOOD);
  ASSERT_TRUE(sweep.result.is_object());
  EXPECT_EQ(sweep.exit_code, 0);
  const json& summary = sweep.result["summary"];
  EXPECT_EQ(summary["violations"], 0);
  EXPECT_GT(summary["by_verdict"]["clean_error"], 0);
  EXPECT_EQ(summary["runs"], sweep.result["runs"].size());
  // A failed removal leaves the file (and the directory holding it) by the fault's doing.
  bool left_by_fault = false;
  for (const json& run : sweep.result["runs"]) {
    EXPECT_TRUE(HasVerdict(run, "clean_error") || HasVerdict(run, "tolerated")) << run.dump();
    for (const json& left : run["leftovers"]) left_by_fault |= left["kind"] == "left_by_fault";
  }
  EXPECT_TRUE(left_by_fault);
  EXPECT_TRUE(fs::is_empty(scope_));
}

TEST_F(CmdSweepTest, ProgramThatLeaksOnAFailedWriteIsALeakAndItsReproducerReplaysIt) {
  const SweepOutcome sweep = Sweep("--jobs 2 --mode both", SPILL_LEAK);
  ASSERT_TRUE(sweep.result.is_object());
  EXPECT_EQ(sweep.exit_code, 1);
  for (const json& run : sweep.result["runs"]) {
    EXPECT_EQ(HasVerdict(run, "leak"), run["op"] == "write") << run.dump();
  }
  const std::vector<json> leaks = RunsWith(sweep.result, "leak");
  ASSERT_FALSE(leaks.empty());
  EXPECT_EQ(sweep.result["summary"]["violations"], leaks.size());
  EXPECT_FALSE(leaks.front()["leftovers"].empty());
  const Replay replay = RunReproducer(leaks.front(), root_ / "replay.err");
  EXPECT_EQ(replay.exit_code, 1);
  EXPECT_GT(replay.leftovers, 0);
}

TEST_F(CmdSweepTest, ProgramThatIgnoresAFailedWriteIsSilentWrongOutputAndReplays) {
  const SweepOutcome sweep = Sweep("--jobs 2 --mode both", SPILL_IGNORE);
  ASSERT_TRUE(sweep.result.is_object());
  EXPECT_EQ(sweep.exit_code, 1);
  for (const json& run : sweep.result["runs"]) {
    EXPECT_EQ(HasVerdict(run, "silent_wrong_output"), run["op"] == "write") << run.dump();
    EXPECT_FALSE(HasVerdict(run, "leak")) << run.dump();
  }
  const std::vector<json> wrong = RunsWith(sweep.result, "silent_wrong_output");
  ASSERT_FALSE(wrong.empty());
  const std::string plain = PlainOutput(SPILL_IGNORE);
  ASSERT_FALSE(plain.empty());
  const Replay replay = RunReproducer(wrong.back(), root_ / "replay.err");
  EXPECT_EQ(replay.exit_code, 0);
  EXPECT_FALSE(replay.out.empty());
  EXPECT_NE(replay.out, plain);
}

TEST_F(CmdSweepTest, ProgramThatAbortsOnAnErrorCrashes) {
  const SweepOutcome sweep = Sweep("--op write --mode transient --errno EIO", SPILL_ABORT);
  ASSERT_TRUE(sweep.result.is_object());
  EXPECT_EQ(sweep.exit_code, 1);
  ASSERT_FALSE(sweep.result["runs"].empty());
  for (const json& run : sweep.result["runs"]) {
    EXPECT_TRUE(HasVerdict(run, "crash")) << run.dump();
    EXPECT_EQ(run["signal"], SIGABRT);
    EXPECT_TRUE(run["exit"].is_null());
  }
  const Replay replay = RunReproducer(sweep.result["runs"][0], root_ / "replay.err");
  EXPECT_EQ(replay.exit_code, 128 + SIGABRT);
}

TEST_F(CmdSweepTest, ProgramThatRetriesForeverHangs) {
  const SweepOutcome sweep =
      Sweep("--op write --errno EIO --timeout 1 --max-runs 2 --jobs 2", SPILL_RETRY);
  ASSERT_TRUE(sweep.result.is_object());
  EXPECT_EQ(sweep.exit_code, 1);
  std::set<std::string> verdicts_by_mode;
  for (const json& run : sweep.result["runs"]) {
    // A failed write retried once succeeds; one failing forever never does.
    const std::string expected = run["mode"] == "persistent" ? "hang" : "tolerated";
    EXPECT_TRUE(HasVerdict(run, expected)) << run.dump();
    verdicts_by_mode.insert(expected);
  }
  EXPECT_EQ(verdicts_by_mode.count("hang"), 1u);
}

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

TEST_F(CmdSweepTest, WithoutDirEveryRunUsesTheScopeAndLeavesItAsItWas) {
  std::ofstream(scope_ / "kept.txt") << "not the program's";
  const SweepOutcome sweep = Sweep("--op write,create --mode both", SPILL_LEAK, scope_.string());
  ASSERT_TRUE(sweep.result.is_object());
  EXPECT_EQ(sweep.exit_code, 1);
  EXPECT_FALSE(RunsWith(sweep.result, "leak").empty());
  for (const json& run : sweep.result["runs"]) {
    EXPECT_EQ(HasVerdict(run, "leak"), run["op"] == "write") << run.dump();
  }
  std::vector<fs::path> entries(fs::directory_iterator(scope_), fs::directory_iterator{});
  EXPECT_EQ(entries, std::vector<fs::path>{scope_ / "kept.txt"});
}

std::set<std::tuple<int, std::string, std::string>> RunKeys(const json& result) {
  std::set<std::tuple<int, std::string, std::string>> keys;
  for (const json& run : result["runs"])
    keys.insert({run["n"].get<int>(), run["errno"].dump(), run["mode"].get<std::string>()});
  return keys;
}

TEST_F(CmdSweepTest, MaxRunsSamplesTheFirstCallOfEachOperationAndShardsSplitTheSample) {
  const SweepOutcome full = Sweep("--depth all --max-runs 12 --jobs 2", SPILL_GOOD);
  ASSERT_TRUE(full.result.is_object());
  EXPECT_EQ(full.result["summary"]["runs"], 12);
  EXPECT_GT(full.result["baseline"]["planned_runs"], 12);
  std::set<std::string> ops;
  for (const json& run : full.result["runs"]) ops.insert(run["op"]);
  EXPECT_EQ(ops.size(), full.result["baseline"]["calls_by_op"].size());
  const SweepOutcome first = Sweep("--depth all --max-runs 12 --shard 1/2", SPILL_GOOD);
  const SweepOutcome second = Sweep("--depth all --max-runs 12 --shard 2/2", SPILL_GOOD);
  ASSERT_TRUE(first.result.is_object() && second.result.is_object());
  auto keys = RunKeys(first.result);
  const auto second_keys = RunKeys(second.result);
  EXPECT_EQ(keys.size() + second_keys.size(), 12u);
  keys.insert(second_keys.begin(), second_keys.end());
  EXPECT_EQ(keys, RunKeys(full.result));
}

TEST_F(CmdSweepTest, JunitHasOneCasePerRunAndAFailurePerViolationAndOutKeepsTheFiles) {
  const fs::path junit = root_ / "sweep.xml";
  const fs::path out = root_ / "kept";
  const SweepOutcome sweep = Sweep(
      "--op write --mode transient --junit " + ShellQuote(junit) + " --out " + ShellQuote(out),
      SPILL_LEAK);
  ASSERT_TRUE(sweep.result.is_object());
  std::ifstream in(junit);
  const std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto count = [&xml](const std::string& word) {
    size_t n = 0;
    for (size_t at = xml.find(word); at != std::string::npos; at = xml.find(word, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("<testcase "), sweep.result["runs"].size());
  EXPECT_EQ(count("<failure "), sweep.result["summary"]["violations"]);
  EXPECT_GT(count("<failure "), 0u);
  size_t scripts = 0;
  for (const auto& entry : fs::directory_iterator(out))
    scripts += entry.path().extension() == ".sh";
  EXPECT_EQ(scripts, sweep.result["summary"]["violations"]);
  // A run by site is not traced; a violation it found is made again, traced, for the trace
  // --out keeps. With --trace-all every run is traced from the start.
  for (const bool trace_all : {false, true}) {
    const fs::path kept = root_ / (trace_all ? "kept-all" : "kept-site");
    const SweepOutcome again = Sweep(
        "--op write --mode transient --out " + ShellQuote(kept) + (trace_all ? " --trace-all" : ""),
        SPILL_LEAK);
    ASSERT_TRUE(again.result.is_object());
    ASSERT_GT(RunsWith(again.result, "leak").size(), 0u);
    for (const json& run : RunsWith(again.result, "leak")) {
      EXPECT_EQ(run["attempts"], trace_all ? 1 : 2) << run.dump();
      const std::string trace = run["kept"].get<std::string>() + ".trace";
      ASSERT_TRUE(fs::exists(trace)) << run.dump();
      EXPECT_GT(fs::file_size(trace), 0u) << run.dump();
    }
  }
}

TEST_F(CmdSweepTest, BadInputExits2WithOneLine) {
  const std::string sweep = std::string(SPILLWAY_BINARY) + " sweep ";
  const std::string scope = ShellQuote(scope_);
  const std::string prog = std::string(SPILL_GOOD) + " {dir}";
  const std::vector<std::string> bad_args = {
      "--under /nonexistent/dir -- " + prog,
      "--under " + scope + " --errno ENOTANERRNO -- " + prog,
      "--under " + scope + " --op scribble -- " + prog,
      "--under " + scope + " --shard 3/2 -- " + prog,
      "--under " + scope + " --mode sometimes -- " + prog,
      "--under " + scope + " --compare stderr -- " + prog,
      "--under " + scope + " --",
      "--under " + scope + " -- /nonexistent/program {dir}",
      "--under " + scope + " -- false",
      "--under " + scope + " --depth deep -- " + prog,
      "--under " + scope + " --retries -1 -- " + prog,
      "--under " + scope + " --baselines 0 -- " + prog,
      // Output that differs from run to run, compared.
      "--under " + scope + " --baselines 2 -- sh -c 'echo $$' sh {dir}",
      "--under " + scope + " --error-pattern '(' -- " + prog,
      "--under " + scope + " --shard-count 3 -- " + prog,
      "GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=3 " + sweep + "--under " + scope + " -- " + prog,
      "TEST_TOTAL_SHARDS=0 TEST_SHARD_INDEX=0 " + sweep + "--under " + scope + " -- " + prog,
      "JOB_COMPLETION_INDEX=x " + sweep + "--under " + scope + " --shard-count 2 -- " + prog,
      "--under " + scope + " --baseline " + ShellQuote(trace_) + " -- " + prog,
  };
  std::ofstream(trace_) << "{\"seq\":1}\n";  // A trace, not a baseline file.
  for (const std::string& args : bad_args) {
    const bool env = args.find('=') < args.find(' ');
    ExpectUsageError(RunShellWithStderr(env ? args : sweep + args), "sweep", args);
  }
}

TEST_F(CmdSweepTest, ScratchMakesWhatTheBaselineLeavesALeak) {
  // Leaves its temp file on every run, success included; a failed read of it fails the run.
  const std::string leaver = "sh -c 'echo data >\"$1\"/tmpfile; cat \"$1\"/tmpfile' sh";
  const std::string args = "--op create,read --errno EIO --mode transient";
  const SweepOutcome plain = Sweep(args, leaver);
  ASSERT_TRUE(plain.result.is_object());
  EXPECT_EQ(plain.exit_code, 0);
  EXPECT_TRUE(plain.result["baseline"]["leaks"].empty());
  ASSERT_EQ(plain.result["baseline"]["leftovers"].size(), 1u);
  EXPECT_EQ(plain.result["baseline"]["leftovers"][0]["kind"], "baseline");
  // A run that left what the baseline left is excused.
  EXPECT_TRUE(RunsWith(plain.result, "leak").empty());
  bool read_run = false;
  for (const json& run : plain.result["runs"]) {
    EXPECT_TRUE(HasVerdict(run, "clean_error")) << run.dump();
    read_run |= run["op"] == "read";
  }
  EXPECT_TRUE(read_run);
  const SweepOutcome scratch = Sweep("--scratch " + args, leaver);
  ASSERT_TRUE(scratch.result.is_object());
  EXPECT_EQ(scratch.exit_code, 1);
  ASSERT_EQ(scratch.result["baseline"]["leaks"].size(), 1u);
  EXPECT_EQ(scratch.result["baseline"]["leaks"][0]["path"], "{dir}/tmpfile");
  EXPECT_EQ(scratch.result["baseline"]["leaks"][0]["kind"], "leak");
  EXPECT_EQ(scratch.result["summary"]["baseline_leaks"], 1);
  // With --scratch the same leftover is a leak; a failed create leaves nothing.
  for (const json& run : scratch.result["runs"]) {
    EXPECT_EQ(HasVerdict(run, "leak"), run["op"] == "read") << run.dump();
  }
}

TEST_F(CmdSweepTest, ErrorPatternJudgesAReportedErrorAsAFailedExit) {
  // Reports a failed write on stdout and exits 0 all the same.
  const std::string shell =
      "sh -c 'echo data >\"$1\"/f || echo \"ERROR: no spill\"; rm -f \"$1\"/f' sh";
  const SweepOutcome plain = Sweep("--op write --mode transient --errno EIO", shell);
  ASSERT_TRUE(plain.result.is_object());
  ASSERT_FALSE(plain.result["runs"].empty());
  for (const json& run : plain.result["runs"]) {
    EXPECT_TRUE(HasVerdict(run, "silent_wrong_output")) << run.dump();
  }
  const SweepOutcome judged =
      Sweep("--op write --mode transient --errno EIO --error-pattern '^ERROR:'", shell);
  ASSERT_TRUE(judged.result.is_object());
  EXPECT_EQ(judged.exit_code, 0);
  for (const json& run : judged.result["runs"]) {
    EXPECT_TRUE(HasVerdict(run, "clean_error")) << run.dump();
    EXPECT_EQ(run["exit"], 0);
    EXPECT_TRUE(run["reported_error"].get<bool>());
  }
  // A program that prints the pattern (on stderr) without faults too: the pattern tells
  // nothing, and the run is judged by its output.
  const std::string noisy =
      "sh -c 'echo \"ERROR: none\" >&2; echo data >\"$1\"/f || echo \"ERROR: no spill\"; "
      "rm -f \"$1\"/f' sh";
  const SweepOutcome always =
      Sweep("--op write --mode transient --errno EIO --error-pattern 'ERROR:'", noisy);
  ASSERT_TRUE(always.result.is_object());
  EXPECT_EQ(always.exit_code, 1);
  ASSERT_FALSE(always.result["runs"].empty());
  for (const json& run : always.result["runs"]) {
    EXPECT_TRUE(HasVerdict(run, "silent_wrong_output")) << run.dump();
    EXPECT_FALSE(run["reported_error"].get<bool>());
  }
}

TEST_F(CmdSweepTest, ThreeShardsFromOneBaselineMergeIntoTheUnshardedReport) {
  const std::string baseline = (root_ / "baseline.jsonl").string();
  const std::string args =
      "--depth all --op write,read --mode transient --jobs 2 --baseline " + ShellQuote(baseline);
  const std::string tail = " -- " + std::string(SPILL_GOOD) + " {dir}";
  const std::string sweep = std::string(SPILLWAY_BINARY) + " sweep --under " + ShellQuote(scope_);
  const CommandResult whole = RunShell(sweep + " --json " + args + tail);
  ASSERT_EQ(whole.exit_code, 0);
  ASSERT_TRUE(fs::exists(baseline));
  // Shard 1 by Bazel's variables, 2 by GoogleTest's, 3 by an Indexed Job's.
  const fs::path status_file = root_ / "shard-status";
  const std::vector<std::string> shard_env = {
      "TEST_TOTAL_SHARDS=3 TEST_SHARD_INDEX=0 TEST_SHARD_STATUS_FILE=" + ShellQuote(status_file),
      "GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=1", "JOB_COMPLETION_INDEX=2"};
  std::string reports;
  size_t runs = 0;
  for (size_t k = 0; k < shard_env.size(); ++k) {
    const std::string report = (root_ / ("shard" + std::to_string(k) + ".json")).string();
    const std::string count = k == 2 ? " --shard-count 3" : "";
    std::string line = shard_env[k];
    line += " " + sweep;
    line += " --json " + args;
    line += count;
    line += tail;
    line += " >" + ShellQuote(report);
    const CommandResult shard = RunShell(line);
    ASSERT_EQ(shard.exit_code, 0) << shard_env[k];
    std::ifstream in(report);
    const json part = json::parse(in, nullptr, false);
    ASSERT_TRUE(part.is_object()) << shard_env[k];
    EXPECT_EQ(part["baseline"]["shard"], std::to_string(k + 1) + "/3");
    runs += part["runs"].size();
    reports += " " + ShellQuote(report);
  }
  EXPECT_TRUE(fs::exists(status_file));
  const json unsharded = json::parse(whole.out);
  EXPECT_EQ(runs, unsharded["runs"].size());
  EXPECT_GT(runs, 3u);
  const std::string merge = std::string(SPILLWAY_BINARY) + " sweep merge" + reports;
  const CommandResult merged = RunShell(merge + " --json");
  EXPECT_EQ(merged.exit_code, 0);
  EXPECT_EQ(merged.out, whole.out);
  const CommandResult text = RunShell(merge);
  EXPECT_EQ(text.out, RunShell(sweep + " " + args + tail).out);
  // Reports of another plan (other errnos) do not merge.
  const std::string other = (root_ / "other.json").string();
  RunShell("GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=1 " + sweep + " --json --errno EIO " + args +
           tail + " >" + ShellQuote(other));
  ExpectUsageError(
      RunShellWithStderr(std::string(SPILLWAY_BINARY) + " sweep merge " +
                         ShellQuote((root_ / "shard0.json").string()) + " " + ShellQuote(other)),
      "sweep merge", "reports of two plans");
}

// The runs are spooled to files in the sweep's work directory under $TMPDIR: none is left,
// whether the sweep ends well or cannot write its spool (a fault of spillway inject's own).
TEST_F(CmdSweepTest, TheSpoolLeavesNothingAndAFailedSpoolWriteIsOneLine) {
  const fs::path tmp = root_ / "tmp";
  fs::create_directories(tmp);
  const std::string sweep = std::string(SPILLWAY_BINARY) + " sweep --under " + ShellQuote(scope_) +
                            " --op write --mode transient --jobs 2 -- " + SPILL_LEAK + " {dir}";
  const std::string env = "TMPDIR=" + ShellQuote(tmp) + " ";
  EXPECT_EQ(RunShell(env + sweep + " >/dev/null").exit_code, 1);
  EXPECT_TRUE(fs::is_empty(tmp));
  const std::string full_disk = std::string(SPILLWAY_BINARY) + " inject --under " +
                                ShellQuote(tmp) + " --fault 'write ENOSPC times=forever path=" +
                                (tmp / "spillway-sweep-*" / "runs-*").string() + "' -- ";
  // A sanitized spillway refuses a preloaded library ahead of its runtime unless told.
  const std::string asan = "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 ";
  const CommandResult failed = RunShell(env + asan + full_disk + sweep + " 2>&1 >/dev/null");
  EXPECT_NE(failed.out.find("spillway sweep: write the runs' spool "), std::string::npos)
      << failed.out;
  EXPECT_NE(failed.out.find("(ENOSPC)\nspillway inject: exit 2;"), std::string::npos) << failed.out;
  EXPECT_TRUE(fs::is_empty(tmp));
}

// The shim's traces name call sites (`"site"` in each call line): the plan is by site.
TEST_F(CmdSweepTest, SitePlanFailsEachSitesFirstCallAndNeverDiverges) {
  const SweepOutcome sweep = Sweep("--jobs 2", SPILL_RANDOM);
  ASSERT_TRUE(sweep.result.is_object());
  const json& summary = sweep.result["summary"];
  ASSERT_GT(summary["sites"], 0) << "the shim's traces carry no call sites";
  EXPECT_EQ(summary["depth"], "first");
  EXPECT_EQ(summary["by_verdict"]["diverged"], 0);
  EXPECT_LE(summary["plan_sizes"]["first"], summary["plan_sizes"]["edges"]);
  EXPECT_LT(summary["plan_sizes"]["edges"], summary["plan_sizes"]["all"]);
  std::set<std::string> sites;
  for (const json& site : sweep.result["sites"]) {
    EXPECT_EQ(site["id"].get<std::string>().size(), 12u);
    EXPECT_FALSE(site["frames"].empty());
    sites.insert(site["id"].get<std::string>());
  }
  for (const json& run : sweep.result["runs"]) {
    EXPECT_EQ(run["nth"], 1);
    EXPECT_EQ(sites.count(run["site"].get<std::string>()), 1u) << run.dump();
    EXPECT_NE(run["reproducer"].get<std::string>().find("site="), std::string::npos);
    // Persistent by site: the site's call triggers, then the op fails from every site.
    EXPECT_EQ(
        run["reproducer"].get<std::string>().find("times=forever then=any") != std::string::npos,
        run["mode"] == "persistent")
        << run.dump();
  }
}

// The launcher's report never travels on the program's streams: a program whose last
// stdout line is a summary of its own, with made-up leftovers, is judged by what its runs
// really did, and its output is kept as it printed it.
TEST_F(CmdSweepTest, AProgramPrintingAFakeSummaryIsJudgedByWhatItsRunsDid) {
  const std::string fake = R"({"exit":0,"calls":{},"faults_injected":0,"faults":[],)"
                           R"("leftovers":[{"path":"/fake","size":9}]})";
  // Writes {dir}/f and removes it unless the write failed; prints the fake summary last.
  const std::string script =
      "printf data > \"$1/f\"; s=$?; [ $s -ne 0 ] || rm \"$1/f\"; echo '" + fake + "'; exit $s";
  const fs::path out = root_ / "kept";
  const CommandResult run =
      RunShell(std::string(SPILLWAY_BINARY) + " sweep --under " + ShellQuote(scope_) +
               " --json --mode transient --out " + ShellQuote(out) + " -- sh -c " +
               ShellQuote(script) + " sh {dir}");
  const json result = json::parse(run.out, nullptr, false);
  ASSERT_TRUE(result.is_object()) << run.out;
  EXPECT_EQ(run.exit_code, 1);  // The leak below.
  const std::vector<json> leaks = RunsWith(result, "leak");
  ASSERT_FALSE(leaks.empty()) << result.dump();
  for (const json& leak : leaks) {
    EXPECT_EQ(leak["op"], "write") << leak.dump();
    ASSERT_EQ(leak["leftovers"].size(), 1u) << leak.dump();
    EXPECT_EQ(leak["leftovers"][0]["path"], "{dir}/f");
    std::ifstream kept(leak["kept"].get<std::string>() + ".stdout");
    const std::string printed((std::istreambuf_iterator<char>(kept)),
                              std::istreambuf_iterator<char>());
    EXPECT_EQ(printed, fake + "\n");
  }
  EXPECT_FALSE(RunsWith(result, "clean_error").empty()) << result.dump();  // A failed create.
  for (const json& r : result["runs"]) {
    for (const json& left : r["leftovers"]) EXPECT_NE(left["path"], "/fake") << r.dump();
  }
}

}  // namespace
}  // namespace spillway::inject
