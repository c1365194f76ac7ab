// The neighbour rounds: each instance in a thread of its own, started at its offset through
// inject::Run, all in the round's one scope; the round's leftovers are what the instances
// left that is still there when the last one ended.
#include "neighbours.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <chrono>
#include <climits>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <random>
#include <thread>
#include <utility>

#include "inject_run.h"
#include "mask.h"
#include "spillway/inject/launcher.h"
#include "verdict.h"

namespace spillway::program_sweep {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Stands for the round's scope in the command, to quote the words around it.
constexpr char kScopeMark[] = "\x01";

struct Instance {
  inject::Invocation invocation;
  std::string files_prefix;  // Its .stdout and .stderr.
  double offset = 0;
  std::optional<StatusOr<inject::Outcome>> outcome;
  double seconds = 0;  // From its start to its end.
};

// Starts every instance in a thread of its own, each at its offset after the round's
// start, and waits for all of them.
void RunInstances(std::vector<Instance>* instances) {
  const Clock::time_point start = Clock::now();
  std::vector<std::thread> threads;
  threads.reserve(instances->size());
  for (Instance& instance : *instances) {
    threads.emplace_back([&instance, start] {
      std::this_thread::sleep_until(start + std::chrono::duration_cast<Clock::duration>(
                                                std::chrono::duration<double>(instance.offset)));
      const Clock::time_point begun = Clock::now();
      instance.outcome = inject::Run(instance.invocation);
      instance.seconds = std::chrono::duration<double>(Clock::now() - begun).count();
    });
  }
  for (std::thread& thread : threads) thread.join();
}

// What the round left: every instance's leftovers (entries that were not there when it
// started) that are still there, with their sizes now, by path. REQUIRES: every outcome ok.
std::vector<SweepLeftover> RoundLeftovers(const std::vector<Instance>& instances) {
  std::map<std::string, uint64_t> entries;
  for (const Instance& instance : instances) {
    for (const inject::Leftover& left : (*instance.outcome)->leftovers) {
      std::error_code ec;
      const fs::file_status status = fs::symlink_status(left.path, ec);
      if (ec || !fs::exists(status)) continue;
      const uintmax_t size = fs::is_regular_file(status) ? fs::file_size(left.path, ec) : 0;
      entries[left.path] = ec ? 0 : static_cast<uint64_t>(size);
    }
  }
  std::vector<SweepLeftover> leftovers;
  leftovers.reserve(entries.size());
  for (const auto& [path, size] : entries)
    leftovers.push_back({{path, size}, SweepLeftover::Kind::kLeak});
  return leftovers;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The shell line that replays the round: every instance under `spillway inject` after its
// offset, in one scope (a fresh one with {dir}).
std::string RoundReproducer(const NeighbourSetup& setup, const std::vector<Instance>& instances) {
  const CmdSweepOptions& options = *setup.options;
  std::string scope = ShellWord(setup.under);
  std::string line;
  if (setup.with_dir) {
    line = fmt::format("d=$(mktemp -d -p {}) && ", ShellWord(setup.under));
    scope = "\"$d\"";
  }
  std::string run = fmt::format("{} inject --under {} --timeout {:g}",
                                ShellWord(options.spillway_binary), scope, setup.timeout);
  if (!options.share_with.empty()) {
    run += " --share-with ";
    run += ShellWord(options.share_with);
  }
  if (!options.java_frames) run += " --no-java-frames";
  run += " --";
  for (const std::string& arg : setup.command_for(kScopeMark)) {
    run += ' ';
    size_t start = 0;
    for (size_t at = arg.find(kScopeMark); at != std::string::npos;
         at = arg.find(kScopeMark, start)) {
      if (at > start) run += ShellWord(std::string_view(arg).substr(start, at - start));
      run += scope;
      start = at + 1;
    }
    if (start < arg.size() || arg.empty()) run += ShellWord(std::string_view(arg).substr(start));
  }
  line += "{ ";
  for (const Instance& instance : instances) {
    line += fmt::format("(sleep {:.3f}; {}) & ", instance.offset, run);
  }
  return line + "wait; }";
}

// Judges each instance of a finished round, which ran in `scope` (`real`, resolved), and
// appends them to *result.
void JudgeRound(const NeighbourSetup& setup, int round, const std::string& scope,
                const std::string& real, const std::vector<Instance>& instances,
                NeighbourResult* result) {
  const CmdSweepOptions& options = *setup.options;
  InjectOutcome left;
  left.leftovers = RoundLeftovers(instances);
  ShowPaths(&left, real, setup.with_dir);
  // Each instance may leave what the baseline left.
  std::vector<SweepLeftover> excused;
  for (size_t i = 0; !options.scratch && i < instances.size(); ++i) {
    excused.insert(excused.end(), setup.baseline->leftovers.begin(),
                   setup.baseline->leftovers.end());
  }
  ClassifyLeftovers(excused, {}, &left.leftovers);
  const std::string reproducer = RoundReproducer(setup, instances);
  for (size_t i = 0; i < instances.size(); ++i) {
    const Instance& instance = instances[i];
    InjectOutcome outcome;
    outcome.status = (*instance.outcome)->exit_status;
    outcome.timed_out = (*instance.outcome)->timed_out;
    outcome.seconds = instance.seconds;
    outcome.program_stdout = ReadAll(instance.files_prefix + ".stdout");
    outcome.program_stderr = ReadAll(instance.files_prefix + ".stderr");
    ShowPaths(&outcome, real, setup.with_dir);
    if (real != scope && setup.with_dir) ShowPaths(&outcome, scope, true);
    if (setup.masks != nullptr) {
      outcome.program_stdout = MaskText(*setup.masks, std::move(outcome.program_stdout));
    }
    outcome.leftovers = left.leftovers;
    NeighbourRun run;
    run.round = round;
    run.instance = static_cast<int>(i) + 1;
    run.offset = instance.offset;
    Judge({nullptr, &outcome, setup.baseline, options.compare_stdout, setup.error_pattern,
           setup.baseline_reported_error, real, setup.with_dir},
          &run.run);
    run.run.reproducer = reproducer;
    bool violation = false;
    for (Verdict v : run.run.verdicts) {
      ++result->by_verdict[static_cast<size_t>(v)];
      violation = violation || IsViolation(v);
    }
    result->violations += violation ? 1 : 0;
    result->runs.push_back(std::move(run));
  }
}

// Removes what the round left: its whole scope with {dir}, else the new entries.
void DropRound(const NeighbourSetup& setup, const std::string& scope,
               const std::vector<Instance>& instances) {
  std::error_code ec;
  if (setup.with_dir) {
    fs::remove_all(scope, ec);
    return;
  }
  const std::vector<SweepLeftover> left = RoundLeftovers(instances);
  for (auto it = left.rbegin(); it != left.rend(); ++it) fs::remove_all(it->path, ec);
}

// Runs round `round` (1-based) with the instances' offsets.
Status RunRound(const NeighbourSetup& setup, int round, const std::vector<double>& offsets,
                NeighbourResult* result) {
  const CmdSweepOptions& options = *setup.options;
  StatusOr<std::string> scope = setup.make_scope(fmt::format("neighbours-{}", round));
  if (!scope.ok()) return scope.status();
  char resolved[PATH_MAX];
  const std::string real = realpath(scope->c_str(), resolved) != nullptr ? resolved : *scope;
  std::vector<Instance> instances(offsets.size());
  for (size_t i = 0; i < offsets.size(); ++i) {
    Instance& instance = instances[i];
    instance.files_prefix = fmt::format("{}/neighbours-{}-{}", setup.work_dir, round, i + 1);
    instance.offset = offsets[i];
    inject::Invocation& inv = instance.invocation;
    inv.command = setup.command_for(*scope);
    inv.under = {real};
    inv.symbolize = false;
    inv.timeout = setup.timeout;
    inv.share_with = options.share_with;
    inv.stdin_path = "/dev/null";
    inv.stdout_path = instance.files_prefix + ".stdout";
    inv.stderr_path = instance.files_prefix + ".stderr";
    // Instances start from several threads at once, and an interrupt must stop the sweep.
    inv.ignore_interrupts = false;
  }
  RunInstances(&instances);
  for (const Instance& instance : instances) {
    if (!instance.outcome->ok()) {
      DropRound(setup, *scope, {});
      return Status::InvalidArgument(
          fmt::format("neighbours: {}", instance.outcome->status().message()));
    }
  }
  JudgeRound(setup, round, *scope, real, instances, result);
  DropRound(setup, *scope, instances);
  for (const Instance& instance : instances) {
    for (const char* suffix : {".stdout", ".stderr"}) {
      std::error_code ec;
      fs::remove(instance.files_prefix + suffix, ec);
    }
  }
  return OkStatus();
}

}  // namespace

Status CheckNeighbourOptions(const CmdSweepOptions& options) {
  if (options.neighbours < 0 || options.neighbours > kMaxNeighbours) {
    return Status::InvalidArgument(
        fmt::format("--neighbours {}: not in 0..{}", options.neighbours, kMaxNeighbours));
  }
  if (options.neighbour_rounds < 1) {
    return Status::InvalidArgument(
        fmt::format("--neighbour-rounds {}: must be at least 1", options.neighbour_rounds));
  }
  return OkStatus();
}

std::vector<std::vector<double>> NeighbourOffsets(uint64_t seed, int rounds, int instances,
                                                  double baseline_seconds) {
  // mt19937_64's sequence is fixed by the standard, and so is this draw from it: the same
  // seed gives the same offsets with any compiler.
  std::mt19937_64 draws(seed);
  constexpr double kUnit = 1.0 / static_cast<double>(uint64_t{1} << 53);
  std::vector<std::vector<double>> offsets(static_cast<size_t>(std::max(rounds, 0)));
  for (std::vector<double>& round : offsets) {
    for (int i = 0; i < instances; ++i) {
      const double fraction = static_cast<double>(draws() >> 11) * kUnit;  // [0, 1)
      round.push_back(fraction * 0.5 * baseline_seconds);
    }
  }
  return offsets;
}

StatusOr<NeighbourResult> RunNeighbours(const NeighbourSetup& setup) {
  const CmdSweepOptions& options = *setup.options;
  NeighbourResult result;
  if (options.neighbours == 0) return result;
  result.instances = options.neighbours + 1;
  result.rounds = options.neighbour_rounds;
  result.seed = options.seed;
  const std::vector<std::vector<double>> offsets = NeighbourOffsets(
      options.seed, options.neighbour_rounds, result.instances, setup.baseline->seconds);
  for (int round = 1; round <= result.rounds; ++round) {
    SPILLWAY_RETURN_IF_ERROR(
        RunRound(setup, round, offsets[static_cast<size_t>(round - 1)], &result));
  }
  return result;
}

}  // namespace spillway::program_sweep
