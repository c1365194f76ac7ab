#include "spillway/bench/plan_measurement.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <latch>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "spillway/spill/disk_manager.h"
#include "spillway/spill/plan_disk_manager.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/status.h"

namespace spillway::bench {
namespace {

using Clock = std::chrono::steady_clock;
using Mode = PlanMode;

// Bounds on the plans per thread of a batch sized by time (batch_ms).
constexpr uint64_t kMaxEagerPlans = 100000;
constexpr uint64_t kMaxLazyPlans = 100000000;

// Builds and drops `count` plans of `mode` on `fs` (PlanWorkload::Build).
Status BuildAndDrop(const std::shared_ptr<FileSystem>& fs, Mode mode, const PlanWorkload& workload,
                    const PlanDiskManagerFactory& lazy, uint64_t count) {
  for (uint64_t i = 0; i < count; ++i) {
    StatusOr<std::shared_ptr<SpillManager>> plan = workload.Build(fs, mode, lazy);
    if (!plan.ok()) return plan.status();
  }
  return OkStatus();
}

struct BatchTiming {
  double ns_per_plan = 0;      // Mean over threads of each thread's wall time per plan.
  double cpu_ns_per_plan = 0;  // Mean over threads of each thread's CPU time per plan.
  double plans_per_s = 0;      // All plans over the wall time from first start to last end.
  double wall_s = 0;
};

// This thread's CPU time.
std::chrono::nanoseconds ThreadCpuTime() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

// Runs one batch: `threads` threads, released together, each building and dropping
// `per_thread` plans.
StatusOr<BatchTiming> RunBatch(const std::shared_ptr<FileSystem>& fs, Mode mode,
                               const PlanWorkload& workload, const PlanDiskManagerFactory& lazy,
                               int threads, uint64_t per_thread) {
  struct PerThread {
    Clock::time_point start;
    Clock::time_point end;
    std::chrono::nanoseconds cpu{0};
    Status status;
  };
  std::vector<PerThread> out(static_cast<size_t>(threads));
  std::latch ready(threads);
  std::latch go(1);
  std::vector<std::thread> workers;
  workers.reserve(out.size());
  for (PerThread& mine : out) {
    workers.emplace_back([&, m = &mine] {
      ready.count_down();
      go.wait();
      const std::chrono::nanoseconds cpu_start = ThreadCpuTime();
      m->start = Clock::now();
      m->status = BuildAndDrop(fs, mode, workload, lazy, per_thread);
      m->end = Clock::now();
      m->cpu = ThreadCpuTime() - cpu_start;
    });
  }
  ready.wait();
  go.count_down();
  for (std::thread& t : workers) t.join();

  Clock::time_point first = out.front().start;
  Clock::time_point last = out.front().end;
  double ns_sum = 0;
  double cpu_ns_sum = 0;
  for (const PerThread& t : out) {
    if (!t.status.ok()) return t.status;
    first = std::min(first, t.start);
    last = std::max(last, t.end);
    ns_sum += std::chrono::duration<double, std::nano>(t.end - t.start).count();
    cpu_ns_sum += static_cast<double>(t.cpu.count());
  }
  const double plans = static_cast<double>(per_thread) * threads;
  BatchTiming timing;
  timing.ns_per_plan = ns_sum / plans;
  timing.cpu_ns_per_plan = cpu_ns_sum / plans;
  timing.wall_s = std::chrono::duration<double>(last - first).count();
  timing.plans_per_s = timing.wall_s > 0 ? plans / timing.wall_s : 0;
  return timing;
}

// Picks plans per thread so that a batch of `mode` runs for about `batch_s`: runs growing
// batches until one lasts a tenth of that, then scales. These batches also warm up caches,
// the allocator and the dentry cache; none of them is recorded.
StatusOr<uint64_t> SizeBatch(const std::shared_ptr<FileSystem>& fs, Mode mode,
                             const PlanWorkload& workload, const PlanDiskManagerFactory& lazy,
                             int threads, double batch_s, uint64_t max_plans) {
  uint64_t n = mode == Mode::kEager ? 1 : 64;
  while (true) {
    StatusOr<BatchTiming> t = RunBatch(fs, mode, workload, lazy, threads, n);
    if (!t.ok()) return t.status();
    if (t->wall_s >= batch_s / 10 || n >= max_plans) {
      const double scaled = static_cast<double>(n) * batch_s / std::max(t->wall_s, 1e-9);
      return std::clamp<uint64_t>(static_cast<uint64_t>(scaled), 1, max_plans);
    }
    n = std::min(n * 4, max_plans);
  }
}

// FileSystem calls per plan of `mode`, from a single-threaded pass over a counting
// wrapper of `fs` (not timed).
StatusOr<double> CountCalls(const std::shared_ptr<FileSystem>& fs, Mode mode,
                            const PlanWorkload& workload) {
  return CountCallsPerUnit(fs, [&](const std::shared_ptr<FileSystem>& counted) {
    StatusOr<PlanDiskManagerFactory> factory = workload.Factory(counted);
    if (!factory.ok()) return factory.status();
    return BuildAndDrop(counted, mode, workload, *factory, 1);
  });
}

// Measures eager and lazy plans at one (local dirs, threads) pair; counts calls per plan
// once per dir count (they do not depend on the threads), into `calls_by_dirs`.
StatusOr<ConfigResult> MeasureConfig(const BenchArea& area, int dirs, int threads,
                                     const PlanBenchOptions& options,
                                     std::map<int, std::pair<double, double>>& calls_by_dirs) {
  const PlanWorkload workload(area.LocalDirs(dirs));
  StatusOr<PlanDiskManagerFactory> factory = workload.Factory(area.fs());
  if (!factory.ok()) return factory.status();
  const PlanDiskManagerFactory& lazy = *factory;

  ConfigResult result;
  result.dirs = dirs;
  result.threads = threads;
  const double batch_s = options.batch_ms / 1000.0;
  for (Mode mode : {Mode::kEager, Mode::kLazy}) {
    const int fixed = mode == Mode::kEager ? options.plans : options.lazy_plans;
    uint64_t& n = (mode == Mode::kEager ? result.eager : result.lazy).plans_per_thread;
    if (fixed > 0) {
      n = static_cast<uint64_t>(fixed);
      // Warm-up, not recorded.
      StatusOr<BatchTiming> warm =
          RunBatch(area.fs(), mode, workload, lazy, threads, std::max<uint64_t>(1, n / 10));
      if (!warm.ok()) return warm.status();
    } else {
      StatusOr<uint64_t> sized = SizeBatch(area.fs(), mode, workload, lazy, threads, batch_s,
                                           mode == Mode::kEager ? kMaxEagerPlans : kMaxLazyPlans);
      if (!sized.ok()) return sized.status();
      n = *sized;
    }
  }
  for (int rep = 0; rep < options.repetitions; ++rep) {
    const Mode order[2] = {rep % 2 == 0 ? Mode::kEager : Mode::kLazy,
                           rep % 2 == 0 ? Mode::kLazy : Mode::kEager};
    for (Mode mode : order) {
      ModeResult& r = mode == Mode::kEager ? result.eager : result.lazy;
      area.Settle();
      StatusOr<BatchTiming> t =
          RunBatch(area.fs(), mode, workload, lazy, threads, r.plans_per_thread);
      if (!t.ok()) return t.status();
      r.ns_per_plan.push_back(t->ns_per_plan);
      r.cpu_ns_per_plan.push_back(t->cpu_ns_per_plan);
      r.plans_per_s.push_back(t->plans_per_s);
    }
  }
  // Calls per plan do not depend on the thread count: counted once per dir count.
  if (!calls_by_dirs.contains(dirs)) {
    StatusOr<double> eager_calls = CountCalls(area.fs(), Mode::kEager, workload);
    if (!eager_calls.ok()) return eager_calls.status();
    StatusOr<double> lazy_calls = CountCalls(area.fs(), Mode::kLazy, workload);
    if (!lazy_calls.ok()) return lazy_calls.status();
    calls_by_dirs[dirs] = {*eager_calls, *lazy_calls};
  }
  result.eager.fs_calls_per_plan = calls_by_dirs[dirs].first;
  result.lazy.fs_calls_per_plan = calls_by_dirs[dirs].second;
  SPILLWAY_RETURN_IF_ERROR(area.CheckNothingLeft());
  return result;
}

}  // namespace

StatusOr<PlanBenchResults> MeasurePlans(const BenchArea& area, const PlanBenchOptions& options) {
  // The error of one measurement, named: "4 dirs, 2 threads: CODE: message".
  const auto named = [](const Status& error, const std::string& what) {
    return Status(error.code(), what + ": " + error.ToString());
  };
  PlanBenchResults results;
  std::map<int, std::pair<double, double>> calls_by_dirs;
  for (int dirs : options.dirs) {
    for (int threads : options.threads) {
      StatusOr<ConfigResult> r = MeasureConfig(area, dirs, threads, options, calls_by_dirs);
      if (!r.ok()) return named(r.status(), fmt::format("{} dirs, {} threads", dirs, threads));
      results.configs.push_back(std::move(*r));
    }
  }
  for (int dirs : options.dirs) {
    StatusOr<FirstSpillResult> r = MeasureFirstSpill(area, dirs, options);
    if (!r.ok()) return named(r.status(), fmt::format("first spill, {} dirs", dirs));
    results.first_spills.push_back(std::move(*r));
  }
  return results;
}

double Median(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  return n % 2 == 1 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}

}  // namespace spillway::bench
