// The summaries of a simulation (simulate.h): one JSON object (the options, the totals,
// and each seed's statistics, spill metrics and violation), or lines for people.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "simulate_internal.h"
#include "spillway/model/simulate.h"
#include "spillway/model/spill_model.h"
#include "spillway/spill/quirks.h"
#include "spillway/spill/spill_budget.h"

namespace spillway::model {
namespace {

using internal::AddMetrics;
using internal::FsName;
using internal::ReplayCommand;

// A run's plans' metrics, added up (AddMetrics).
SpillMetrics RunMetrics(const SeedResult& r) {
  SpillMetrics sum = r.unbound_metrics;
  for (const auto& [name, m] : r.plan_metrics) AddMetrics(m, &sum);
  return sum;
}

// Every run's counts added up; the metrics, every run's RunMetrics added up, in
// unbound_metrics.
SeedResult Totals(const std::vector<SeedResult>& runs) {
  SeedResult total;
  for (const SeedResult& r : runs) {
    total.steps += r.steps;
    total.plans += r.plans;
    total.spills += r.spills;
    total.bytes_written += r.bytes_written;
    total.checks += r.checks;
    for (const auto& [k, n] : r.faults) total.faults[k] += n;
    for (const auto& [k, n] : r.errors) total.errors[k] += n;
    for (const auto& [k, n] : r.side_effects) total.side_effects[k] += n;
    AddMetrics(RunMetrics(r), &total.unbound_metrics);
  }
  return total;
}

// The names of the quirks in `quirks`, in AllQuirks() order.
std::vector<std::string> QuirkNames(Quirks quirks) {
  std::vector<std::string> names;
  for (const Quirk q : AllQuirks()) {
    if (quirks.Has(q)) names.emplace_back(QuirkName(q));
  }
  return names;
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
  v["kind"] = InvariantKindName(r.violation->kind);
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
  run["violation"] = ViolationJson(options, r);
  return run;
}

std::string Join(const std::map<std::string, uint64_t>& counts) {
  if (counts.empty()) return "none";
  std::string text;
  for (const auto& [kind, n] : counts) {
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", kind, n);
  }
  return text;
}

// A seed's violation for people: the line naming it, then where its program went.
std::string ViolationText(const SimulateOptions& options, const SeedResult& r) {
  std::string text =
      fmt::format("seed {}: violation at step {}: [{}] {}\n", r.seed, r.violation_step,
                  InvariantKindName(r.violation->kind), r.violation->message);
  if (r.same_scenario_as) {
    text += fmt::format("  shrunk from {} to {} commands, the program of seed {}: {}\n",
                        r.commands_before_shrink, r.commands_after_shrink, *r.same_scenario_as,
                        r.scenario_path);
  } else if (!r.scenario_path.empty()) {
    text += fmt::format("  shrunk from {} to {} commands: {}\n  replay: {}\n",
                        r.commands_before_shrink, r.commands_after_shrink, r.scenario_path,
                        ReplayCommand(options, r.seed, r.scenario_path));
  } else {
    text += fmt::format("  {}\n", r.write_error);
  }
  return text;
}

}  // namespace

std::string SimulateSummaryJson(const SimulateOptions& options, const SimulateResult& result) {
  nlohmann::ordered_json json;
  json["fs"] = FsName(options.fs);
  json["quirks"] = QuirkNames(options.quirks);
  json["steps_per_seed"] = options.steps;
  json["forever_percent"] = options.forever_percent;
  json["seconds"] = result.seconds;
  const SeedResult total = Totals(result.runs);
  nlohmann::ordered_json totals;
  totals["steps"] = total.steps;
  totals["plans"] = total.plans;
  totals["spills"] = total.spills;
  totals["bytes_written"] = total.bytes_written;
  totals["metrics"] = MetricsJson(total.unbound_metrics);
  totals["faults_injected"] = total.faults;
  totals["errors"] = total.errors;
  totals["invariants_checked"] = total.checks;
  json["totals"] = std::move(totals);
  nlohmann::ordered_json runs = nlohmann::json::array();
  for (const SeedResult& r : result.runs) runs.push_back(RunJson(options, r));
  json["runs"] = std::move(runs);
  return json.dump(2);
}

std::string SimulateSummaryText(const SimulateOptions& options, const SimulateResult& result) {
  const SeedResult total = Totals(result.runs);
  const std::vector<std::string> quirks = QuirkNames(options.quirks);
  const size_t seeds = result.runs.size();
  std::string text = fmt::format(
      "spillway simulate: {} seed{} from {}, {} steps each, fs {}, quirks {}\n", seeds,
      seeds == 1 ? "" : "s", result.runs.empty() ? options.seed : result.runs.front().seed,
      options.steps, FsName(options.fs),
      quirks.empty() ? "none" : fmt::format("{}", fmt::join(quirks, ",")));
  text += fmt::format("  steps run           {} in {:.1f} s\n", total.steps, result.seconds);
  text += fmt::format("  plans built         {}\n", total.plans);
  text += fmt::format("  spill files         {}\n", total.spills);
  text += fmt::format("  bytes written       {}\n", total.bytes_written);
  text += fmt::format("  faults injected     {}\n", Join(total.faults));
  text += fmt::format("  errors surfaced     {}\n", Join(total.errors));
  if (!options.quirks.empty()) {
    text += fmt::format("  side effects        {}\n", Join(total.side_effects));
  }
  text += fmt::format("  invariants checked  {}\n", total.checks);
  bool violated = false;
  for (const SeedResult& r : result.runs) {
    if (!r.violation) continue;
    violated = true;
    text += ViolationText(options, r);
  }
  if (!violated) text += "  violations          none\n";
  return text;
}

}  // namespace spillway::model
