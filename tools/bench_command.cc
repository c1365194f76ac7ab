// `spillway bench`: what a plan's spill directories cost, eager against lazy, measured
// side by side on the user's own disk.
//
// For every (local dirs, threads) pair it runs batches of plans built and dropped without
// spilling, eager (NewDiskManager in kDirectories mode: a spill directory per local
// dir, created at build and removed at drop) and lazy (PlanDiskManagerFactory::NewPlan
// on the executor's factory: nothing until a first spill). The two modes alternate within
// every repetition (eager first on even repetitions, lazy first on odd ones), so a noisy
// machine disturbs both alike. The table reports medians over the repetitions. Unless
// --plans / --lazy-plans fix them, the plans per batch are chosen (by growing warm-up
// batches) so that a batch of either mode runs for about --batch-ms: a lazy batch then
// builds some thousand times as many plans as an eager one, and both are long enough for
// the clock and the scheduler not to matter.
// Filesystem calls per plan are counted in a separate single-threaded pass over a
// FaultInjectingFileSystem, never in the timed one.
// Then, for every local dir count, a lazy plan's first spill (a plan, one spill file,
// both dropped) with layout=all (Comet's: a spill directory in every local dir) against
// layout=each (one, where the file lands): single-threaded batches, the two layouts
// interleaved in the same way, and their mkdirs, creates and calls per first spill
// (first_spill_bench.cc).
#include <fmt/format.h>
#include <sys/statfs.h>
#include <sys/utsname.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <latch>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "bench_internal.h"
#include "commands.h"
#include "spillway/bench/plan_workload.h"
#include "spillway/spill/disk_manager.h"
#include "spillway/spill/plan_disk_manager.h"
#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/posix_file_system.h"
#include "spillway/vfs/status.h"

namespace spillway::tools {
namespace {

using Clock = std::chrono::steady_clock;
using Mode = bench::PlanMode;
using bench::PlanWorkload;

// PlanModeName views a string literal, so its data() is terminated.
const char* ModeName(Mode mode) { return bench::PlanModeName(mode).data(); }
// Bounds on the plans per thread of a batch sized by time (--batch-ms).
constexpr uint64_t kMaxEagerPlans = 100000;
constexpr uint64_t kMaxLazyPlans = 100000000;

// One mode of one configuration, over its repetitions.
struct ModeResult {
  std::vector<double> ns_per_plan;  // One sample per repetition.
  std::vector<double> cpu_ns_per_plan;
  std::vector<double> plans_per_s;
  double fs_calls_per_plan = 0;
  uint64_t plans_per_thread = 0;
};

struct ConfigResult {
  int dirs = 0;
  int threads = 0;
  ModeResult eager;
  ModeResult lazy;
};

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
  return bench::CountCallsPerUnit(fs, [&](const std::shared_ptr<FileSystem>& counted) {
    StatusOr<PlanDiskManagerFactory> factory = workload.Factory(counted);
    if (!factory.ok()) return factory.status();
    return BuildAndDrop(counted, mode, workload, *factory, 1);
  });
}

StatusOr<ConfigResult> MeasureConfig(const BenchArea& area, int dirs, int threads,
                                     const BenchFlags& flags,
                                     std::map<int, std::pair<double, double>>& calls_by_dirs) {
  const PlanWorkload workload(area.LocalDirs(dirs));
  StatusOr<PlanDiskManagerFactory> factory = workload.Factory(area.fs());
  if (!factory.ok()) return factory.status();
  const PlanDiskManagerFactory& lazy = *factory;

  ConfigResult result;
  result.dirs = dirs;
  result.threads = threads;
  const double batch_s = flags.batch_ms / 1000.0;
  for (Mode mode : {Mode::kEager, Mode::kLazy}) {
    const int fixed = mode == Mode::kEager ? flags.plans : flags.lazy_plans;
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
  for (int rep = 0; rep < flags.repetitions; ++rep) {
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

// The 1-minute load average, or -1 when /proc/loadavg cannot be read.
double LoadAverage() {
  std::ifstream in("/proc/loadavg");
  double load = -1;
  if (!(in >> load)) return -1;
  return load;
}

// The first "model name" of /proc/cpuinfo, or "unknown".
std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        size_t start = line.find_first_not_of(' ', colon + 1);
        return start == std::string::npos ? "unknown" : line.substr(start);
      }
    }
  }
  return "unknown";
}

