// The eager-against-lazy plan workload that both `spillway bench` (tools/bench_command.cc)
// and the Google Benchmark suite (bench/plan_bench.cc) time: an executor's options for
// eager plans (DataFusion's Directories mode: a spill directory per local dir at build)
// and lazy ones (Comet's PlanDiskManager, made by the executor's factory: nothing until
// the first spill), how one plan of either is built, and how filesystem calls per plan
// are counted.
//
// Thread safety: a PlanWorkload is immutable once made; Build may run in many threads.
#ifndef SPILLWAY_BENCH_PLAN_WORKLOAD_H_
#define SPILLWAY_BENCH_PLAN_WORKLOAD_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/spill/disk_manager.h"
#include "spillway/spill/plan_disk_manager.h"
#include "spillway/spill/spill_manager.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/status.h"
#include "spillway/vocab/vocab.h"

namespace spillway::bench {

using PlanMode = vocab::PlanMode;  // Eager or lazy, the scenario language's `mode=`.
using vocab::PlanModeName;

// Units (plans, files) run by a counting pass, which follows the timed work.
inline constexpr uint64_t kCountedUnits = 16;

// The executor's options for eager and lazy plans over the same local dirs.
struct PlanWorkload {
  explicit PlanWorkload(const std::vector<std::string>& local_dirs);

  // The executor's factory for lazy plans on `fs`. Errors: as PlanDiskManagerFactory.
  StatusOr<PlanDiskManagerFactory> Factory(const std::shared_ptr<FileSystem>& fs) const;

  // Builds one plan's manager on `fs`: eager from `eager` (which NewDiskManager
  // copies, as DataFusion's builder does), lazy from `factory` (which shares its options
  // with every plan). Errors: those of the build.
  StatusOr<std::shared_ptr<SpillManager>> Build(const std::shared_ptr<FileSystem>& fs,
                                                PlanMode mode,
                                                const PlanDiskManagerFactory& factory) const;

  DiskManagerOptions eager;
  PlanDiskManagerOptions lazy;
};

// FileSystem calls per unit: runs `unit` kCountedUnits times over a counting wrapper of
// `fs` (a FaultInjectingFileSystem with no rules, never in a timed path) and divides.
// Errors: the first error `unit` returns.
StatusOr<double> CountCallsPerUnit(
    const std::shared_ptr<FileSystem>& fs,
    const std::function<Status(const std::shared_ptr<FileSystem>&)>& unit);

// A lazy plan's first spill under each layout of its spill directories (layout=all,
// Comet's: a directory in every local dir; layout=each: one where the file lands): what
// `spillway bench` and BM_FirstSpillAllVsEach put side by side.
struct FirstSpillWorkload {
  FirstSpillWorkload(const std::vector<std::string>& local_dirs, SpillDirLayout layout);

  // The executor's factory on `fs`. Errors: as PlanDiskManagerFactory.
  StatusOr<PlanDiskManagerFactory> Factory(const std::shared_ptr<FileSystem>& fs) const;

  PlanDiskManagerOptions options;
};

// One first spill: a new plan from `factory`, one spill file, then both dropped (which
// removes what they made). Errors: those of the plan or the spill.
Status RunFirstSpill(const PlanDiskManagerFactory& factory);

// FileSystem calls one first spill makes, counted over a FaultInjectingFileSystem (never in
// a timed path) and averaged over kCountedUnits first spills.
struct FirstSpillCalls {
  double mkdir = 0;   // Directories made (spill directories; missing local dirs too).
  double create = 0;  // Files created.
  double total = 0;   // Every call: stats, locks and removals included.
};
StatusOr<FirstSpillCalls> CountFirstSpillCalls(const std::shared_ptr<FileSystem>& fs,
                                               const FirstSpillWorkload& workload);

// Checks that every directory in `local_dirs` is empty: every plan removed its spill
// directories when it was dropped. Errors: kInvalidArgument naming what was left behind,
// or the error listing a directory.
Status CheckNothingLeft(FileSystem& fs, const std::vector<std::string>& local_dirs);

}  // namespace spillway::bench

#endif  // SPILLWAY_BENCH_PLAN_WORKLOAD_H_
