// Internal to the simulation (simulate.h): what its runs (simulate.cc), its shrinking and
// scenario files (simulate_reproducers.cc) and its summaries (simulate_summary.cc) share.
#ifndef SPILLWAY_MODEL_SIMULATE_INTERNAL_H_
#define SPILLWAY_MODEL_SIMULATE_INTERNAL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "spillway/model/simulate.h"
#include "spillway/scenario/scenario.h"
#include "spillway/spill/spill_budget.h"

namespace spillway::model::internal {

// The runner of one seed's programs.
scenario::RunnerOptions RunnerOptionsFor(const SimulateOptions& options, uint64_t seed);

// Adds `m` to `sum`: spills and spilled bytes add up, the peak is the highest.
void AddMetrics(const SpillMetrics& m, SpillMetrics* sum);

// "mem" or "posix", as --fs names it.
std::string FsName(scenario::FsKind fs);

// The command that replays a written scenario (its `quirk` lines turn the quirks on).
std::string ReplayCommand(const SimulateOptions& options, uint64_t seed, const std::string& path);

// Shrinks the failing program `lines` of result->seed, whose violation is
// result->violation, and reruns what is left: fills the shrink fields of `*result`.
void ShrinkFailure(const SimulateOptions& options, const std::vector<scenario::Command>& lines,
                   SeedResult* result);

// Writes one scenario file per distinct violation into options.out_dir: seeds whose
// violations break the same kind of invariant with the same shrunk program share the first
// one's file, unless options.all_reproducers. REQUIRES: options.out_dir is set.
void WriteReproducers(const SimulateOptions& options, std::vector<SeedResult>& results);

}  // namespace spillway::model::internal

#endif  // SPILLWAY_MODEL_SIMULATE_INTERNAL_H_
