// What `spillway bench` measures: a plan's spill directories, eager against lazy, side by
// side on the user's own disk, and a lazy plan's first spill with layout=all against
// layout=each. The command (tools/bench_command.cc) parses its options into
// PlanBenchOptions, makes a BenchArea, calls MeasurePlans and prints the results.
//
// For every (local dirs, threads) pair, batches of plans are built and dropped without
// spilling, eager (NewDiskManager in kDirectories mode: a spill directory per local
// dir, created at build and removed at drop) and lazy (PlanDiskManagerFactory::NewPlan on
// the executor's factory: nothing until a first spill). The two modes alternate within
// every repetition (eager first on even repetitions, lazy first on odd ones), so a noisy
// machine disturbs both alike. Unless `plans` / `lazy_plans` fix them, the plans per batch
// are chosen (by growing warm-up batches) so that a batch of either mode runs for about
// `batch_ms`. Filesystem calls per plan are counted in a separate single-threaded pass over
// a FaultInjectingFileSystem, never in the timed one. Then, for every local dir count, a
// lazy plan's first spill (a plan, one spill file, both dropped) is timed the same way,
// single-threaded, layout=all and layout=each interleaved, and its mkdirs, creates and
// calls counted.
//
// Thread safety: the functions may be called from several threads at once on different
// BenchAreas (the timings then disturb each other).
#ifndef SPILLWAY_BENCH_PLAN_MEASUREMENT_H_
#define SPILLWAY_BENCH_PLAN_MEASUREMENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "spillway/bench/bench_area.h"
#include "spillway/bench/plan_workload.h"
#include "spillway/vfs/status.h"

namespace spillway::bench {

struct PlanBenchOptions {
  std::vector<int> dirs{1, 4, 8};     // Local dir counts; each at most the area's.
  std::vector<int> threads{1, 2, 8};  // Threads building plans at once.
  int plans =
      0;  // Eager plans per thread per batch, and first spills per batch; 0: sized by batch_ms.
  int lazy_plans = 0;  // Lazy plans per thread per batch; 0: sized by batch_ms.
  int batch_ms = 100;
  int repetitions = 5;
};

// One mode of one configuration, over its repetitions.
struct ModeResult {
  std::vector<double> ns_per_plan;  // Wall time per plan, mean over threads; one per repetition.
  std::vector<double> cpu_ns_per_plan;  // CPU time per plan, mean over threads.
  std::vector<double> plans_per_s;      // All threads' plans over the batch's wall time.
  double fs_calls_per_plan = 0;
  uint64_t plans_per_thread = 0;  // Per batch.
};

// Eager and lazy plans at one (local dirs, threads) pair.
struct ConfigResult {
  int dirs = 0;
  int threads = 0;
  ModeResult eager;
  ModeResult lazy;
};

// A lazy plan's first spill, layout=all against layout=each, at one local dir count.
struct FirstSpillResult {
  int dirs = 0;
  std::vector<double> all_ns;  // Per first spill, one sample per repetition.
  std::vector<double> each_ns;
  FirstSpillCalls all_calls;
  FirstSpillCalls each_calls;
};

struct PlanBenchResults {
  std::vector<ConfigResult> configs;           // By local dirs, then threads, as asked.
  std::vector<FirstSpillResult> first_spills;  // By local dirs, as asked.
};

// Measures every configuration of `options`, then every first spill, in `area`; checks
// after each that nothing is left in the local dirs. Errors: the first failing
// measurement's code, its message naming the measurement and the error ("4 dirs, 2
// threads: ..." or "first spill, 4 dirs: ..."); kInvalidArgument naming what a plan left
// behind. REQUIRES: every dir count at most the area's local dirs; options' counts >= 0,
// repetitions >= 1.
StatusOr<PlanBenchResults> MeasurePlans(const BenchArea& area, const PlanBenchOptions& options);

// A lazy plan's first spill with `dirs` local dirs of `area` (options' plans, batch_ms and
// repetitions apply), then the check that nothing is left. Errors: the first failing
// call's.
StatusOr<FirstSpillResult> MeasureFirstSpill(const BenchArea& area, int dirs,
                                             const PlanBenchOptions& options);

// The median of `samples`. REQUIRES: not empty.
double Median(std::vector<double> samples);

}  // namespace spillway::bench

#endif  // SPILLWAY_BENCH_PLAN_MEASUREMENT_H_
