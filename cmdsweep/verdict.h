// A run's verdicts: what its exit, its stdout and what it left behind say, judged against
// the baseline (the contract is in docs/sweep.md).
#ifndef SPILLWAY_CMDSWEEP_VERDICT_H_
#define SPILLWAY_CMDSWEEP_VERDICT_H_

#include <string>
#include <vector>

#include "inject_run.h"
#include "spillway/cmdsweep/cmd_sweep.h"

namespace spillway::cmdsweep {

// `path` with the leading `scope` shown as {dir} (when `with_dir`); otherwise unchanged.
std::string ShowPath(const std::string& path, const std::string& scope, bool with_dir);

// Rewrites every path of `outcome` (calls, leftovers, faults) and its stdout with ShowPath.
void ShowPaths(InjectOutcome* outcome, const std::string& scope, bool with_dir);

// Sets each leftover's kind: kBaseline when the baseline left an entry of the same pattern
// (each baseline entry excuses one), kLeftByFault when an injected remove or rmdir failed
// on it or on an entry inside it, kLeak otherwise.
void ClassifyLeftovers(const std::vector<Leftover>& baseline,
                       const std::vector<InjectedFault>& faults, std::vector<Leftover>* leftovers);

struct JudgeInput {
  const RunSpec* spec;
  const InjectOutcome* outcome;  // Paths shown, leftovers classified.
  const Baseline* baseline;
  double timeout;
  bool compare_stdout;
};

// Fills the result's exit_code, signal, verdicts and diverged_at.
void Judge(const JudgeInput& input, RunResult* result);

}  // namespace spillway::cmdsweep

#endif  // SPILLWAY_CMDSWEEP_VERDICT_H_
