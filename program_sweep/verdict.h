// A run's verdicts: what its exit, its stdout and what it left behind say, judged against
// the baseline (the contract is in docs/sweep.md).
#ifndef SPILLWAY_PROGRAM_SWEEP_VERDICT_H_
#define SPILLWAY_PROGRAM_SWEEP_VERDICT_H_

#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "inject_run.h"
#include "spillway/program_sweep/cmd_sweep.h"

namespace spillway::program_sweep {

// The components of `path` between slashes (empty ones included: "/a" is "", "a").
std::vector<std::string_view> PathComponents(std::string_view path);

// `path` with the leading `scope` shown as {dir} (when `with_dir`); otherwise unchanged.
std::string ShowPath(const std::string& path, const std::string& scope, bool with_dir);

// Rewrites every path of `outcome` (leftovers, faults) and its stdout with ShowPath (its
// trace's paths are shown as they are read).
void ShowPaths(InjectOutcome* outcome, const std::string& scope, bool with_dir);

// Sets each leftover's kind: kBaseline when the baseline left an entry of the same pattern
// (each baseline entry excuses one; with --scratch pass none), kLeftByFault when an
// injected remove or rmdir failed on it or on an entry inside it, kLeak otherwise.
void ClassifyLeftovers(const std::vector<SweepLeftover>& baseline,
                       const std::vector<inject::ProgramFault>& faults,
                       std::vector<SweepLeftover>* leftovers);

// True when `pattern` (may be null: none) matches somewhere in `out` or `err`.
bool ReportsError(const std::regex* pattern, const std::string& out, const std::string& err);

struct JudgeInput {
  const RunSpec* spec;  // Null for a run without a planned fault (a neighbour): no divergence.
  const InjectOutcome* outcome;  // Paths shown, leftovers classified.
  const Baseline* baseline;
  bool compare_stdout;
  const std::regex* error_pattern;  // Null: none.
  bool baseline_reported_error;     // The baseline's output matched error_pattern.
  std::string scope;                // The run's resolved scope, for its trace's paths.
  bool with_dir;
};

// Empty when the run's planned call came and its rule fired (by its trace or, untraced, by
// its rule's counters for a run by site and by its fault records for one by call number);
// otherwise what happened instead.
std::string Divergence(const JudgeInput& input);

// Fills the result's exit_code, signal, verdicts, diverged_at, reported_error and, for a
// corrupt or lost run whose rule fired, damage (the same verdicts judge it: clean_error
// when it noticed, tolerated, silent_wrong_output when it did not). Whether
// the planned call came is read from the outcome's trace or, untraced, from the shim's
// counters and fault records (Divergence).
void Judge(const JudgeInput& input, RunResult* result);

// The restart after a kill run whose rule fired, for JudgeKill.
struct RestartInput {
  const InjectOutcome* outcome;        // Paths shown, leftovers classified.
  const std::string* expected_stdout;  // Null: not compared.
  // The entries the killed run left that were still there after the restart (paths
  // shown), each classified against the baseline's leftovers: those the baseline leaves
  // too are no orphans.
  std::vector<SweepLeftover> remaining;
};

// A kill run's verdicts. The killed run (`killed`, its leftovers classified) is judged as
// Judge does, except that SIGKILL is what it was meant to die of and what it left is not a
// leak: diverged when the rule never fired (no restart is then made); else hang, crash for
// any other signal, silent_wrong_output when it exited 0 with other output. Then
// `restart`: restart_failed unless it exited 0 with the expected output, orphan for every
// remaining entry, leak for what the restart itself left; with no orphan, reclaimed when
// the killed run left entries (beside the baseline's), else tolerated when nothing failed.
// Fills the result's restart and orphans too.
void JudgeKill(const JudgeInput& killed, const RestartInput& restart, RunResult* result);

}  // namespace spillway::program_sweep

#endif  // SPILLWAY_PROGRAM_SWEEP_VERDICT_H_
