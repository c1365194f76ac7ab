// MeasureFirstSpill (plan_measurement.h): a lazy plan's first spill (a plan from the
// executor's factory, one spill file, both dropped) with layout=all (Comet's: a spill
// directory in every local dir) against layout=each (one, where the file lands):
// single-threaded batches, the two layouts interleaved, and their mkdirs, creates and
// calls per first spill.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "spillway/bench/plan_measurement.h"
#include "spillway/spill/disk_manager.h"
#include "spillway/spill/plan_disk_manager.h"

namespace spillway::bench {
namespace {

using Clock = std::chrono::steady_clock;

// Bound on the first spills of a batch sized by time.
constexpr uint64_t kMaxFirstSpills = 1000000;

// Runs `count` first spills from `factory`; returns the wall time per first spill.
StatusOr<double> TimeFirstSpills(const PlanDiskManagerFactory& factory, uint64_t count) {
  const Clock::time_point start = Clock::now();
  for (uint64_t i = 0; i < count; ++i) SPILLWAY_RETURN_IF_ERROR(RunFirstSpill(factory));
  const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
  return ns / static_cast<double>(count);
}

// First spills per batch: --plans if given, else as many as last about `batch_s` (growing
// warm-up batches, not recorded, as SizeBatch).
StatusOr<uint64_t> SizeFirstSpillBatch(const PlanDiskManagerFactory& factory,
                                       const PlanBenchOptions& options) {
  if (options.plans > 0) return static_cast<uint64_t>(options.plans);
  const double batch_s = options.batch_ms / 1000.0;
  for (uint64_t n = 1;; n = std::min(n * 4, kMaxFirstSpills)) {
    StatusOr<double> ns = TimeFirstSpills(factory, n);
    if (!ns.ok()) return ns.status();
    const double s = *ns * static_cast<double>(n) / 1e9;
    if (s >= batch_s / 10 || n >= kMaxFirstSpills) {
      const double scaled = static_cast<double>(n) * batch_s / std::max(s, 1e-9);
      return std::clamp<uint64_t>(static_cast<uint64_t>(scaled), 1, kMaxFirstSpills);
    }
  }
}

}  // namespace

StatusOr<FirstSpillResult> MeasureFirstSpill(const BenchArea& area, int dirs,
                                             const PlanBenchOptions& options) {
  const FirstSpillWorkload all(area.LocalDirs(dirs), SpillDirLayout::kAll);
  const FirstSpillWorkload each(area.LocalDirs(dirs), SpillDirLayout::kEach);
  StatusOr<PlanDiskManagerFactory> all_factory = all.Factory(area.fs());
  if (!all_factory.ok()) return all_factory.status();
  StatusOr<PlanDiskManagerFactory> each_factory = each.Factory(area.fs());
  if (!each_factory.ok()) return each_factory.status();
  StatusOr<uint64_t> all_n = SizeFirstSpillBatch(*all_factory, options);
  if (!all_n.ok()) return all_n.status();
  StatusOr<uint64_t> each_n = SizeFirstSpillBatch(*each_factory, options);
  if (!each_n.ok()) return each_n.status();

  FirstSpillResult result;
  result.dirs = dirs;
  for (int rep = 0; rep < options.repetitions; ++rep) {
    for (const bool run_all : {rep % 2 == 0, rep % 2 != 0}) {
      area.Settle();
      StatusOr<double> ns =
          TimeFirstSpills(run_all ? *all_factory : *each_factory, run_all ? *all_n : *each_n);
      if (!ns.ok()) return ns.status();
      (run_all ? result.all_ns : result.each_ns).push_back(*ns);
    }
  }
  StatusOr<FirstSpillCalls> all_calls = CountFirstSpillCalls(area.fs(), all);
  if (!all_calls.ok()) return all_calls.status();
  StatusOr<FirstSpillCalls> each_calls = CountFirstSpillCalls(area.fs(), each);
  if (!each_calls.ok()) return each_calls.status();
  result.all_calls = *all_calls;
  result.each_calls = *each_calls;
  SPILLWAY_RETURN_IF_ERROR(area.CheckNothingLeft());
  return result;
}

}  // namespace spillway::bench
