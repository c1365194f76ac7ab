// `spillway sweep [OPTIONS] -- CMD`: fails each planned in-scope file call of an unmodified
// program in turn (program_sweep/, docs/sweep.md), and `spillway sweep merge`, which joins the
// reports of its shards. The reference workload's sweep is sweep_command.cc.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "commands.h"
#include "spillway/program_sweep/cmd_sweep.h"
#include "spillway/program_sweep/defaults.h"
#include "spillway/program_sweep/report.h"
#include "spillway/program_sweep/shard.h"
#include "spillway/vfs/fault_rules.h"
#include "spillway/vfs/status.h"
#include "spillway/vocab/names.h"

namespace spillway::tools {
namespace {

// Sweeps with fewer runs print no progress.
constexpr uint64_t kProgressMinRuns = 20;
// Off a terminal, a progress line at least this often (and at every tenth of the plan).
constexpr double kProgressEverySeconds = 30;

// `spillway sweep` with neither a command nor merge: what it takes instead.
constexpr const char* kNoCommandNote =
    "no command to sweep: spillway sweep [OPTIONS] -- CMD sweeps a program, spillway sweep "
    "merge REPORT.json... joins its shards' reports; the reference workload's sweep is "
    "spillway sweep-workload";

struct CmdSweepArgs {
  std::string under;
  std::vector<std::string> errnos;
  std::vector<std::string> ops;
  std::string shard;
  int shard_count = 0;  // --shard-count, with JOB_COMPLETION_INDEX.
  std::string depth;
  std::string compare = "stdout";
  std::vector<std::string> modes;  // --mode's names; empty: the default modes.
  std::string restart;             // --restart's command, when given (even empty).
  std::string junit;
  bool json = false;
  bool no_java_frames = false;  // Sites in Java code keep native frames only.
  program_sweep::CmdSweepOptions options;
};

// "first", "edges", "all".
std::vector<std::string> DepthNames() {
  const auto names = vocab::AllNames<program_sweep::DepthName>();
  return {names.begin(), names.end()};
}

// The modes --mode names, each once ("both": transient and persistent); the names are
// checked already.
std::vector<program_sweep::FaultMode> ModesFromNames(const std::vector<std::string>& names) {
  using program_sweep::FaultMode;
  std::vector<FaultMode> modes;
  auto add = [&modes](FaultMode mode) {
    if (std::find(modes.begin(), modes.end(), mode) == modes.end()) modes.push_back(mode);
  };
  for (const std::string& name : names) {
    if (name == kBothModes) {
      add(FaultMode::kTransient);
      add(FaultMode::kPersistent);
    } else if (const auto mode = vocab::ParseName<program_sweep::FaultModeName>(name)) {
      add(*mode);
    }
  }
  return modes;
}

// Fills the options from the words. Throws UsageError.
void MakeOptions(CmdSweepArgs& args) {
  program_sweep::CmdSweepOptions& options = args.options;
  options.under = args.under;
  if (!args.modes.empty()) options.modes = ModesFromNames(args.modes);
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
  if (!program_sweep::DepthFromName(args.depth, &options.depth)) {
    throw UsageError("--depth " + args.depth + ": not one of " +
                     fmt::format("{}", fmt::join(DepthNames(), ", ")));
  }
  if (const Status shard = program_sweep::ChooseShard(args.shard, args.shard_count, &options);
      !shard.ok()) {
    throw UsageError(shard.message());
  }
  options.compare_stdout = args.compare == "stdout";
  char exe[PATH_MAX];
  const ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (len <= 0) throw UsageError("cannot find the spillway executable");
  options.spillway_binary.assign(exe, static_cast<size_t>(len));
}

// Progress on stderr: runs done, runs/s, violations and the time left; redrawn on a
// terminal, else printed at every tenth of the plan and at least every 30 s.
class SweepProgress {
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
int Report(const program_sweep::CmdSweepResult& result, const std::string& junit_file, bool json) {
  if (!junit_file.empty()) {
    std::FILE* junit = std::fopen(junit_file.c_str(), "w");
    if (junit == nullptr) throw UsageError("--junit " + junit_file + ": cannot write it");
    const Status written = program_sweep::WriteJunit(junit, result);
    const bool failed = std::ferror(junit) != 0;
    if (std::fclose(junit) != 0 || failed) {
      throw UsageError("--junit " + junit_file + ": cannot write it");
    }
    if (!written.ok()) throw UsageError(Describe(written));
  }
  const Status printed =
      json ? program_sweep::WriteJson(stdout, result) : program_sweep::PrintText(stdout, result);
  if (json) std::fputc('\n', stdout);
  if (!printed.ok()) throw UsageError(Describe(printed));
  return program_sweep::ExitStatusOf(result);
}

int Run(CmdSweepArgs& args) {
  MakeOptions(args);
  // The shim's switch, inherited by every `spillway inject` the sweep runs (as its
  // --no-java-frames would set it), before any run starts; the reproducers carry
  // --no-java-frames whenever it is off, also when set by hand.
  if (args.no_java_frames) setenv("SPILLWAY_INJECT_JAVA_FRAMES", "0", 1);
  const char* java_frames = std::getenv("SPILLWAY_INJECT_JAVA_FRAMES");
  args.options.java_frames = java_frames == nullptr || std::string_view(java_frames) != "0";
  SweepProgress progress;
  args.options.on_progress = [&progress](uint64_t done, uint64_t total, uint64_t violations) {
    progress.Show(done, total, violations);
  };
  const StatusOr<program_sweep::CmdSweepResult> result = program_sweep::RunCmdSweep(args.options);
  if (!result.ok()) throw UsageError(Describe(result.status()));
  return Report(*result, args.junit, args.json);
}

// "ENOSPC,EIO; plus ENOENT for create, mkdir": the errnos swept without --errno, from
// program_sweep::DefaultErrnosFor.
std::string DefaultErrnosText() {
  const std::vector<int> every = program_sweep::DefaultErrnosFor(kFaultAnyOp);
  std::map<std::vector<int>, std::vector<std::string>> ops_by_extra;
  for (int op = 0; op < kFaultOpCount; ++op) {
    std::vector<int> extra;
    for (int e : program_sweep::DefaultErrnosFor(static_cast<uint8_t>(op))) {
      if (std::find(every.begin(), every.end(), e) == every.end()) extra.push_back(e);
    }
    if (!extra.empty()) ops_by_extra[extra].emplace_back(FaultOpName(static_cast<FaultOp>(op)));
  }
  std::string text = ErrnoList(every);
  for (const auto& [extra, ops] : ops_by_extra) {
    text += fmt::format("; plus {} for {}", ErrnoList(extra), fmt::join(ops, " and "));
  }
  return text;
}

// The options of `spillway sweep -- CMD` that choose what is failed, with the defaults of
// CmdSweepOptions.
void AddPlanOptions(CLI::App& sweep, CmdSweepArgs& args) {
  args.depth = program_sweep::DepthName(args.options.depth);
  sweep
      .add_option("--under", args.under, "The scope, or where each run's {dir} is made (required)")
      ->allow_extra_args(false);
  sweep
      .add_option("--errno", args.errnos,
                  "Errnos to inject, each where the call's operation can return it (repeatable "
                  "or a comma list)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->default_str(DefaultErrnosText());
  sweep.add_option("--op", args.ops, "Sweep only these operations' calls (any: all)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->default_str("any");
  std::vector<std::string> modes;
  for (std::string_view name : vocab::AllNames<program_sweep::FaultModeName>()) {
    modes.emplace_back(name);
  }
  modes.emplace_back(kBothModes);
  std::string shown;
  for (program_sweep::FaultMode mode : args.options.modes) {
    shown += (shown.empty() ? "" : ",") + std::string(program_sweep::FaultModeName(mode));
  }
  sweep
      .add_option("--mode", args.modes,
                  "Modes (a comma list). transient: the call fails once; persistent: it and "
                  "every later call of its operation fail (both: these two); kill: the process "
                  "gets SIGKILL just before the call, once per planned call, and is restarted; "
                  "corrupt: a read or write succeeds with one bit of its data flipped (--seed "
                  "chooses it); lost: a write succeeds and stores nothing")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(CLI::IsMember(modes))
      ->default_str(shown);
  sweep
      .add_option("--depth", args.depth,
                  "Which calls of each site: each site's first; its "
                  "first, second and last; or every call")
      ->check(CLI::IsMember(DepthNames()))
      ->capture_default_str();
}

// The options of the neighbour rounds run before the plan (program_sweep/neighbours.h).
void AddNeighbourOptions(CLI::App& sweep, CmdSweepArgs& args) {
  sweep
      .add_option("--neighbours", args.options.neighbours,
                  "Before the plan, run N+1 instances at once in one scope, without faults, "
                  "each at a seeded offset in the first half of the baseline's time; a crash "
                  "or wrong output is a violation (0: off; only shard 1 of N runs them)")
      // Named without spaces, so that the help states the default as every option does.
      ->check(CLI::Range(0, program_sweep::kMaxNeighbours)
                  .description(fmt::format("0..{}", program_sweep::kMaxNeighbours)))
      ->capture_default_str();
  sweep
      .add_option("--neighbour-rounds", args.options.neighbour_rounds,
                  "How many rounds of neighbours")
      ->check(CLI::Range(1, INT_MAX).description("POSITIVE"))
      ->capture_default_str();
  sweep
      .add_option("--seed", args.options.seed,
                  "Seeds the neighbours' start offsets and the bit each corrupt run flips")
      ->capture_default_str();
}

// The options of how the runs are made and judged, and the command.
void AddRunOptions(CLI::App& sweep, CmdSweepArgs& args) {
  sweep.add_flag("--scratch", args.options.scratch,
                 "The scope is temporary space: anything left, the baseline's too, is a leak");
  sweep.add_option("--error-pattern", args.options.error_pattern,
                   "A run exiting 0 whose output matches REGEX (the baseline's not) failed");
  sweep
      .add_option("--mask", args.options.masks,
                  "Replace each match of REGEX in every stdout by {masked} before comparing "
                  "(repeatable)")
      ->allow_extra_args(false);
  sweep.add_option("--jobs", args.options.jobs, "Runs in parallel (with {dir} only)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sweep.add_option("--timeout", args.options.timeout, "A run past SECONDS is a hang")
      ->check(PositiveSeconds())
      ->default_str(
          fmt::format("{:g} x the baseline's time, at least {:g} s (the baseline: {:g} s)",
                      program_sweep::kTimeoutFactor, program_sweep::kMinTimeoutSeconds,
                      program_sweep::kBaselineTimeoutSeconds));
  sweep.add_option("--max-runs", args.options.max_runs, "Sample N runs")
      ->check(CLI::PositiveNumber);
  sweep
      .add_option("--retries", args.options.retries,
                  "Make a diverged run again up to N more times (more for a site only some "
                  "baseline runs reached)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sweep
      .add_option("--baselines", args.options.baselines,
                  "Run the program N times without faults and plan every site any run reached")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sweep.add_option("--shard", args.shard, "Run the K-th of N slices (K/N)");
  sweep
      .add_option("--shard-count", args.shard_count,
                  "N slices, this one JOB_COMPLETION_INDEX (a Kubernetes Indexed Job)")
      ->check(CLI::PositiveNumber);
  sweep.add_option("--baseline", args.options.baseline_file,
                   "Record the baseline in FILE, or plan from the one recorded there");
  sweep
      .add_option("--compare", args.compare,
                  "Whether a run exiting 0 must print the baseline's stdout")
      ->check(CLI::IsMember({"stdout", "none"}))
      ->capture_default_str();
  sweep.add_option("--junit", args.junit, "Write a JUnit XML file");
  sweep.add_flag("--json", args.json, "Print the result as one JSON object");
  sweep.add_option("--out", args.options.out_dir, "Keep each violation's files here");
  sweep.add_flag("--trace-all", args.options.trace_all,
                 "Trace every run (slower; by default the shim's counters and fault "
                 "records judge them)");
  AddNeighbourOptions(sweep, args);
  sweep.add_option("--restart", args.restart,
                   "After a kill run, run this shell command without faults in the killed run's "
                   "scope ({dir} replaced) instead of CMD (default: CMD)");
  sweep.add_option("--share-with", args.options.share_with,
                   "Passed to spillway inject: for a program that switches to USER");
  sweep.add_flag("--no-java-frames", args.no_java_frames,
                 "Passed to spillway inject: sites in Java code keep native frames only");
  sweep.add_option("CMD", args.options.command, "The program and its arguments, after --");
}

}  // namespace

std::string UsageNote(const CLI::App& command, const CLI::ParseError& error) {
  const CLI::App* top = command.get_parent();
  if (command.get_name() != "sweep" || top == nullptr || top->get_parent() != nullptr) return {};
  // An unknown option, or no command: the words may be meant for the reference sweep.
  if (dynamic_cast<const CLI::ExtrasError*>(&error) == nullptr && command.count("CMD") > 0) {
    return {};
  }
  return " (spillway sweep sweeps a program: spillway sweep [OPTIONS] -- CMD; the reference "
         "workload's sweep is spillway sweep-workload)";
}

void AddSweepCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<CmdSweepArgs>();
  CLI::App* sweep = app.add_subcommand(
      "sweep",
      "Fail each in-scope file call of a program in turn (spillway sweep [OPTIONS] -- CMD), "
      "or join the reports of its shards (spillway sweep merge)");
  AddPlanOptions(*sweep, *args);
  AddRunOptions(*sweep, *args);
  sweep->footer(
      "Usage: spillway sweep --under DIR [OPTIONS] -- CMD [ARG]...\n"
      "       spillway sweep merge REPORT.json... [--junit FILE] [--json]\n"
      "A kill run (--mode kill) is restarted without faults in the killed run's scope: orphan\n"
      "(an entry it left is still there after the restart), reclaimed (the restart took\n"
      "everything back), restart_failed (the restart did not exit 0 with the expected output).\n"
      "The reference workload's sweep is spillway sweep-workload (docs/sweep.md).");
  CLI::App* merge =
      sweep->add_subcommand("merge", "Join the JSON reports of a sweep's shards into one result");
  auto files = std::make_shared<std::vector<std::string>>();
  auto merge_args = std::make_shared<CmdSweepArgs>();
  merge->add_option("REPORT", *files, "The JSON report of every shard")
      ->required()
      ->check(CLI::ExistingFile);
  merge->add_option("--junit", merge_args->junit, "Write a JUnit XML file");
  merge->add_flag("--json", merge_args->json, "Print the result as one JSON object");
  merge->callback([sweep, files, merge_args, &exit_code] {
    // `spillway sweep [OPTIONS] merge`: the options are the sweep's, which merge takes none of.
    for (const CLI::Option* option : sweep->get_options()) {
      if (option->count() > 0) {
        throw UsageError(option->get_name() + ": an option of spillway sweep, not of merge");
      }
    }
    const StatusOr<program_sweep::CmdSweepResult> result = program_sweep::MergeReports(*files);
    if (!result.ok()) throw UsageError(result.status().message());
    exit_code = Report(*result, merge_args->junit, merge_args->json);
  });
  sweep->callback([sweep, merge, args, &exit_code] {
    if (merge->parsed()) return;
    // `--restart=` (empty) and `--restart --` leave CLI11 taking the `--` as the command.
    if (sweep->count("--restart") > 0 && args->restart == "--") {
      throw UsageError("--restart: an empty command");
    }
    if (sweep->count("--restart") > 0) args->options.restart = args->restart;
    if (args->options.command.empty()) throw UsageError(kNoCommandNote);
    if (args->under.empty()) throw UsageError("--under is required");
    exit_code = Run(*args);
  });
}

}  // namespace spillway::tools
