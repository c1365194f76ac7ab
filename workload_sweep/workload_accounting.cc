// WorkloadRun's accounting checks after every act: each plan's, file's and budget's bytes
// and files, and each plan's and budget's metrics, against the model of what the acts did.
#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/spill/spill_budget.h"
#include "spillway/spill/spill_file.h"
#include "spillway/spill/spill_manager.h"
#include "spillway/vfs/file_system.h"
#include "workload_run.h"

namespace spillway::workload_sweep::internal {

using scenario::Command;

void WorkloadRun::CheckAccounting(int line, int act) {
  std::vector<std::string> problems;
  std::vector<Command> expects;
  CheckPlanAccounting(line, act, &problems, &expects);
  CheckFileAccounting(line, act, &problems, &expects);
  CheckBudgetAccounting(line, act, &problems, &expects);
  CheckMetrics(line, act);
  AddProblems(Check::kAccounting, line, act, problems, std::move(expects),
              "what is wrong is a size on disk or the usage of a budget the scenario no "
              "longer names, which no expect can check");
}

void WorkloadRun::AddProblems(Check check, int line, int act,
                              const std::vector<std::string>& problems,
                              std::vector<Command> expects, std::string_view unexpressible) {
  if (problems.empty()) return;
  std::string message = fmt::format("after `{}`: ", lines_[line].command.ToString());
  for (size_t i = 0; i < problems.size(); ++i) message += (i ? "; " : "") + problems[i];
  const bool expressible = !expects.empty();
  Add(check, fmt::format("{}|{}", CheckName(check), act), message, line, std::move(expects),
      expressible ? "" : std::string(unexpressible));
}

void WorkloadRun::CheckPlanAccounting(int line, int act, std::vector<std::string>* problems,
                                      std::vector<Command>* expects) {
  for (auto& [name, plan] : plans_) {
    if (!plan.bound || plan.flagged) continue;
    SpillManager* manager = runner().plan(name);
    if (manager == nullptr) {
      Add(Check::kRunner, fmt::format("runner_plan|{}|{}", act, name),
          fmt::format("plan {} is bound but the runner has no manager for it", name), line);
      plan.flagged = true;
      continue;
    }
    uint64_t want_bytes = 0;
    uint64_t want_files = 0;
    for (const FileModel& file : files_) {
      if (file.refs.empty() || file.plan != name) continue;
      want_bytes += file.expected;
      ++want_files;
    }
    const uint64_t used = manager->used_disk_space();
    const SpillingProgress progress = manager->spilling_progress();
    const size_t problems_before = problems->size();
    if (used != want_bytes) {
      problems->push_back(
          fmt::format("plan {} used_disk_space is {}, expected {}", name, used, want_bytes));
      expects->push_back(Command{scenario::ExpectUsed{name, want_bytes}});
    }
    if (progress.current_bytes != want_bytes) {
      problems->push_back(fmt::format("plan {} spilling_progress counts {} bytes, expected {}",
                                      name, progress.current_bytes, want_bytes));
    }
    if (progress.active_files_count != want_files) {
      problems->push_back(fmt::format("plan {} counts {} active files, expected {}", name,
                                      progress.active_files_count, want_files));
      expects->push_back(Command{scenario::ExpectFiles{name, want_files}});
    }
    if (problems->size() != problems_before) plan.flagged = true;
  }
}

void WorkloadRun::CheckFileAccounting(int line, int act, std::vector<std::string>* problems,
                                      std::vector<Command>* expects) {
  for (FileModel& file : files_) {
    if (file.refs.empty() || file.flagged) continue;
    const std::string& ref = *file.refs.begin();
    const SpillFile* spill_file = runner().file(ref);
    if (spill_file == nullptr) {
      Add(Check::kRunner, fmt::format("runner_file|{}|{}", act, ref),
          fmt::format("file {} is bound but the runner has no file for it", ref), line);
      file.flagged = true;
      continue;
    }
    const size_t problems_before = problems->size();
    const uint64_t recorded = spill_file->size();
    if (recorded != file.expected) {
      problems->push_back(
          fmt::format("file {} records {} bytes, expected {}", ref, recorded, file.expected));
      expects->push_back(Command{scenario::ExpectSize{ref, file.expected}});
    }
    const StatusOr<FileStat> stat = runner().base_fs().Stat(file.path);
    if (Gone(file.path)) {
      // An injected ENOENT removed it: the manager still counts it, as it must.
    } else if (!stat.ok()) {
      problems->push_back(fmt::format("file {} is not on disk: {}", ref, stat.status().ToString()));
    } else if (stat->size != file.expected) {
      problems->push_back(fmt::format("file {} holds {} bytes on disk, expected {}", ref,
                                      stat->size, file.expected));
    }
    if (problems->size() != problems_before) file.flagged = true;
  }
}

void WorkloadRun::CheckBudgetAccounting(int, int, std::vector<std::string>* problems,
                                        std::vector<Command>* expects) {
  for (auto& [name, budget] : budgets_) {
    const std::shared_ptr<const SpillBudget> live = runner().budget(name);
    if (live == nullptr || budget.flagged) continue;
    const uint64_t want = ModelBudgetUsed(name);
    if (live->used() == want) continue;
    problems->push_back(fmt::format("budget {} is used {}, expected {}", name, live->used(), want));
    // `expect used` reads a budget only while the scenario still binds it.
    if (budget.bound) expects->push_back(Command{scenario::ExpectUsed{name, want}});
    budget.flagged = true;
  }
}

namespace {

// What differs between `got` and `want` metrics, and the expects that would fail on it.
// `want.peak` is the highest usage after an act, a floor: the peak also counts bytes a
// write reserved before it failed. `last_peak` is the peak seen after the previous act.
void CompareMetrics(const std::string& what, const std::string& name, const SpillMetrics& got,
                    const SpillMetrics& want, uint64_t last_peak,
                    std::vector<std::string>* problems, std::vector<Command>* expects) {
  if (got.spills != want.spills) {
    problems->push_back(
        fmt::format("{} {} counts {} spills, expected {}", what, name, got.spills, want.spills));
    expects->push_back(Command{scenario::ExpectSpills{name, want.spills}});
  }
  if (got.spilled != want.spilled) {
    problems->push_back(fmt::format("{} {} counts {} bytes spilled, expected {}", what, name,
                                    got.spilled, want.spilled));
    expects->push_back(Command{scenario::ExpectSpilled{name, want.spilled}});
  }
  if (got.peak < want.peak) {
    problems->push_back(fmt::format("{} {} has peak {}, below the {} bytes it held", what, name,
                                    got.peak, want.peak));
  }
  if (got.peak < last_peak) {
    problems->push_back(
        fmt::format("{} {}'s peak went down from {} to {}", what, name, last_peak, got.peak));
  }
}

}  // namespace

void WorkloadRun::CheckMetrics(int line, int act) {
  std::vector<std::string> problems;
  std::vector<Command> expects;
  std::map<std::string, SpillMetrics> budget_want;
  for (auto& [name, plan] : plans_) {
    if (!plan.budget.empty()) {
      budget_want[plan.budget].spills += plan.spills;
      budget_want[plan.budget].spilled += plan.spilled;
    }
    const SpillManager* manager = plan.bound ? runner().plan(name) : nullptr;
    if (manager == nullptr || plan.metrics_flagged) continue;
    const size_t before = problems.size();
    const SpillMetrics got = manager->metrics();
    CompareMetrics("plan", name, got, SpillMetrics{plan.spills, plan.spilled, plan.peak},
                   plan.peak_seen, &problems, &expects);
    plan.peak_seen = got.peak;
    plan.metrics_flagged = problems.size() != before;
  }
  for (auto& [name, budget] : budgets_) {
    const std::shared_ptr<const SpillBudget> live = runner().budget(name);
    if (live == nullptr || budget.metrics_flagged) continue;
    const SpillMetrics got = live->metrics();
    SpillMetrics want = budget_want[name];
    want.peak = ModelBudgetUsed(name);
    const size_t before = problems.size();
    std::vector<Command> unused;  // `expect spilled` and `expect spills` read plans only.
    CompareMetrics("budget", name, got, want, budget.peak_seen, &problems, &unused);
    budget.peak_seen = got.peak;
    budget.metrics_flagged = problems.size() != before;
  }
  AddProblems(Check::kMetrics, line, act, problems, std::move(expects),
              "only a peak or a budget's metric is wrong, which no expect can check");
}

}  // namespace spillway::workload_sweep::internal
