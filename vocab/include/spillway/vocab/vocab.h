// spillway's shared vocabulary: the filesystem a run uses, the fault modes of both sweeps,
// and what each judge calls what went wrong (the model's invariants, the reference sweep's
// checks, the command sweep's verdicts). Each has one table of names, the switch in its name
// function (snake_case); names.h derives lists and parsers from it. A value is added here, to
// the enum and its name function; any other switch over the enum fails to build until it has it.
#ifndef SPILLWAY_VOCAB_VOCAB_H_
#define SPILLWAY_VOCAB_VOCAB_H_

#include <cstdint>
#include <string_view>

#include "spillway/vocab/names.h"

namespace spillway::vocab {

// The filesystem under test: in memory (MemFileSystem) or the real disk (POSIX).
enum class FsKind : uint8_t { kMem, kPosix };

constexpr std::string_view FsKindName(FsKind kind) {
  switch (kind) {
    case FsKind::kMem:
      return "mem";
    case FsKind::kPosix:
      return "posix";
  }
  return {};
}

// When a plan's spill directories are made: at its first spill (kLazy, Comet's per-plan
// factory) or when the plan is built (kEager, DataFusion's Directories mode).
enum class PlanMode : uint8_t { kLazy, kEager };

constexpr std::string_view PlanModeName(PlanMode mode) {
  switch (mode) {
    case PlanMode::kLazy:
      return "lazy";
    case PlanMode::kEager:
      return "eager";
  }
  return {};
}

// How a sweep fails the call it chose: once (kTransient), or that call and every later one
// (kPersistent). The reference sweep counts every filesystem operation that can fail with
// the errno; the command sweep, the calls of the chosen call's operation. kKill: the process
// making the call dies (SIGKILL) just before it, with no errno, and is restarted (the
// reference sweep kills at each of its filesystem calls).
// kCorrupt and kLost damage data instead of failing the call: one bit of a read or write
// flipped, or a write acknowledged and never stored.
enum class FaultMode : uint8_t { kTransient, kPersistent, kKill, kCorrupt, kLost };

constexpr std::string_view FaultModeName(FaultMode mode) {
  switch (mode) {
    case FaultMode::kTransient:
      return "transient";
    case FaultMode::kPersistent:
      return "persistent";
    case FaultMode::kKill:
      return "kill";
    case FaultMode::kCorrupt:
      return "corrupt";
    case FaultMode::kLost:
      return "lost";
  }
  return {};
}

// The invariant of the spill model (model/) a violation breaks. Every check of the model has
// one, so that an emulated defect (quirks.h) is caught for its own reason and shrinking can
// hold on to it.
enum class InvariantKind : uint8_t {
  kOutcome,               // A line's result: ok, an errno, LIMIT, DISABLED.
  kUsage,                 // used_disk_space and spilling progress as predicted.
  kAccountingAfterDrops,  // used_disk_space is what the plan's live files hold, so it
                          // returns to zero once they are all dropped.
  kActiveFileCount,       // The active-file count is the number of the plan's live files.
  kFileSize,              // A file's size is the bytes written to it.
  kDirsBeforeFirstSpill,  // Building a plan touches the filesystem zero times; a lazy
                          // plan's directories come with its first spill.
  kCrossPlanVisibility,   // A plan never sees another plan's bytes, files, directories,
                          // limit or damage: its manager is its own and goes with it.
  kOuterAccounting,       // A plan's manager reports the usage, files, progress and limit
                          // of the inner manager that holds its accounting.
  kLimit,                 // max_temp_directory_size is the limit as last set.
  kSpillDirs,             // The spill directories on disk.
  kSpillFiles,            // The spill files on disk.
  kLocalDirs,             // Which local dirs exist.
  kLeftover,              // Nothing a manager made outlives it unreported.
  kBudget,                // A budget's usage is the sum of its plans' live bytes and never
                          // exceeds its limit.
  kReap,                  // A reap never removes a live plan's directories.
  kMetrics,               // A plan's spills and spilled bytes agree with its creates and
                          // writes and never go down; its peak is at least its usage.
  kUndetectedDamage,      // A framed spill file whose bytes were damaged never reads back
                          // as ok: the read reports DATA_LOSS.
  kMalformed,             // The runner refused a line (a name error).
  kSetup,                 // The runner could not be created.
};

constexpr std::string_view InvariantKindName(InvariantKind kind) {
  switch (kind) {
    case InvariantKind::kOutcome:
      return "outcome";
    case InvariantKind::kUsage:
      return "usage";
    case InvariantKind::kAccountingAfterDrops:
      return "accounting_after_drops";
    case InvariantKind::kActiveFileCount:
      return "active_file_count";
    case InvariantKind::kFileSize:
      return "file_size";
    case InvariantKind::kDirsBeforeFirstSpill:
      return "dirs_before_first_spill";
    case InvariantKind::kCrossPlanVisibility:
      return "cross_plan_visibility";
    case InvariantKind::kOuterAccounting:
      return "outer_accounting";
    case InvariantKind::kLimit:
      return "limit";
    case InvariantKind::kSpillDirs:
      return "spill_dirs";
    case InvariantKind::kSpillFiles:
      return "spill_files";
    case InvariantKind::kLocalDirs:
      return "local_dirs";
    case InvariantKind::kLeftover:
      return "leftover";
    case InvariantKind::kBudget:
      return "budget";
    case InvariantKind::kReap:
      return "reap";
    case InvariantKind::kMetrics:
      return "metrics";
    case InvariantKind::kUndetectedDamage:
      return "undetected_damage";
    case InvariantKind::kMalformed:
      return "malformed";
    case InvariantKind::kSetup:
      return "setup";
  }
  return {};
}

// The reference sweep's checks (workload_sweep/), one per kind of violation it finds.
enum class Check : uint8_t {
  kFalseSuccess,      // An act met an injected fault and reported success.
  kUnreportedFault,   // A drop met an injected fault on a removal that no CleanupLog
                      // record reports.
  kUnexplainedError,  // An act failed although no fault was injected during it (an errno),
                      // or with LIMIT although its bytes fit under the limit.
  kLimitNotEnforced,  // A write succeeded although its bytes did not fit under the limit.
  kAccounting,        // used_disk_space, the active-file count, a file's recorded size or
                      // its size on disk differs from what the acts wrote.
  kLazyPlan,          // A lazy plan touched the filesystem although it never tried to spill.
  kLeftover,          // A path remains after everything was dropped, and no CleanupLog
                      // record reports it.
  kFaultMissed,       // The run met no fault at operation n: the workload's operations
                      // did not replay identically, so the run proved nothing.
  kRunner,            // The scenario runner refused a command the sweep considered valid.
  kMetrics,           // A plan's or budget's spill metrics (files created, bytes spilled,
                      // peak usage) differ from what its acts did.
  kReap,              // A reap removed what a live process holds, or left a crashed
                      // process's spill directory without reporting why.
  kUndetectedDamage,  // A framed spill file read back as ok with bytes other than those
                      // written: damage on the disk went unnoticed.
};

constexpr std::string_view CheckName(Check check) {
  switch (check) {
    case Check::kFalseSuccess:
      return "false_success";
    case Check::kUnreportedFault:
      return "unreported_fault";
    case Check::kUnexplainedError:
      return "unexplained_error";
    case Check::kLimitNotEnforced:
      return "limit_not_enforced";
    case Check::kAccounting:
      return "accounting";
    case Check::kLazyPlan:
      return "lazy_plan";
    case Check::kLeftover:
      return "leftover";
    case Check::kFaultMissed:
      return "fault_missed";
    case Check::kRunner:
      return "runner";
    case Check::kMetrics:
      return "metrics";
    case Check::kReap:
      return "reap";
    case Check::kUndetectedDamage:
      return "undetected_damage";
  }
  return {};
}

// The command sweep's verdicts on a run (program_sweep/, docs/sweep.md), in the order reports
// list them.
enum class Verdict : uint8_t {
  kCleanError,         // Exited non-zero (not by a signal), nothing left behind.
  kTolerated,          // Exited 0 with the baseline's stdout, nothing left behind.
  kSilentWrongOutput,  // Exited 0, but stdout differs from the baseline's.
  kLeak,               // Left entries under its scope that the baseline did not leave.
  kCrash,              // Killed by a signal.
  kHang,               // Ran past the timeout.
  kDiverged,           // The planned call never came.
  kOrphan,             // A kill run: an entry the killed run left is still there after the
                       // restart.
  kReclaimed,          // A kill run: the restart took back everything the killed run left.
  kRestartFailed,      // A kill run: the restart did not exit 0 with the expected output.
};

constexpr std::string_view VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kCleanError:
      return "clean_error";
    case Verdict::kTolerated:
      return "tolerated";
    case Verdict::kSilentWrongOutput:
      return "silent_wrong_output";
    case Verdict::kLeak:
      return "leak";
    case Verdict::kCrash:
      return "crash";
    case Verdict::kHang:
      return "hang";
    case Verdict::kDiverged:
      return "diverged";
    case Verdict::kOrphan:
      return "orphan";
    case Verdict::kReclaimed:
      return "reclaimed";
    case Verdict::kRestartFailed:
      return "restart_failed";
  }
  return {};
}

// True for the verdicts that make a sweep fail (exit 1).
constexpr bool IsViolation(Verdict verdict) {
  switch (verdict) {
    case Verdict::kCleanError:
    case Verdict::kTolerated:
    case Verdict::kDiverged:
    case Verdict::kReclaimed:
      return false;
    case Verdict::kSilentWrongOutput:
    case Verdict::kLeak:
    case Verdict::kCrash:
    case Verdict::kHang:
    case Verdict::kOrphan:
    case Verdict::kRestartFailed:
      return true;
  }
  return false;
}

inline constexpr size_t kVerdictCount = kCountOf<VerdictName>;

static_assert(IsSnakeCaseVocabulary<FsKindName>());
static_assert(IsSnakeCaseVocabulary<PlanModeName>());
static_assert(IsSnakeCaseVocabulary<FaultModeName>());
static_assert(IsSnakeCaseVocabulary<InvariantKindName>());
static_assert(IsSnakeCaseVocabulary<CheckName>());
static_assert(IsSnakeCaseVocabulary<VerdictName>());

}  // namespace spillway::vocab

#endif  // SPILLWAY_VOCAB_VOCAB_H_
