// spillway_bench: the Google Benchmark suite.
//
// Usage: spillway_bench [--spillway_bench_dir=DIR] [--benchmark_... flags]
// The POSIX benchmarks work in a private directory made under DIR (default: the
// environment variable SPILLWAY_BENCH_DIR, else the system temp dir) and removed at exit.
#include <benchmark/benchmark.h>

#include <string>
#include <string_view>

#include "bench_env.h"

int main(int argc, char** argv) {
  constexpr std::string_view kDirFlag = "--spillway_bench_dir=";
  // Takes our flag out of argv before Google Benchmark reads the rest.
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.substr(0, kDirFlag.size()) == kDirFlag) {
      spillway::bench::SetBenchDir(std::string(arg.substr(kDirFlag.size())));
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  const bool removed = spillway::bench::RemoveBenchDirs();
  // A benchmark that failed (SkipWithError) fails the run, so bench-smoke notices.
  return removed && !spillway::bench::AnyFailed() ? 0 : 1;
}
