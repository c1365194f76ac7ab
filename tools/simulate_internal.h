// Internal to `spillway simulate`: what simulate_command.cc (the runs, shrinking, the
// scenario files and the text summary) and simulate_json.cc (the JSON summary) share.
#ifndef SPILLWAY_TOOLS_SIMULATE_INTERNAL_H_
#define SPILLWAY_TOOLS_SIMULATE_INTERNAL_H_

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "spillway/model/spill_model.h"
#include "spillway/scenario/scenario.h"
#include "spillway/spill/quirks.h"
#include "spillway/spill/spill_budget.h"

namespace spillway::tools {

struct SimulateOptions {
  uint64_t steps = 0;
  model::GenOptions gen;
  scenario::FsKind fs = scenario::FsKind::kMem;
  Quirks quirks;
  std::string out_dir;
};

// What one seed's run did.
struct SeedResult {
  uint64_t seed = 0;
  uint64_t steps = 0;   // Steps run (the failing one included).
  uint64_t plans = 0;   // Plans built.
  uint64_t spills = 0;  // Spill files created.
  uint64_t bytes_written = 0;
  // The spill metrics of each plan bound now, as its manager last reported them, by
  // name; and those of the plans no longer bound, added up (AddMetrics) as each name went,
  // so that a long run keeps only its live plans'.
  std::map<std::string, SpillMetrics> plan_metrics;
  SpillMetrics unbound_metrics;
  std::map<std::string, uint64_t> faults;  // Injected faults by "OP ERRNO".
  std::map<std::string, uint64_t> errors;  // Failed commands by outcome code.
  uint64_t checks = 0;                     // Invariants checked.
  // Violations of kinds the quirks' own do not name, by kind (see Sought).
  std::map<std::string, uint64_t> side_effects;
  std::string setup_error;  // Non-empty when the run could not start.
  std::optional<model::Violation> violation;
  uint64_t violation_step = 0;  // 1-based; steps + 1 for the final drops.
  size_t commands_before_shrink = 0;
  size_t commands_after_shrink = 0;
  std::string shrunk_text;                           // The shrunk program, as scenario lines.
  std::optional<model::Violation> shrunk_violation;  // What it showed when rerun.
  std::string scenario_path;                         // The shrunk scenario, when written.
  std::string write_error;                           // Why it could not be written.
  // The seed whose file scenario_path is, when this seed's shrunk program was the same.
  std::optional<uint64_t> same_scenario_as;
};

// Adds `m` to `sum`: spills and spilled bytes add up, the peak is the highest.
inline void AddMetrics(const SpillMetrics& m, SpillMetrics* sum) {
  sum->spills += m.spills;
  sum->spilled += m.spilled;
  sum->peak = std::max(sum->peak, m.peak);
}

inline std::string FsName(scenario::FsKind fs) {
  return fs == scenario::FsKind::kPosix ? "posix" : "mem";
}

// The command that replays a written scenario (its `quirk` lines turn the quirks on).
inline std::string ReplayCommand(const SimulateOptions& options, uint64_t seed,
                                 const std::string& path) {
  return fmt::format("spillway run --fs {} --seed {} {}", FsName(options.fs), seed, path);
}

// The summary of every seed's run as one JSON object on stdout (simulate_json.cc).
void PrintJson(const SimulateOptions& options, const std::vector<SeedResult>& results,
               double seconds);

}  // namespace spillway::tools

#endif  // SPILLWAY_TOOLS_SIMULATE_INTERNAL_H_
