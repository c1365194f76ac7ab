// `spillway simulate`: a long, seeded random run of the spill model (model/)
// against the spill manager, with several plans at once, injected faults and a tmp
// cleaner, checking every invariant after every step. The commands and the checks are the
// property tests' own; only the source of randomness differs (a seeded mt19937_64 instead
// of RapidCheck). On a violation the failing program is shrunk by delta debugging,
// keeping the kind of invariant it breaks, and written out with its `quirk` lines as a
// scenario file that `spillway run` replays by itself. simulate_json.cc writes the
// summary as JSON.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "commands.h"
#include "simulate_internal.h"
#include "spillway/model/spill_model.h"
#include "spillway/scenario/scenario.h"
#include "spillway/spill/quirks.h"
#include "spillway/spill/spill_budget.h"
#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/status.h"

namespace spillway::tools {
namespace {

struct SimulateArgs {
  uint64_t seed = 1;
  uint64_t steps = 2000;
  int plans = 4;
  int dirs = 3;
  double fault_rate = 0.05;
  int forever_percent = 0;
  std::string fs = "mem";
  Quirks quirks;
  int jobs = 1;
  bool json = false;
  std::string out;  // Empty: a fresh directory (OutDir).
  bool all_reproducers = false;
};

// Stop shrinking after this many trial runs, or this long; what is left is still a
// failing program, only a longer one.
constexpr int kMaxShrinkRuns = 4000;
constexpr std::chrono::seconds kMaxShrinkTime(30);

scenario::RunnerOptions RunnerOptionsFor(const SimulateOptions& options, uint64_t seed) {
  scenario::RunnerOptions runner;
  runner.fs = options.fs;
  runner.quirks = options.quirks;
  runner.seed = seed;
  return runner;
}

// True when the program's first violation breaks an invariant of kind `kind`.
bool Fails(const std::vector<scenario::Command>& lines, const scenario::RunnerOptions& runner,
           model::InvariantKind kind) {
  const std::optional<model::Violation> v =
      model::RunProgram(model::ProgramFromLines(lines, runner.fs), runner);
  return v.has_value() && v->kind == kind;
}

// Delta debugging (ddmin): removes chunks of the program, then single lines, for as long
// as what is left still shows a violation of the same kind. REQUIRES: Fails(lines, kind).
std::vector<scenario::Command> Shrink(std::vector<scenario::Command> lines,
                                      const scenario::RunnerOptions& runner,
                                      model::InvariantKind kind) {
  const auto deadline = std::chrono::steady_clock::now() + kMaxShrinkTime;
  int runs = 0;
  auto more = [&] { return runs < kMaxShrinkRuns && std::chrono::steady_clock::now() < deadline; };
  size_t parts = 2;
  while (lines.size() >= 2 && more()) {
    const size_t chunk = (lines.size() + parts - 1) / parts;
    bool removed = false;
    for (size_t start = 0; start < lines.size() && more(); start += chunk) {
      const auto at = [&](size_t i) { return lines.begin() + static_cast<std::ptrdiff_t>(i); };
      std::vector<scenario::Command> candidate(lines.begin(), at(start));
      candidate.insert(candidate.end(), at(std::min(lines.size(), start + chunk)), lines.end());
      ++runs;
      if (Fails(candidate, runner, kind)) {
        // Keep only the lines still valid where they now stand.
        std::vector<scenario::Command> kept;
        for (const model::CommandPtr& c : model::ProgramFromLines(candidate, runner.fs).commands) {
          kept.push_back(c->line());
        }
        lines = std::move(kept);
        parts = std::max<size_t>(parts - 1, 2);
        removed = true;
        break;
      }
    }
    if (removed) continue;
    if (parts >= lines.size()) break;
    parts = std::min(lines.size(), parts * 2);
  }
  return lines;
}

std::string QuirkFlags(Quirks quirks) {
  std::string flags;
  for (Quirk q : AllQuirks()) {
    if (quirks.Has(q)) flags += fmt::format(" --quirk {}", QuirkName(q));
  }
  return flags;
}

// Shrinks the failing program; WriteScenarios writes it out once all seeds are done.
void ShrinkFailure(const SimulateOptions& options, const std::vector<scenario::Command>& lines,
                   SeedResult* result) {
  const scenario::RunnerOptions runner = RunnerOptionsFor(options, result->seed);
  result->commands_before_shrink = lines.size();
  std::vector<scenario::Command> shrunk = lines;
  // The violation may depend on timing nothing here controls; shrink only what fails again.
  const model::InvariantKind kind = result->violation->kind;
  if (Fails(lines, runner, kind)) shrunk = Shrink(lines, runner, kind);
  result->commands_after_shrink = shrunk.size();
  result->shrunk_violation =
      model::RunProgram(model::ProgramFromLines(shrunk, runner.fs), runner, &result->shrunk_text);
}

// Writes the shrunk program of `result` to the output directory.
void WriteScenario(const SimulateOptions& options, SeedResult* result) {
  const std::string path =
      fmt::format("{}/spillway-simulate-{}.scenario", options.out_dir, result->seed);
  std::ofstream out(path);
  out << fmt::format("# Found by spillway simulate --seed {}{} --fs {}: [{}] {}\n", result->seed,
                     QuirkFlags(options.quirks), FsName(options.fs),
                     model::InvariantKindName(result->violation->kind), result->violation->message);
  if (const std::optional<model::Violation>& again = result->shrunk_violation) {
    out << fmt::format("# Shrunk from {} to {} commands; this file fails with: [{}] {}\n",
                       result->commands_before_shrink, result->commands_after_shrink,
                       model::InvariantKindName(again->kind), again->message);
  } else {
    out << "# The shrunk program did not fail again when rerun.\n";
  }
  out << "# Replay: " << ReplayCommand(options, result->seed, path) << "\n"
      << model::QuirkLines(options.quirks) << result->shrunk_text;
  out.close();
  if (!out) {
    result->write_error = fmt::format("cannot write {}", path);
    return;
  }
  result->scenario_path = path;
}

// Adds a step's outcome to the run's statistics; `size_before` is a written file's size
// before the step.
void CountStep(const scenario::Command& line, scenario::Runner& runner, uint64_t size_before,
               SeedResult* result) {
  const Status& outcome = runner.last_outcome();
  if (std::holds_alternative<scenario::Plan>(line.verb) && outcome.ok()) ++result->plans;
  if (std::holds_alternative<scenario::Spill>(line.verb) && outcome.ok()) ++result->spills;
  if (const auto* write = std::get_if<scenario::Write>(&line.verb)) {
    const SpillFile* after = runner.file(write->file);
    if (after != nullptr) result->bytes_written += after->size() - size_before;
  }
  if (!outcome.ok()) ++result->errors[scenario::OutcomeName(outcome)];
  const std::vector<std::string> bound = runner.plan_names();
  for (auto it = result->plan_metrics.begin(); it != result->plan_metrics.end();) {
    if (std::binary_search(bound.begin(), bound.end(), it->first)) {
      ++it;
      continue;
    }
    AddMetrics(it->second, &result->unbound_metrics);
    it = result->plan_metrics.erase(it);
  }
  for (const std::string& name : bound) result->plan_metrics[name] = runner.plan(name)->metrics();
}

// Writes one scenario file per distinct violation: seeds whose violations break the same
// kind of invariant with the same shrunk program share the first one's file, unless `all`.
void WriteScenarios(const SimulateOptions& options, bool all, std::vector<SeedResult>& results) {
  std::map<std::string, const SeedResult*> written;  // Invariant and program -> its file.
  for (SeedResult& r : results) {
    if (!r.violation) continue;
    const std::string identity =
        std::string(model::InvariantKindName(r.violation->kind)) + "\n" + r.shrunk_text;
    const auto it = written.find(identity);
    if (all || it == written.end() || it->second->scenario_path.empty()) {
      WriteScenario(options, &r);
      written.insert_or_assign(identity, &r);
      continue;
    }
    r.same_scenario_as = it->second->seed;
    r.scenario_path = it->second->scenario_path;
  }
}

// True when a violation of `kind` is what a run with `quirks` looks for: any kind without
// quirks; with quirks, the invariants that name their defects (model::QuirkInvariant), or
// any kind when one of them is not in that table.
bool Sought(Quirks quirks, model::InvariantKind kind) {
  if (quirks.empty()) return true;
  for (const Quirk q : AllQuirks()) {
    if (!quirks.Has(q)) continue;
    const std::optional<model::InvariantKind> named = model::QuirkInvariant(q);
    if (!named.has_value() || *named == kind) return true;
  }
  return false;
}

// Runs one program on a fresh runner, from the seed's step result->steps until its steps
// are used up or a violation, then drops everything; its lines go to `*lines`. Returns
// false when the runner could not be created. `progress` counts steps done.
bool RunOneProgram(const SimulateOptions& options, model::RandomChooser& chooser,
                   std::atomic<uint64_t>* progress, std::vector<scenario::Command>* lines,
                   SeedResult* result) {
  StatusOr<std::unique_ptr<scenario::Runner>> runner =
      scenario::Runner::Create(RunnerOptionsFor(options, result->seed));
  if (!runner.ok()) {
    result->setup_error = runner.status().ToString();
    return false;
  }
  model::SpillSut sut{runner->get()};
  model::SpillModel state = model::InitialState(options.fs);
  lines->clear();
  while (result->steps < options.steps && !result->violation) {
    model::CommandPtr command;
    for (int tries = 0; tries < 100 && command == nullptr; ++tries) {
      command = model::GenerateCommand(state, options.gen, chooser);
    }
    if (command == nullptr) break;  // Nothing valid to do (does not happen with faults on).
    const scenario::Command& line = command->line();
    lines->push_back(line);
    const auto* write = std::get_if<scenario::Write>(&line.verb);
    const SpillFile* file = write != nullptr ? sut.runner->file(write->file) : nullptr;
    const uint64_t size_before = file != nullptr ? file->size() : 0;
    result->violation = command->Execute(state, sut);
    ++result->steps;
    progress->fetch_add(1);
    if (result->violation) result->violation_step = result->steps;
    if (result->violation) break;
    CountStep(line, *sut.runner, size_before, result);
    command->Apply(state);
  }
  if (!result->violation) {
    std::string drops;
    result->violation = model::DropEverything(state, sut, &drops);
    if (result->violation) result->violation_step = options.steps + 1;
  }
  // The next program binds the same names again.
  for (const auto& [name, metrics] : result->plan_metrics) {
    AddMetrics(metrics, &result->unbound_metrics);
  }
  result->plan_metrics.clear();
  result->checks += sut.checks;
  for (const InjectedFault& fault : sut.runner->fs().injected()) {
    ++result->faults[fmt::format("{} {}", OpKindName(fault.op), ErrnoName(fault.error_number))];
  }
  return true;
}

// One seed's run. A violation that is not of a kind sought (Sought) is a side effect of
// the quirks: it is counted, and the run goes on with a fresh program for the steps left,
// so that a seed reports its quirks' own defects. `progress` counts steps done, across
// all seeds.
SeedResult RunSeed(const SimulateOptions& options, uint64_t seed, std::atomic<uint64_t>* progress) {
  SeedResult result;
  result.seed = seed;
  model::RandomChooser chooser(seed);
  std::vector<scenario::Command> lines;
  while (true) {
    const uint64_t steps_before = result.steps;
    if (!RunOneProgram(options, chooser, progress, &lines, &result)) return result;
    if (!result.violation || Sought(options.quirks, result.violation->kind)) break;
    ++result.side_effects[std::string(model::InvariantKindName(result.violation->kind))];
    result.violation.reset();
    if (result.steps >= options.steps || result.steps == steps_before) break;
  }
  // The rest of the run's steps count as done when it stopped early.
  progress->fetch_add(options.steps - result.steps);
  if (result.violation) ShrinkFailure(options, lines, &result);
  return result;
}

// Progress on stderr: a bar redrawn in place on a terminal, a line per tenth otherwise.
class Progress {
 public:
  Progress(uint64_t total, const std::atomic<uint64_t>* done)
      : total_(total), done_(done), tty_(::isatty(STDERR_FILENO) != 0) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~Progress() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
    Draw(/*final=*/true);
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!cv_.wait_for(lock, std::chrono::milliseconds(tty_ ? 100 : 250),
                         [this] { return stop_; })) {
      Draw(/*final=*/false);
    }
  }