std::string Kernel() {
  struct utsname u {};
  if (uname(&u) != 0) return "unknown";
  return std::string(u.sysname) + " " + u.release;
}

// The type of the filesystem holding `path`, from statfs(2)'s magic number.
std::string FsTypeOf(const std::string& path) {
  struct statfs s {};
  if (statfs(path.c_str(), &s) != 0) return "unknown";
  static const std::map<unsigned long, std::string> kNames = {
      {0xEF53, "ext2/3/4"},  {0x58465342, "xfs"},       {0x9123683E, "btrfs"},
      {0x01021994, "tmpfs"}, {0x794C7630, "overlayfs"}, {0x6969, "nfs"},
      {0x65735546, "fuse"},  {0x2FC12FC1, "zfs"},       {0xF2F52010, "f2fs"},
      {0x5346544E, "ntfs"},  {0x4D44, "vfat"},          {0x01021997, "9p"},
      {0x3153464A, "jfs"},   {0x52654973, "reiserfs"},  {0x73717368, "squashfs"},
  };
  auto it = kNames.find(static_cast<unsigned long>(s.f_type));
  return it != kNames.end() ? it->second
                            : fmt::format("0x{:x}", static_cast<unsigned long>(s.f_type));
}

nlohmann::ordered_json ResultJson(const ConfigResult& c, Mode mode, const std::string& fs) {
  const ModeResult& r = mode == Mode::kEager ? c.eager : c.lazy;
  const auto [min_ns, max_ns] = std::minmax_element(r.ns_per_plan.begin(), r.ns_per_plan.end());
  return {
      {"mode", ModeName(mode)},
      {"fs", fs},
      {"dirs", c.dirs},
      {"threads", c.threads},
      {"ns_per_plan", Median(r.ns_per_plan)},
      {"fs_calls_per_plan", r.fs_calls_per_plan},
      {"plans_per_s", Median(r.plans_per_s)},
      {"eager_over_lazy", Median(c.eager.ns_per_plan) / Median(c.lazy.ns_per_plan)},
      {"cpu_ns_per_plan", Median(r.cpu_ns_per_plan)},
      {"ns_per_plan_min", *min_ns},
      {"ns_per_plan_max", *max_ns},
      {"plans_per_thread_per_batch", r.plans_per_thread},
  };
}

void PrintTable(const std::vector<ConfigResult>& results, const std::string& header,
                const BenchFlags& flags) {
  std::printf("spillway bench: %s\n", header.c_str());
  std::printf(
      "%d repetitions, eager and lazy batches interleaved; medians over the repetitions.\n"
      "ns/plan: wall time a thread spends per plan; cpu ns/plan: its CPU time per plan;\n"
      "plans/s: all threads together; fs calls/plan: counted in a separate pass.\n\n",
      flags.repetitions);
  std::printf("%-6s %-6s %5s %8s %13s %13s %14s %13s %11s\n", "mode", "fs", "dirs", "threads",
              "ns/plan", "cpu ns/plan", "fs calls/plan", "plans/s", "eager/lazy");
  for (const ConfigResult& c : results) {
    const double ratio = Median(c.eager.ns_per_plan) / Median(c.lazy.ns_per_plan);
    for (Mode mode : {Mode::kEager, Mode::kLazy}) {
      const ModeResult& r = mode == Mode::kEager ? c.eager : c.lazy;
      std::string ratio_cell = mode == Mode::kLazy ? fmt::format("{:.0f}x", ratio) : "";
      std::printf("%-6s %-6s %5d %8d %13.1f %13.1f %14.2f %13.0f %11s\n", ModeName(mode),
                  flags.fs.c_str(), c.dirs, c.threads, Median(r.ns_per_plan),
                  Median(r.cpu_ns_per_plan), r.fs_calls_per_plan, Median(r.plans_per_s),
                  ratio_cell.c_str());
    }
  }
}

