// The reports of a finished reference sweep (report.h).
#include "spillway/workload_sweep/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "spillway/spill/quirks.h"
#include "spillway/vfs/status.h"
#include "spillway/vocab/vocab.h"
#include "workload_run.h"

namespace spillway::workload_sweep {
namespace {

std::vector<std::string> ErrnoNames(const std::vector<int>& errnos) {
  std::vector<std::string> names;
  names.reserve(errnos.size());
  for (int e : errnos) names.push_back(ErrnoName(e));
  return names;
}

std::vector<std::string> ModeNames(const std::vector<FaultMode>& modes) {
  std::vector<std::string> names;
  names.reserve(modes.size());
  for (FaultMode m : modes) names.emplace_back(FaultModeName(m));
  return names;
}

std::vector<std::string> QuirkNames(Quirks quirks) {
  std::vector<std::string> names;
  for (Quirk q : AllQuirks()) {
    if (quirks.Has(q)) names.emplace_back(QuirkName(q));
  }
  return names;
}

std::string DescribeFirstRun(const SweepViolation& v) {
  if (v.mode == FaultMode::kKill) return fmt::format("killed at call {}", v.fault_op);
  if (internal::IsDamageMode(v.mode)) {
    return "with " + internal::DescribeDamage(v.mode, v.damaged_op, v.fault_op);
  }
  if (!v.error_number) return "in the run without a fault";
  return fmt::format("with {} at operation {} ({})", ErrnoName(*v.error_number), v.fault_op,
                     FaultModeName(v.mode));
}

std::string DescribeReplay(const SweepViolation& v) {
  if (!v.has_expect) {
    return fmt::format("exit {}; no expect can check this, see the comment after line {}",
                       v.replay_exit, v.scenario_line);
  }
  if (v.replay_exit == 1) return fmt::format("fails as expected: {}", v.replay_message);
  return fmt::format("exit {}, not 1: the scenario does not reproduce the violation{}",
                     v.replay_exit, v.replay_message.empty() ? "" : ": " + v.replay_message);
}

// Violation `number` (1-based) of the text summary.
std::string ViolationText(size_t number, const SweepViolation& v, const std::string& fs_name) {
  std::string text = fmt::format("violation {}: {}\n  {}\n", number, CheckName(v.check), v.message);
  text += fmt::format("  first seen {}; seen in {} run{}\n", DescribeFirstRun(v), v.runs,
                      v.runs == 1 ? "" : "s");
  if (v.scenario_line > 0) {
    text += fmt::format("  the act: line {} of the scenario, `{}`\n", v.scenario_line, v.act);
  } else if (!v.act.empty()) {
    text += fmt::format("  the act: `{}`\n", v.act);
  }
  if (v.same_scenario_as > 0) {
    return text + fmt::format("  reproduce: the scenario of violation {}, {}\n", v.same_scenario_as,
                              v.scenario_path);
  }
  text += fmt::format("  reproduce: spillway run --fs {} {}\n", fs_name, v.scenario_path);
  return text + fmt::format("  replay: {}\n", DescribeReplay(v));
}

}  // namespace

std::string ReportJson(const SweepOptions& options, const SweepResult& result) {
  nlohmann::ordered_json json;
  json["fs"] = std::string(vocab::FsKindName(options.fs));
  json["quirks"] = QuirkNames(options.quirks);
  json["errnos"] = ErrnoNames(options.errnos);
  json["modes"] = ModeNames(options.modes);
  json["operations"] = result.operations;
  for (const auto& [e, operations] : result.operations_by_errno) {
    json["operations_by_errno"][ErrnoName(e)] = operations;
  }
  json["runs"] = result.runs;
  json["kill_runs"] = result.kill_runs;
  json["damage_runs"] = result.damage_runs;
  json["runs_with_violations"] = result.runs_with_violations;
  json["scenario_files"] = result.scenario_files;
  json["violations"] = nlohmann::json::array();
  for (const SweepViolation& v : result.violations) {
    nlohmann::ordered_json item;
    item["check"] = std::string(CheckName(v.check));
    item["message"] = v.message;
    item["act"] = v.act;
    item["errno"] = v.error_number ? nlohmann::json(ErrnoName(*v.error_number)) : nullptr;
    item["mode"] = v.error_number || v.mode != FaultMode::kTransient
                       ? nlohmann::json(FaultModeName(v.mode))
                       : nullptr;
    item["operation"] = v.fault_op;
    item["damaged_op"] = internal::IsDamageMode(v.mode) ? nlohmann::json(OpKindName(v.damaged_op))
                                                        : nlohmann::json(nullptr);
    item["runs"] = v.runs;
    item["scenario"] = v.scenario_path;
    item["scenario_line"] = v.scenario_line;
    item["same_scenario_as"] =
        v.same_scenario_as > 0 ? nlohmann::json(v.same_scenario_as) : nlohmann::json(nullptr);
    item["has_expect"] = v.has_expect;
    item["replay_exit"] = v.replay_exit;
    item["replay_message"] = v.replay_message;
    json["violations"].push_back(std::move(item));
  }
  return json.dump(2);
}

std::string ReportText(const SweepOptions& options, const SweepResult& result) {
  const std::string fs_name = std::string(vocab::FsKindName(options.fs));
  std::string text = fmt::format(
      "spillway sweep-workload: fs {}, quirks {}, errnos {}, modes {}\n", fs_name,
      options.quirks.empty() ? "none" : options.quirks.ToString(),
      fmt::join(ErrnoNames(options.errnos), ","), fmt::join(ModeNames(options.modes), ","));
  text += fmt::format("operations: {} (the run without a fault)\n", result.operations);
  // Each errno is swept over the operations whose call can fail with it.
  std::string per_errno;
  for (int e : options.errnos) {
    per_errno += fmt::format("{}{} {}", per_errno.empty() ? "" : " + ", ErrnoName(e),
                             result.operations_by_errno.at(e));
  }
  const size_t error_modes =
      static_cast<size_t>(std::ranges::count_if(options.modes, [](FaultMode m) {
        return m != FaultMode::kKill && !internal::IsDamageMode(m);
      }));
  std::string swept;
  if (error_modes != 0) {
    swept = fmt::format(" + ({}) operations x {} mode{}", per_errno, error_modes,
                        error_modes == 1 ? "" : "s");
  }
  if (result.kill_runs != 0)
    swept += fmt::format(" + {} kill runs, one per call", result.kill_runs);
  if (result.damage_runs != 0) {
    swept += fmt::format(" + {} damage runs ({} write calls, {} read calls)", result.damage_runs,
                         result.write_calls, result.read_calls);
  }
  text += fmt::format("runs: {} (1 without a fault{})\n", result.runs, swept);
  if (result.violations.empty()) return text + "violations: 0\n";
  text += fmt::format("violations: {} distinct, in {} of {} runs\n", result.violations.size(),
                      result.runs_with_violations, result.runs);
  const size_t sharing = result.violations.size() - result.scenario_files;
  text += fmt::format("scenario files: {} in {}{}\n", result.scenario_files, options.out_dir,
                      sharing == 0
                          ? ""
                          : fmt::format(", one per check and commands run; {} violation{} "
                                        "share{} an earlier one's (--all-reproducers: "
                                        "one each)",
                                        sharing, sharing == 1 ? "" : "s", sharing == 1 ? "s" : ""));
  for (size_t i = 0; i < result.violations.size(); ++i) {
    text += ViolationText(i + 1, result.violations[i], fs_name);
  }
  return text;
}

std::string RunLines(const RunReport& run) {
  std::string which = run.error_number ? fmt::format("{} {} op {}", ErrnoName(*run.error_number),
                                                     FaultModeName(run.mode), run.fault_op)
                                       : "no fault";
  if (run.mode == FaultMode::kKill) which = fmt::format("kill at call {}", run.fault_op);
  if (internal::IsDamageMode(run.mode)) {
    which = internal::DescribeDamage(run.mode, run.damaged_op, run.fault_op);
  }
  std::string text = fmt::format(
      "run {}: {} operations, {} faults injected, {} acts failed, {} skipped, {} cleanup "
      "records: {}\n",
      which, run.operations, run.faults_injected, run.acts_failed, run.acts_skipped,
      run.cleanup_records,
      run.violations.empty() ? "ok" : fmt::format("{} violations", run.violations.size()));
  for (const std::string& violation : run.violations) text += fmt::format("  {}\n", violation);
  return text;
}

}  // namespace spillway::workload_sweep
