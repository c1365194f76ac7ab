// spillway_inject_bench: what `spillway inject` adds to a spilling program, next to the
// tools it is measured against. One run of GNU sort (`sort -S 100K --parallel=1 -T DIR`
// of shuffled lines) in ten ways: bare; under the shim with no rules; with an armed rule
// that never fires; tracing with site recording turned off (SPILLWAY_INJECT_SITES=0, the
// trace as it was before call sites); tracing with sites (the default); the same with
// --no-symbolize (the frames left bare); tracing with sites and the site caches off
// (SPILLWAY_INJECT_SITE_CACHE=0: every call unwound); with an armed site rule that never fires
// (every call's site is recorded and matched); under libfiu's fiu-run with a write fault point
// enabled at probability 0; under strace with a write injection that never comes. Each is repeated,
// in rotating order, and the table gives the median wall time, its ratio to bare, the time it adds,
// and the median CPU time (user + system, the run's own and its children's), which a busy machine
// disturbs less than wall time. It prints; it asserts nothing about speed.
//
// Usage: spillway_inject_bench [--lines N] [--repeat R] [--dir DIR]
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "bench_options.h"
#include "child_run.h"

namespace {

namespace fs = std::filesystem;

struct Config {
  std::string name;
  std::vector<std::string> prefix;  // Put before the sort command; empty for bare.
  bool available = true;
};

bool OnPath(const std::string& program) {
  return std::system(("command -v " + program + " >/dev/null 2>&1").c_str()) == 0;
}

void WriteShuffledLines(const fs::path& path, int lines) {
  std::ofstream out(path);
  uint64_t x = 88172645463325252ULL;
  for (int i = 0; i < lines; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    out << (x % 1000000007ULL) << " row " << i << "\n";
  }
}

std::vector<Config> Configs(const std::string& spillway, const std::string& dir,
                            const std::string& trace) {
  const std::vector<std::string> inject = {spillway, "inject", "--under", dir};
  const auto with = [&inject](std::vector<std::string> env, std::vector<std::string> args) {
    std::vector<std::string> command;
    if (!env.empty()) command.push_back("env");
    command.insert(command.end(), env.begin(), env.end());
    command.insert(command.end(), inject.begin(), inject.end());
    command.insert(command.end(), args.begin(), args.end());
    command.push_back("--");
    return command;
  };
  const std::vector<std::string> traced = {"--trace", trace};
  std::vector<Config> configs = {
      {"bare", {}},
      {"shim, no rules", with({}, {})},
      {"shim, armed rule", with({}, {"--fault", "write ENOSPC after=1000000000"})},
      {"trace, no sites", with({"SPILLWAY_INJECT_SITES=0"}, traced)},
      {"trace, sites", with({}, traced)},
      {"trace, sites, bare", with({}, {"--trace", trace, "--no-symbolize"})},
      {"trace, sites uncached", with({"SPILLWAY_INJECT_SITE_CACHE=0"}, traced)},
      // A site no call has: every call's site is recorded and compared.
      {"shim, site rule", with({}, {"--fault", "write ENOSPC site=ffffffffffff times=forever"})},
      {"fiu-run, p=0",
       {"fiu-run", "-x", "-c", "enable_random name=posix/io/rw/write,probability=0"}},
      {"strace --inject",
       {"strace", "-f", "--seccomp-bpf", "-o", "/dev/null", "-e",
        "inject=write:error=ENOSPC:when=65535"}},
  };
  configs[8].available = OnPath("fiu-run");
  configs[9].available = OnPath("strace");
  return configs;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? -1 : v[v.size() / 2];
}

int Main(int argc, char** argv) {
  int lines = 200000, repeat = 7;
  fs::path dir = fs::temp_directory_path() / "spillway-inject-bench";
  CLI::App app{"What `spillway inject` adds to a spilling program (GNU sort)",
               "spillway_inject_bench"};
  app.add_option("--lines", lines, "Lines sorted")->check(CLI::Range(1, 100000000));
  app.add_option("--repeat", repeat, "Runs of each way")->check(CLI::Range(1, 1000));
  app.add_option("--dir", dir, "Where the runs are made");
  if (const std::optional<int> status = spillway::bench::ParseOptions(app, argc, argv)) {
    return *status;
  }
  fs::create_directories(dir / "spill");
  WriteShuffledLines(dir / "input", lines);
  const std::vector<Config> configs =
      Configs(SPILLWAY_BINARY, (dir / "spill").string(), (dir / "trace.jsonl").string());
  const std::vector<std::string> sort = {"sort",
                                         "-S",
                                         "100K",
                                         "--parallel=1",
                                         "-T",
                                         (dir / "spill").string(),
                                         (dir / "input").string()};
  std::vector<std::vector<double>> times(configs.size()), cpu(configs.size());
  for (int r = 0; r < repeat; ++r) {
    for (size_t k = 0; k < configs.size(); ++k) {
      const size_t i = (k + static_cast<size_t>(r)) % configs.size();  // Rotate the order.
      if (!configs[i].available) continue;
      std::vector<std::string> command = configs[i].prefix;
      command.insert(command.end(), sort.begin(), sort.end());
      const spillway::bench::ChildRun run = spillway::bench::RunChild(command);
      if (run.exit_code != 0) continue;
      times[i].push_back(run.wall_seconds);
      cpu[i].push_back(run.cpu_seconds);
    }
  }
  const double bare = Median(times[0]);
  const double bare_cpu = Median(cpu[0]);
  std::printf("sort -S 100K --parallel=1 of %d shuffled lines, median of %d runs\n", lines, repeat);
  std::printf("%-22s %10s %8s %10s %10s %8s\n", "run", "wall ms", "× bare", "added ms", "cpu ms",
              "× bare");
  for (size_t i = 0; i < configs.size(); ++i) {
    const double t = Median(times[i]);
    if (t < 0) {
      std::printf("%-22s %10s\n", configs[i].name.c_str(),
                  configs[i].available ? "failed" : "not installed");
      continue;
    }
    const double c = Median(cpu[i]);
    std::printf("%-22s %10.1f %8.3f %10.1f %10.1f %8.3f\n", configs[i].name.c_str(), t * 1e3,
                t / bare, (t - bare) * 1e3, c * 1e3, c / bare_cpu);
  }
  fs::remove_all(dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return spillway::bench::RunMain("spillway_inject_bench", Main, argc, argv);
}
