// What the simulation (simulate.h) makes of a violation: the failing program shrunk by
// delta debugging, keeping the kind of invariant it breaks, and written out with its
// `quirk` lines as a scenario file that `spillway run` replays by itself.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "simulate_internal.h"
#include "spillway/model/simulate.h"
#include "spillway/model/spill_model.h"
#include "spillway/scenario/scenario.h"
#include "spillway/spill/quirks.h"
#include "spillway/vocab/names.h"
#include "spillway/vocab/vocab.h"

namespace spillway::model {
namespace {

// Stop shrinking after this many trial runs, or this long; what is left is still a
// failing program, only a longer one.
constexpr int kMaxShrinkRuns = 4000;
constexpr std::chrono::seconds kMaxShrinkTime(30);

// True when the program's first violation breaks an invariant of kind `kind`.
bool Fails(const std::vector<scenario::Command>& lines, const scenario::RunnerOptions& runner,
           InvariantKind kind) {
  const std::optional<Violation> v = RunProgram(ProgramFromLines(lines, runner.fs), runner);
  return v.has_value() && v->kind == kind;
}

std::string QuirkFlags(Quirks quirks) {
  std::string flags;
  for (Quirk q : AllQuirks()) {
    if (quirks.Has(q)) flags += fmt::format(" --quirk {}", QuirkName(q));
  }
  return flags;
}

// Writes the shrunk program of `result` to the output directory.
void WriteScenario(const SimulateOptions& options, SeedResult* result) {
  const std::string path =
      fmt::format("{}/spillway-simulate-{}.scenario", options.out_dir, result->seed);
  std::ofstream out(path);
  out << fmt::format("# Found by spillway simulate --seed {}{} --fs {}: [{}] {}\n", result->seed,
                     QuirkFlags(options.quirks), internal::FsName(options.fs),
                     InvariantKindName(result->violation->kind), result->violation->message);
  if (const std::optional<Violation>& again = result->shrunk_violation) {
    out << fmt::format("# Shrunk from {} to {} commands; this file fails with: [{}] {}\n",
                       result->commands_before_shrink, result->commands_after_shrink,
                       InvariantKindName(again->kind), again->message);
  } else {
    out << "# The shrunk program did not fail again when rerun.\n";
  }
  out << "# Replay: " << internal::ReplayCommand(options, result->seed, path) << "\n"
      << QuirkLines(options.quirks) << result->shrunk_text;
  out.close();
  if (!out) {
    result->write_error = fmt::format("cannot write {}", path);
    return;
  }
  result->scenario_path = path;
}

}  // namespace

std::vector<scenario::Command> Shrink(std::vector<scenario::Command> lines,
                                      const scenario::RunnerOptions& runner, InvariantKind kind) {
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
        for (const CommandPtr& c : ProgramFromLines(candidate, runner.fs).commands) {
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

namespace internal {

std::string FsName(scenario::FsKind fs) { return std::string(vocab::FsKindName(fs)); }

std::string ReplayCommand(const SimulateOptions& options, uint64_t seed, const std::string& path) {
  return fmt::format("spillway run --fs {} --seed {} {}", FsName(options.fs), seed, path);
}

void ShrinkFailure(const SimulateOptions& options, const std::vector<scenario::Command>& lines,
                   SeedResult* result) {
  const scenario::RunnerOptions runner = RunnerOptionsFor(options, result->seed);
  result->commands_before_shrink = lines.size();
  std::vector<scenario::Command> shrunk = lines;
  // The violation may depend on timing nothing here controls; shrink only what fails again.
  const InvariantKind kind = result->violation->kind;
  if (Fails(lines, runner, kind)) shrunk = Shrink(lines, runner, kind);
  result->commands_after_shrink = shrunk.size();
  result->shrunk_violation =
      RunProgram(ProgramFromLines(shrunk, runner.fs), runner, &result->shrunk_text);
}

void WriteReproducers(const SimulateOptions& options, std::vector<SeedResult>& results) {
  std::map<std::string, const SeedResult*> written;  // Invariant and program -> its file.
  for (SeedResult& r : results) {
    if (!r.violation) continue;
    const std::string identity =
        std::string(InvariantKindName(r.violation->kind)) + "\n" + r.shrunk_text;
    const auto it = written.find(identity);
    if (options.all_reproducers || it == written.end() || it->second->scenario_path.empty()) {
      WriteScenario(options, &r);
      written.insert_or_assign(identity, &r);
      continue;
    }
    r.same_scenario_as = it->second->seed;
    r.scenario_path = it->second->scenario_path;
  }
}

}  // namespace internal
}  // namespace spillway::model