// Where the benchmark runs: the filesystem, the directory it works in, and a description.
struct BenchTarget {
  std::shared_ptr<FileSystem> fs;
  std::string parent;
  std::string fs_type;
};

// The POSIX target: --root, $SPILLWAY_BENCH_DIR or the temp dir, which must be a
// directory. Throws UsageError.
void PosixTarget(const BenchFlags& flags, BenchTarget* target) {
  target->fs = NewPosixFileSystem();
  std::string root = flags.root;
  if (root.empty()) {
    const char* env = std::getenv("SPILLWAY_BENCH_DIR");
    root = (env != nullptr && *env != '\0') ? env : target->fs->TempDir();
  }
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(root, ec);
  if (ec) throw UsageError("--root " + root + ": " + ec.message());
  std::string parent = abs.lexically_normal().string();
  while (parent.size() > 1 && parent.back() == '/') parent.pop_back();
  if (Status valid = ValidatePath(parent); !valid.ok()) {
    throw UsageError("--root: " + valid.ToString());
  }
  StatusOr<FileStat> stat = target->fs->Stat(parent);
  if (!stat.ok()) throw UsageError("--root: " + stat.status().ToString());
  if (stat->type != FileType::kDirectory) {
    throw UsageError("--root " + parent + ": not a directory");
  }
  target->fs_type = FsTypeOf(parent);
  target->parent = std::move(parent);
}

// The results as one JSON document on stdout.
void PrintBenchJson(const BenchFlags& flags, const std::vector<ConfigResult>& results,
                    const std::vector<FirstSpillResult>& first_spills, const std::string& fs_type,
                    const std::string& where, double load_before, double load_after) {
  nlohmann::ordered_json out;
  out["results"] = nlohmann::ordered_json::array();
  for (const ConfigResult& c : results) {
    out["results"].push_back(ResultJson(c, Mode::kEager, flags.fs));
    out["results"].push_back(ResultJson(c, Mode::kLazy, flags.fs));
  }
  out["first_spill"] = nlohmann::ordered_json::array();
  for (const FirstSpillResult& r : first_spills) out["first_spill"].push_back(FirstSpillJson(r));
  out["machine"] = {{"nproc", std::thread::hardware_concurrency()},
                    {"cpu", CpuModel()},
                    {"kernel", Kernel()},
                    {"loadavg_before", load_before},
                    {"loadavg_after", load_after}};
  out["filesystem"] = {{"fs", flags.fs}, {"type", fs_type}};
  if (flags.fs == "posix") out["filesystem"]["dir"] = where;
  out["repetitions"] = flags.repetitions;
  out["batch_ms"] = flags.batch_ms;
  std::printf("%s\n", out.dump(2).c_str());
}

// Measures every configuration, then every first spill; returns 0, or 1 after printing
// what failed.
int MeasureAll(const BenchArea& area, const BenchFlags& flags, std::vector<ConfigResult>* results,
               std::vector<FirstSpillResult>* first_spills) {
  std::map<int, std::pair<double, double>> calls_by_dirs;
  for (int dirs : flags.dirs) {
    for (int threads : flags.threads) {
      StatusOr<ConfigResult> r = MeasureConfig(area, dirs, threads, flags, calls_by_dirs);
      if (!r.ok()) {
        std::fprintf(stderr, "spillway bench: %d dirs, %d threads: %s\n", dirs, threads,
                     r.status().ToString().c_str());
        return 1;
      }
      results->push_back(std::move(*r));
    }
  }
  for (int dirs : flags.dirs) {
    StatusOr<FirstSpillResult> r = MeasureFirstSpill(area, dirs, flags);
    if (!r.ok()) {
      std::fprintf(stderr, "spillway bench: first spill, %d dirs: %s\n", dirs,
                   r.status().ToString().c_str());
      return 1;
    }
    first_spills->push_back(std::move(*r));
  }
  return 0;
}

