// The reports of `spillway sweep -- CMD`: the text summary, the JSON object and the JUnit
// file (their shapes are in docs/sweep.md), and `spillway sweep merge`, which reads shards'
// JSON reports back into the result one unsharded sweep would have given.
#ifndef SPILLWAY_CMDSWEEP_REPORT_H_
#define SPILLWAY_CMDSWEEP_REPORT_H_

#include <array>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "spillway/cmdsweep/cmd_sweep.h"
#include "spillway/vfs/status.h"

namespace spillway::cmdsweep {

// The summary for people: the baseline (and with --scratch its leaks), the plan (its depth,
// its size under each depth, its sampling and shard), each site with its verdicts, each
// violation with its reproducer, and the verdict counts.
void PrintText(std::FILE* out, const CmdSweepResult& result);

// `{"baseline": {...}, "sites": [...], "runs": [...], "summary": {...}}` on one line.
std::string ToJson(const CmdSweepResult& result);

// One <testcase> per run (named by its site in a site plan); a <failure> for each
// violation, <skipped> for diverged runs.
std::string ToJunit(const CmdSweepResult& result);

// The verdict counts of the runs of each site (by site id).
std::map<std::string, std::array<uint64_t, kVerdictCount>> VerdictsBySite(
    const CmdSweepResult& result);

// Reads the JSON reports of shards 1..N of one plan (each exactly once, in any order) into
// the result of the unsharded sweep. Errors (InvalidArgument, one line): a file that cannot
// be read or is no sweep report, reports of different plans or baselines, a shard missing
// or given twice.
StatusOr<CmdSweepResult> MergeReports(const std::vector<std::string>& files);

}  // namespace spillway::cmdsweep

#endif  // SPILLWAY_CMDSWEEP_REPORT_H_
