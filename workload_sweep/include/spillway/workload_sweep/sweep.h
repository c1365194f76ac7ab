// The fault sweep behind `spillway sweep`: SQLite's ioerr discipline applied to spill code.
//
// A workload (a scenario without `expect` lines) is run once without a fault to count its
// filesystem operations K. Then, for every n in 1..K, every errno asked for and every fault
// mode, it is run again from a fresh filesystem with operation n failing: once
// (kTransient) or from n on (kPersistent). After every act and at the end of every run the
// sweep checks that each injected fault surfaced, that the accounting matches what reached
// the disk, and that nothing is left behind silently (docs/sweep.md lists the exact rules).
// Each distinct violation is written out as a scenario file that reproduces it with
// `spillway run`, with `expect` lines that fail on the violation where the scenario language
// can say so.
#ifndef SPILLWAY_WORKLOAD_SWEEP_SWEEP_H_
#define SPILLWAY_WORKLOAD_SWEEP_SWEEP_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/scenario/scenario.h"
#include "spillway/spill/quirks.h"
#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/status.h"
#include "spillway/vocab/vocab.h"

namespace spillway::workload_sweep {

// kTransient: operation n fails once (`fault any E after=n-1 times=1`). The operations
// are counted as `any` counts them: only the calls whose kind can fail with E on Linux.
// kPersistent: operation n and every later one fail (`... times=forever`).
// kKill: no errno; the process dies at its filesystem call n (`kill n`; every call counts),
// then a new process over the same dirs reaps what it left, spills, and drops everything
// (docs/sweep.md). kCorrupt: no errno; write call n (or read call n) succeeds with one bit
// of its bytes flipped (`fault write|read corrupt after=n-1`); kLost: write call n succeeds
// and stores zeros (`fault write lost after=n-1`). The modes and their names are the shared
// vocabulary's (spillway/vocab/vocab.h).
using vocab::FaultMode;
using vocab::FaultModeName;

// ENOSPC, EIO, ENOENT, EACCES: what a spill path meets on a real disk; EEXIST: another
// process creating the same name first.
const std::vector<int>& DefaultErrnos();

// The reference workload, as scenario text: several plans (lazy, eager, over the temp dir,
// over a local dir that does not exist yet, one that never spills) over several local dirs;
// spills, writes, clones and drops in varied order; plans dropped before and after their
// files; writes over a plan's limit; a short write. It has no `expect` and no `fault` line.
std::string_view ReferenceWorkload();

// The checks, one per kind of violation, and their names ("false_success", ...): the
// shared vocabulary's (spillway/vocab/vocab.h), where they are described.
using vocab::Check;
using vocab::CheckName;

// One distinct violation the sweep found (its check, and the act it happened at or the
// path glob left behind), with the first run that showed it and its scenario file.
struct SweepViolation {
  Check check = Check::kAccounting;
  // What was violated, in the first run that showed it.
  std::string message;
  // The act, as a scenario line; empty for a violation found at the end of a run.
  std::string act;
  // The first run that showed it: no fault (nullopt) or `error_number` at operation
  // `fault_op` (1-based) in `mode`.
  std::optional<int> error_number;
  FaultMode mode = FaultMode::kTransient;
  uint64_t fault_op = 0;
  // kCorrupt and kLost: the kind of call fault_op counts (write or read).
  OpKind damaged_op = OpKind::kWrite;
  // How many runs showed it.
  uint64_t runs = 0;
  // The scenario file written for it, and the line of the act in that file (0: none).
  std::string scenario_path;
  int scenario_line = 0;
  // 0 when scenario_path was written for this violation. Otherwise the 1-based number of
  // the earlier violation of the same check whose scenario runs the same commands: its file
  // is scenario_path, and the replay fields below are that file's.
  size_t same_scenario_as = 0;
  // Whether the scenario holds an `expect` that fails on the violation (otherwise it says
  // what to look at in comments), and what replaying it as `spillway run` gave: its exit
  // code and the first line it printed to stderr.
  bool has_expect = false;
  int replay_exit = 0;
  std::string replay_message;
};

// What one run did, for progress output.
struct RunReport {
  std::optional<int> error_number;  // nullopt: the run without a fault.
  FaultMode mode = FaultMode::kTransient;
  uint64_t fault_op = 0;
  OpKind damaged_op = OpKind::kWrite;  // kCorrupt and kLost: the kind fault_op counts.
  uint64_t operations = 0;             // Filesystem calls counted.
  uint64_t faults_injected = 0;        // Rule faults and short writes.
  uint64_t acts_failed = 0;
  uint64_t acts_skipped = 0;  // Acts on a name whose plan or spill had failed.
  uint64_t cleanup_records = 0;
  std::vector<std::string> violations;  // "check: message", every one this run found.
  std::vector<InjectedFault> injected;  // Every fault injected, in order.
};

struct SweepOptions {
  scenario::FsKind fs = scenario::FsKind::kMem;
  // REQUIRES: non-empty; each a positive errno.
  std::vector<int> errnos = DefaultErrnos();
  // REQUIRES: non-empty.
  std::vector<FaultMode> modes = {FaultMode::kTransient, FaultMode::kPersistent, FaultMode::kKill,
                                  FaultMode::kCorrupt, FaultMode::kLost};
  // Emulated defects in force for every plan (written as `quirk` lines in scenarios).
  Quirks quirks;
  // Where scenario files are written; created if missing.
  std::string out_dir = ".";
  // One scenario file per violation. Otherwise (the default) a violation whose scenario
  // would run the same commands as an earlier one's of the same check (several findings of
  // one run) shares that file.
  bool all_reproducers = false;
  // The workload as scenario text; empty means ReferenceWorkload(). Only `dir`, `file`,
  // `quirk` and the acts (`plan`, `spill`, `write`, `read`, `clone`, `drop`, `set_limit`,
  // `short_write`, `budget`, `crash`, `reap`) may appear in it.
  std::string workload;
  // Called after each run (for --verbose). May be empty.
  std::function<void(const RunReport&)> on_run;
};

struct SweepResult {
  uint64_t operations = 0;  // The filesystem operations of the run without a fault.
  // K for each errno: of those operations, the ones whose call can fail with it.
  std::map<int, uint64_t> operations_by_errno;
  uint64_t runs = 0;       // Including the run without a fault.
  uint64_t kill_runs = 0;  // Of runs, those that kill the process (kKill).
  // Of the operations, the write and read calls: kCorrupt damages each of both in turn,
  // kLost each write; and of runs, those that damage one (kCorrupt, kLost).
  uint64_t write_calls = 0;
  uint64_t read_calls = 0;
  uint64_t damage_runs = 0;
  uint64_t runs_with_violations = 0;
  // Distinct violations, in the order first seen.
  std::vector<SweepViolation> violations;
  // Scenario files written into out_dir.
  size_t scenario_files = 0;
};

// Runs the sweep. A violation is a result, not an error.
// Errors: kInvalidArgument (a malformed workload or options), an errno Status (the output directory
// or a scenario file cannot be written, a filesystem cannot be set up).
// Thread safety: RunSweep keeps no state between calls; concurrent sweeps must not share an
// out_dir.
StatusOr<SweepResult> RunSweep(const SweepOptions& options);

}  // namespace spillway::workload_sweep

#endif  // SPILLWAY_WORKLOAD_SWEEP_SWEEP_H_
