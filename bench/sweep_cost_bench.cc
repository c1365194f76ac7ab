// spillway_sweep_cost_bench: what a `spillway sweep -- CMD` run costs next to the program it
// runs. Two measurements, each printed as a table; it asserts nothing about speed.
//
// 1. A site sweep of the sort and SQLite engine profiles' commands (engines/sort,
//    engines/sqlite, with their options: --jobs 2 --scratch --baselines 3), made three
//    times side by side: with --trace-all --out (every run traced, as the sweep once did),
//    by default (a run planned by site judged by its rule's counters, untraced), and with
//    the profiles' --out (each violation made once more, traced, for the files kept). For
//    each, the sweep's CPU (user + system, its own and its children's, from wait4), the program
//    runs it made (its baselines and every run's attempts, from its report), the bare program's CPU
//    (median of --repeat runs, 5, just before and 5 just after each sweep) times those runs, and
//    the ratio of the two.
// 2. The fixed cost of a run: `--depth all --jobs 2` sweeps of spill_program built to spill
//    4 files (tests/program_sweep/spill_program.c) of 62 and 248 runs (--max-runs), in runs
//    per second, each followed by the bare program run as many times serially in a shell
//    loop, and then by two such loops at once (what two cores make of the bare program:
//    the most a sweep of two jobs could reach), and the sweep's rate against theirs;
//    --rounds rounds, medians printed, with the cost per run at both sizes. The bare
//    program's CPU per run is printed for one loop and for two at once: where two cores
//    do not overlap starting and ending processes, it rises with the second loop.
//
// The 1-minute load average is printed before and after: the machine may be shared.
// Usage: spillway_sweep_cost_bench [--repeat R] [--dir DIR] [--only sort|sqlite|fixed]
//            [--max-runs N] [--rounds R] [--spillway PATH]
//   --max-runs N: one fixed-cost sweep size instead of 62 and 248; --spillway: another
//   build's spillway to measure (its shim from $SPILLWAY_INJECT_LIBRARY or beside it).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench_options.h"
#include "child_run.h"
#include "spillway/bench/machine_info.h"

