// One mixed workload (plans, spills, writes, clones, drops) on the in-memory filesystem
// and on the real one: the speed-up that simulating buys a property test or a sweep.
//
// Each iteration runs the same round, drawn from a fixed seed: kPlans lazy plans over
// four local dirs; most spill one to three files, each written in 16 KiB chunks through a
// SpillWriter and sometimes cloned; then every plan, file and clone is dropped in a
// shuffled order (so files often outlive their plans). items_per_second counts those
// operations.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "bench_env.h"
#include "spillway/spill/plan_disk_manager.h"
#include "spillway/spill/spill_file.h"
#include "spillway/spill/spill_writer.h"
#include "spillway/vfs/mem_file_system.h"

namespace spillway::bench {
namespace {

constexpr int kPlans = 8;
constexpr int kLocalDirs = 4;
constexpr size_t kChunk = 16 << 10;
constexpr uint64_t kSeed = 7066;

using Handle = std::variant<std::shared_ptr<PlanDiskManager>, SpillFile>;

// Runs one round on `fs`. Adds the operations it made to `*ops`.
Status RunRound(const std::shared_ptr<FileSystem>& fs, const std::vector<std::string>& dirs,
                const std::string& chunk, uint64_t* ops) {
  std::mt19937_64 rng(kSeed);
  auto roll = [&rng](uint64_t n) { return rng() % n; };
  std::vector<Handle> live;
  for (int p = 0; p < kPlans; ++p) {
    PlanDiskManagerOptions options;
    options.spill.local_dirs = dirs;
    options.spill.seed = rng();
    StatusOr<std::shared_ptr<PlanDiskManager>> plan = NewPlanDiskManager(fs, std::move(options));
    if (!plan.ok()) return plan.status();
    ++*ops;
    const uint64_t files = roll(4) == 0 ? 0 : 1 + roll(3);
    for (uint64_t f = 0; f < files; ++f) {
      StatusOr<SpillFile> file = (*plan)->CreateTempFile("sort");
      if (!file.ok()) return file.status();
      ++*ops;
      SpillWriter writer(*file);
      for (uint64_t w = 0, writes = 1 + roll(4); w < writes; ++w) {
        SPILLWAY_RETURN_IF_ERROR(writer.Write(chunk));
        ++*ops;
      }
      if (roll(2) == 0) {
        live.emplace_back(*file);  // A clone: shares the file and its size.
        ++*ops;
      }
      live.emplace_back(std::move(*file));
    }
    live.emplace_back(std::move(*plan));
  }
  std::shuffle(live.begin(), live.end(), rng);
  *ops += live.size();
  while (!live.empty()) live.pop_back();  // Drops in the shuffled order.
  return OkStatus();
}

enum class WorkloadFs { kPosix, kMemContents, kMemSizesOnly };

void BM_MixedWorkload(benchmark::State& state, WorkloadFs which) {
  std::shared_ptr<FileSystem> fs;
  std::vector<std::string> dirs;
  if (which == WorkloadFs::kPosix) {
    StatusOr<BenchFs*> env = GetBenchFs(FsKind::kPosix);
    if (!env.ok()) return Fail(state, env.status());
    fs = (*env)->fs;
    dirs = FirstLocalDirs(**env, kLocalDirs);
  } else {
    MemFileSystemOptions options;
    options.keep_contents = which == WorkloadFs::kMemContents;
    fs = NewMemFileSystem(options);
    for (int i = 0; i < kLocalDirs; ++i) {
      dirs.push_back("/tmp/local" + std::to_string(i));
      Status s = fs->CreateDir(dirs.back());
      if (!s.ok()) return Fail(state, s);
    }
  }
  const std::string chunk(kChunk, 'x');
  uint64_t ops = 0;
  for (auto _ : state) {
    Status s = RunRound(fs, dirs, chunk, &ops);
    if (!s.ok()) {
      Fail(state, s);
      break;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(ops));
  if (state.iterations() > 0) {
    state.counters["ops_per_round"] =
        static_cast<double>(ops) / static_cast<double>(state.iterations());
  }
}

BENCHMARK_CAPTURE(BM_MixedWorkload, posix, WorkloadFs::kPosix)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_MixedWorkload, mem, WorkloadFs::kMemContents)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_MixedWorkload, mem_sizes_only, WorkloadFs::kMemSizesOnly)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
}  // namespace spillway::bench
