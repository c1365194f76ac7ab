// `spillway simulate --json`: the summary of every seed's run as one JSON object: the
// options, the totals, and each run's statistics, spill metrics and violation.
#include <cstdint>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "commands.h"
#include "simulate_internal.h"

namespace spillway::tools {
namespace {

// A run's plans' metrics, added up (AddMetrics).
SpillMetrics RunMetrics(const SeedResult& r) {
  SpillMetrics sum = r.unbound_metrics;
  for (const auto& [name, m] : r.plan_metrics) AddMetrics(m, &sum);
  return sum;
}

nlohmann::ordered_json MetricsJson(const SpillMetrics& m) {
  nlohmann::ordered_json json;
  json["spills"] = m.spills;
  json["spilled"] = m.spilled;
  json["peak"] = m.peak;
  return json;
}

// A seed's violation as JSON, or null when it had none.
nlohmann::ordered_json ViolationJson(const SimulateOptions& options, const SeedResult& r) {
  if (!r.violation) return nullptr;
  nlohmann::ordered_json v;
  v["kind"] = model::InvariantKindName(r.violation->kind);
  v["message"] = r.violation->message;
  v["step"] = r.violation_step;
  v["commands_before_shrink"] = r.commands_before_shrink;
  v["commands_after_shrink"] = r.commands_after_shrink;
  v["scenario"] =
      r.scenario_path.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.scenario_path);
  if (!r.scenario_path.empty()) {
    v["replay"] = ReplayCommand(options, r.same_scenario_as.value_or(r.seed), r.scenario_path);
  }
  v["same_scenario_as"] =
      r.same_scenario_as ? nlohmann::json(*r.same_scenario_as) : nlohmann::json(nullptr);
  if (!r.write_error.empty()) v["write_error"] = r.write_error;
  return v;
}

// One run's entry in the JSON summary.
nlohmann::ordered_json RunJson(const SimulateOptions& options, const SeedResult& r) {
  nlohmann::ordered_json run;
  run["seed"] = r.seed;
  run["steps"] = r.steps;
  run["plans"] = r.plans;
  run["spills"] = r.spills;
  run["bytes_written"] = r.bytes_written;
  run["metrics"] = MetricsJson(RunMetrics(r));
  run["faults_injected"] = r.faults;
  run["errors"] = r.errors;
  if (!options.quirks.empty()) run["side_effects"] = r.side_effects;
  run["invariants_checked"] = r.checks;
  if (!r.setup_error.empty()) run["setup_error"] = r.setup_error;
  run["violation"] = ViolationJson(options, r);
  return run;
}

}  // namespace

void PrintJson(const SimulateOptions& options, const std::vector<SeedResult>& results,
               double seconds) {
  nlohmann::ordered_json json;
  json["fs"] = FsName(options.fs);
  json["quirks"] = QuirkNames(options.quirks);
  json["steps_per_seed"] = options.steps;
  json["forever_percent"] = options.gen.forever_percent;
  json["seconds"] = seconds;
  nlohmann::ordered_json totals;
  uint64_t steps = 0, plans = 0, spills = 0, bytes = 0, checks = 0;
  SpillMetrics metrics;  // Every run's RunMetrics, added up.
  std::map<std::string, uint64_t> faults, errors;
  nlohmann::ordered_json runs = nlohmann::json::array();
  for (const SeedResult& r : results) {
    steps += r.steps;
    plans += r.plans;
    spills += r.spills;
    bytes += r.bytes_written;
    checks += r.checks;
    for (const auto& [k, n] : r.faults) faults[k] += n;
    for (const auto& [k, n] : r.errors) errors[k] += n;
    AddMetrics(RunMetrics(r), &metrics);
    nlohmann::ordered_json run = RunJson(options, r);
    runs.push_back(std::move(run));
  }
  totals["steps"] = steps;
  totals["plans"] = plans;
  totals["spills"] = spills;
  totals["bytes_written"] = bytes;
  totals["metrics"] = MetricsJson(metrics);
  totals["faults_injected"] = faults;
  totals["errors"] = errors;
  totals["invariants_checked"] = checks;
  json["totals"] = std::move(totals);
  json["runs"] = std::move(runs);
  std::printf("%s\n", json.dump(2).c_str());
}

}  // namespace spillway::tools
