// A long, seeded random run of the spill model (spill_model.h) against the spill manager,
// with several plans at once, injected faults and a tmp cleaner, checking every invariant
// after every step: what `spillway simulate` runs. The commands and the checks are the
// property tests' own; only the source of randomness differs (a RandomChooser per seed
// instead of RapidCheck). On a violation the failing program is shrunk by delta debugging
// (Shrink), keeping the kind of invariant it breaks, and can be written out with its
// `quirk` lines as a scenario file that `spillway run` replays by itself.
//
// Thread safety: every function here may be called from several threads at once; calls
// of Simulate that write reproducers must be given different out_dirs.
#ifndef SPILLWAY_MODEL_SIMULATE_H_
#define SPILLWAY_MODEL_SIMULATE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "spillway/model/spill_model.h"
#include "spillway/scenario/scenario.h"
#include "spillway/spill/quirks.h"
#include "spillway/spill/spill_budget.h"
#include "spillway/vfs/status.h"

namespace spillway::model {

// What a simulation runs. The defaults are `spillway simulate`'s; each field's range is
// what CheckSimulateOptions accepts, and its error names the command line's option.
struct SimulateOptions {
  uint64_t seed = 1;         // The first seed (--seed).
  int jobs = 1;              // Seeds seed .. seed+jobs-1, each in a thread (--jobs, >= 1).
  uint64_t steps = 2000;     // Commands per seed (--steps).
  int plans = 4;             // Plans alive at once, at most; files: 3 per plan (--plans, >= 1).
  int dirs = 3;              // Local dirs /l0 .. (--dirs, 1 to kMaxLocalDirs).
  double fault_rate = 0.05;  // About this fraction of commands inject a fault (0 <= P < 1).
  // Percent of injected faults that fail every later matching call, not only the next
  // (0 to 100). By default every fault fails one call: over a long run, a fault that
  // never stops soon fails every later step of its kind.
  int forever_percent = 0;
  scenario::FsKind fs = scenario::FsKind::kMem;
  Quirks quirks;
  // Where shrunk programs are written as scenario files (an existing directory); empty:
  // nothing is written.
  std::string out_dir;
  // Write a scenario file for every seed with a violation, also when an earlier seed's
  // file holds the same program.
  bool all_reproducers = false;
};

// What one seed's run did.
struct SeedResult {
  uint64_t seed = 0;
  uint64_t steps = 0;   // Steps run (the failing one included).
  uint64_t plans = 0;   // Plans built.
  uint64_t spills = 0;  // Spill files created.
  uint64_t bytes_written = 0;
  // The spill metrics of each plan bound now, as its manager last reported them, by
  // name; and those of the plans no longer bound, added up as each name went, so that a
  // long run keeps only its live plans'.
  std::map<std::string, SpillMetrics> plan_metrics;
  SpillMetrics unbound_metrics;
  std::map<std::string, uint64_t> faults;  // Injected faults by "OP ERRNO".
  std::map<std::string, uint64_t> errors;  // Failed commands by outcome code.
  uint64_t checks = 0;                     // Invariants checked.
  // Violations of kinds the quirks' own do not name, by kind (see IsSought).
  std::map<std::string, uint64_t> side_effects;
  std::optional<Violation> violation;
  uint64_t violation_step = 0;  // 1-based; steps + 1 for the final drops.
  size_t commands_before_shrink = 0;
  size_t commands_after_shrink = 0;
  std::string shrunk_text;                    // The shrunk program, as scenario lines.
  std::optional<Violation> shrunk_violation;  // What it showed when rerun.
  std::string scenario_path;                  // The shrunk scenario, when written.
  std::string write_error;                    // Why it could not be written.
  // The seed whose file scenario_path is, when this seed's shrunk program was the same.
  std::optional<uint64_t> same_scenario_as;
};

// What a simulation did.
struct SimulateResult {
  std::vector<SeedResult> runs;  // One per seed, in seed order.
  double seconds = 0;            // Wall time of the runs, shrinking and writing included.
};

// Checks that `options` are in range and that a run can start. Effect: creates and drops
// one scenario::Runner for the first seed (for kPosix, a private directory under $TMPDIR).
// Errors: kInvalidArgument naming the command line's option that is out of range
// ("--dirs must be between 1 and 4"); a runner that cannot be created: its error's code,
// with the message "seed N: cannot run: ERROR".
Status CheckSimulateOptions(const SimulateOptions& options);

// Runs seeds options.seed .. options.seed+options.jobs-1, each in a thread of its own, for
// options.steps steps each, starting a fresh program after a violation IsSought rejects;
// shrinks each seed's violation (Shrink); then, when options.out_dir is set, writes one
// scenario file per distinct violation (the same kind and shrunk program) into it, as
// "spillway-simulate-SEED.scenario", unless all_reproducers. A file that cannot be written
// is recorded in its SeedResult's write_error. `progress`, when given, is increased by
// the steps done, across all seeds, as they are done (options.steps per seed in all); it
// may be read from any thread meanwhile.
// Errors: CheckSimulateOptions's (seed N: cannot run, for any seed).
// REQUIRES: options.out_dir, when set, is an existing directory.
StatusOr<SimulateResult> Simulate(const SimulateOptions& options,
                                  std::atomic<uint64_t>* progress = nullptr);

// Delta debugging (ddmin): removes chunks of the program, then single lines, for as long
// as what is left, run on a fresh runner made with `runner`, still shows a first
// violation of kind `kind`; returns what is left, every line valid where it stands. It
// stops after 4000 trial runs or 30 seconds: what is left is still a failing program,
// only a longer one.
// REQUIRES: `lines` run with `runner` show a first violation of kind `kind`.
std::vector<scenario::Command> Shrink(std::vector<scenario::Command> lines,
                                      const scenario::RunnerOptions& runner, InvariantKind kind);

// The quirk filter: true when a violation of `kind` is what a run with `quirks` looks
// for: any kind without quirks; with quirks, the invariants that name their defects
// (QuirkInvariant), or any kind when one of them is not in that table.
bool IsSought(Quirks quirks, InvariantKind kind);

// The summary of `result` as one JSON object, pretty-printed, without a final newline:
// the options, the totals, and each seed's statistics, spill metrics and violation.
std::string SimulateSummaryJson(const SimulateOptions& options, const SimulateResult& result);

// The summary of `result` for people: the totals, then each seed's violation with its
// scenario file and replay command; every line ends with a newline.
std::string SimulateSummaryText(const SimulateOptions& options, const SimulateResult& result);

}  // namespace spillway::model

#endif  // SPILLWAY_MODEL_SIMULATE_H_