  void Draw(bool final) {
    const uint64_t done = std::min(done_->load(), total_);
    const int percent = total_ == 0 ? 100 : static_cast<int>(done * 100 / total_);
    if (tty_) {
      constexpr int kWidth = 30;
      const int filled = percent * kWidth / 100;
      std::fprintf(stderr, "\r[%s%s] %3d%%  %llu/%llu steps", std::string(filled, '#').c_str(),
                   std::string(kWidth - filled, '-').c_str(), percent,
                   static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_));
      if (final) std::fprintf(stderr, "\n");
    } else if (percent / 10 > last_tenth_ && (percent < 100 || final)) {
      last_tenth_ = percent / 10;
      std::fprintf(stderr, "simulate: %d%% (%llu/%llu steps)\n", percent,
                   static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_));
    }
    std::fflush(stderr);
  }

  const uint64_t total_;
  const std::atomic<uint64_t>* const done_;
  const bool tty_;
  int last_tenth_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

std::string Join(const std::map<std::string, uint64_t>& counts) {
  if (counts.empty()) return "none";
  std::string text;
  for (const auto& [kind, n] : counts) {
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", kind, n);
  }
  return text;
}

void PrintText(const SimulateOptions& options, const std::vector<SeedResult>& results,
               double seconds) {
  SeedResult total;
  for (const SeedResult& r : results) {
    total.steps += r.steps;
    total.plans += r.plans;
    total.spills += r.spills;
    total.bytes_written += r.bytes_written;
    total.checks += r.checks;
    for (const auto& [k, n] : r.faults) total.faults[k] += n;
    for (const auto& [k, n] : r.errors) total.errors[k] += n;
    for (const auto& [k, n] : r.side_effects) total.side_effects[k] += n;
  }
  const std::vector<std::string> quirks = QuirkNames(options.quirks);
  std::printf("spillway simulate: %zu seed%s from %llu, %llu steps each, fs %s, quirks %s\n",
              results.size(), results.size() == 1 ? "" : "s",
              static_cast<unsigned long long>(results.front().seed),
              static_cast<unsigned long long>(options.steps), FsName(options.fs).c_str(),
              quirks.empty() ? "none" : fmt::format("{}", fmt::join(quirks, ",")).c_str());
  std::printf("  steps run           %llu in %.1f s\n",
              static_cast<unsigned long long>(total.steps), seconds);
  std::printf("  plans built         %llu\n", static_cast<unsigned long long>(total.plans));
  std::printf("  spill files         %llu\n", static_cast<unsigned long long>(total.spills));
  std::printf("  bytes written       %llu\n", static_cast<unsigned long long>(total.bytes_written));
  std::printf("  faults injected     %s\n", Join(total.faults).c_str());
  std::printf("  errors surfaced     %s\n", Join(total.errors).c_str());
  if (!options.quirks.empty()) {
    std::printf("  side effects        %s\n", Join(total.side_effects).c_str());
  }
  std::printf("  invariants checked  %llu\n", static_cast<unsigned long long>(total.checks));
  size_t violations = 0;
  for (const SeedResult& r : results) {
    if (!r.setup_error.empty()) {
      std::printf("seed %llu: cannot run: %s\n", static_cast<unsigned long long>(r.seed),
                  r.setup_error.c_str());
    }
    if (!r.violation) continue;
    ++violations;
    std::printf("seed %llu: violation at step %llu: [%s] %s\n",
                static_cast<unsigned long long>(r.seed),
                static_cast<unsigned long long>(r.violation_step),
                std::string(model::InvariantKindName(r.violation->kind)).c_str(),
                r.violation->message.c_str());
    if (r.same_scenario_as) {
      std::printf("  shrunk from %zu to %zu commands, the program of seed %llu: %s\n",
                  r.commands_before_shrink, r.commands_after_shrink,
                  static_cast<unsigned long long>(*r.same_scenario_as), r.scenario_path.c_str());
    } else if (!r.scenario_path.empty()) {
      std::printf("  shrunk from %zu to %zu commands: %s\n  replay: %s\n", r.commands_before_shrink,
                  r.commands_after_shrink, r.scenario_path.c_str(),
                  ReplayCommand(options, r.seed, r.scenario_path).c_str());
    } else {
      std::printf("  %s\n", r.write_error.c_str());
    }
  }
  if (violations == 0) std::printf("  violations          none\n");
}

