// Whether `spillway sweep -- CMD` holds memory independent of the runs it makes: sweeps of
// a trivial program (spillway_sweep_memory_program: one call site, WRITES writes) with
// --depth all --op write and every errno a write can return, sampled to each of --runs (2,000 and
// 20,000 by default, from one plan of 16 runs per write: 8 errnos x 2 modes), writing --json and
// --junit, one after the other; prints each sweep's runs (from its JUnit file), wall time and peak
// resident memory (wait4's ru_maxrss: the sweep process or the largest process it waited for), and
// the ratio of each peak to the first. A sweep that grew with its runs shows as a ratio above
// 1. It asserts nothing. docs/performance.md has the figures.
// Usage: spillway_sweep_memory_bench [--runs N,N,...] [--jobs J] [--dir DIR] [--spillway PATH]
#include <stdlib.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "bench_options.h"
#include "child_run.h"

namespace {

namespace fs = std::filesystem;

// Every errno a write can return (vfs/fault_rules.cc): the plan has 8 x 2 modes = 16 runs
// per write of the program, so that its runs stay short.
constexpr const char* kWriteErrnos = "EAGAIN,EDQUOT,EFBIG,EINTR,EINVAL,EIO,ENOSPC,EPERM";
constexpr long kRunsPerWrite = 16;

// The tests="N" of a JUnit file; -1 when there is none.
long JunitTests(const fs::path& file) {
  std::ifstream in(file);
  std::string head(512, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  const size_t at = head.find(" tests=\"");
  return at == std::string::npos ? -1 : std::atol(head.c_str() + at + 8);
}

struct Options {
  std::vector<long> runs = {2000, 20000};
  long jobs = 2;
  std::string dir = fs::temp_directory_path().string();
  std::string spillway = SPILLWAY_BINARY;
};

// The options from the command line; the exit status to end with on --help or bad input.
std::optional<int> ParseCommandLine(int argc, char** argv, Options* options) {
  CLI::App app{"Whether `spillway sweep -- CMD` holds memory independent of the runs it makes",
               "spillway_sweep_memory_bench"};
  app.add_option("--runs", options->runs, "The sweeps' sizes, in runs")
      ->delimiter(',')
      ->check(CLI::Range(1L, 100000000L));
  app.add_option("--jobs", options->jobs, "The sweeps' --jobs")->check(CLI::Range(1L, 256L));
  app.add_option("--dir", options->dir, "Where the sweeps run");
  app.add_option("--spillway", options->spillway, "Another build's spillway");
  return spillway::bench::ParseOptions(app, argc, argv);
}

// One sweep sampled to `n` runs of a program making `writes` writes; prints its row and
// returns false when the sweep itself failed. `first_peak` is set by the first sweep.
bool SweepOnce(const Options& options, const fs::path& work, long n, long writes,
               double* first_peak) {
  const fs::path junit = work / "sweep.xml";
  const spillway::bench::ChildRun sweep = spillway::bench::RunChild({options.spillway,
                                                                     "sweep",
                                                                     "--under",
                                                                     (work / "scope").string(),
                                                                     "--depth",
                                                                     "all",
                                                                     "--op",
                                                                     "write",
                                                                     "--errno",
                                                                     kWriteErrnos,
                                                                     "--jobs",
                                                                     std::to_string(options.jobs),
                                                                     "--max-runs",
                                                                     std::to_string(n),
                                                                     "--json",
                                                                     "--junit",
                                                                     junit.string(),
                                                                     "--",
                                                                     SPILLWAY_SWEEP_PROGRAM,
                                                                     "{dir}",
                                                                     std::to_string(writes)});
  const long made = JunitTests(junit);
  if (sweep.exit_code != 0 && sweep.exit_code != 1) {
    std::printf("%10ld  the sweep failed (exit %d)\n", n, sweep.exit_code);
    return false;
  }
  if (*first_peak == 0) *first_peak = sweep.peak_rss_mb;
  std::printf("%10ld %10.1f %10.1f %14.1f %10.2f\n", made, sweep.wall_seconds,
              static_cast<double>(made) / sweep.wall_seconds, sweep.peak_rss_mb,
              sweep.peak_rss_mb / *first_peak);
  return true;
}

int Main(int argc, char** argv) {
  Options options;
  if (const std::optional<int> status = ParseCommandLine(argc, argv, &options)) return *status;
  std::error_code ec;
  fs::create_directories(options.dir, ec);
  std::string work = options.dir + "/sweep-memory-bench-XXXXXX";
  if (mkdtemp(work.data()) == nullptr) {
    std::fprintf(stderr, "spillway_sweep_memory_bench: cannot make a directory in %s\n",
                 options.dir.c_str());
    return 2;
  }
  fs::create_directories(fs::path(work) / "scope");
  const long most = *std::max_element(options.runs.begin(), options.runs.end());
  const long writes = (most + kRunsPerWrite - 1) / kRunsPerWrite;
  double load[3] = {0, 0, 0};
  getloadavg(load, 3);
  std::printf(
      "sweep memory: spillway sweep --depth all --op write --errno (all 8) --jobs %ld --json "
      "--junit of a program making %ld writes from one site (a plan of %ld runs), sampled "
      "with --max-runs; %ld CPUs, load average %.2f\n",
      options.jobs, writes, writes * kRunsPerWrite, sysconf(_SC_NPROCESSORS_ONLN), load[0]);
  std::printf("%10s %10s %10s %14s %10s\n", "runs", "seconds", "runs/s", "peak RSS MB", "vs first");
  double first_peak = 0;
  int failed = 0;
  for (const long n : options.runs) {
    if (!SweepOnce(options, fs::path(work), n, writes, &first_peak)) ++failed;
  }
  fs::remove_all(work, ec);
  return failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return spillway::bench::RunMain("spillway_sweep_memory_bench", Main, argc, argv);
}
