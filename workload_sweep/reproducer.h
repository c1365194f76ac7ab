// Internal to the sweep (workload_sweep/): the scenario file written for a violation, and its
// replay as `spillway run`. Not part of the sweep's interface (sweep.h).
#ifndef SPILLWAY_WORKLOAD_SWEEP_REPRODUCER_H_
#define SPILLWAY_WORKLOAD_SWEEP_REPRODUCER_H_

#include <string>
#include <utility>

#include "spillway/scenario/scenario.h"
#include "spillway/vfs/status.h"
#include "spillway/workload_sweep/sweep.h"
#include "workload_run.h"

namespace spillway::workload_sweep::internal {

// Writes `text` to `path`. Errors: an errno Status.
Status WriteTextFile(const std::string& path, const std::string& text);

// The scenario that reproduces `finding` of `run`: the lines it ran, with the finding's
// expects (or note) after the act that showed it. Sets *act_line to that act's line.
std::string ScenarioText(const WorkloadRun& run, const Finding& finding,
                         const WorkloadRunSpec& spec, const SweepOptions& options, int* act_line);

// Replays `text` as `spillway run` would; returns its exit code and the first line it
// printed to stderr.
std::pair<int, std::string> Replay(const std::string& text, const std::string& file_name,
                                   scenario::FsKind fs);

}  // namespace spillway::workload_sweep::internal

#endif  // SPILLWAY_WORKLOAD_SWEEP_REPRODUCER_H_
