// The judging rules of `spillway sweep -- CMD` (docs/sweep.md), called directly on made-up
// outcomes without running anything: which leftovers are leaks, what the baseline excuses,
// when a reported error counts as a failed exit, when a run diverged, and the exit status.
// Each input sits next to the one that the rule, dropped, inverted or shifted by one, would
// judge alike.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "inject_run.h"
#include "spillway/program_sweep/cmd_sweep.h"
#include "support/temp_dir.h"
#include "verdict.h"

namespace spillway::program_sweep {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using Kind = SweepLeftover::Kind;

constexpr const char* kSite = "00000000000a";
constexpr const char* kOtherSite = "00000000000b";

// The kinds ClassifyLeftovers gives `left` (paths) against `baseline` and `faults`.
std::vector<Kind> Classify(const std::vector<std::string>& baseline,
                           const std::vector<inject::ProgramFault>& faults,
                           const std::vector<std::string>& left) {
  std::vector<SweepLeftover> base(baseline.size());
  for (size_t i = 0; i < baseline.size(); ++i) base[i] = {{baseline[i], 1}, Kind::kBaseline};
  std::vector<SweepLeftover> leftovers(left.size());
  for (size_t i = 0; i < left.size(); ++i) leftovers[i] = {{left[i], 1}, Kind::kLeak};
  ClassifyLeftovers(base, faults, &leftovers);
  std::vector<Kind> kinds(leftovers.size());
  for (size_t i = 0; i < leftovers.size(); ++i) kinds[i] = leftovers[i].kind;
  return kinds;
}

TEST(CmdSweepVerdictTest, EachBaselineLeftoverExcusesOneLeftoverOfItsPattern) {
  // The same entry, and one whose random part differs (mkstemp's XXXXXX), are excused.
  EXPECT_EQ(Classify({"{dir}/tmpAbc123"}, {}, {"{dir}/tmpXyz789"}),
            std::vector<Kind>{Kind::kBaseline});
  // A run that left what the baseline left and something else too: the rest is a leak.
  EXPECT_EQ(Classify({"{dir}/keep"}, {}, {"{dir}/keep", "{dir}/other"}),
            (std::vector<Kind>{Kind::kBaseline, Kind::kLeak}));
  // One baseline entry excuses one leftover, not two of its pattern.
  EXPECT_EQ(Classify({"{dir}/tmpAbc123"}, {}, {"{dir}/tmpXyz789", "{dir}/tmpQwe456"}),
            (std::vector<Kind>{Kind::kBaseline, Kind::kLeak}));
  // Nothing excused without a baseline leftover (as with --scratch, which passes none).
  EXPECT_EQ(Classify({}, {}, {"{dir}/keep"}), std::vector<Kind>{Kind::kLeak});
}

TEST(CmdSweepVerdictTest, AnEntryIsLeftByFaultOnlyWhenItsOwnRemovalOrOneInsideItFailed) {
  const inject::ProgramFault unlink_f = {.op = "remove", .error = "EIO", .path = "{dir}/d/f"};
  const inject::ProgramFault rmdir_d = {.op = "rmdir", .error = "EIO", .path = "{dir}/d"};
  // Its own removal failed: the file, and the directory by its rmdir.
  EXPECT_EQ(Classify({}, {unlink_f}, {"{dir}/d/f"}), std::vector<Kind>{Kind::kLeftByFault});
  EXPECT_EQ(Classify({}, {rmdir_d}, {"{dir}/d"}), std::vector<Kind>{Kind::kLeftByFault});
  // A directory that could not be emptied because a file in it could not be removed.
  EXPECT_EQ(Classify({}, {unlink_f}, {"{dir}/d", "{dir}/d/f"}),
            (std::vector<Kind>{Kind::kLeftByFault, Kind::kLeftByFault}));
  // The failed removal was of the directory holding it: a file in it is still a leak.
  EXPECT_EQ(Classify({}, {rmdir_d}, {"{dir}/d/f"}), std::vector<Kind>{Kind::kLeak});
  // A name that only begins like the entry is not inside it.
  EXPECT_EQ(Classify({}, {{.op = "remove", .error = "EIO", .path = "{dir}/dx/f"}}, {"{dir}/d"}),
            std::vector<Kind>{Kind::kLeak});
  // A failure other than a removal's excuses nothing.
  EXPECT_EQ(Classify({}, {{.op = "write", .error = "EIO", .path = "{dir}/d/f"}}, {"{dir}/d/f"}),
            std::vector<Kind>{Kind::kLeak});
  EXPECT_EQ(Classify({}, {{.op = "close", .error = "EIO", .path = "{dir}/d/f"}},
                     {"{dir}/d", "{dir}/d/f"}),
            (std::vector<Kind>{Kind::kLeak, Kind::kLeak}));
}

TEST(CmdSweepVerdictTest, ReportsErrorMatchesStdoutOrStderrAndNothingWithoutAPattern) {
  const std::regex pattern("ERROR:");
  EXPECT_TRUE(ReportsError(&pattern, "ok\nERROR: disk\n", ""));
  EXPECT_TRUE(ReportsError(&pattern, "", "ERROR: disk\n"));
  EXPECT_FALSE(ReportsError(&pattern, "error: disk\n", "warning\n"));
  EXPECT_FALSE(ReportsError(nullptr, "ERROR: disk\n", "ERROR: disk\n"));
}

std::vector<Verdict> Verdicts(std::initializer_list<Verdict> verdicts) { return verdicts; }

// A traced call for WriteTrace: its operation, site, path (under {dir}) and whether it was
// failed.
struct Call {
  std::string op;
  std::string site;
  std::string path;
  bool injected = false;
};

class JudgeTest : public ::testing::Test {
 protected:
  JudgeTest() {
    EXPECT_TRUE(temp_.ok()) << temp_.error();
    baseline_.stdout_text = "sum 42\n";
    outcome_.program_stdout = "sum 42\n";
  }

