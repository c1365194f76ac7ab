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
#include "inject_run.h"
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
  bool baseline_reported_error = false;
  std::map<std::string, int> attempts_by_site;  // AttemptsFor each site.
  // Sites that a run tried AttemptsFor times without reaching: their later runs get only
  // 1 + --retries tries (the site is rarer than its baseline runs made it look).
  mutable std::mutex unreached_mu;
  mutable std::set<std::string> unreached_sites;
};

bool HasDirWord(const std::vector<std::string>& command) {
  return std::any_of(command.begin(), command.end(), [](const std::string& arg) {
    return arg.find(kDirWord) != std::string::npos;
  });
}

// Each piece of `arg` around {dir}, transformed by `piece`, joined by `dir`.
std::string ReplaceDir(const std::string& arg, const std::string& dir,
                       std::string (*piece)(std::string_view)) {
  std::string out;
  size_t start = 0;
  for (size_t at = arg.find(kDirWord); at != std::string::npos; at = arg.find(kDirWord, start)) {
    if (at > start) out += piece(std::string_view(arg).substr(start, at - start));
    out += dir;
    start = at + kDirWord.size();
  }
  if (start < arg.size() || arg.empty()) out += piece(std::string_view(arg).substr(start));
  return out;
}

std::string Verbatim(std::string_view text) { return std::string(text); }

std::vector<std::string> CommandFor(const Sweep& sweep, const std::string& scope) {
  std::vector<std::string> command;
  for (const std::string& arg : sweep.options->command) {
    command.push_back(ReplaceDir(arg, scope, Verbatim));
  }
  return command;
}

std::string Reproducer(const Sweep& sweep, const RunSpec& spec) {
  const CmdSweepOptions& options = *sweep.options;
  std::string line;
  std::string scope = ShellWord(sweep.under);
  if (sweep.with_dir) {
    line = fmt::format("d=$(mktemp -d -p {}) && ", ShellWord(sweep.under));
    scope = "\"$d\"";
  }
  line += fmt::format("{} inject --under {} --fault {} --timeout {:g}",
                      ShellWord(options.spillway_binary), scope, ShellWord(FaultRuleFor(spec)),
                      sweep.timeout);
  if (!options.share_with.empty()) {
    line += " --share-with ";
    line += ShellWord(options.share_with);
  }
  line += " --";
  // Appended a piece at a time: GCC 12 warns (-Wrestrict, a false positive) on `" " + word`.
  for (const std::string& arg : options.command) {
    line += ' ';
    line += sweep.with_dir ? ReplaceDir(arg, "\"$d\"", ShellWord) : ShellWord(arg);
  }
  return line;
}

// A fresh scope for one run: a new directory in `under` with {dir}, else `under` itself.
StatusOr<std::string> MakeScope(const Sweep& sweep, const std::string& label) {
  if (!sweep.with_dir) return sweep.under;
  std::string path = sweep.under + "/" + label + "-XXXXXX";
  if (mkdtemp(path.data()) == nullptr) {
    return Status::InvalidArgument(
        fmt::format("cannot make a scope directory in {}: {}", sweep.under, std::strerror(errno)));
  }
  return path;
}

// Removes what the run left (all of its scope with {dir}; else the entries that were not
// there before it), so that every run starts from the same state.
void DropScope(const Sweep& sweep, const std::string& scope, const InjectOutcome& raw) {
  std::error_code ec;
  if (sweep.with_dir) {
    fs::remove_all(scope, ec);
    return;
  }
  for (auto it = raw.leftovers.rbegin(); it != raw.leftovers.rend(); ++it) {
    fs::remove_all(it->path, ec);
  }
}

// How a run is traced: not at all, traced, or traced with its frames symbolized (the
// baseline's, which the report shows).
enum class Tracing : uint8_t { kNone, kCalls, kSymbolized };

