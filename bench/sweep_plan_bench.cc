// How soon `spillway sweep -- CMD` can make its first run after the baseline, for a plan
// of 1,000,000 runs (--depth all over 250,000 in-scope calls x 2 errnos x 2 modes), and
// that streaming the whole plan holds no more memory than its first run did. Prints a
// table; asserts nothing. docs/performance.md has the figures.
// Usage: spillway_sweep_plan_bench [--calls N] [--sites S] [--dir DIR]
#include <stdlib.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "baseline.h"
#include "bench_options.h"
#include "run_plan.h"
#include "trace_reader.h"

namespace {

using spillway::program_sweep::Baseline;
using spillway::program_sweep::Depth;
using spillway::program_sweep::RunPlan;
using spillway::program_sweep::RunSpec;
using Clock = std::chrono::steady_clock;

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Resident memory in MB, from /proc/self/statm.
double ResidentMb() {
  long pages = 0;
  long resident = 0;
  std::ifstream("/proc/self/statm") >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1e6;
}

// A trace as `spillway inject --trace` writes it: `calls` writes from `sites` sites, each
// site's frames listed once.
void WriteTrace(const std::string& path, const std::string& scope, long calls, long sites) {
  std::ofstream out(path);
  for (long i = 0; i < calls; ++i) {
    char site[17];
    std::snprintf(site, sizeof(site), "%012lx", i % sites);
    if (i < sites) {
      out << "{\"site\":\"" << site << "\",\"frames\":[\"engine+0x" << std::hex << 4096 + i
          << std::dec << " Spill\",\"libc.so.6+0x29d90\"]}\n";
    }
    out << "{\"seq\":" << i + 1 << ",\"pid\":7,\"tid\":7,\"op\":\"write\",\"call\":\"write\","
        << "\"path\":\"" << scope << "/spill-" << i % 97 << "\",\"result\":0,\"errno\":null,"
        << "\"injected\":false,\"site\":\"" << site << "\"}\n";
  }
}

void Measure(const std::string& trace, const std::string& scope, Depth depth) {
  const double before = ResidentMb();
  const auto start = Clock::now();
  Baseline baseline;
  baseline.trace = trace;
  baseline.scope = scope;
  baseline.with_dir = true;
  if (!spillway::program_sweep::ScanBaselineTrace("trace", -1, &baseline).ok()) {
    std::printf("cannot read %s\n", trace.c_str());
    return;
  }
  const double scanned = Since(start);
  spillway::program_sweep::PlanOptions options;
  options.depth = depth;
  // The errno modes only, as the figures in docs/performance.md were measured.
  options.modes = {spillway::vocab::FaultMode::kTransient, spillway::vocab::FaultMode::kPersistent};
  RunPlan plan(baseline, options, [&baseline]() -> spillway::program_sweep::CallSource {
    auto reader = std::make_shared<spillway::program_sweep::TraceReader>(
        baseline.trace, 0, baseline.scope, true, nullptr);
    return [reader](spillway::program_sweep::TracedCall* call) { return reader->Next(call); };
  });
  RunSpec spec;
  const bool any = plan.Next(&spec);
  const double first = Since(start);
  const double at_first = ResidentMb();
  uint64_t runs = any ? 1 : 0;
  while (plan.Next(&spec)) ++runs;
  const double whole = Since(start);
  std::printf(
      "depth %-5s  %8llu runs  first run after %.3f s (baseline read %.3f s)  whole plan "
      "streamed in %.2f s  resident %.1f MB before, %.1f MB at the first run, %.1f MB at the "
      "end\n",
      std::string(spillway::program_sweep::DepthName(plan.depth())).c_str(),
      static_cast<unsigned long long>(runs), first, scanned, whole, before, at_first, ResidentMb());
}

int Main(int argc, char** argv) {
  long calls = 250000;
  long sites = 1000;
  std::string dir = std::filesystem::temp_directory_path().string();
  CLI::App app{"What planning a sweep from a large baseline trace costs",
               "spillway_sweep_plan_bench"};
  app.add_option("--calls", calls, "The trace's calls")->check(CLI::Range(1L, 100000000L));
  app.add_option("--sites", sites, "The trace's call sites")->check(CLI::Range(1L, 100000000L));
  app.add_option("--dir", dir, "Where the trace is written");
  if (const std::optional<int> status = spillway::bench::ParseOptions(app, argc, argv)) {
    return *status;
  }
  std::filesystem::create_directories(dir);
  std::string work = dir + "/sweep-plan-bench-XXXXXX";
  if (mkdtemp(work.data()) == nullptr) {
    std::fprintf(stderr, "spillway_sweep_plan_bench: cannot make a directory in %s\n", dir.c_str());
    return 2;
  }
  const std::string trace = work + "/baseline.trace";
  const std::string scope = work + "/scope";
  WriteTrace(trace, scope, calls, sites);
  double load[3] = {0, 0, 0};
  getloadavg(load, 3);
  std::printf(
      "sweep plan: %ld in-scope calls from %ld sites, %.1f MB of trace; %ld CPUs, "
      "load average %.2f\n",
      calls, sites, static_cast<double>(std::filesystem::file_size(trace)) / 1e6,
      sysconf(_SC_NPROCESSORS_ONLN), load[0]);
  Measure(trace, scope, Depth::kAll);
  Measure(trace, scope, Depth::kFirst);
  std::filesystem::remove_all(work);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return spillway::bench::RunMain("spillway_sweep_plan_bench", Main, argc, argv);
}
