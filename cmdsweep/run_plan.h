// Which runs a sweep makes: one per in-scope call of the baseline, errno its operation can
// return and mode; then --max-runs sampling and the --shard slice.
#ifndef SPILLWAY_CMDSWEEP_RUN_PLAN_H_
#define SPILLWAY_CMDSWEEP_RUN_PLAN_H_

#include <cstdint>
#include <vector>

#include "spillway/cmdsweep/cmd_sweep.h"

namespace spillway::cmdsweep {

// Every run for `calls` (the baseline's), ordered by call, then errno, then mode. Calls
// whose operation is not in `ops` (when it is not empty) are skipped.
std::vector<RunSpec> PlanRuns(const std::vector<TracedCall>& calls, const std::vector<int>& errnos,
                              const std::vector<uint8_t>& ops, const std::vector<FaultMode>& modes);

// At most `max_runs` of `runs` (all of them when 0 or when there are no more), spread
// evenly, always including the first call of each operation: every run of those first calls
// when they fit in `max_runs`, else one run each (then more than `max_runs` may remain).
std::vector<RunSpec> SampleRuns(const std::vector<RunSpec>& runs, uint64_t max_runs);

// The `index`-th (1-based) of `count` contiguous, equal slices of `runs`.
std::vector<RunSpec> ShardRuns(const std::vector<RunSpec>& runs, int index, int count);

}  // namespace spillway::cmdsweep

#endif  // SPILLWAY_CMDSWEEP_RUN_PLAN_H_
