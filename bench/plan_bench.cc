// What a plan's disk manager costs: building and dropping it eagerly (DataFusion's
// Directories mode: a spill directory per local dir at build time) or lazily (Comet's
// PlanDiskManager: nothing until the first spill), the first spill, and a steady-state
// spill file.
//
// Each benchmark reports, besides Google Benchmark's own columns:
// - ns_per_plan (or ns_per_file): the mean time one thread waits for one plan (file); with
//   more threads than cores this includes time spent descheduled;
// - items_per_second: plans (files) made per second by all threads together;
// - fs_calls_per_plan (or fs_calls_per_file): FileSystem calls per plan (file), counted in
//   a separate pass over a FaultInjectingFileSystem with no rules, after the timed loop, so
//   the counter's lock is never in the timed path.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench_env.h"
#include "spillway/bench/plan_workload.h"
#include "spillway/spill/disk_manager.h"
#include "spillway/spill/plan_disk_manager.h"
#include "spillway/spill/spill_file.h"
#include "spillway/spill/spill_manager.h"
#include "spillway/vfs/fault_injecting_file_system.h"

namespace spillway::bench {
namespace {

using Clock = std::chrono::steady_clock;
using Mode = PlanMode;

// The workload over the first `n` local dirs of `env`.
PlanWorkload WorkloadOver(const BenchFs& env, int n) {
  return PlanWorkload(FirstLocalDirs(env, n));
}

// Builds a plan of `mode` over `fs` with a lazy factory made for it (for set-up and the
// counting passes, whose filesystem differs from the timed one).
StatusOr<std::shared_ptr<SpillManager>> BuildOn(const PlanWorkload& workload,
                                                const std::shared_ptr<FileSystem>& fs, Mode mode) {
  StatusOr<PlanDiskManagerFactory> factory = workload.Factory(fs);
  if (!factory.ok()) return factory.status();
  return workload.Build(fs, mode, *factory);
}

// Checks that the first `n` local dirs of `env` are empty again.
Status CheckNothingLeft(const BenchFs& env, int n) {
  return bench::CheckNothingLeft(*env.fs, FirstLocalDirs(env, n));
}

void SetLatency(benchmark::State& state, Clock::time_point start, std::string_view name) {
  if (state.iterations() == 0) return;
  const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
  state.counters[std::string(name)] = benchmark::Counter(
      ns / static_cast<double>(state.iterations()), benchmark::Counter::kAvgThreads);
}

// Build a plan's manager and drop it, never spilling. range(0): local dirs.
void BM_PlanBuildDrop(benchmark::State& state, Mode mode, FsKind kind) {
  StatusOr<BenchFs*> env = GetBenchFs(kind);
  if (!env.ok()) return Fail(state, env.status());
  const std::shared_ptr<FileSystem>& fs = (*env)->fs;
  const PlanWorkload workload = WorkloadOver(**env, static_cast<int>(state.range(0)));
  StatusOr<PlanDiskManagerFactory> factory = workload.Factory(fs);
  if (!factory.ok()) return Fail(state, factory.status());

  const Clock::time_point start = Clock::now();
  for (auto _ : state) {
    StatusOr<std::shared_ptr<SpillManager>> plan = workload.Build(fs, mode, *factory);
    if (!plan.ok()) {
      Fail(state, plan.status());
      break;
    }
    benchmark::DoNotOptimize(plan);
  }  // The plan is dropped at the end of each iteration.
  SetLatency(state, start, "ns_per_plan");
  state.SetItemsProcessed(state.iterations());

  if (state.thread_index() == 0) {
    StatusOr<double> calls = CountCallsPerUnit(fs, [&](const std::shared_ptr<FileSystem>& counted) {
      return BuildOn(workload, counted, mode).status();
    });
    if (!calls.ok()) return Fail(state, calls.status());
    state.counters["fs_calls_per_plan"] = *calls;
    Status left = CheckNothingLeft(**env, static_cast<int>(state.range(0)));
    if (!left.ok()) return Fail(state, left);
  }
}

// A lazy plan made without a factory: NewPlanDiskManager validates and copies the
// options for every plan (the local dirs vector, a string per dir, the limit's key).
// Against BM_PlanBuildDrop/lazy_mem this is what sharing the executor's options saves.
void BM_LazyPlanCreateCopyingOptions(benchmark::State& state) {
  StatusOr<BenchFs*> env = GetBenchFs(FsKind::kMem);
  if (!env.ok()) return Fail(state, env.status());
  const std::shared_ptr<FileSystem>& fs = (*env)->fs;
  const PlanWorkload workload = WorkloadOver(**env, static_cast<int>(state.range(0)));
  for (auto _ : state) {
    StatusOr<std::shared_ptr<PlanDiskManager>> plan = NewPlanDiskManager(fs, workload.lazy);
    if (!plan.ok()) {
      Fail(state, plan.status());
      break;
    }
    benchmark::DoNotOptimize(plan);
  }
  state.SetItemsProcessed(state.iterations());
}

// The floor for a lazy plan: one heap object the size of a PlanDiskManager, made and
// freed: what NewPlan's one allocation costs on its own.
void BM_OneAllocationFloor(benchmark::State& state) {
  for (auto _ : state) {
    auto plan = std::make_shared<std::array<std::byte, sizeof(PlanDiskManager)>>();
    benchmark::DoNotOptimize(plan);
  }
  state.SetItemsProcessed(state.iterations());
}

// Why PlanDiskManagerFactory shards its reference count: copying and dropping a
// shared_ptr whose count every thread writes (one_count) against one whose count only
// this thread writes. With two threads on two cores the first pays for moving the
// counter's cache line between cores on every copy; a lazy plan would pay it twice.
void BM_SharedPtrCopy(benchmark::State& state, bool one_count) {
  static const auto* const kCommon = new std::shared_ptr<const int>(std::make_shared<const int>(1));
  const std::shared_ptr<const int> own = std::make_shared<const int>(1);
  const std::shared_ptr<const int>& source = one_count ? *kCommon : own;
  for (auto _ : state) {
    std::shared_ptr<const int> copy = source;
    benchmark::DoNotOptimize(copy);
  }
  state.SetItemsProcessed(state.iterations());
}

// A plan's first spill: build the plan, create one spill file (for a lazy plan this
// creates its directories), then drop the file and the plan (which removes them).
Status FirstSpill(const std::shared_ptr<FileSystem>& fs, Mode mode, const PlanWorkload& workload,
                  const PlanDiskManagerFactory& lazy) {
  StatusOr<std::shared_ptr<SpillManager>> plan = workload.Build(fs, mode, lazy);
  if (!plan.ok()) return plan.status();
  StatusOr<SpillFile> file = (*plan)->CreateTempFile("sort");
  if (!file.ok()) return file.status();
  benchmark::DoNotOptimize(file);
  return OkStatus();
}

void BM_FirstSpill(benchmark::State& state, Mode mode, FsKind kind) {
  StatusOr<BenchFs*> env = GetBenchFs(kind);
  if (!env.ok()) return Fail(state, env.status());
  const std::shared_ptr<FileSystem>& fs = (*env)->fs;
  const PlanWorkload workload = WorkloadOver(**env, static_cast<int>(state.range(0)));
  StatusOr<PlanDiskManagerFactory> factory = workload.Factory(fs);
  if (!factory.ok()) return Fail(state, factory.status());

  const Clock::time_point start = Clock::now();
  for (auto _ : state) {
    Status s = FirstSpill(fs, mode, workload, *factory);
    if (!s.ok()) {
      Fail(state, s);
      break;
    }
  }
  SetLatency(state, start, "ns_per_plan");
  state.SetItemsProcessed(state.iterations());

  if (state.thread_index() == 0) {
    StatusOr<double> calls = CountCallsPerUnit(fs, [&](const std::shared_ptr<FileSystem>& counted) {
      StatusOr<PlanDiskManagerFactory> counted_factory = workload.Factory(counted);
      if (!counted_factory.ok()) return counted_factory.status();
      return FirstSpill(counted, mode, workload, *counted_factory);
    });
    if (!calls.ok()) return Fail(state, calls.status());
    state.counters["fs_calls_per_plan"] = *calls;
    Status left = CheckNothingLeft(**env, static_cast<int>(state.range(0)));
    if (!left.ok()) return Fail(state, left);
  }
}

// A lazy plan's first spill with layout=all (Comet's: a spill directory in every local
// dir) and with layout=each (one, where the file lands), measured side by side: every
// iteration runs one of each, alternating which goes first, and times them separately.
// Reports all_ns and each_ns (per first spill), all_over_each (their ratio), and the
// mkdirs and creates of one first spill of each (counted in a separate pass).
// range(0): local dirs.
void BM_FirstSpillAllVsEach(benchmark::State& state, FsKind kind) {
  StatusOr<BenchFs*> env = GetBenchFs(kind);
  if (!env.ok()) return Fail(state, env.status());
  const std::shared_ptr<FileSystem>& fs = (*env)->fs;
  const std::vector<std::string> dirs = FirstLocalDirs(**env, static_cast<int>(state.range(0)));
  const FirstSpillWorkload all(dirs, SpillDirLayout::kAll);
  const FirstSpillWorkload each(dirs, SpillDirLayout::kEach);
  StatusOr<PlanDiskManagerFactory> all_factory = all.Factory(fs);
  StatusOr<PlanDiskManagerFactory> each_factory = each.Factory(fs);
  if (!all_factory.ok() || !each_factory.ok()) {
    return Fail(state, all_factory.ok() ? each_factory.status() : all_factory.status());
  }
  std::chrono::duration<double, std::nano> all_ns{0}, each_ns{0};
  bool all_first = true;
  for (auto _ : state) {
    for (const bool run_all : {all_first, !all_first}) {
      const Clock::time_point start = Clock::now();
      Status s = RunFirstSpill(run_all ? *all_factory : *each_factory);
      (run_all ? all_ns : each_ns) += Clock::now() - start;
      if (!s.ok()) return Fail(state, s);
    }
    all_first = !all_first;
  }
  const double n = std::max<double>(1, static_cast<double>(state.iterations()));
  state.counters["all_ns"] = all_ns.count() / n;
  state.counters["each_ns"] = each_ns.count() / n;
  state.counters["all_over_each"] = all_ns.count() / std::max(each_ns.count(), 1.0);
  for (const auto& [name, workload] : {std::pair{"all", &all}, std::pair{"each", &each}}) {
    StatusOr<FirstSpillCalls> calls = CountFirstSpillCalls(fs, *workload);
    if (!calls.ok()) return Fail(state, calls.status());
    state.counters[std::string(name) + "_mkdirs"] = calls->mkdir;
    state.counters[std::string(name) + "_creates"] = calls->create;
    state.counters[std::string(name) + "_fs_calls"] = calls->total;
  }
  Status left = CheckNothingLeft(**env, static_cast<int>(state.range(0)));
  if (!left.ok()) return Fail(state, left);
}

// Steady state: a plan that has spilled already creates a spill file and drops it.
// range(0): local dirs. Each thread has a plan of its own.
void BM_SpillFileCreateDrop(benchmark::State& state, Mode mode, FsKind kind) {
  StatusOr<BenchFs*> env = GetBenchFs(kind);
  if (!env.ok()) return Fail(state, env.status());
  const PlanWorkload workload = WorkloadOver(**env, static_cast<int>(state.range(0)));

  StatusOr<std::shared_ptr<SpillManager>> plan = BuildOn(workload, (*env)->fs, mode);
  if (!plan.ok()) return Fail(state, plan.status());
  StatusOr<SpillFile> first = (*plan)->CreateTempFile("first");  // Makes lazy dirs.
  if (!first.ok()) return Fail(state, first.status());

  const Clock::time_point start = Clock::now();
  for (auto _ : state) {
    StatusOr<SpillFile> file = (*plan)->CreateTempFile("sort");
    if (!file.ok()) {
      Fail(state, file.status());
      break;
    }
    benchmark::DoNotOptimize(file);
  }
  SetLatency(state, start, "ns_per_file");
  state.SetItemsProcessed(state.iterations());

  if (state.thread_index() == 0) {
    auto counter = NewFaultInjectingFileSystem((*env)->fs);
    StatusOr<std::shared_ptr<SpillManager>> counted_plan = BuildOn(workload, counter, mode);
    if (!counted_plan.ok()) return Fail(state, counted_plan.status());
    StatusOr<SpillFile> counted_first = (*counted_plan)->CreateTempFile("first");
    if (!counted_first.ok()) return Fail(state, counted_first.status());
    counter->ResetCounters();
    for (uint64_t i = 0; i < kCountedUnits; ++i) {
      StatusOr<SpillFile> file = (*counted_plan)->CreateTempFile("sort");
      if (!file.ok()) return Fail(state, file.status());
    }
    state.counters["fs_calls_per_file"] =
        static_cast<double>(counter->total_calls()) / kCountedUnits;
  }
}

void PlanArgs(benchmark::internal::Benchmark* b) {
  b->ArgName("dirs")->Arg(1)->Arg(4)->Arg(8)->UseRealTime();
}
void PlanThreadArgs(benchmark::internal::Benchmark* b) {
  PlanArgs(b);
  b->Threads(1)->Threads(2)->Threads(8);
}

BENCHMARK_CAPTURE(BM_PlanBuildDrop, eager_posix, Mode::kEager, FsKind::kPosix)
    ->Apply(PlanThreadArgs);
BENCHMARK_CAPTURE(BM_PlanBuildDrop, lazy_posix, Mode::kLazy, FsKind::kPosix)->Apply(PlanThreadArgs);
BENCHMARK_CAPTURE(BM_PlanBuildDrop, eager_mem, Mode::kEager, FsKind::kMem)->Apply(PlanThreadArgs);
BENCHMARK_CAPTURE(BM_PlanBuildDrop, lazy_mem, Mode::kLazy, FsKind::kMem)->Apply(PlanThreadArgs);

BENCHMARK(BM_LazyPlanCreateCopyingOptions)->ArgName("dirs")->Arg(1)->Arg(4)->Arg(8);
BENCHMARK(BM_OneAllocationFloor);
BENCHMARK_CAPTURE(BM_SharedPtrCopy, one_count_for_all_threads, true)->Threads(1)->Threads(2);
BENCHMARK_CAPTURE(BM_SharedPtrCopy, a_count_per_thread, false)->Threads(1)->Threads(2);

BENCHMARK_CAPTURE(BM_FirstSpill, eager_posix, Mode::kEager, FsKind::kPosix)->Apply(PlanArgs);
BENCHMARK_CAPTURE(BM_FirstSpill, lazy_posix, Mode::kLazy, FsKind::kPosix)->Apply(PlanArgs);
BENCHMARK_CAPTURE(BM_FirstSpill, eager_mem, Mode::kEager, FsKind::kMem)->Apply(PlanArgs);
BENCHMARK_CAPTURE(BM_FirstSpill, lazy_mem, Mode::kLazy, FsKind::kMem)->Apply(PlanArgs);

BENCHMARK_CAPTURE(BM_FirstSpillAllVsEach, posix, FsKind::kPosix)->Apply(PlanArgs);
BENCHMARK_CAPTURE(BM_FirstSpillAllVsEach, mem, FsKind::kMem)->Apply(PlanArgs);

BENCHMARK_CAPTURE(BM_SpillFileCreateDrop, eager_posix, Mode::kEager, FsKind::kPosix)
    ->Apply(PlanThreadArgs);
BENCHMARK_CAPTURE(BM_SpillFileCreateDrop, lazy_posix, Mode::kLazy, FsKind::kPosix)
    ->Apply(PlanThreadArgs);
BENCHMARK_CAPTURE(BM_SpillFileCreateDrop, eager_mem, Mode::kEager, FsKind::kMem)->Apply(PlanArgs);
BENCHMARK_CAPTURE(BM_SpillFileCreateDrop, lazy_mem, Mode::kLazy, FsKind::kMem)->Apply(PlanArgs);

}  // namespace
}  // namespace spillway::bench