// Fills the options the arguments ask for, but for out_dir. Throws UsageError.
void MakeOptions(const SimulateArgs& args, SimulateOptions* options) {
  if (args.dirs < 1 || args.dirs > model::kMaxLocalDirs) {
    throw UsageError(fmt::format("--dirs must be between 1 and {}", model::kMaxLocalDirs));
  }
  if (args.plans < 1) throw UsageError("--plans must be at least 1");
  if (args.jobs < 1) throw UsageError("--jobs must be at least 1");
  if (!(args.fault_rate >= 0 && args.fault_rate < 1)) {
    throw UsageError("--fault-rate must be at least 0 and below 1");
  }
  if (args.forever_percent < 0 || args.forever_percent > 100) {
    throw UsageError("--forever-percent must be between 0 and 100");
  }
  options->steps = args.steps;
  options->fs = FsKindFromName(args.fs);
  options->quirks = args.quirks;
  model::GenOptions& gen = options->gen;
  gen.local_dirs = args.dirs;
  gen.max_live_plans = args.plans;
  gen.max_live_files = 3 * args.plans;
  // fault_weight / (fault_weight + the rest) is about the rate asked for.
  gen.fault_weight = static_cast<int>(
      std::lround(args.fault_rate * model::OtherVerbsWeight() / (1 - args.fault_rate)));
  if (args.fault_rate > 0 && gen.fault_weight == 0) gen.fault_weight = 1;
  // By default every fault fails one call: over a long run, a fault that never stops soon
  // fails every later step of its kind (the property tests cover those in short runs).
  gen.forever_percent = args.forever_percent;
  gen.capacity = options->fs == scenario::FsKind::kMem;
}

