// The sweep's small public functions: names, the rule of a run, how many tries a site gets,
// a result's counts and exit status.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "spillway/program_sweep/cmd_sweep.h"

namespace spillway::program_sweep {

bool DepthFromName(std::string_view name, Depth* depth) {
  const std::optional<Depth> parsed = vocab::ParseName<DepthName>(name);
  if (parsed) *depth = *parsed;
  return parsed.has_value();
}

void CmdSweepResult::Count(const RunResult& run) {
  ++run_count;
  violations += std::any_of(run.verdicts.begin(), run.verdicts.end(), IsViolation) ? 1 : 0;
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
  return result.violations == 0 && result.neighbours.violations == 0 && !baseline_leaks ? 0 : 1;
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
    case FaultMode::kKill:
      return fmt::format("{} kill {}", spec.call.op, where);
    case FaultMode::kCorrupt:
    case FaultMode::kLost:
      return fmt::format("{} {} {}", spec.call.op, FaultModeName(spec.mode), where);
  }
  return fmt::format("{} {} {}{}", spec.call.op, ErrnoName(spec.error_number), where, repeat);
}

}  // namespace spillway::program_sweep
