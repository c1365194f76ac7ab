// The reports of `spillway sweep -- CMD`: the text summary, the JSON object and the JUnit
// file (their shapes are in docs/sweep.md), and `spillway sweep merge`, which reads shards'
// JSON reports back into the result one unsharded sweep would have given.
#ifndef SPILLWAY_PROGRAM_SWEEP_REPORT_H_
#define SPILLWAY_PROGRAM_SWEEP_REPORT_H_

#include <cstdio>
#include <string>
#include <vector>

#include "spillway/program_sweep/cmd_sweep.h"
#include "spillway/vfs/status.h"

namespace spillway::program_sweep {

// Each report reads the result's runs back as it goes (one pass of result.runs->ForEach),
// so that it holds one run at a time. Errors: the runs cannot be read back (what was
// written before stays written). REQUIRES: result.runs.

// The summary for people: the baseline (and with --scratch its leaks), the plan (its depth,
// its size under each depth, its sampling and shard), each site with its verdicts, each
// violation with its reproducer, and the verdict counts.
Status PrintText(std::FILE* out, const CmdSweepResult& result);

// `{"baseline": {...}, "sites": [...], "runs": [...], "summary": {...}}` on one line
// (without a newline).
Status WriteJson(std::FILE* out, const CmdSweepResult& result);

// One <testcase> per run (named by its site in a site plan); a <failure> for each
// violation, <skipped> for diverged runs.
Status WriteJunit(std::FILE* out, const CmdSweepResult& result);

// Reads the JSON reports of shards 1..N of one plan (each exactly once, in any order) into
// the result of the unsharded sweep, whose runs are read from the files again when a report
// is written (the files must stay as they are until then). Each file is parsed holding one
// run at a time. Errors (InvalidArgument, one line): a file that cannot be read or is no
// sweep report, reports of different plans or baselines, a shard missing or given twice,
// runs out of plan order.
StatusOr<CmdSweepResult> MergeReports(const std::vector<std::string>& files);

}  // namespace spillway::program_sweep

#endif  // SPILLWAY_PROGRAM_SWEEP_REPORT_H_
