// The sweep's driver: the baseline, the plan (a stream, run_plan.h), the runs (in parallel
// with {dir}, spooled as they finish, run_spool.h), the reproducers and the files kept with
// --out. Verdicts are in verdict.cc.
#include "spillway/program_sweep/cmd_sweep.h"

#include <fmt/format.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <thread>

#include "baseline.h"
#include "command_line.h"
#include "inject_run.h"
#include "mask.h"
#include "neighbours.h"
#include "run_plan.h"
#include "run_spool.h"
#include "spillway/program_sweep/defaults.h"
#include "trace_reader.h"
#include "verdict.h"

namespace spillway::program_sweep {
namespace {

namespace fs = std::filesystem;

struct Sweep {
  const CmdSweepOptions* options;
  std::string under;  // Resolved.
  bool with_dir = false;
  std::string work_dir;  // Private: traces and outputs of the runs in flight.
  double timeout = 0;
  Baseline baseline;
  std::optional<std::regex> error_pattern;
  std::vector<std::regex> masks;  // --mask, compiled.
  bool baseline_reported_error = false;
  std::string restart_stdout;  // --restart's run without faults: what a restart prints.
  std::map<std::string, int> attempts_by_site;  // AttemptsFor each site.
  // Sites that a run tried AttemptsFor times without reaching: their later runs get only
  // 1 + --retries tries (the site is rarer than its baseline runs made it look).
  mutable std::mutex unreached_mu;
  mutable std::set<std::string> unreached_sites;
};

// Where a run is made: its scope as the command names it, and resolved.
struct Scope {
  std::string given;
  std::string real;
};

// A fresh scope for one run: a new directory in `under` with {dir}, else `under` itself.
StatusOr<Scope> MakeScope(const Sweep& sweep, const std::string& label) {
  Scope scope{sweep.under, {}};
  if (sweep.with_dir) {
    scope.given = sweep.under + "/" + label + "-XXXXXX";
    if (mkdtemp(scope.given.data()) == nullptr) {
      return Status::InvalidArgument(fmt::format("cannot make a scope directory in {}: {}",
                                                 sweep.under, std::strerror(errno)));
    }
  }
  char resolved[PATH_MAX];
  scope.real = realpath(scope.given.c_str(), resolved) != nullptr ? resolved : scope.given;
  return scope;
}

// Removes what the run left (all of its scope with {dir}; else the entries that were not
// there before it), so that every run starts from the same state.
void DropScope(const Sweep& sweep, const std::string& scope,
               const std::vector<SweepLeftover>& left) {
  std::error_code ec;
  if (sweep.with_dir) {
    fs::remove_all(scope, ec);
    return;
  }
  for (auto it = left.rbegin(); it != left.rend(); ++it) {
    fs::remove_all(it->path, ec);
  }
}

// How a run is traced: not at all, traced, or traced with its frames symbolized (the
// baseline's, which the report shows).
enum class Tracing : uint8_t { kNone, kTraced, kSymbolized };

// Runs `words` ({dir} replaced) once through the launcher with `faults` in `scope`, and
// leaves what it left there.
StatusOr<InjectOutcome> RunIn(const Sweep& sweep, const Scope& scope,
                              const std::vector<std::string>& words, const std::string& label,
                              const std::vector<std::string>& faults, double timeout,
                              Tracing tracing) {
  return RunInject({scope.real, CommandFor(words, scope.given), faults, timeout,
                    sweep.work_dir + "/" + label, sweep.options->share_with,
                    tracing != Tracing::kNone, tracing == Tracing::kSymbolized,
                    sweep.options->seed});
}

// Shows the outcome's paths relative to the scope (its trace is read so).
void ShowIn(const Sweep& sweep, const Scope& scope, InjectOutcome* outcome) {
  ShowPaths(outcome, scope.real, sweep.with_dir);
  if (scope.real != scope.given && sweep.with_dir) {
    // The command saw the unresolved path; show it as {dir} in its output too.
    InjectOutcome alias;
    alias.program_stdout = std::move(outcome->program_stdout);
    ShowPaths(&alias, scope.given, true);
    outcome->program_stdout = std::move(alias.program_stdout);
  }
  outcome->program_stdout = MaskText(sweep.masks, std::move(outcome->program_stdout));
}

// Runs `words` once with `faults` in a fresh scope, removes what it left, and shows the
// outcome's paths relative to the scope (`*real_scope`, resolved).
StatusOr<InjectOutcome> RunOnce(const Sweep& sweep, const std::vector<std::string>& words,
                                const std::string& label, const std::vector<std::string>& faults,
                                double timeout, Tracing tracing, std::string* real_scope) {
  StatusOr<Scope> scope = MakeScope(sweep, label);
  if (!scope.ok()) return scope.status();
  *real_scope = scope->real;
  StatusOr<InjectOutcome> ran = RunIn(sweep, *scope, words, label, faults, timeout, tracing);
  if (!ran.ok()) {
    std::error_code ec;
    if (sweep.with_dir) fs::remove_all(scope->given, ec);
    return ran.status();
  }
  DropScope(sweep, scope->given, ran->leftovers);
  ShowIn(sweep, *scope, &*ran);
  return ran;
}

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

// Runs the command without faults, as the baseline's run `number` (1-based), into
// *baseline, its trace scanned. Errors: a command that did not run or did not exit 0.
Status RunBaselineOnce(const Sweep& sweep, int number, Baseline* baseline) {
  const CmdSweepOptions& options = *sweep.options;
  const double limit = options.timeout > 0 ? options.timeout : kBaselineTimeoutSeconds;
  const std::string label = number == 1 ? "baseline" : fmt::format("baseline-{}", number);
  StatusOr<InjectOutcome> outcome =
      RunOnce(sweep, options.command, label, {}, limit, Tracing::kSymbolized, &baseline->scope);
  if (!outcome.ok()) {
    return Status::InvalidArgument(
        fmt::format("the command did not run: {}", outcome.status().message()));
  }
  if (outcome->status != 0) {
    const std::string which = number == 1 ? "" : fmt::format(" (baseline run {})", number);
    return Status::InvalidArgument(
        fmt::format("the run without faults{} exited {}, not 0 (its stderr: {})", which,
                    outcome->status, FirstLine(outcome->program_stderr)));
  }
  baseline->exit_code = outcome->status;
  baseline->stdout_text = std::move(outcome->program_stdout);
  baseline->stderr_text = std::move(outcome->program_stderr);
  baseline->leftovers = std::move(outcome->leftovers);
  baseline->seconds = outcome->seconds;
  baseline->trace = outcome->trace;
  baseline->with_dir = sweep.with_dir;
  return ScanBaselineTrace("the baseline's trace", -1, baseline);
}

// Runs the baseline --baselines times: the first run is the one runs are compared with,
// the others add the sites and leftovers they alone reached. Errors as RunBaselineOnce's,
// and output that differs between the runs while stdout is compared.
Status RunBaselines(const Sweep& sweep, Baseline* baseline) {
  const CmdSweepOptions& options = *sweep.options;
  SPILLWAY_RETURN_IF_ERROR(RunBaselineOnce(sweep, 1, baseline));
  for (int number = 2; number <= options.baselines; ++number) {
    Baseline other;
    SPILLWAY_RETURN_IF_ERROR(RunBaselineOnce(sweep, number, &other));
    unlink(other.trace.c_str());
    if (options.compare_stdout && other.stdout_text != baseline->stdout_text) {
      return Status::InvalidArgument(fmt::format(
          "the runs without faults printed different output (runs 1 and {}): every run would "
          "be judged silent_wrong_output; --compare none judges runs without their output",
          number));
    }
    AddBaselineRun(other, baseline);
  }
  return OkStatus();
}

// With --restart, kill runs and stdout compared: the restart command once without faults in
// a fresh scope, for the output a restart must print. Errors: it did not run or exit 0.
Status RunRestartBaseline(Sweep* sweep) {
  const CmdSweepOptions& options = *sweep->options;
  const bool kills = std::find(options.modes.begin(), options.modes.end(), FaultMode::kKill) !=
                     options.modes.end();
  if (!options.restart || !options.compare_stdout || !kills) return OkStatus();
  std::string scope;
  StatusOr<InjectOutcome> outcome = RunOnce(*sweep, RestartWords(*sweep->options), "restart", {},
                                            sweep->timeout, Tracing::kNone, &scope);
  if (!outcome.ok()) {
    return Status::InvalidArgument(
        fmt::format("the --restart command did not run: {}", outcome.status().message()));
  }
  if (outcome->status != 0) {
    return Status::InvalidArgument(
        fmt::format("the --restart command without faults exited {}, not 0 (its stderr: {})",
                    outcome->status, FirstLine(outcome->program_stderr)));
  }
  sweep->restart_stdout = std::move(outcome->program_stdout);
  return OkStatus();
}

// The baseline: run (--baselines times), or read from --baseline FILE when that exists
// (and recorded there when it does not).
Status RunBaseline(Sweep* sweep) {
  const CmdSweepOptions& options = *sweep->options;
  Baseline& baseline = sweep->baseline;
  std::error_code ec;
  if (!options.baseline_file.empty() && fs::exists(options.baseline_file, ec)) {
    StatusOr<Baseline> recorded = ReadBaselineFile(options.baseline_file, options.command);
    if (!recorded.ok()) return recorded.status();
    baseline = std::move(*recorded);
  } else {
    SPILLWAY_RETURN_IF_ERROR(RunBaselines(*sweep, &baseline));
    if (!options.baseline_file.empty()) {
      SPILLWAY_RETURN_IF_ERROR(WriteBaselineFile(options.baseline_file, options.command, baseline));
    }
  }
  for (SweepLeftover& left : baseline.leftovers) {
    left.kind = options.scratch ? SweepLeftover::Kind::kLeak : SweepLeftover::Kind::kBaseline;
  }
  sweep->baseline_reported_error =
      ReportsError(sweep->error_pattern ? &*sweep->error_pattern : nullptr, baseline.stdout_text,
                   baseline.stderr_text);
  sweep->timeout = options.timeout > 0
                       ? options.timeout
                       : std::max(kMinTimeoutSeconds, kTimeoutFactor * baseline.seconds);
  for (const SiteInfo& site : baseline.sites) {
    sweep->attempts_by_site[site.id] = AttemptsFor(site, baseline.runs, options.retries);
  }
  return RunRestartBaseline(sweep);
}

std::string RunLabel(const RunSpec& spec) {
  const std::string at =
      spec.by_site ? fmt::format("{}-{}", spec.site, spec.nth) : fmt::format("{}", spec.n);
  return fmt::format("run-{}-{}-{}-{}", at, spec.call.op, ErrnoName(spec.error_number),
                     FaultModeName(spec.mode));
}

bool HasViolation(const RunResult& result) {
  return std::any_of(result.verdicts.begin(), result.verdicts.end(), IsViolation);
}

// With --out, copies a violation's stdout, stderr and trace next to its reproducer.
void KeepFiles(const Sweep& sweep, const std::string& label, RunResult* result) {
  const std::string& out = sweep.options->out_dir;
  if (out.empty() || !HasViolation(*result)) return;
  std::error_code ec;
  for (const char* suffix : {".stdout", ".stderr", ".trace"}) {
    const std::string name = "/" + label + suffix;
    fs::copy_file(sweep.work_dir + name, out + name, fs::copy_options::overwrite_existing, ec);
  }
  std::ofstream(out + "/" + label + ".sh") << "#!/bin/sh\n" << result->reproducer << "\n";
  result->kept_as = out + "/" + label;
}

void DropFiles(const Sweep& sweep, const std::string& label) {
  for (const char* suffix : {".stdout", ".stderr", ".trace"}) {
    unlink((sweep.work_dir + "/" + label + suffix).c_str());
  }
}

const std::vector<SweepLeftover>& BaselineLeftovers(const Sweep& sweep) {
  static const std::vector<SweepLeftover> kNone;
  return sweep.options->scratch ? kNone : sweep.baseline.leftovers;
}

// Each of `left` (absolute paths) that still exists, with its size now (0 for anything
// but a regular file).
std::vector<SweepLeftover> StillThere(const std::vector<SweepLeftover>& left) {
  std::vector<SweepLeftover> there;
  for (const SweepLeftover& entry : left) {
    struct stat st {};
    if (lstat(entry.path.c_str(), &st) != 0) continue;
    const uint64_t size = S_ISREG(st.st_mode) ? static_cast<uint64_t>(st.st_size) : 0;
    there.push_back({{entry.path, size}, SweepLeftover::Kind::kLeak});
  }
  return there;
}

// What Judge and JudgeKill read of a run of `spec` in the scope `real`.
JudgeInput InputFor(const Sweep& sweep, const RunSpec& spec, const InjectOutcome& outcome,
                    const std::string& real) {
  return {&spec,
          &outcome,
          &sweep.baseline,
          sweep.options->compare_stdout,
          sweep.error_pattern ? &*sweep.error_pattern : nullptr,
          sweep.baseline_reported_error,
          real,
          sweep.with_dir};
}

// A restart the launcher refused (a --restart command it cannot start), as a program that
// could not start: exit 127, the reason on stderr.
InjectOutcome Refused(const Status& status) {
  InjectOutcome refused;
  refused.status = 127;
  refused.program_stderr = status.message();
  return refused;
}

// A kill run: the command killed at its planned call in a fresh scope; when its rule fired,
// the restart in that same scope, and then what the killed run left that is still there.
RunResult KillAttempt(const Sweep& sweep, const RunSpec& spec, Tracing tracing) {
  RunResult result;
  result.spec = spec;
  result.reproducer = Reproducer({sweep.options, sweep.under, sweep.with_dir, sweep.timeout}, spec);
  const std::string label = RunLabel(spec);
  StatusOr<Scope> scope = MakeScope(sweep, label);
  StatusOr<InjectOutcome> killed = scope.ok() ? RunIn(sweep, *scope, sweep.options->command, label,
                                                      {FaultRuleFor(spec)}, sweep.timeout, tracing)
                                              : StatusOr<InjectOutcome>(scope.status());
  if (!killed.ok()) {
    std::error_code ec;
    if (scope.ok() && sweep.with_dir) fs::remove_all(scope->given, ec);
    result.diverged_at = killed.status().message();
    result.verdicts.push_back(Verdict::kDiverged);
    return result;
  }
  const std::vector<SweepLeftover> left = killed->leftovers;  // Absolute paths.
  ShowIn(sweep, *scope, &*killed);
  ClassifyLeftovers(BaselineLeftovers(sweep), killed->faults, &killed->leftovers);
  const JudgeInput input = InputFor(sweep, spec, *killed, scope->real);
  if (!Divergence(input).empty()) {
    DropScope(sweep, scope->given, left);
    Judge(input, &result);
    DropFiles(sweep, label);
    return result;
  }
  const std::string restart_label = label + "-restart";
  StatusOr<InjectOutcome> restarted = RunIn(sweep, *scope, RestartWords(*sweep.options),
                                            restart_label, {}, sweep.timeout, Tracing::kNone);
  if (!restarted.ok()) restarted = Refused(restarted.status());
  RestartInput restart{&*restarted, nullptr, StillThere(left)};
  DropScope(sweep, scope->given, restarted->leftovers);
  DropScope(sweep, scope->given, left);
  ShowIn(sweep, *scope, &*restarted);
  ClassifyLeftovers(BaselineLeftovers(sweep), {}, &restarted->leftovers);
  for (SweepLeftover& entry : restart.remaining) {
    entry.path = ShowPath(entry.path, scope->real, sweep.with_dir);
  }
  ClassifyLeftovers(BaselineLeftovers(sweep), {}, &restart.remaining);
  if (sweep.options->compare_stdout) {
    restart.expected_stdout =
        sweep.options->restart ? &sweep.restart_stdout : &sweep.baseline.stdout_text;
  }
  JudgeKill(input, restart, &result);
  KeepFiles(sweep, label, &result);
  DropFiles(sweep, label);
  DropFiles(sweep, restart_label);
  return result;
}

RunResult RunAttempt(const Sweep& sweep, const RunSpec& spec, Tracing tracing) {
  if (spec.mode == FaultMode::kKill) return KillAttempt(sweep, spec, tracing);
  RunResult result;
  result.spec = spec;
  result.reproducer = Reproducer({sweep.options, sweep.under, sweep.with_dir, sweep.timeout}, spec);
  const std::string label = RunLabel(spec);
  std::string scope;
  StatusOr<InjectOutcome> outcome = RunOnce(sweep, sweep.options->command, label,
                                            {FaultRuleFor(spec)}, sweep.timeout, tracing, &scope);
  if (!outcome.ok()) {
    result.diverged_at = outcome.status().message();
    result.verdicts.push_back(Verdict::kDiverged);
    return result;
  }
  ClassifyLeftovers(BaselineLeftovers(sweep), outcome->faults, &outcome->leftovers);
  Judge(InputFor(sweep, spec, *outcome, scope), &result);
  KeepFiles(sweep, label, &result);
  DropFiles(sweep, label);
  return result;
}

// How many times a run of `site` may be made: AttemptsFor it, unless an earlier run of it
// used them all in vain; 1 + --retries for a site every baseline run reached.
int AttemptsOf(const Sweep& sweep, const std::string& site) {
  const int retried = 1 + sweep.options->retries;
  const auto it = sweep.attempts_by_site.find(site);
  if (it == sweep.attempts_by_site.end() || it->second <= retried) return retried;
  std::lock_guard<std::mutex> lock(sweep.unreached_mu);
  return sweep.unreached_sites.count(site) != 0 ? retried : it->second;
}

// Makes the run, again while it diverged (its planned call never came) and AttemptsOf
// allows: a program whose threads or order vary may reach the call on another try.
// With --out, a violation found untraced is made once more traced: the files kept are
// then that run's, trace included, and so are its verdicts. When that run is no violation
// the first one stands, kept without a trace.
RunResult RunOne(const Sweep& sweep, const RunSpec& spec) {
  const int attempts = AttemptsOf(sweep, spec.site);
  // Only --trace-all traces a run from its start. What judges a run is in the state file:
  // by site, its rule's counters; by number, the call number of its first fault's record.
  const Tracing tracing = sweep.options->trace_all ? Tracing::kTraced : Tracing::kNone;
  RunResult result = RunAttempt(sweep, spec, tracing);
  for (int attempt = 2; attempt <= attempts && !result.diverged_at.empty(); ++attempt) {
    result = RunAttempt(sweep, spec, tracing);
    result.attempts = attempt;
  }
  if (!result.diverged_at.empty() && attempts > 1 + sweep.options->retries) {
    std::lock_guard<std::mutex> lock(sweep.unreached_mu);
    sweep.unreached_sites.insert(spec.site);
  }
  if (tracing == Tracing::kNone && !sweep.options->out_dir.empty() && HasViolation(result)) {
    RunResult again = RunAttempt(sweep, spec, Tracing::kTraced);
    again.attempts = result.attempts + 1;
    if (HasViolation(again)) return again;
    result.attempts = again.attempts;
  }
  return result;
}

// Runs the plan's runs, `jobs` at a time, each taken from the stream when a worker is
// free, and spools each worker's runs to its own file of `spool` (so each file is in plan
// order); `result` counts them. Stops taking runs at the first spool error, and returns it.
Status RunAll(const Sweep& sweep, RunPlan* plan, int jobs, RunSpool* spool,
              CmdSweepResult* result) {
  std::mutex mu;
  Status failed;
  const uint64_t total = plan->shard_runs();
  auto worker = [&](int writer) {
    for (;;) {
      RunSpec spec;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (!failed.ok() || !plan->Next(&spec)) return;
      }
      const RunResult run = RunOne(sweep, spec);
      Status spooled = spool->Append(writer, run);
      std::lock_guard<std::mutex> lock(mu);
      if (!spooled.ok()) {
        if (failed.ok()) failed = std::move(spooled);
        return;
      }
      result->Count(run);
      if (sweep.options->on_progress) {
        sweep.options->on_progress(result->run_count, total, result->violations);
      }
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(jobs));
  for (int j = 1; j < jobs; ++j) threads.emplace_back(worker, j);
  worker(0);
  for (std::thread& t : threads) t.join();
  SPILLWAY_RETURN_IF_ERROR(failed);
  return spool->Flush();
}

Status Validate(const CmdSweepOptions& options, Sweep* sweep) {
  if (options.command.empty()) return Status::InvalidArgument("no command after --");
  char resolved[PATH_MAX];
  std::error_code ec;
  if (realpath(options.under.c_str(), resolved) == nullptr || !fs::is_directory(resolved, ec)) {
    return Status::InvalidArgument(
        fmt::format("--under {}: not an existing directory", options.under));
  }
  sweep->under = resolved;
  if (options.shard_count < 1 || options.shard_index < 1 ||
      options.shard_index > options.shard_count) {
    return Status::InvalidArgument(
        fmt::format("--shard {}/{}: K must be in 1..N", options.shard_index, options.shard_count));
  }
  if (options.jobs < 1) return Status::InvalidArgument("--jobs must be at least 1");
  if (options.retries < 0) return Status::InvalidArgument("--retries must be at least 0");
  if (options.baselines < 1) return Status::InvalidArgument("--baselines must be at least 1");
  SPILLWAY_RETURN_IF_ERROR(CheckNeighbourOptions(options));
  if (options.restart && options.restart->find_first_not_of(" \t\n") == std::string::npos) {
    return Status::InvalidArgument("--restart: an empty command");
  }
  if (!options.error_pattern.empty()) {
    try {
      sweep->error_pattern.emplace(options.error_pattern);
    } catch (const std::regex_error& e) {
      return Status::InvalidArgument(fmt::format("--error-pattern {}: not a regular expression: {}",
                                                 options.error_pattern, e.what()));
    }
  }
  StatusOr<std::vector<std::regex>> masks = CompileMasks(options.masks);
  if (!masks.ok()) return masks.status();
  sweep->masks = std::move(*masks);
  if (!options.out_dir.empty() && !fs::create_directories(options.out_dir, ec) && ec) {
    return Status::InvalidArgument(
        fmt::format("--out {}: cannot make it: {}", options.out_dir, ec.message()));
  }
  return OkStatus();
}

// A private directory for the runs' traces and outputs, removed when the sweep ends.
class WorkDir {
 public:
  WorkDir() {
    const char* tmp = std::getenv("TMPDIR");
    path_ = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/spillway-sweep-XXXXXX";
    if (mkdtemp(path_.data()) == nullptr) path_.clear();
    // Searchable, so that a program of the run that switches users can write its trace.
    if (!path_.empty()) chmod(path_.c_str(), 0711);
  }
  ~WorkDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

StatusOr<CmdSweepResult> RunCmdSweep(const CmdSweepOptions& options) {
  Sweep sweep;
  sweep.options = &options;
  SPILLWAY_RETURN_IF_ERROR(Validate(options, &sweep));
  sweep.with_dir = HasDirWord(options.command);
  const WorkDir work;
  if (work.path().empty()) return Status::InvalidArgument("cannot make a work directory");
  sweep.work_dir = work.path();
  SPILLWAY_RETURN_IF_ERROR(RunBaseline(&sweep));
  CmdSweepResult result;
  result.baseline = sweep.baseline;
  result.command = options.command;
  result.timeout = sweep.timeout;
  result.max_runs = options.max_runs;
  result.shard_index = options.shard_index;
  result.shard_count = options.shard_count;
  result.scratch = options.scratch;
  const Baseline& baseline = sweep.baseline;
  if (options.shard_index == 1) {
    // Neighbours run before the plan, in the first shard only (a merge keeps its rounds).
    StatusOr<NeighbourResult> neighbours = RunNeighbours(
        {&options, &baseline, sweep.timeout, sweep.error_pattern ? &*sweep.error_pattern : nullptr,
         sweep.baseline_reported_error, sweep.with_dir, sweep.under, sweep.work_dir,
         [&sweep](const std::string& label) -> StatusOr<std::string> {
           StatusOr<Scope> scope = MakeScope(sweep, label);
           if (!scope.ok()) return scope.status();
           return scope->given;
         },
         [&options](const std::string& scope) { return CommandFor(options.command, scope); },
         &sweep.masks});
    if (!neighbours.ok()) return neighbours.status();
    result.neighbours = std::move(*neighbours);
  }
  RunPlan plan(baseline,
               {options.depth, options.errnos, options.ops, options.modes, options.max_runs,
                options.shard_index, options.shard_count},
               [&baseline]() -> CallSource {
                 auto reader =
                     std::make_shared<TraceReader>(baseline.trace, baseline.trace_skip,
                                                   baseline.scope, baseline.with_dir, nullptr);
                 return [reader](TracedCall* call) { return reader->Next(call); };
               });
  result.depth = plan.depth();
  result.plan_sizes = plan.sizes();
  result.planned_runs = plan.planned();
  result.sampled_runs = plan.sampled();
  const int jobs = sweep.with_dir ? std::max(1, options.jobs) : 1;
  StatusOr<std::shared_ptr<RunSpool>> spool = RunSpool::Create(sweep.work_dir, jobs, plan.depth());
  if (!spool.ok()) return spool.status();
  result.runs = *spool;
  SPILLWAY_RETURN_IF_ERROR(RunAll(sweep, &plan, jobs, spool->get(), &result));
  return result;
}

}  // namespace spillway::program_sweep
