// Neighbours (`spillway sweep --neighbours N`, docs/sweep.md): rounds of N+1 instances of
// the command started at once in one scope, without faults, each at a seeded offset within
// the first half of the baseline's time, through the launcher library (inject::Run), one
// thread per instance. Each instance is judged as a sweep run is (verdict.h's Judge).
#ifndef SPILLWAY_PROGRAM_SWEEP_NEIGHBOURS_H_
#define SPILLWAY_PROGRAM_SWEEP_NEIGHBOURS_H_

#include <cstdint>
#include <functional>
#include <regex>
#include <string>
#include <vector>

#include "spillway/program_sweep/cmd_sweep.h"
#include "spillway/vfs/status.h"

namespace spillway::program_sweep {

// What the rounds take from the sweep.
struct NeighbourSetup {
  const CmdSweepOptions* options = nullptr;  // neighbours, neighbour_rounds, seed, scratch...
  const Baseline* baseline = nullptr;        // Its stdout, leftovers and time.
  double timeout = 0;                        // Seconds per instance.
  const std::regex* error_pattern = nullptr;
  bool baseline_reported_error = false;
  bool with_dir = false;
  std::string under;     // --under, resolved.
  std::string work_dir;  // The instances' stdout and stderr files go here.
  // A fresh scope for a round (with {dir}: a new directory), as the sweep's runs get.
  std::function<StatusOr<std::string>(const std::string& label)> make_scope;
  // The command with {dir} replaced by `scope`.
  std::function<std::vector<std::string>(const std::string& scope)> command_for;
  // --mask, compiled: applied to each instance's stdout as to a run's. Null: none.
  const std::vector<std::regex>* masks = nullptr;
};

// Bad --neighbours or --neighbour-rounds (InvalidArgument, one line), before anything runs.
Status CheckNeighbourOptions(const CmdSweepOptions& options);

// The start offset, in seconds, of each instance of each round (offsets[round][instance],
// 0-based): a fraction in [0, 0.5) of `baseline_seconds`, the same for the same seed,
// round and instance.
std::vector<std::vector<double>> NeighbourOffsets(uint64_t seed, int rounds, int instances,
                                                  double baseline_seconds);

// Runs the rounds (none when options->neighbours is 0). Errors: a round's scope cannot be
// made, or the launcher refuses the command (bad input: nothing more is run).
StatusOr<NeighbourResult> RunNeighbours(const NeighbourSetup& setup);

}  // namespace spillway::program_sweep

#endif  // SPILLWAY_PROGRAM_SWEEP_NEIGHBOURS_H_