  // Writes `calls` as the run's trace, in inject's format, paths under the scope.
  void WriteTrace(const std::vector<Call>& calls) {
    outcome_.trace = (dir_ / "trace").string();
    std::ofstream out(outcome_.trace);
    for (size_t i = 0; i < calls.size(); ++i) {
      const Call& c = calls[i];
      out << "{\"seq\":" << i + 1 << ",\"pid\":1,\"tid\":1,\"op\":\"" << c.op << "\",\"call\":\""
          << c.op << "\",\"path\":\"" << Scope() << "/" << c.path
          << "\",\"result\":" << (c.injected ? "-1,\"errno\":\"EIO\"" : "0,\"errno\":null")
          << ",\"injected\":" << (c.injected ? "true" : "false");
      if (!c.site.empty()) out << ",\"site\":\"" << c.site << "\"";
      out << "}\n";
    }
  }

  std::string Scope() const { return (dir_ / "scope").string(); }

  // Judges outcome_ as the run of `spec` (with a trace where it was failed, when none was
  // written and the run is traced_).
  RunResult Judged(const RunSpec& spec) {
    if (traced_ && outcome_.trace.empty()) WriteTrace({{"write", kSite, "f", true}});
    RunResult result;
    const std::regex* pattern = pattern_.has_value() ? &*pattern_ : nullptr;
    Judge({&spec, &outcome_, &baseline_, compare_stdout_, pattern,
           ReportsError(pattern, baseline_.stdout_text, baseline_.stderr_text), Scope(),
           /*with_dir=*/true},
          &result);
    return result;
  }

  // What the run of `spec` diverged at; empty when it did not, and was judged as usual.
  std::string DivergedAt(const RunSpec& spec) {
    const RunResult judged = Judged(spec);
    EXPECT_EQ(judged.verdicts == Verdicts({Verdict::kDiverged}), !judged.diverged_at.empty())
        << judged.diverged_at;
    return judged.diverged_at;
  }