int RunSimulate(const SimulateArgs& args) {
  SimulateOptions options;
  MakeOptions(args, &options);
  const OutDir out("simulate", args.out);  // Made only once the rest is valid.
  options.out_dir = out.path();
  const auto start = std::chrono::steady_clock::now();
  std::vector<SeedResult> results(static_cast<size_t>(args.jobs));
  std::atomic<uint64_t> done{0};
  {
    Progress progress(options.steps * results.size(), &done);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < results.size(); ++i) {
      threads.emplace_back([&, i] { results[i] = RunSeed(options, args.seed + i, &done); });
    }
    for (std::thread& t : threads) t.join();
  }
  WriteScenarios(options, args.all_reproducers, results);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (args.json) {
    PrintJson(options, results, seconds);
  } else {
    PrintText(options, results, seconds);
  }
  std::fflush(stdout);
  int exit_code = 0;
  for (const SeedResult& r : results) {
    if (!r.setup_error.empty()) return 2;  // The run could not even start.
    if (r.violation || !r.side_effects.empty()) exit_code = 1;
  }
  return exit_code;
}

}  // namespace

void AddSimulateCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<SimulateArgs>();
  CLI::App* sub = app.add_subcommand(
      "simulate",
      "Run the spill model against the spill manager for a long seeded random run (several "
      "plans, injected faults, a tmp cleaner), checking every invariant after every step. "
      "Each violation is reported with the kind of invariant it breaks; with --quirk, a seed "
      "looks for the kinds that name its quirks' defects, and counts violations of other "
      "kinds as side effects, going on with a fresh program. Exits 0 when nothing was "
      "violated, 1 when something was (the shrunk program, with its quirk lines, is written "
      "into --out as a scenario file that replays by itself), 2 on bad input");
  sub->add_option("--seed", args->seed, "The first seed; --jobs N runs seed .. seed+N-1")
      ->capture_default_str();
  sub->add_option("--steps", args->steps, "Commands per seed")->capture_default_str();
  sub->add_option("--plans", args->plans, "Plans alive at once, at most")->capture_default_str();
  sub->add_option("--dirs", args->dirs, "Local dirs (/l0 ...), 1 to 4")->capture_default_str();
  sub->add_option("--fault-rate", args->fault_rate,
                  "About this fraction of commands inject a fault (0 <= P < 1)")
      ->capture_default_str();
  sub->add_option("--forever-percent", args->forever_percent,
                  "Percent of injected faults that fail every later matching call, not only "
                  "the next (0 to 100)")
      ->capture_default_str();
  AddFsOption(*sub, args->fs);
  AddQuirkOption(*sub, args->quirks);
  sub->add_option("--jobs", args->jobs, "Seeds run in parallel threads")->capture_default_str();
  sub->add_flag("--json", args->json, "Print the summary as one JSON object");
  sub->add_option("--out", args->out,
                  "Where shrunk scenario files are written, one per distinct violation (the "
                  "same kind of violation and shrunk program), made if missing; not inside a "
                  "git checkout unless git ignores it (default: a fresh directory under "
                  "$TMPDIR or /tmp, removed if nothing is written); nothing else is written");
  sub->add_flag("--all-reproducers", args->all_reproducers,
                "Write a scenario file for every seed with a violation, also when an earlier "
                "seed's file holds the same program");
  sub->callback([args, &exit_code] { exit_code = RunSimulate(*args); });
}

}  // namespace spillway::tools
