// `spillway bench`: what a plan's spill directories cost, eager against lazy, and a lazy
// plan's first spill with layout=all against layout=each, measured side by side on the
// user's own disk. The measuring is spillway::bench_lib (bench/, plan_measurement.h says
// how); this file parses the options, picks the directory to work in, and prints the
// tables (medians over the repetitions) or one JSON document.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "commands.h"
#include "spillway/bench/bench_area.h"
#include "spillway/bench/machine_info.h"
#include "spillway/bench/plan_measurement.h"
#include "spillway/bench/plan_workload.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/posix_file_system.h"
#include "spillway/vfs/status.h"

namespace spillway::tools {
namespace {

using bench::ConfigResult;
using bench::FirstSpillResult;
using bench::Median;
using bench::ModeResult;
using Mode = bench::PlanMode;

struct BenchFlags {
  bench::PlanBenchOptions options;
  std::string fs = "posix";
  std::string root;
  bool json = false;
};

// PlanModeName views a string literal, so its data() is terminated.
const char* ModeName(Mode mode) { return bench::PlanModeName(mode).data(); }

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
      flags.options.repetitions);
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

// One local dir count's first spills as an entry of the JSON document's "first_spill".
nlohmann::ordered_json FirstSpillJson(const FirstSpillResult& r) {
  return {
      {"dirs", r.dirs},
      {"all_ns", Median(r.all_ns)},
      {"each_ns", Median(r.each_ns)},
      {"all_over_each", Median(r.all_ns) / Median(r.each_ns)},
      {"all_mkdirs", r.all_calls.mkdir},
      {"each_mkdirs", r.each_calls.mkdir},
      {"all_creates", r.all_calls.create},
      {"each_creates", r.each_calls.create},
      {"all_fs_calls", r.all_calls.total},
      {"each_fs_calls", r.each_calls.total},
  };
}

// The first-spill table, on stdout.
void PrintFirstSpillTable(const std::vector<FirstSpillResult>& results) {
  std::printf(
      "\nA lazy plan's first spill (plan, one file, both dropped), layout=all (Comet's) "
      "against\nlayout=each, batches interleaved; medians. mkdirs, creates and fs calls per "
      "first spill.\n\n");
  std::printf("%5s %12s %12s %9s %11s %12s %12s %13s %14s %15s\n", "dirs", "all ns", "each ns",
              "all/each", "all mkdirs", "each mkdirs", "all creates", "each creates",
              "all fs calls", "each fs calls");
  for (const FirstSpillResult& r : results) {
    std::printf("%5d %12.0f %12.0f %8.1fx %11.2f %12.2f %12.2f %13.2f %14.2f %15.2f\n", r.dirs,
                Median(r.all_ns), Median(r.each_ns), Median(r.all_ns) / Median(r.each_ns),
                r.all_calls.mkdir, r.each_calls.mkdir, r.all_calls.create, r.each_calls.create,
                r.all_calls.total, r.each_calls.total);
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
  target->fs_type = bench::FsTypeOf(parent);
  target->parent = std::move(parent);
}

// The results as one JSON document on stdout.
void PrintBenchJson(const BenchFlags& flags, const bench::PlanBenchResults& results,
                    const std::string& fs_type, const std::string& where, double load_before,
                    double load_after) {
  nlohmann::ordered_json out;
  out["results"] = nlohmann::ordered_json::array();
  for (const ConfigResult& c : results.configs) {
    out["results"].push_back(ResultJson(c, Mode::kEager, flags.fs));
    out["results"].push_back(ResultJson(c, Mode::kLazy, flags.fs));
  }
  out["first_spill"] = nlohmann::ordered_json::array();
  for (const FirstSpillResult& r : results.first_spills)
    out["first_spill"].push_back(FirstSpillJson(r));
  out["machine"] = {{"nproc", std::thread::hardware_concurrency()},
                    {"cpu", bench::CpuModel()},
                    {"kernel", bench::Kernel()},
                    {"loadavg_before", load_before},
                    {"loadavg_after", load_after}};
  out["filesystem"] = {{"fs", flags.fs}, {"type", fs_type}};
  if (flags.fs == "posix") out["filesystem"]["dir"] = where;
  out["repetitions"] = flags.options.repetitions;
  out["batch_ms"] = flags.options.batch_ms;
  std::printf("%s\n", out.dump(2).c_str());
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

  const int max_dirs = *std::max_element(flags.options.dirs.begin(), flags.options.dirs.end());
  StatusOr<std::unique_ptr<bench::BenchArea>> area =
      bench::BenchArea::Make(target.fs, flags.fs == "posix", target.parent, max_dirs);
  if (!area.ok()) {
    // Could not work in the directory given: bad input when it was named.
    throw UsageError(
        fmt::format("cannot set up in {}: {}", target.parent, area.status().ToString()));
  }

  const double load_before = bench::LoadAverage();
  const StatusOr<bench::PlanBenchResults> results = bench::MeasurePlans(**area, flags.options);
  if (!results.ok()) {
    std::fprintf(stderr, "spillway bench: %s\n", results.status().message().c_str());
    return 1;
  }
  const double load_after = bench::LoadAverage();
  const std::string where = (*area)->base();
  area->reset();  // Removes the private directory before reporting.

  if (flags.json) {
    PrintBenchJson(flags, *results, target.fs_type, where, load_before, load_after);
  } else {
    PrintTable(results->configs,
               fmt::format("{} filesystem{} ({}); {} CPUs, {}, {}; load average {:.2f} before, "
                           "{:.2f} after",
                           flags.fs, flags.fs == "posix" ? " at " + where : "", target.fs_type,
                           std::thread::hardware_concurrency(), bench::CpuModel(), bench::Kernel(),
                           load_before, load_after),
               flags);
    PrintFirstSpillTable(results->first_spills);
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
  cmd->add_option("--dirs", flags->options.dirs, "Local dir counts to measure, comma-separated")
      ->delimiter(',')
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--threads", flags->options.threads,
                  "Thread counts building plans at once, comma-separated")
      ->delimiter(',')
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  AddFsOption(*cmd, flags->fs);
  cmd->add_option("--root", flags->root,
                  "Directory to work in (posix; default $SPILLWAY_BENCH_DIR, else the "
                  "system temp dir); a private directory is made there and removed");
  cmd->add_option("--plans", flags->options.plans,
                  "Eager plans per thread per batch, and first spills per batch (default: as "
                  "many as fill --batch-ms)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--lazy-plans", flags->options.lazy_plans,
                  "Lazy plans per thread per batch (default: as many as fill --batch-ms)")
      ->check(CLI::Range(1, 1000000000));
  cmd->add_option("--batch-ms", flags->options.batch_ms,
                  "Target length of a batch whose plan count is not given")
      ->check(CLI::Range(1, 60000))
      ->capture_default_str();
  cmd->add_option("--repetitions", flags->options.repetitions,
                  "Interleaved eager/lazy repetitions; the table shows medians")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_flag("--json", flags->json, "Print one JSON object instead of the table");
  cmd->callback([flags, &exit_code] { exit_code = RunBench(*flags); });
}

}  // namespace spillway::tools
