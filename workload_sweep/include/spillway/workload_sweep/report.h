// The reports of a finished reference sweep (sweep.h): the text summary and the JSON object
// that `spillway sweep-workload` prints, and the line --verbose prints per run. Their
// fields are described in docs/sweep.md ("Reading the output").
#ifndef SPILLWAY_WORKLOAD_SWEEP_REPORT_H_
#define SPILLWAY_WORKLOAD_SWEEP_REPORT_H_

#include <string>

#include "spillway/workload_sweep/sweep.h"

namespace spillway::workload_sweep {

// The summary of `result`, a sweep run with `options`, as an indented JSON object (no final
// newline): the options swept, the counts, and every violation with its scenario and
// replay.
std::string ReportJson(const SweepOptions& options, const SweepResult& result);

// The same as text, one line per fact, each violation with the `spillway run` line that
// reproduces it; ends with a newline.
std::string ReportText(const SweepOptions& options, const SweepResult& result);

// One line (with a newline) for a finished run, then one indented line per violation it
// found.
std::string RunLines(const RunReport& run);

}  // namespace spillway::workload_sweep

#endif  // SPILLWAY_WORKLOAD_SWEEP_REPORT_H_