  // Failing site kSite's first write.
  static RunSpec BySite(uint64_t nth = 1, const std::string& op = "write") {
    RunSpec spec;
    spec.by_site = true;
    spec.site = kSite;
    spec.nth = nth;
    spec.call = {op, op, "{dir}/f", false, kSite};
    return spec;
  }

  // Failing the baseline's call `n`, of `op` on `path` (its trace's seq n too).
  static RunSpec ByNumber(uint64_t n, const std::string& op = "write",
                          const std::string& path = "{dir}/f") {
    RunSpec spec;
    spec.n = n;
    spec.call = {op, op, path, false, "", n};
    return spec;
  }

  test_support::TempDir temp_;
  fs::path dir_ = temp_.path();
  Baseline baseline_;
  InjectOutcome outcome_;
  std::optional<std::regex> pattern_;
  bool compare_stdout_ = true;
  bool traced_ = true;
};

TEST_F(JudgeTest, ExitStatusAndStdoutGiveTheVerdict) {
  outcome_.status = 1;
  EXPECT_EQ(Judged(BySite()).verdicts, Verdicts({Verdict::kCleanError}));
  outcome_.status = 0;
  EXPECT_EQ(Judged(BySite()).verdicts, Verdicts({Verdict::kTolerated}));
  outcome_.program_stdout = "sum 41\n";
  EXPECT_EQ(Judged(BySite()).verdicts, Verdicts({Verdict::kSilentWrongOutput}));
  compare_stdout_ = false;  // --compare none.
  EXPECT_EQ(Judged(BySite()).verdicts, Verdicts({Verdict::kTolerated}));
  outcome_.status = 128 + 6;
  const RunResult crashed = Judged(BySite());
  EXPECT_EQ(crashed.verdicts, Verdicts({Verdict::kCrash}));
  EXPECT_EQ(crashed.signal, 6);
  outcome_.status = 124;  // timeout(1)'s status: a hang only when the timeout ended the run.
  outcome_.timed_out = true;
  EXPECT_EQ(Judged(BySite()).verdicts, Verdicts({Verdict::kHang}));
  outcome_.timed_out = false;
  EXPECT_EQ(Judged(BySite()).verdicts, Verdicts({Verdict::kCleanError}));
}

// A shell's status: 128+N for a death by signal N (1 to 64, SIGRTMAX); 128 itself and
// anything above 128+64 is an exit code. timeout(1)'s 124 is a hang only at the timeout,
// and no other status is, however long the run took.
TEST_F(JudgeTest, OnlyStatusesFrom129To192AreSignalsAndOnlyTheTimeoutIsAHang) {
  struct Case {
    int status;
    std::optional<int> signal;
    std::optional<int> exit_code;
  };
  for (const Case& c : {Case{128, std::nullopt, 128}, Case{129, 1, std::nullopt},
                        Case{128 + 64, 64, std::nullopt}, Case{128 + 65, std::nullopt, 128 + 65}}) {
    outcome_.status = c.status;
    const RunResult judged = Judged(BySite());
    EXPECT_EQ(judged.signal, c.signal) << c.status;
    EXPECT_EQ(judged.exit_code, c.exit_code) << c.status;
    EXPECT_EQ(judged.verdicts, Verdicts({c.signal ? Verdict::kCrash : Verdict::kCleanError}))
        << c.status;
  }
  // A hang is what the launcher's timeout ended, whatever the status; an exit status of 124
  // from a program the timeout did not end (timeout(1) inside it, say) is its own.
  outcome_.status = 124;
  const RunResult exited = Judged(BySite());
  EXPECT_EQ(exited.verdicts, Verdicts({Verdict::kCleanError}));
  EXPECT_EQ(exited.exit_code, 124);
  outcome_.timed_out = true;
  const RunResult hung = Judged(BySite());
  EXPECT_EQ(hung.verdicts, Verdicts({Verdict::kHang}));
  EXPECT_FALSE(hung.exit_code.has_value());
  EXPECT_FALSE(hung.signal.has_value());
}

TEST_F(JudgeTest, OnlyALeakLeftoverMakesALeak) {
  outcome_.status = 1;
  outcome_.leftovers = {{{"{dir}/tmp", 3}, Kind::kBaseline},
                        {{"{dir}/d/f", 3}, Kind::kLeftByFault}};
  EXPECT_EQ(Judged(BySite()).verdicts, Verdicts({Verdict::kCleanError}));
  outcome_.status = 0;
  EXPECT_EQ(Judged(BySite()).verdicts, Verdicts({Verdict::kTolerated}));
  outcome_.leftovers.push_back({{"{dir}/other", 3}, Kind::kLeak});
  EXPECT_EQ(Judged(BySite()).verdicts, Verdicts({Verdict::kLeak}));
  outcome_.status = 1;
  EXPECT_EQ(Judged(BySite()).verdicts, Verdicts({Verdict::kLeak}));
  outcome_.program_stdout = "sum 41\n";
  outcome_.status = 0;
  EXPECT_EQ(Judged(BySite()).verdicts, Verdicts({Verdict::kSilentWrongOutput, Verdict::kLeak}));
}

TEST_F(JudgeTest, AReportedErrorIsAFailedExitUnlessTheBaselineReportedItToo) {
  pattern_.emplace("ERROR:");
  outcome_.status = 0;
  outcome_.program_stdout = "ERROR: no spill\n";
  RunResult judged = Judged(BySite());
  EXPECT_TRUE(judged.reported_error);
  EXPECT_EQ(judged.exit_code, 0);
  EXPECT_EQ(judged.verdicts, Verdicts({Verdict::kCleanError}));
  // In stderr as well.
  outcome_.program_stdout = baseline_.stdout_text;
  outcome_.program_stderr = "prog: ERROR: no spill\n";
  EXPECT_EQ(Judged(BySite()).verdicts, Verdicts({Verdict::kCleanError}));
  // A run that exits non-zero is a failed exit by its status, not by what it printed.
  outcome_.status = 1;
  judged = Judged(BySite());
  EXPECT_FALSE(judged.reported_error);
  EXPECT_EQ(judged.verdicts, Verdicts({Verdict::kCleanError}));
  // The baseline printed a match too: the pattern says nothing; the output is compared.
  outcome_.status = 0;
  outcome_.program_stderr.clear();
  baseline_.stdout_text = "ERROR: none, all is well\n";
  outcome_.program_stdout = baseline_.stdout_text;
  judged = Judged(BySite());
  EXPECT_FALSE(judged.reported_error);
  EXPECT_EQ(judged.verdicts, Verdicts({Verdict::kTolerated}));
  outcome_.program_stdout = "ERROR: no spill\n";
  EXPECT_EQ(Judged(BySite()).verdicts, Verdicts({Verdict::kSilentWrongOutput}));
  // Without a pattern, the same run is judged by its output.
  pattern_.reset();
  baseline_.stdout_text = "sum 42\n";
  EXPECT_EQ(Judged(BySite()).verdicts, Verdicts({Verdict::kSilentWrongOutput}));
}

// Site kSite: a read, then writes 1 to 3 (the second failed); kOtherSite's write between.
std::vector<Call> SecondWriteFailed() {
  return {{"read", kSite, "f"},
          {"write", kSite, "f"},
          {"write", kOtherSite, "g"},
          {"write", kSite, "f", true},
          {"write", kSite, "f"}};
}

TEST_F(JudgeTest, BySiteARunDivergesOnlyWhenItsSitesKthCallWasNotFailedOrNeverCame) {
  WriteTrace(SecondWriteFailed());
  EXPECT_EQ(DivergedAt(BySite(2)), "");
  EXPECT_EQ(Judged(BySite(2)).verdicts, Verdicts({Verdict::kTolerated}));
  EXPECT_THAT(DivergedAt(BySite(1)), HasSubstr("call 1 of site 00000000000a was not failed"));
  EXPECT_THAT(DivergedAt(BySite(3)), HasSubstr("call 3 of site 00000000000a was not failed"));
  EXPECT_THAT(DivergedAt(BySite(4)), HasSubstr("site 00000000000a made only 3 write calls"));
  // Only the site's calls of the run's operation count: its read is not its first write.
  WriteTrace({{"read", kSite, "f"}, {"write", kOtherSite, "g"}, {"write", kSite, "f", true}});
  EXPECT_EQ(DivergedAt(BySite(1)), "");
  EXPECT_THAT(DivergedAt(BySite(1, "read")), HasSubstr("was not failed"));
}

// A run by site that was not traced: its rule's counters (the site's calls of its operation,
// and how many it failed) say what its trace would have.
TEST_F(JudgeTest, BySiteAnUntracedRunIsJudgedByItsRulesCounters) {
  traced_ = false;
  outcome_.rules = {{/*matched=*/3, /*failed=*/1}};
  EXPECT_EQ(DivergedAt(BySite(2)), "");
  EXPECT_EQ(Judged(BySite(2)).verdicts, Verdicts({Verdict::kTolerated}));
  outcome_.rules = {{3, 0}};  // The site's third call came, but was let through.
  EXPECT_THAT(DivergedAt(BySite(3)), HasSubstr("call 3 of site 00000000000a was not failed"));
  EXPECT_THAT(DivergedAt(BySite(4)), HasSubstr("site 00000000000a made only 3 write calls"));
  EXPECT_THAT(DivergedAt(BySite(4, "read")), HasSubstr("made only 3 read calls"));
  outcome_.rules.clear();  // No counters: nothing is known to have come.
  EXPECT_THAT(DivergedAt(BySite(1)), HasSubstr("site 00000000000a made only 0 write calls"));
  // A trace, when there is one, is what judges the run, not the counters.
  outcome_.rules = {{1, 1}};
  WriteTrace({{"write", kSite, "f"}});
  EXPECT_THAT(DivergedAt(BySite(1)), HasSubstr("was not failed"));
}

TEST_F(JudgeTest, ByNumberARunDivergesWhenCallNWasNotTheBaselinesFailedCallN) {
  WriteTrace(SecondWriteFailed());
  EXPECT_EQ(DivergedAt(ByNumber(4)), "");
  EXPECT_EQ(Judged(ByNumber(4)).verdicts, Verdicts({Verdict::kTolerated}));
  EXPECT_THAT(DivergedAt(ByNumber(3)), HasSubstr("call 3 was write write {dir}/g (not failed)"));
  EXPECT_THAT(DivergedAt(ByNumber(5)), HasSubstr("call 5 was write write {dir}/f (not failed)"));
  // Call 4 was failed, but it is not the baseline's call 4: another operation or path.
  EXPECT_THAT(DivergedAt(ByNumber(4, "read")), HasSubstr("call 4 was write"));
  EXPECT_THAT(DivergedAt(ByNumber(4, "write", "{dir}/g")), HasSubstr("call 4 was write"));
  EXPECT_THAT(DivergedAt(ByNumber(4, "write", "{dir}/d/f")), HasSubstr("call 4 was write"));
  // A path of the same pattern (a temp name's random part) is the same call.
  WriteTrace({{"write", "", "tmpAbc123", true}});
  EXPECT_EQ(DivergedAt(ByNumber(1, "write", "{dir}/tmpXyz789")), "");
  EXPECT_THAT(DivergedAt(ByNumber(2)), HasSubstr("the run made only 1 in-scope calls"));
}

// A run by number that was not traced: the record of its first fault says which of its
// calls its rule failed, and the rule's counter how many calls of the op came when none was.
TEST_F(JudgeTest, ByNumberAnUntracedRunIsJudgedByItsFirstFaultsCallNumber) {
  traced_ = false;
  RunSpec fourth = ByNumber(4);
  fourth.after = 2;  // The baseline's call 4 was its third write.
  const inject::ProgramFault at_4 = {.op = "write", .error = "EIO", .path = "{dir}/f", .seq = 4};
  outcome_.faults = {at_4};
  EXPECT_EQ(DivergedAt(fourth), "");
  EXPECT_EQ(Judged(fourth).verdicts, Verdicts({Verdict::kTolerated}));
  // The run's third write was another of its calls: the calls before it differed.
  outcome_.faults[0].seq = 5;
  EXPECT_THAT(DivergedAt(fourth),
              HasSubstr("call 4 was not failed: the run's write call 3 was its in-scope call 5, "
                        "not 4"));
  outcome_.faults[0].seq = 3;
  EXPECT_THAT(DivergedAt(fourth), HasSubstr("call 4 was not failed"));
  // Call 4, on a path of another pattern; one of the same pattern is the same call.
  outcome_.faults[0] = at_4;
  outcome_.faults[0].path = "{dir}/d/f";
  EXPECT_THAT(DivergedAt(fourth), HasSubstr("call 4 was write {dir}/d/f"));
  outcome_.faults[0].path = "{dir}/tmpAbc123";
  EXPECT_EQ(DivergedAt(ByNumber(4, "write", "{dir}/tmpXyz789")), "");
  // Persistent: later calls failed too, recorded in any order; the lowest is the planned one.
  outcome_.faults = {at_4, at_4, at_4};
  outcome_.faults[0].seq = 6;
  outcome_.faults[2].seq = 5;
  EXPECT_EQ(DivergedAt(fourth), "");
  outcome_.faults[1].seq = 7;
  EXPECT_THAT(DivergedAt(fourth), HasSubstr("the run's write call 3 was its in-scope call 5"));
  // A baseline call whose trace line never came (its process died inside it) has a number
  // but no place in the trace: call 4 is then the shim's call 5, and the record says 5.
  RunSpec after_a_gap = fourth;
  after_a_gap.call.seq = 5;
  EXPECT_EQ(DivergedAt(after_a_gap), "");
  EXPECT_THAT(DivergedAt(fourth), HasSubstr("was its in-scope call 5, not 4"));
  // No fault: the third write never came.
  outcome_.faults.clear();
  outcome_.rules = {{/*matched=*/2, /*failed=*/0}};
  EXPECT_THAT(DivergedAt(fourth),
              HasSubstr("the run made only 2 write calls; call 4 was to be its write call 3"));
  // It came and the rule fired, but left no record: a damage the call gave no bytes for
  // (a corrupt read at the end of its file).
  outcome_.rules = {{/*matched=*/3, /*failed=*/1}};
  EXPECT_THAT(DivergedAt(fourth),
              HasSubstr("call 4 was not failed: the run's write call 3 came and was let through"));
  // A trace, when there is one, is what judges the run, not the records.
  outcome_.faults = {at_4};
  WriteTrace({{"write", "", "f", true}});
  EXPECT_THAT(DivergedAt(fourth), HasSubstr("the run made only 1 in-scope calls"));
}

TEST(CmdSweepVerdictTest, ExitStatusIsOneForAViolationOrWithScratchForTheBaselinesLeftovers) {
  CmdSweepResult result;
  EXPECT_EQ(ExitStatusOf(result), 0);
  result.baseline.leftovers = {{{"{dir}/tmp", 3}, Kind::kBaseline}};
  EXPECT_EQ(ExitStatusOf(result), 0);  // Excused without --scratch.
  result.scratch = true;
  EXPECT_EQ(ExitStatusOf(result), 1);
  result.baseline.leftovers.clear();
  EXPECT_EQ(ExitStatusOf(result), 0);
  result.violations = 1;
  EXPECT_EQ(ExitStatusOf(result), 1);
  result.scratch = false;
  EXPECT_EQ(ExitStatusOf(result), 1);
}

}  // namespace
}  // namespace spillway::program_sweep
