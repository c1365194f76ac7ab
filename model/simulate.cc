// The simulation's runs (simulate.h): each seed's programs, generated and checked step by
// step, their statistics, and the quirk filter that tells a quirk's own defect from its
// side effects. simulate_reproducers.cc shrinks and writes what failed,
// simulate_summary.cc prints the result.
#include "spillway/model/simulate.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "simulate_internal.h"
#include "spillway/model/spill_model.h"
#include "spillway/scenario/scenario.h"
#include "spillway/spill/quirks.h"
#include "spillway/spill/spill_budget.h"
#include "spillway/vfs/fault_action.h"
#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/status.h"

namespace spillway::model {
namespace internal {

scenario::RunnerOptions RunnerOptionsFor(const SimulateOptions& options, uint64_t seed) {
  scenario::RunnerOptions runner;
  runner.fs = options.fs;
  runner.quirks = options.quirks;
  runner.seed = seed;
  return runner;
}

void AddMetrics(const SpillMetrics& m, SpillMetrics* sum) {
  sum->spills += m.spills;
  sum->spilled += m.spilled;
  sum->peak = std::max(sum->peak, m.peak);
}

}  // namespace internal

namespace {

using internal::AddMetrics;
using internal::RunnerOptionsFor;

// What the generator may draw for `options`. REQUIRES: CheckSimulateOptions(options) is OK.
GenOptions GenOptionsFor(const SimulateOptions& options) {
  GenOptions gen;
  gen.local_dirs = options.dirs;
  gen.max_live_plans = options.plans;
  gen.max_live_files = 3 * options.plans;
  // fault_weight / (fault_weight + the rest) is about the rate asked for.
  gen.fault_weight = static_cast<int>(
      std::lround(options.fault_rate * OtherVerbsWeight() / (1 - options.fault_rate)));
  if (options.fault_rate > 0 && gen.fault_weight == 0) gen.fault_weight = 1;
  gen.forever_percent = options.forever_percent;
  gen.capacity = options.fs == scenario::FsKind::kMem;
  return gen;
}

// The error of a seed whose runner cannot be created.
Status CannotRun(uint64_t seed, const Status& error) {
  return {error.code(), fmt::format("seed {}: cannot run: {}", seed, error.ToString())};
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

// Adds the faults a process's filesystem injected to the run's count: "OP ERRNO", or "OP
// kill" for the call a `kill` fired at.
void CountFaults(const FaultInjectingFileSystem& fs, SeedResult* result) {
  for (const InjectedFault& fault : fs.injected()) {
    // A kill or a lie (corrupt, lost) has no errno: its action's word names it.
    const std::string what = fault.error_number != 0 ? ErrnoName(fault.error_number)
                                                     : std::string(FaultActionName(fault.action));
    ++result->faults[fmt::format("{} {}", OpKindName(fault.op), what)];
  }
}

// Runs one program on a fresh runner, from the seed's step result->steps until its steps
// are used up or a violation, then drops everything; its lines go to `*lines`. Returns
// the error of a runner that could not be created. `progress` counts steps done.
Status RunOneProgram(const SimulateOptions& options, const GenOptions& gen, Chooser& chooser,
                     std::atomic<uint64_t>* progress, std::vector<scenario::Command>* lines,
                     SeedResult* result) {
  StatusOr<std::unique_ptr<scenario::Runner>> runner =
      scenario::Runner::Create(RunnerOptionsFor(options, result->seed));
  if (!runner.ok()) return CannotRun(result->seed, runner.status());
  SpillSut sut{runner->get()};
  SpillModel state = InitialState(options.fs);
  lines->clear();
  while (result->steps < options.steps && !result->violation) {
    CommandPtr command;
    for (int tries = 0; tries < 100 && command == nullptr; ++tries) {
      command = GenerateCommand(state, gen, chooser);
    }
    if (command == nullptr) break;  // Nothing valid to do (does not happen with faults on).
    const scenario::Command& line = command->line();
    lines->push_back(line);
    const auto* write = std::get_if<scenario::Write>(&line.verb);
    const SpillFile* file = write != nullptr ? sut.runner->file(write->file) : nullptr;
    const uint64_t size_before = file != nullptr ? file->size() : 0;
    // A kill replaces the process's filesystem (the runner keeps the dead one until the
    // next kill): its faults are counted now, or they would be lost with it.
    const FaultInjectingFileSystem* process_fs = &sut.runner->fs();
    result->violation = command->Execute(state, sut);
    if (&sut.runner->fs() != process_fs) CountFaults(*process_fs, result);
    ++result->steps;
    progress->fetch_add(1);
    if (result->violation) result->violation_step = result->steps;
    if (result->violation) break;
    CountStep(line, *sut.runner, size_before, result);
    command->Apply(state);
  }
  if (!result->violation) {
    std::string drops;
    result->violation = DropEverything(state, sut, &drops);
    if (result->violation) result->violation_step = options.steps + 1;
  }
  // The next program binds the same names again.
  for (const auto& [name, metrics] : result->plan_metrics) {
    AddMetrics(metrics, &result->unbound_metrics);
  }
  result->plan_metrics.clear();
  result->checks += sut.checks;
  CountFaults(sut.runner->fs(), result);
  return OkStatus();
}

// One seed's run into `*result`. A violation that is not of a kind sought (IsSought) is a
// side effect of the quirks: it is counted, and the run goes on with a fresh program for
// the steps left, so that a seed reports its quirks' own defects. `progress` counts steps
// done, across all seeds. Returns the error of a runner that could not be created.
Status RunSeed(const SimulateOptions& options, uint64_t seed, std::atomic<uint64_t>* progress,
               SeedResult* result) {
  result->seed = seed;
  const GenOptions gen = GenOptionsFor(options);
  RandomChooser chooser(seed);
  std::vector<scenario::Command> lines;
  while (true) {
    const uint64_t steps_before = result->steps;
    Status ran = RunOneProgram(options, gen, chooser, progress, &lines, result);
    if (!ran.ok()) return ran;
    if (!result->violation || IsSought(options.quirks, result->violation->kind)) break;
    ++result->side_effects[std::string(InvariantKindName(result->violation->kind))];
    result->violation.reset();
    if (result->steps >= options.steps || result->steps == steps_before) break;
  }
  // The rest of the run's steps count as done when it stopped early.
  progress->fetch_add(options.steps - result->steps);
  if (result->violation) internal::ShrinkFailure(options, lines, result);
  return OkStatus();
}

}  // namespace

Status CheckSimulateOptions(const SimulateOptions& options) {
  if (options.dirs < 1 || options.dirs > kMaxLocalDirs) {
    return Status::InvalidArgument(fmt::format("--dirs must be between 1 and {}", kMaxLocalDirs));
  }
  if (options.plans < 1) return Status::InvalidArgument("--plans must be at least 1");
  if (options.jobs < 1) return Status::InvalidArgument("--jobs must be at least 1");
  if (!(options.fault_rate >= 0 && options.fault_rate < 1)) {
    return Status::InvalidArgument("--fault-rate must be at least 0 and below 1");
  }
  if (options.forever_percent < 0 || options.forever_percent > 100) {
    return Status::InvalidArgument("--forever-percent must be between 0 and 100");
  }
  const StatusOr<std::unique_ptr<scenario::Runner>> runner =
      scenario::Runner::Create(RunnerOptionsFor(options, options.seed));
  if (!runner.ok()) return CannotRun(options.seed, runner.status());
  return OkStatus();
}

StatusOr<SimulateResult> Simulate(const SimulateOptions& options, std::atomic<uint64_t>* progress) {
  if (Status checked = CheckSimulateOptions(options); !checked.ok()) return checked;
  std::atomic<uint64_t> own_progress{0};
  if (progress == nullptr) progress = &own_progress;
  const auto start = std::chrono::steady_clock::now();
  SimulateResult result;
  result.runs.resize(static_cast<size_t>(options.jobs));
  std::vector<Status> errors(result.runs.size());
  {
    std::vector<std::thread> threads;
    threads.reserve(result.runs.size());
    for (size_t i = 0; i < result.runs.size(); ++i) {
      threads.emplace_back(
          [&, i] { errors[i] = RunSeed(options, options.seed + i, progress, &result.runs[i]); });
    }
    for (std::thread& t : threads) t.join();
  }
  for (const Status& error : errors) {
    if (!error.ok()) return error;
  }
  if (!options.out_dir.empty()) internal::WriteReproducers(options, result.runs);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

bool IsSought(Quirks quirks, InvariantKind kind) {
  if (quirks.empty()) return true;
  for (const Quirk q : AllQuirks()) {
    if (!quirks.Has(q)) continue;
    const std::optional<InvariantKind> named = QuirkInvariant(q);
    if (!named.has_value() || *named == kind) return true;
  }
  return false;
}

}  // namespace spillway::model
