// `spillway sweep [OPTIONS] -- CMD`: fails each planned in-scope file call of an unmodified
// program in turn (cmdsweep/, docs/sweep.md), and `spillway sweep merge`, which joins the
// reports of its shards. `spillway sweep` without `--` is sweep_command.cc.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "spillway/cmdsweep/cmd_sweep.h"
#include "spillway/cmdsweep/report.h"
#include "spillway/vfs/fault_rules.h"
#include "spillway/vfs/status.h"

namespace spillway::tools {
namespace {

// Sweeps with fewer runs print no progress.
constexpr uint64_t kProgressMinRuns = 20;
// Off a terminal, a progress line at least this often (and at every tenth of the plan).
constexpr double kProgressEverySeconds = 30;

struct CmdSweepArgs {
  std::string under;
  std::vector<std::string> errnos;
  std::vector<std::string> ops;
  std::string mode = "both";
  std::string shard;
  int shard_count = 0;  // --shard-count, with JOB_COMPLETION_INDEX.
  std::string depth = "first";
  std::string compare = "stdout";
  std::string junit;
  bool json = false;
  cmdsweep::CmdSweepOptions options;
};

// A 0-based shard index or count from the environment variable `name`: false when it is
// not a number in [min, max).
bool EnvNumber(const char* name, long min, long max, long* value) {
  const char* text = std::getenv(name);
  char* end = nullptr;
  *value = std::strtol(text, &end, 10);
  return *text != '\0' && *end == '\0' && *value >= min && *value < max;
}

bool HasEnv(const char* name) { return std::getenv(name) != nullptr; }

// --shard K/N; without it Bazel's or GoogleTest's sharding variables, or a Kubernetes
// Indexed Job's JOB_COMPLETION_INDEX with --shard-count N. Throws UsageError.
void ChooseShard(CmdSweepArgs& args) {
  cmdsweep::CmdSweepOptions& options = args.options;
  if (!args.shard.empty()) {
    int k = 0;
    int n = 0;
    char extra = 0;
    if (std::sscanf(args.shard.c_str(), "%d/%d%c", &k, &n, &extra) != 2 || n < 1 || k < 1 ||
        k > n) {
      throw UsageError("--shard " + args.shard + ": K/N with 1 <= K <= N");
    }
    if (args.shard_count != 0) throw UsageError("--shard and --shard-count: give one of them");
    options.shard_index = k;
    options.shard_count = n;
    return;
  }
  const char* total_var = nullptr;
  const char* index_var = nullptr;
  long total = 0;
  if (args.shard_count != 0) {
    total_var = "--shard-count";
    index_var = "JOB_COMPLETION_INDEX";
    total = args.shard_count;
    if (!HasEnv(index_var))
      throw UsageError("--shard-count needs JOB_COMPLETION_INDEX (an Indexed Job's)");
  } else if (HasEnv("TEST_TOTAL_SHARDS") || HasEnv("TEST_SHARD_INDEX")) {
    total_var = "TEST_TOTAL_SHARDS";
    index_var = "TEST_SHARD_INDEX";
  } else if (HasEnv("GTEST_TOTAL_SHARDS") || HasEnv("GTEST_SHARD_INDEX")) {
    total_var = "GTEST_TOTAL_SHARDS";
    index_var = "GTEST_SHARD_INDEX";
  } else {
    return;
  }
  if (args.shard_count == 0 && (!HasEnv(total_var) || !EnvNumber(total_var, 1, INT_MAX, &total))) {
    throw UsageError(std::string(total_var) + ": not a number of shards (1 or more)");
  }
  long index = 0;
  if (!HasEnv(index_var) || !EnvNumber(index_var, 0, total, &index)) {
    throw UsageError(std::string(index_var) + ": not a shard index in 0.." +
                     std::to_string(total - 1));
  }
  options.shard_index = static_cast<int>(index) + 1;
  options.shard_count = static_cast<int>(total);
  // Bazel asks a test that shards to say so by touching this file.
  if (const char* status_file = std::getenv("TEST_SHARD_STATUS_FILE");
      status_file != nullptr && *status_file != '\0' &&
      std::string(total_var) == "TEST_TOTAL_SHARDS") {
    if (!std::ofstream(status_file, std::ios::app)) {
      throw UsageError(std::string("TEST_SHARD_STATUS_FILE ") + status_file + ": cannot touch it");
    }
  }
}

// Fills the options from the words. Throws UsageError.
void MakeOptions(CmdSweepArgs& args) {
  cmdsweep::CmdSweepOptions& options = args.options;
  options.under = args.under;
  options.errnos = ErrnosFromNames(args.errnos);
  for (const std::string& name : args.ops) {
    uint8_t code = 0;
    if (!FaultOpCodeFromName(name, &code))
      throw UsageError("--op: unknown operation '" + name + "'");
    if (code == kFaultAnyOp) {
      options.ops.clear();
      break;
    }
    options.ops.push_back(code);
  }
  if (args.mode != "both") {
    options.modes = {args.mode == "transient" ? cmdsweep::FaultMode::kTransient
                                              : cmdsweep::FaultMode::kPersistent};
  }
  if (!cmdsweep::DepthFromName(args.depth, &options.depth)) {
    throw UsageError("--depth " + args.depth + ": first, edges or all");
  }
  ChooseShard(args);
  options.compare_stdout = args.compare == "stdout";
  char exe[PATH_MAX];
  const ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (len <= 0) throw UsageError("cannot find the spillway executable");
  options.spillway_binary.assign(exe, static_cast<size_t>(len));
}

// Progress on stderr: runs done, runs/s, violations and the time left; redrawn on a
// terminal, else printed at every tenth of the plan and at least every 30 s.
class Progress {
 public:
  void Show(uint64_t done, uint64_t total, uint64_t violations) {
    if (total < kProgressMinRuns) return;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const int tenth = static_cast<int>(done * 10 / total);
    const bool tty = isatty(STDERR_FILENO) != 0;
    if (!tty && tenth == last_tenth_ && seconds - last_print_ < kProgressEverySeconds) return;
    last_tenth_ = tenth;
    last_print_ = seconds;
    const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
    const double left = rate > 0 ? static_cast<double>(total - done) / rate : 0;
    std::fprintf(stderr,
                 "%sspillway sweep: %3d%% (%llu/%llu runs, %.1f runs/s, %llu violations, "
                 "%.0f s left)%s",
                 tty ? "\r" : "", static_cast<int>(done * 100 / total),
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total),
                 rate, static_cast<unsigned long long>(violations), left,
                 tty && done != total ? "" : "\n");
    std::fflush(stderr);
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  int last_tenth_ = -1;
  double last_print_ = 0;
};

// One line for a failed sweep or report: an errno's status names its operation and path.
std::string Describe(const Status& status) {
  return status.error_number() != 0 ? status.ToString() : status.message();
}

// Writes --junit and prints the text or JSON report; returns the sweep's exit status.
// Throws UsageError when a report cannot be written or its runs read back.
int Report(const cmdsweep::CmdSweepResult& result, const std::string& junit_file, bool json) {
  if (!junit_file.empty()) {
    std::FILE* junit = std::fopen(junit_file.c_str(), "w");
    if (junit == nullptr) throw UsageError("--junit " + junit_file + ": cannot write it");
    const Status written = cmdsweep::WriteJunit(junit, result);
    const bool failed = std::ferror(junit) != 0;
    if (std::fclose(junit) != 0 || failed) {
      throw UsageError("--junit " + junit_file + ": cannot write it");
    }
    if (!written.ok()) throw UsageError(Describe(written));
  }
  const Status printed =
      json ? cmdsweep::WriteJson(stdout, result) : cmdsweep::PrintText(stdout, result);
  if (json) std::fputc('\n', stdout);
  if (!printed.ok()) throw UsageError(Describe(printed));
  return cmdsweep::ExitStatusOf(result);
}

int Run(CmdSweepArgs& args) {
  MakeOptions(args);
  Progress progress;
  args.options.on_progress = [&progress](uint64_t done, uint64_t total, uint64_t violations) {
    progress.Show(done, total, violations);
  };
  const StatusOr<cmdsweep::CmdSweepResult> result = cmdsweep::RunCmdSweep(args.options);
  if (!result.ok()) throw UsageError(Describe(result.status()));
  return Report(*result, args.junit, args.json);
}

void AddOptions(CLI::App& app, CmdSweepArgs& args) {
  app.add_option("--under", args.under, "The scope, or where each run's {dir} is made")
      ->required()
      ->allow_extra_args(false);
  app.add_option("--errno", args.errnos,
                 "Errnos to inject (default ENOSPC,EIO; +ENOENT for create/mkdir)")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--op", args.ops, "Sweep only these operations' calls")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--mode", args.mode, "transient, persistent or both")
      ->check(CLI::IsMember({"transient", "persistent", "both"}));
  app.add_option("--jobs", args.options.jobs, "Runs in parallel (with {dir} only)")
      ->check(CLI::PositiveNumber);
  app.add_option("--timeout", args.options.timeout, "A run past SECONDS is a hang")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-runs", args.options.max_runs, "Sample N runs")->check(CLI::PositiveNumber);
  app.add_option("--retries", args.options.retries,
                 "Make a diverged run again up to N more times (default 2; more for a site "
                 "only some baseline runs reached)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--baselines", args.options.baselines,
                 "Run the program N times without faults and plan every site any run reached "
                 "(default 1)")
      ->check(CLI::PositiveNumber);
  app.add_option("--shard", args.shard, "Run the K-th of N slices (K/N)");
  app.add_option("--shard-count", args.shard_count,
                 "N slices, this one JOB_COMPLETION_INDEX (a Kubernetes Indexed Job)")
      ->check(CLI::PositiveNumber);
  app.add_option("--depth", args.depth, "first, edges or all: which calls of each site");
  app.add_flag("--scratch", args.options.scratch,
               "The scope is temporary space: anything left, the baseline's too, is a leak");
  app.add_option("--error-pattern", args.options.error_pattern,
                 "A run exiting 0 whose output matches REGEX (the baseline's not) failed");
  app.add_option("--baseline", args.options.baseline_file,
                 "Record the baseline in FILE, or plan from the one recorded there");
  app.add_option("--compare", args.compare, "stdout or none")
      ->check(CLI::IsMember({"stdout", "none"}));
  app.add_option("--junit", args.junit, "Write a JUnit XML file");
  app.add_flag("--json", args.json, "Print the result as one JSON object");
  app.add_option("--out", args.options.out_dir, "Keep each violation's files here");
  app.add_option("--share-with", args.options.share_with,
                 "Passed to spillway inject: for a program that switches to USER");
  app.add_option("command", args.options.command, "-- CMD [ARG]...")->required();
}

// Parses the words into `app`; the exit status when that ends the command (help, or a
// one-line usage error with exit 2), else nullopt.
std::optional<int> Parse(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  return std::nullopt;
}

}  // namespace

int RunCmdSweepCommand(int argc, char** argv) {
  CLI::App app{"spillway sweep -- CMD: fail each in-scope file call of a program in turn",
               "spillway sweep"};
  CmdSweepArgs args;
  AddOptions(app, args);
  if (std::optional<int> done = Parse(app, argc, argv)) return *done;
  return Run(args);
}

int RunCmdSweepMergeCommand(int argc, char** argv) {
  CLI::App app{"spillway sweep merge: join the JSON reports of a sweep's shards",
               "spillway sweep merge"};
  std::vector<std::string> files;
  std::string junit;
  bool json = false;
  app.add_option("reports", files, "REPORT.json of every shard")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--junit", junit, "Write a JUnit XML file");
  app.add_flag("--json", json, "Print the result as one JSON object");
  if (std::optional<int> done = Parse(app, argc, argv)) return *done;
  const StatusOr<cmdsweep::CmdSweepResult> result = cmdsweep::MergeReports(files);
  if (!result.ok()) throw UsageError(result.status().message());
  return Report(*result, junit, json);
}

}  // namespace spillway::tools
