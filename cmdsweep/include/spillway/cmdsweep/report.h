// The reports of `spillway sweep -- CMD`: the text summary, the JSON object and the JUnit
// file (their shapes are in docs/sweep.md).
#ifndef SPILLWAY_CMDSWEEP_REPORT_H_
#define SPILLWAY_CMDSWEEP_REPORT_H_

#include <cstdio>
#include <string>

#include "spillway/cmdsweep/cmd_sweep.h"

namespace spillway::cmdsweep {

// The summary for people: the baseline, the plan (and its sampling and shard), the verdict
// counts and each violation with its reproducer.
void PrintText(std::FILE* out, const CmdSweepOptions& options, const CmdSweepResult& result);

// `{"baseline": {...}, "runs": [...], "summary": {...}}`, serialised on one line.
std::string ToJson(const CmdSweepOptions& options, const CmdSweepResult& result);

// One <testcase> per run; a <failure> for each violation, <skipped> for diverged runs.
std::string ToJunit(const CmdSweepResult& result);

}  // namespace spillway::cmdsweep

#endif  // SPILLWAY_CMDSWEEP_REPORT_H_
