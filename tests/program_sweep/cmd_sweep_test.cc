// `spillway sweep -- CMD` on small C programs (spill_program.c) with known behaviour on
// errors: each verdict is found where the program earns it, and each violation's
// reproducer replays it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "cmd_sweep_test_support.h"
#include "support/inject_support.h"

namespace spillway::inject {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

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