int RunBench(const BenchFlags& flags) {
  if (flags.fs == "mem" && !flags.root.empty()) {
    throw UsageError("--root applies to --fs posix only");
  }
  BenchTarget target;
  if (flags.fs == "posix") {
    PosixTarget(flags, &target);
  } else {
    target.fs = NewMemFileSystem();
    target.parent = target.fs->TempDir();
    target.fs_type = "spillway MemFileSystem";
  }

  const int max_dirs = *std::max_element(flags.dirs.begin(), flags.dirs.end());
  StatusOr<std::unique_ptr<BenchArea>> area =
      BenchArea::Make(target.fs, flags.fs == "posix", target.parent, max_dirs);
  if (!area.ok()) {
    // Could not work in the directory given: bad input when it was named.
    throw UsageError(
        fmt::format("cannot set up in {}: {}", target.parent, area.status().ToString()));
  }

  const double load_before = LoadAverage();
  std::vector<ConfigResult> results;
  std::vector<FirstSpillResult> first_spills;
  if (const int failed = MeasureAll(**area, flags, &results, &first_spills); failed != 0) {
    return failed;
  }
  const double load_after = LoadAverage();
  const std::string where = (*area)->base();
  area->reset();  // Removes the private directory before reporting.

  if (flags.json) {
    PrintBenchJson(flags, results, first_spills, target.fs_type, where, load_before, load_after);
  } else {
    PrintTable(results,
               fmt::format("{} filesystem{} ({}); {} CPUs, {}, {}; load average {:.2f} before, "
                           "{:.2f} after",
                           flags.fs, flags.fs == "posix" ? " at " + where : "", target.fs_type,
                           std::thread::hardware_concurrency(), CpuModel(), Kernel(), load_before,
                           load_after),
               flags);
    PrintFirstSpillTable(first_spills);
  }
  return 0;
}

}  // namespace

void AddBenchCommand(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<BenchFlags>();
  CLI::App* cmd = app.add_subcommand(
      "bench",
      "Measure building and dropping a plan's disk manager, eager (spill directories at "
      "build) against lazy (at the first spill), and a lazy plan's first spill with "
      "layout=all against layout=each, side by side");
  cmd->add_option("--dirs", flags->dirs, "Local dir counts to measure, comma-separated")
      ->delimiter(',')
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--threads", flags->threads,
                  "Thread counts building plans at once, comma-separated")
      ->delimiter(',')
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  AddFsOption(*cmd, flags->fs);
  cmd->add_option("--root", flags->root,
                  "Directory to work in (posix; default $SPILLWAY_BENCH_DIR, else the "
                  "system temp dir); a private directory is made there and removed");
  cmd->add_option("--plans", flags->plans,
                  "Eager plans per thread per batch, and first spills per batch (default: as "
                  "many as fill --batch-ms)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--lazy-plans", flags->lazy_plans,
                  "Lazy plans per thread per batch (default: as many as fill --batch-ms)")
      ->check(CLI::Range(1, 1000000000));
  cmd->add_option("--batch-ms", flags->batch_ms,
                  "Target length of a batch whose plan count is not given")
      ->check(CLI::Range(1, 60000))
      ->capture_default_str();
  cmd->add_option("--repetitions", flags->repetitions,
                  "Interleaved eager/lazy repetitions; the table shows medians")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_flag("--json", flags->json, "Print one JSON object instead of the table");
  cmd->callback([flags, &exit_code] { exit_code = RunBench(*flags); });
}

}  // namespace spillway::tools