namespace {

namespace fs = std::filesystem;
using spillway::bench::ChildRun;
using spillway::bench::RunChild;

// The spillway measured: this build's, or --spillway's.
std::string& Spillway() {
  static std::string spillway = SPILLWAY_BINARY;
  return spillway;
}

bool OnPath(const std::string& program) {
  return std::system(("command -v " + program + " >/dev/null 2>&1").c_str()) == 0;
}

std::string Quote(const std::string& word) {
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? -1 : v[v.size() / 2];
}

// `command` with each {dir} in a word replaced by `dir`.
std::vector<std::string> WithDir(const std::vector<std::string>& command, const std::string& dir) {
  std::vector<std::string> out;
  for (std::string word : command) {
    for (size_t at = word.find("{dir}"); at != std::string::npos; at = word.find("{dir}", at)) {
      word.replace(at, 5, dir);
      at += dir.size();
    }
    out.push_back(word);
  }
  return out;
}

// A sweep run as a child with its JSON report in a file: what wait4 says and the report.
// NOLINTNEXTLINE(bugprone-exception-escape): json's noexcept move and destructor look throwing.
struct SweepRun {
  ChildRun child;
  nlohmann::json report;
  int runs = 0;  // Program runs: baselines + every run's attempts.
};

SweepRun Sweep(const fs::path& work, const std::vector<std::string>& options, int baselines,
               const std::vector<std::string>& command) {
  const fs::path scope = work / "scope";
  const fs::path report = work / "report.json";
  fs::remove_all(work);
  fs::create_directories(scope);
  // The report goes to a file; exec keeps the measured process the sweep itself.
  std::vector<std::string> argv = {
      "sh",           "-c",    "exec \"$0\" \"$@\" >" + Quote(report.string()),
      Spillway(),     "sweep", "--under",
      scope.string(), "--json"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("--");
  argv.insert(argv.end(), command.begin(), command.end());
  SweepRun run;
  run.child = RunChild(argv);
  std::ifstream in(report);
  run.report = nlohmann::json::parse(in, nullptr, false);
  if (!run.report.is_object()) return run;
  run.runs = baselines;
  for (const nlohmann::json& r : run.report["runs"]) {
    run.runs += r.value("attempts", 1);
    // A kill run's restart is one more run of a program.
    if (r.contains("restart") && r["restart"].is_object()) ++run.runs;
  }
  return run;
}

// The CPU of `repeat` bare runs of `command`, each in a fresh directory; failed runs are left
// out.
std::vector<double> BareCpu(const fs::path& work, const std::vector<std::string>& command,
                            int repeat) {
  std::vector<double> cpu;
  for (int r = 0; r < repeat; ++r) {
    const fs::path dir = work / ("bare-" + std::to_string(r));
    fs::create_directories(dir);
    const ChildRun run = RunChild(WithDir(command, dir.string()));
    if (run.exit_code == 0) cpu.push_back(run.cpu_seconds);
    fs::remove_all(dir);
  }
  return cpu;
}

void SiteSweeps(const std::string& name, const fs::path& work,
                const std::vector<std::string>& command, int repeat) {
  std::printf("\n%s: bare CPU: the median of %d runs just before and %d just after each sweep\n",
              name.c_str(), repeat, repeat);
  std::printf("%-12s %6s %10s %12s %8s %12s %9s\n", "sweep", "runs", "wall s", "sweep cpu s",
              "bare ms", "runs×bare s", "× bare");
  const int baselines = 3;
  const std::vector<std::string> profile = {"--jobs", "2", "--scratch", "--baselines", "3"};
  const std::string out = (work / "out").string();
  // Every run traced, as the sweep once did; the site sweep as it runs (runs by site
  // untraced); and with the profiles' --out, which makes each violation once more, traced.
  const struct {
    const char* label;
    std::vector<std::string> options;
  } kinds[] = {
      {"--trace-all", {"--trace-all", "--out", out}}, {"default", {}}, {"--out", {"--out", out}}};
  for (const auto& kind : kinds) {
    // The bare program measured just before and just after each sweep, so that the
    // machine's speed at the time weighs on both sides of their ratio.
    std::vector<double> bare_cpu = BareCpu(work, command, repeat);
    std::vector<std::string> options = profile;
    options.insert(options.end(), kind.options.begin(), kind.options.end());
    const SweepRun run = Sweep(work / "sweep", options, baselines, command);
    fs::remove_all(out);
    const std::vector<double> after = BareCpu(work, command, repeat);
    bare_cpu.insert(bare_cpu.end(), after.begin(), after.end());
    const double bare = Median(bare_cpu);
    if (bare < 0) {
      std::printf("%-12s the bare command failed\n", kind.label);
      continue;
    }
    if (run.runs == 0) {
      std::printf("%-12s sweep failed (exit %d)\n", kind.label, run.child.exit_code);
      continue;
    }
    const double sum = bare * run.runs;
    std::printf("%-12s %6d %10.1f %12.2f %8.1f %12.2f %9.2f\n", kind.label, run.runs,
                run.child.wall_seconds, run.child.cpu_seconds, bare * 1e3, sum,
                run.child.cpu_seconds / sum);
  }
  fs::remove_all(work);
}

// One round of the fixed-cost measurement at one sweep size: the sweep, then the bare
// program run as many times serially, then two such loops at once, back to back so that
// the machine's load weighs on all alike. The two loops at once are the most a sweep of two
// jobs could make of two cores: exec and the page tables of short-lived processes may not
// scale with the cores as computation does (on a virtual machine, say).
struct FixedRound {
  int runs = 0;  // Program runs of the sweep, restarts included; each bare loop's too.
  ChildRun sweep;
  ChildRun bare;
  ChildRun pair;  // Two bare loops at once, each of `runs` runs.
};

// A shell loop running the bare program `runs` times in `dir`, stopping at a failure.
std::string BareLoop(int runs, const fs::path& dir) {
  return "i=0; while [ $i -lt " + std::to_string(runs) + " ]; do " + Quote(SPILLWAY_SPILL_PROGRAM) +
         " " + Quote(dir.string()) + " >/dev/null || exit 1; i=$((i+1)); done";
}

FixedRound FixedCostRound(const fs::path& work, int max_runs) {
  for (const char* dir : {"bare", "bare2"}) fs::create_directories(work / dir);
  const std::vector<std::string> options = {"--depth", "all",        "--jobs",
                                            "2",       "--max-runs", std::to_string(max_runs)};
  const SweepRun sweep = Sweep(work / "sweep", options, 1, {SPILLWAY_SPILL_PROGRAM, "{dir}"});
  FixedRound round;
  round.runs = sweep.runs;
  round.sweep = sweep.child;
  if (sweep.runs == 0) return round;
  round.bare = RunChild({"sh", "-c", BareLoop(sweep.runs, work / "bare")});
  round.pair = RunChild({"sh", "-c",
                         "(" + BareLoop(sweep.runs, work / "bare") + ") & a=$!; (" +
                             BareLoop(sweep.runs, work / "bare2") +
                             ") & b=$!; wait $a; a=$?; wait $b && [ $a -eq 0 ]"});
  fs::remove_all(work);
  return round;
}

// The fixed cost of a run: `rounds` rounds, each a sweep of every size in `sizes` (its
// --max-runs) and the bare loop right after it. Prints, per size, the medians over the
// rounds: runs per second of both, their ratio (the median of each round's ratio), and
// the wall and CPU milliseconds per run, which stay flat as the sweep grows when a run's
// cost does not depend on how many came before it.
void FixedCost(const fs::path& work, const std::vector<int>& sizes, int rounds) {
  std::printf("\nfixed cost: spill_program (4 files), --depth all --jobs 2, %d round(s)\n", rounds);
  std::vector<std::vector<FixedRound>> by_size(sizes.size());
  for (int r = 0; r < rounds; ++r) {
    for (size_t i = 0; i < sizes.size(); ++i) {
      by_size[i].push_back(FixedCostRound(work, sizes[i]));
    }
  }
  std::printf("%-10s %6s %10s %10s %10s %10s %10s %12s %12s %12s %12s\n", "max-runs", "runs",
              "sweep/s", "bare/s", "2 bare/s", "sweep/bare", "2 bare/bare", "sweep ms/run",
              "sweep cpu ms", "bare cpu ms", "2 bare cpu ms");
  double last_ratio = -1;
  double last_ceiling = -1;
  double last_of_pair = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    std::vector<double> sweep_rate, bare_rate, pair_rate, ratio, ceiling, of_pair, wall_ms, cpu_ms,
        bare_cpu_ms, pair_cpu_ms;
    int runs = 0;
    for (const FixedRound& round : by_size[i]) {
      if (round.runs == 0 || round.bare.exit_code != 0 || round.pair.exit_code != 0) continue;
      runs = round.runs;
      sweep_rate.push_back(round.runs / round.sweep.wall_seconds);
      bare_rate.push_back(round.runs / round.bare.wall_seconds);
      pair_rate.push_back(2 * round.runs / round.pair.wall_seconds);
      ratio.push_back(sweep_rate.back() / bare_rate.back());
      ceiling.push_back(pair_rate.back() / bare_rate.back());
      of_pair.push_back(sweep_rate.back() / pair_rate.back());
      wall_ms.push_back(round.sweep.wall_seconds * 1e3 / round.runs);
      cpu_ms.push_back(round.sweep.cpu_seconds * 1e3 / round.runs);
      bare_cpu_ms.push_back(round.bare.cpu_seconds * 1e3 / round.runs);
      pair_cpu_ms.push_back(round.pair.cpu_seconds * 1e3 / (2 * round.runs));
    }
    if (ratio.empty()) {
      std::printf("%-10d sweep or a bare loop failed\n", sizes[i]);
      continue;
    }
    last_ratio = Median(ratio);
    last_ceiling = Median(ceiling);
    last_of_pair = Median(of_pair);
    std::printf("%-10d %6d %10.1f %10.1f %10.1f %10.2f %10.2f %12.2f %12.2f %12.2f %12.2f\n",
                sizes[i], runs, Median(sweep_rate), Median(bare_rate), Median(pair_rate),
                last_ratio, last_ceiling, Median(wall_ms), Median(cpu_ms), Median(bare_cpu_ms),
                Median(pair_cpu_ms));
  }
  // The smoke test and docs/performance.md read these lines: the largest sweep's ratios.
  if (last_ratio < 0) return;
  std::printf("sweep / bare runs per second: %.2f\n", last_ratio);
  std::printf("two bare loops at once / one: %.2f (the most a sweep of 2 jobs could reach)\n",
              last_ceiling);
  std::printf("sweep / two bare loops at once: %.2f\n", last_of_pair);
}

int Main(int argc, char** argv) {
  int repeat = 5;
  int rounds = 3;
  std::vector<int> sizes = {62, 248};
  std::string only;
  fs::path dir = fs::temp_directory_path() / "spillway-sweep-cost-bench";
  CLI::App app{"What a `spillway sweep -- CMD` run costs next to the program it runs",
               "spillway_sweep_cost_bench"};
  app.add_option("--repeat", repeat, "Bare runs before and after each site sweep")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--rounds", rounds, "Rounds of the fixed-cost sweeps")
      ->check(CLI::Range(1, 1000000));
  int max_runs = 0;
  app.add_option("--max-runs", max_runs, "One fixed-cost sweep size instead of 62 and 248")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--only", only, "One part only")
      ->check(CLI::IsMember({"sort", "sqlite", "fixed"}));
  app.add_option("--dir", dir, "Where the runs are made");
  app.add_option("--spillway", Spillway(),
                 "Another build's spillway (its shim from $SPILLWAY_INJECT_LIBRARY or beside it)");
  if (const std::optional<int> status = spillway::bench::ParseOptions(app, argc, argv)) {
    return *status;
  }
  if (max_runs > 0) sizes = {max_runs};
  std::printf("load average before: %.2f\n", spillway::bench::LoadAverage());
  if (only.empty() || only == "sort") {
    if (OnPath("sort")) {
      fs::create_directories(dir);
      const fs::path input = dir / "sort-input.txt";
      // engines/sort/sweep.sh's input: 200,000 lines shuffled the same way every time.
      std::system(
          ("seq 1 200000 | sort -R --random-source=/dev/zero > " + Quote(input.string())).c_str());
      SiteSweeps("sort (engines/sort)", dir / "sort",
                 {"sort", "-S", "100K", "--parallel=1", "-T", "{dir}", input.string()}, repeat);
    } else {
      std::printf("\nsort: not installed\n");
    }
  }
  if (only.empty() || only == "sqlite") {
    if (OnPath("sqlite3")) {
      // engines/sqlite/sweep.sh's query: its sorter spills to SQLITE_TMPDIR.
      const std::string sql =
          "PRAGMA cache_size=20; PRAGMA temp_store=FILE;\n"
          "CREATE TEMP TABLE t AS WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c "
          "WHERE i<40000)\n  SELECT (i*7919)%40000 AS k, printf('%096d', i) AS v FROM c;\n"
          "SELECT k, substr(v, 90) FROM t ORDER BY v DESC;";
      SiteSweeps("sqlite (engines/sqlite)", dir / "sqlite",
                 {"env", "SQLITE_TMPDIR={dir}", "sqlite3", ":memory:", sql}, repeat);
    } else {
      std::printf("\nsqlite: sqlite3 not installed\n");
    }
  }
  if (only.empty() || only == "fixed") FixedCost(dir / "fixed", sizes, rounds);
  std::printf("\nload average after: %.2f\n", spillway::bench::LoadAverage());
  fs::remove_all(dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each line as it is measured, even when piped
  return spillway::bench::RunMain("spillway_sweep_cost_bench", Main, argc, argv);
}