// Runs the command once through the launcher with `faults` in a fresh scope; the outcome's
// paths are shown relative to the scope (`*real`, resolved; its trace is read so).
StatusOr<InjectOutcome> RunOnce(const Sweep& sweep, const std::string& label,
                                const std::vector<std::string>& faults, double timeout,
                                Tracing tracing, std::string* real_scope) {
  StatusOr<std::string> scope = MakeScope(sweep, label);
  if (!scope.ok()) return scope.status();
  char resolved[PATH_MAX];
  const std::string real = realpath(scope->c_str(), resolved) != nullptr ? resolved : *scope;
  *real_scope = real;
  const InjectInvocation invocation{real,
                                    CommandFor(sweep, *scope),
                                    faults,
                                    timeout,
                                    sweep.work_dir + "/" + label,
                                    sweep.options->share_with,
                                    tracing != Tracing::kNone,
                                    tracing == Tracing::kSymbolized};
  StatusOr<InjectOutcome> ran = RunInject(invocation);
  if (!ran.ok()) {
    std::error_code ec;
    if (sweep.with_dir) fs::remove_all(*scope, ec);
    return ran.status();
  }
  InjectOutcome& outcome = *ran;
  DropScope(sweep, *scope, outcome);
  ShowPaths(&outcome, real, sweep.with_dir);
  if (real != *scope && sweep.with_dir) {
    // The command saw the unresolved path; show it as {dir} in its output too.
    InjectOutcome alias;
    alias.program_stdout = std::move(outcome.program_stdout);
    ShowPaths(&alias, *scope, true);
    outcome.program_stdout = std::move(alias.program_stdout);
  }
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
      RunOnce(sweep, label, {}, limit, Tracing::kSymbolized, &baseline->scope);
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
  for (Leftover& left : baseline.leftovers) {
    left.kind = options.scratch ? Leftover::Kind::kLeak : Leftover::Kind::kBaseline;
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
  return OkStatus();
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

// True when the run of `spec` is traced from its start: with --trace-all, and when it is
// planned by call number (only its trace tells which call n was). A run by site is judged
// by its rule's counters.
bool TracedFromStart(const Sweep& sweep, const RunSpec& spec) {
  return sweep.options->trace_all || !spec.by_site;
}

RunResult RunAttempt(const Sweep& sweep, const RunSpec& spec, bool traced) {
  RunResult result;
  result.spec = spec;
  result.reproducer = Reproducer(sweep, spec);
  const std::string label = RunLabel(spec);
  std::string scope;
  StatusOr<InjectOutcome> outcome = RunOnce(sweep, label, {FaultRuleFor(spec)}, sweep.timeout,
                                            traced ? Tracing::kCalls : Tracing::kNone, &scope);
  if (!outcome.ok()) {
    result.diverged_at = outcome.status().message();
    result.verdicts.push_back(Verdict::kDiverged);
    return result;
  }
  ClassifyLeftovers(sweep.options->scratch ? std::vector<Leftover>{} : sweep.baseline.leftovers,
                    outcome->faults, &outcome->leftovers);
  Judge({&spec, &*outcome, &sweep.baseline, sweep.options->compare_stdout,
         sweep.error_pattern ? &*sweep.error_pattern : nullptr, sweep.baseline_reported_error,
         scope, sweep.with_dir},
        &result);
  KeepFiles(sweep, label, &result);
  for (const char* suffix : {".stdout", ".stderr", ".trace"}) {
    unlink((sweep.work_dir + "/" + label + suffix).c_str());
  }
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
  const bool traced = TracedFromStart(sweep, spec);
  RunResult result = RunAttempt(sweep, spec, traced);
  for (int attempt = 2; attempt <= attempts && !result.diverged_at.empty(); ++attempt) {
    result = RunAttempt(sweep, spec, traced);
    result.attempts = attempt;
  }
  if (!result.diverged_at.empty() && attempts > 1 + sweep.options->retries) {
    std::lock_guard<std::mutex> lock(sweep.unreached_mu);
    sweep.unreached_sites.insert(spec.site);
  }
  if (!traced && !sweep.options->out_dir.empty() && HasViolation(result)) {
    RunResult again = RunAttempt(sweep, spec, /*traced=*/true);
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
  if (!options.error_pattern.empty()) {
    try {
      sweep->error_pattern.emplace(options.error_pattern);
    } catch (const std::regex_error& e) {
      return Status::InvalidArgument(fmt::format("--error-pattern {}: not a regular expression: {}",
                                                 options.error_pattern, e.what()));
    }
  }
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

bool DepthFromName(std::string_view name, Depth* depth) {
  const std::optional<Depth> parsed = vocab::ParseName<DepthName>(name);
  if (parsed) *depth = *parsed;
  return parsed.has_value();
}

void CmdSweepResult::Count(const RunResult& run) {
  ++run_count;
  violations += HasViolation(run) ? 1 : 0;
  auto* site = run.spec.site.empty() ? nullptr : &by_site[run.spec.site];
  for (Verdict v : run.verdicts) {
    ++by_verdict[static_cast<int>(v)];
    if (site != nullptr) ++(*site)[static_cast<int>(v)];
  }
}

int AttemptsFor(const SiteInfo& site, int baseline_runs, int retries) {
  const int attempts = 1 + retries;
  if (site.baselines <= 0 || site.baselines >= baseline_runs) return attempts;
  // Each try reaches the site at the rate p = k/n the baseline's runs did: n tries all miss
  // it with a chance of (1 - p)^n. 0.1 % a run, so that a profile with tens of runs at such
  // sites still stays under 1 % diverged runs (at 1 % a run, one of DuckDB limit-set's 12
  // such runs missed its site in 20 tries).
  constexpr double kMissChance = 0.001;
  const double miss = 1.0 - static_cast<double>(site.baselines) / baseline_runs;
  const int needed = static_cast<int>(std::ceil(std::log(kMissChance) / std::log(miss)));
  return std::max(attempts, std::min(needed, kMaxAttempts));
}

int ExitStatusOf(const CmdSweepResult& result) {
  const bool baseline_leaks = result.scratch && !result.baseline.leftovers.empty();
  return result.violations == 0 && !baseline_leaks ? 0 : 1;
}

std::string FaultRuleFor(const RunSpec& spec) {
  const std::string where = spec.by_site ? fmt::format("site={} nth={}", spec.site, spec.nth)
                                         : fmt::format("after={}", spec.after);
  std::string_view repeat;
  switch (spec.mode) {
    case FaultMode::kTransient:
      break;
    case FaultMode::kPersistent:
      // That call and every later call of the op fail. By site, the site's call only
      // triggers the rule (then=any), so calls of the op from other sites fail as well.
      repeat = spec.by_site ? " times=forever then=any" : " times=forever";
      break;
    case FaultMode::kKill:  // Not offered by this sweep's --mode.
      break;
  }
  return fmt::format("{} {} {}{}", spec.call.op, ErrnoName(spec.error_number), where, repeat);
}

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
