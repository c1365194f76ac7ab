// spillway_simulate_bench: whether a step of the seeded simulation (`spillway simulate`,
// spillway/model/simulate.h) costs the same late in a run as early on. It runs
// model::Simulate with `spillway simulate --fs mem --seed S --steps N --jobs 1`'s settings
// for each N (25,000, 100,000 and 400,000 by default), one after the other in this
// process, and prints, side by side, each run's CPU time (user + system of the process's
// threads, CLOCK_PROCESS_CPUTIME_ID around the call), steps per CPU second, CPU
// microseconds per step and that figure's ratio to the first run's. A cost that grows
// with the run shows as a ratio above 1 at the longer runs. It prints; it asserts nothing
// about speed.
//
// Usage: spillway_simulate_bench [--steps N,N,...] [--seed S] [--repeat R]
// With --repeat R each size runs R times, in rotating order, and the table gives the
// median CPU time of each size.
#include <time.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "bench_options.h"
#include "spillway/model/simulate.h"
#include "spillway/scenario/scenario.h"
#include "spillway/vfs/status.h"

namespace {

// The CPU seconds (user + system) this process's threads have used so far.
double CpuSeconds() {
  timespec now{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// The CPU seconds of one simulation of `steps` steps of `seed`; negative when it could
// not run or found a violation (`spillway simulate` would not have exited 0).
double RunSimulate(uint64_t steps, uint64_t seed) {
  spillway::model::SimulateOptions options;
  options.fs = spillway::scenario::FsKind::kMem;
  options.seed = seed;
  options.steps = steps;
  options.jobs = 1;
  const double before = CpuSeconds();
  const spillway::StatusOr<spillway::model::SimulateResult> result =
      spillway::model::Simulate(options);
  const double seconds = CpuSeconds() - before;
  if (!result.ok()) {
    std::fprintf(stderr, "spillway_simulate_bench: %s\n", result.status().ToString().c_str());
    return -1;
  }
  for (const spillway::model::SeedResult& r : result->runs) {
    if (r.violation || !r.side_effects.empty()) return -1;
  }
  return seconds;
}

int Main(int argc, char** argv) {
  std::vector<uint64_t> steps = {25000, 100000, 400000};
  uint64_t seed = 1;
  int repeat = 1;
  CLI::App app{"Whether a step of `spillway simulate` costs the same late in a run as early on",
               "spillway_simulate_bench"};
  app.add_option("--steps", steps, "The runs' lengths, in steps")
      ->delimiter(',')
      ->check(CLI::Range(uint64_t{1}, uint64_t{1000000000}));
  app.add_option("--seed", seed, "The simulation's seed");
  app.add_option("--repeat", repeat, "Runs of each length")->check(CLI::Range(1, 1000));
  if (const std::optional<int> status = spillway::bench::ParseOptions(app, argc, argv)) {
    return *status;
  }
  std::vector<std::vector<double>> cpu(steps.size());
  for (int r = 0; r < repeat; ++r) {
    for (size_t k = 0; k < steps.size(); ++k) {
      const size_t i = (k + static_cast<size_t>(r)) % steps.size();
      const double seconds = RunSimulate(steps[i], seed);
      if (seconds < 0) {
        std::fprintf(stderr, "spillway_simulate_bench: simulate --steps %llu failed\n",
                     static_cast<unsigned long long>(steps[i]));
        return 1;
      }
      cpu[i].push_back(seconds);
    }
  }
  std::printf("spillway simulate --fs mem --seed %llu --jobs 1, median of %d\n",
              static_cast<unsigned long long>(seed), repeat);
  std::printf("%10s %10s %12s %12s %10s\n", "steps", "cpu s", "steps/s", "us/step", "vs first");
  double first = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    std::sort(cpu[i].begin(), cpu[i].end());
    const double seconds = cpu[i][cpu[i].size() / 2];
    const double per_step = seconds * 1e6 / static_cast<double>(steps[i]);
    if (i == 0) first = per_step;
    std::printf("%10llu %10.2f %12.0f %12.2f %10.2f\n", static_cast<unsigned long long>(steps[i]),
                seconds, static_cast<double>(steps[i]) / seconds, per_step, per_step / first);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return spillway::bench::RunMain("spillway_simulate_bench", Main, argc, argv);
}
