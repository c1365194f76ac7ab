// WorkloadRun's model of the acts: the hooks of each act verb (when it can run, what the
// model predicts before it, which errors it may return without a fault, which faults
// answer it, and how the model follows it; workload_run.h gives the defaults), after
// what they share.
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "spillway/model/spill_model.h"
#include "spillway/spill/disk_manager.h"
#include "spillway/spill/read_spill_file.h"
#include "spillway/spill/reap.h"
#include "spillway/spill/spill_file.h"
#include "spillway/spill/spill_status.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/glob.h"
#include "workload_run.h"

namespace spillway::workload_sweep::internal {

using scenario::Command;

bool WorkloadRun::Bound(const std::string& name) const {
  auto plan = plans_.find(name);
  return (plan != plans_.end() && plan->second.bound) || file_ids_.contains(name) ||
         BudgetBound(name);
}

bool WorkloadRun::PlanBound(const std::string& name) const {
  auto it = plans_.find(name);
  return it != plans_.end() && it->second.bound;
}

bool WorkloadRun::BudgetBound(const std::string& name) const {
  auto it = budgets_.find(name);
  return it != budgets_.end() && it->second.bound;
}

bool WorkloadRun::CanRun(const Command& command) const {
  return std::visit(
      [this](const auto& v) {
        if constexpr (kHasRole<std::decay_t<decltype(v)>, ActRole>) {
          return CanRun(v);
        } else {
          return false;
        }
      },
      command.verb);
}

uint64_t WorkloadRun::ModelUsed(const std::string& plan) const {
  uint64_t used = 0;
  for (const FileModel& file : files_) {
    if (!file.refs.empty() && file.plan == plan) used += file.expected;
  }
  return used;
}

uint64_t WorkloadRun::ModelBudgetUsed(const std::string& budget) const {
  uint64_t used = 0;
  for (const FileModel& file : files_) {
    if (!file.refs.empty() && plans_.at(file.plan).budget == budget) used += file.expected;
  }
  return used;
}

void WorkloadRun::CheckLazy(const ActRun& run, const std::string& what,
                            const std::string& no_count_note) {
  FaultInjectingFileSystem& fs = runner().fs();
  if (!run.lazy_check || fs.total_calls() == run.calls_before) return;
  std::vector<Command> expects;
  for (const auto& [glob, count] : CountSpillDirs(run.lazy_roots)) {
    const auto before = run.dirs_before.find(glob);
    const uint64_t want = before == run.dirs_before.end() ? 0 : before->second;
    if (count != want) expects.push_back(ExpectCount(glob, want));
  }
  Add(Check::kLazyPlan, "lazy" + run.key_suffix,
      fmt::format("{} touched the filesystem ({})", what, CountsByKind(run.kinds_before, fs)),
      run.line, expects, expects.empty() ? no_count_note : "");
}

std::string WorkloadRun::RefusingLimit(const std::string& plan_name, const ActRun& run) const {
  const PlanModel& plan = plans_.at(plan_name);
  if (!run.fits_plan) {
    return fmt::format("plan {}'s {}-byte limit ({} bytes held)", plan_name, plan.limit,
                       ModelUsed(plan_name));
  }
  return fmt::format("budget {}'s {}-byte limit ({} bytes held by its plans)", plan.budget,
                     budgets_.at(plan.budget).limit, ModelBudgetUsed(plan.budget));
}

bool WorkloadRun::IsAnswer(const Command& command, const InjectedFault& fault,
                           const Status& outcome) const {
  if (fault.bytes_stored > 0) return false;
  // A lie (corrupt, lost) is not an error the call reports: only a later read can see it.
  if (fault.action == FaultAction::kCorrupt || fault.action == FaultAction::kLost) return true;
  // A stat failing with ENOENT says "it does not exist"; EEXIST on a creation says the name
  // exists (a local dir someone else made is the one wanted; a unique name is retried by
  // the filesystem, which then succeeds).
  if ((fault.op == OpKind::kStat && fault.error_number == ENOENT) ||
      (IsCreation(fault.op) && fault.error_number == EEXIST)) {
    return true;
  }
  return std::visit(
      [&](const auto& v) {
        if constexpr (kHasRole<std::decay_t<decltype(v)>, ActRole>) {
          return Answers(v, fault, outcome);
        } else {
          return false;
        }
      },
      command.verb);
}

Command WorkloadRun::ExpectCountAfterReap(const std::string& glob,
                                          const std::vector<std::string>& removed_live,
                                          const std::vector<std::string>& left_orphans) {
  auto matching = [&](const std::vector<std::string>& paths) {
    return static_cast<uint64_t>(
        std::count_if(paths.begin(), paths.end(),
                      [&](const std::string& path) { return GlobMatch(glob, path); }));
  };
  const uint64_t now = ExpandGlob(runner().base_fs(), glob).size();
  return ExpectCount(glob, now + matching(removed_live) - matching(left_orphans));
}

void WorkloadRun::CheckReap(const scenario::Reap& v, const ActRun& run) {
  const ReapReport& report = runner().last_reap();
  // Every fault it met on a removal is in its report, with its path and errno.
  for (const InjectedFault& fault : run.faults) {
    if (IsAnswer(Command{v}, fault, run.outcome) || !IsRemoval(fault.op)) continue;
    const bool reported =
        std::any_of(report.failures.begin(), report.failures.end(), [&](const Status& failure) {
          return failure.path() == fault.path && failure.IsErrno(fault.error_number);
        });
    if (!reported) {
      Add(Check::kUnreportedFault, "unreported" + run.key_suffix,
          fmt::format("{} met {} and its report does not list it", run.act_text,
                      DescribeFault(fault)),
          run.line, {}, fmt::format("{} failed here and the reap did not report it", fault.path));
      break;
    }
  }
  // A live process's files are where they were.
  FileSystem& base = runner().base_fs();
  std::vector<std::string> removed;
  std::string first_removed;
  for (const FileModel& file : files_) {
    if (file.refs.empty() || Gone(file.path) || base.Exists(file.path)) continue;
    const bool under =
        std::any_of(v.local_dirs.begin(), v.local_dirs.end(),
                    [&](const std::string& dir) { return AtOrUnder(file.path, dir); });
    if (!under) continue;
    if (removed.empty()) {
      first_removed =
          fmt::format("{}, a file of live plan {} ({})", file.path, file.plan, *file.refs.begin());
    }
    removed.push_back(file.path);
  }
  if (!removed.empty()) {
    Add(Check::kReap, "reap_live" + run.key_suffix,
        fmt::format("{} removed {}", run.act_text, first_removed), run.line,
        {ExpectCountAfterReap(GeneralizePath(removed[0]), removed, {})});
  }
  // The crashed process's spill directories are gone, or the report says why not: a failure
  // on the directory, on something in it, or on its local dir's listing.
  std::vector<std::string> left;
  for (const std::string& dir : run.orphans) {
    const bool reported = std::any_of(
        reap_failed_.begin(), reap_failed_.end(),
        [&](const std::string& path) { return AtOrUnder(path, dir) || AtOrUnder(dir, path); });
    if (!reported && !Gone(dir) && base.Exists(dir)) left.push_back(dir);
  }
  if (!left.empty()) {
    Add(Check::kReap, "reap_orphan" + run.key_suffix,
        fmt::format("{} left {}, a spill directory of the crashed process, and reported nothing",
                    run.act_text, left[0]),
        run.line, {ExpectCountAfterReap(GeneralizePath(left[0]), {}, left)});
  }
}

// ---------------------------------------------------------------------------------------
// plan

bool WorkloadRun::CanRun(const scenario::Plan& v) const {
  return !Bound(v.name) && (v.spec.budget.empty() || BudgetBound(v.spec.budget));
}

void WorkloadRun::Predict(const scenario::Plan& v, ActRun* run) {
  run->lazy_check = v.spec.mode == scenario::PlanMode::kLazy;
  if (v.spec.dirs_kind == scenario::DirsKind::kList) {
    run->lazy_roots = v.spec.local_dirs;
  } else if (v.spec.dirs_kind == scenario::DirsKind::kOsTmp) {
    run->lazy_roots = {runner().base_fs().TempDir()};
  }
}

void WorkloadRun::Follow(const scenario::Plan& v, const ActRun& run) {
  if (!run.outcome.ok()) return;
  PlanModel plan;
  plan.bound = true;
  plan.lazy = run.lazy_check;
  plan.disabled = v.spec.dirs_kind == scenario::DirsKind::kDisabled;
  plan.limit = v.spec.limit;
  plan.budget = v.spec.budget;
  plan.failover = v.spec.failover;
  plan.framed = v.spec.frame;
  plan.spill_roots = run.lazy_roots;
  plans_[v.name] = plan;
  if (runner().plan(v.name) == nullptr) {
    Add(Check::kRunner, "runner" + run.key_suffix,
        fmt::format("{} succeeded but the runner binds no plan {}", run.act_text, v.name),
        run.line);
  }
  CheckLazy(run, fmt::format("building lazy plan {}", v.name),
            "the plan's build made filesystem calls but created nothing the scenario language "
            "can count");
}

// ---------------------------------------------------------------------------------------
// spill

bool WorkloadRun::CanRun(const scenario::Spill& v) const {
  return !Bound(v.file) && PlanBound(v.plan);
}

bool WorkloadRun::Explained(const scenario::Spill& v, const ActRun& run) const {
  return IsDisabled(run.outcome) && plans_.at(v.plan).disabled;
}

bool WorkloadRun::Answers(const scenario::Spill& v, const InjectedFault& fault,
                          const Status& outcome) const {
  // A failover plan's spill that succeeded went on past the local dirs that failed: what
  // failed outside the local dir its file landed in is routed around, not hidden.
  if (!outcome.ok() || !plans_.at(v.plan).failover) return false;
  const SpillFile* file = runner_->file(v.file);
  if (file == nullptr) return false;
  for (const std::string& root : plans_.at(v.plan).spill_roots) {
    if (AtOrUnder(file->path(), root)) return !AtOrUnder(fault.path, root);
  }
  return false;
}

void WorkloadRun::Follow(const scenario::Spill& v, const ActRun& run) {
  plans_.at(v.plan).spill_tried = true;
  if (!run.outcome.ok()) return;
  const SpillFile* file = runner().file(v.file);
  if (file == nullptr) {
    Add(Check::kRunner, "runner" + run.key_suffix,
        fmt::format("{} succeeded but the runner binds no file {}", run.act_text, v.file),
        run.line);
    return;
  }
  ++plans_.at(v.plan).spills;
  FileModel model;
  model.plan = v.plan;
  model.path = file->path();
  model.refs.insert(v.file);
  file_ids_[v.file] = files_.size();
  files_.push_back(std::move(model));
}

// ---------------------------------------------------------------------------------------
// write

bool WorkloadRun::CanRun(const scenario::Write& v) const { return file_ids_.contains(v.file); }

void WorkloadRun::Predict(const scenario::Write& v, ActRun* run) {
  const FileModel& file = files_[file_ids_.at(v.file)];
  const PlanModel& plan = plans_.at(file.plan);
  const uint64_t bytes = WriteBytes(file.plan, v.size);
  run->fits_plan = model::PassesLimit(ModelUsed(file.plan), plan.limit, bytes);
  // A budget is checked after the plan's limit: a write the plan refuses never reaches it.
  run->fits_budget =
      plan.budget.empty() || !run->fits_plan ||
      model::PassesLimit(ModelBudgetUsed(plan.budget), budgets_.at(plan.budget).limit, bytes);
  run->fits = run->fits_plan && run->fits_budget;
}

bool WorkloadRun::Explained(const scenario::Write&, const ActRun& run) const {
  return IsLimitExceeded(run.outcome) && !run.fits;
}

void WorkloadRun::Follow(const scenario::Write& v, const ActRun& run) {
  FileModel& file = files_[file_ids_.at(v.file)];
  PlanModel& plan = plans_.at(file.plan);
  const std::string limit = run.fits ? "" : RefusingLimit(file.plan, run);
  // A write counts exactly what reached the file: all of it, or the bytes an injected
  // short write stored, and nothing else; framed, a header the first of its two appends
  // stored before the second failed.
  const uint64_t bytes = WriteBytes(file.plan, v.size);
  uint64_t stored = 0;
  if (run.outcome.ok()) {
    stored = bytes;
  } else {
    const uint64_t appends =
        runner().fs().calls(OpKind::kWrite) - run.kinds_before[static_cast<size_t>(OpKind::kWrite)];
    if (plan.framed && appends == 2) stored = kSpillFrameHeaderBytes;
    for (const InjectedFault& fault : run.faults) {
      if (fault.op == OpKind::kWrite && fault.path == file.path) stored += fault.bytes_stored;
    }
  }
  file.torn = file.torn || (plan.framed && stored != 0 && stored < bytes);
  file.expected += stored;
  plan.spilled += stored;
  plan.peak = std::max(plan.peak, ModelUsed(file.plan));
  if (run.outcome.ok() && !run.fits) {
    Add(Check::kLimitNotEnforced, "limit" + run.key_suffix,
        fmt::format("{} succeeded although it does not fit under {}", run.act_text, limit),
        run.line, {ExpectError("LIMIT")});
  } else if (!run.outcome.ok() && !run.fits && runner().fs().total_calls() != run.calls_before) {
    Add(Check::kLimitNotEnforced, "limit_fs" + run.key_suffix,
        fmt::format("{} did not fit under {} but reached the filesystem ({}) instead of being "
                    "refused first",
                    run.act_text, limit, CountsByKind(run.kinds_before, runner().fs())),
        run.line, {},
        "this write did not fit under its plan's limit or budget, yet it reached the "
        "filesystem; no expect can see that (the accounting expects may)");
  }
}

// ---------------------------------------------------------------------------------------
// clone

bool WorkloadRun::CanRun(const scenario::Clone& v) const {
  return !Bound(v.name) && file_ids_.contains(v.file);
}

void WorkloadRun::Follow(const scenario::Clone& v, const ActRun&) {
  const size_t id = file_ids_.at(v.file);
  file_ids_[v.name] = id;
  files_[id].refs.insert(v.name);
}

// ---------------------------------------------------------------------------------------
// drop

bool WorkloadRun::CanRun(const scenario::Drop& v) const { return Bound(v.name); }

void WorkloadRun::Predict(const scenario::Drop& v, ActRun* run) {
  auto it = plans_.find(v.name);
  if (it == plans_.end() || !it->second.bound) return;
  run->plan_bound = true;
  run->lazy_check = it->second.lazy && !it->second.spill_tried;
  run->lazy_roots = it->second.spill_roots;
}

void WorkloadRun::Follow(const scenario::Drop& v, const ActRun& run) {
  if (BudgetBound(v.name)) {
    budgets_.at(v.name).bound = false;  // Its plans keep it alive.
    return;
  }
  if (!run.plan_bound) {
    const size_t id = file_ids_.at(v.name);
    files_[id].refs.erase(v.name);
    file_ids_.erase(v.name);
    return;
  }
  plans_.at(v.name).bound = false;
  CheckLazy(run, fmt::format("dropping lazy plan {}, which never tried to spill,", v.name),
            "the drop made filesystem calls but changed nothing the scenario language can "
            "count");
}

// ---------------------------------------------------------------------------------------
// set_limit

bool WorkloadRun::CanRun(const scenario::SetLimit& v) const {
  return PlanBound(v.plan) || BudgetBound(v.plan);
}

bool WorkloadRun::Explained(const scenario::SetLimit& v, const ActRun& run) const {
  const auto plan = plans_.find(v.plan);
  return IsDisabled(run.outcome) && plan != plans_.end() && plan->second.bound &&
         plan->second.disabled && v.size != 0;
}

void WorkloadRun::Follow(const scenario::SetLimit& v, const ActRun& run) {
  if (!run.outcome.ok()) return;
  if (BudgetBound(v.plan)) {
    budgets_.at(v.plan).limit = v.size;
  } else {
    plans_.at(v.plan).limit = v.size;
  }
}

// ---------------------------------------------------------------------------------------
// short_write

bool WorkloadRun::CanRun(const scenario::ShortWrite& v) const { return file_ids_.contains(v.file); }

void WorkloadRun::Follow(const scenario::ShortWrite&, const ActRun&) {}  // Nothing to follow.

uint64_t WorkloadRun::WriteBytes(const std::string& plan, uint64_t size) const {
  return plans_.at(plan).framed ? size + kSpillFrameHeaderBytes : size;
}

// ---------------------------------------------------------------------------------------
// read

bool WorkloadRun::CanRun(const scenario::Read& v) const { return file_ids_.contains(v.file); }

bool WorkloadRun::ReadsDamage(const FileModel& file, const ActRun& run) const {
  auto lied = [&](const InjectedFault& fault) {
    return fault.path == file.path &&
           ((fault.action == FaultAction::kCorrupt && fault.bit >= 0) ||
            (fault.action == FaultAction::kLost && fault.lost_bytes > 0));
  };
  const std::vector<InjectedFault> all = runner_->fs().injected();
  const bool written = std::any_of(all.begin(), all.end(), [&](const InjectedFault& fault) {
    return fault.op == OpKind::kWrite && lied(fault);
  });
  return written || file.torn || std::any_of(run.faults.begin(), run.faults.end(), lied);
}

// A framed file's damage is DATA_LOSS when it is read, and nothing else is.
bool WorkloadRun::Explained(const scenario::Read& v, const ActRun& run) const {
  const FileModel& file = files_[file_ids_.at(v.file)];
  return run.outcome.code() == StatusCode::kDataLoss && plans_.at(file.plan).framed &&
         ReadsDamage(file, run);
}

void WorkloadRun::Follow(const scenario::Read& v, const ActRun& run) {
  const FileModel& file = files_[file_ids_.at(v.file)];
  if (!run.outcome.ok() || !plans_.at(file.plan).framed || !ReadsDamage(file, run)) return;
  Add(Check::kUndetectedDamage, "undetected_damage" + run.key_suffix,
      fmt::format("{} read back damaged bytes of framed file {} as ok", run.act_text, file.path),
      run.line, {ExpectError(std::string(StatusCodeName(StatusCode::kDataLoss)))});
}

// ---------------------------------------------------------------------------------------
// budget

bool WorkloadRun::CanRun(const scenario::Budget& v) const { return !Bound(v.name); }

void WorkloadRun::Follow(const scenario::Budget& v, const ActRun& run) {
  if (!run.outcome.ok()) return;
  BudgetModel budget;
  budget.bound = true;
  budget.limit = v.size;
  budgets_[v.name] = budget;
}

// ---------------------------------------------------------------------------------------
// crash

bool WorkloadRun::CanRun(const scenario::Crash&) const { return true; }

// The process dies: every name is forgotten, nothing is removed, and the spill
// directories it held become orphans for a later reap.
void WorkloadRun::Follow(const scenario::Crash&, const ActRun&) {
  for (auto& [name, plan] : plans_) plan.bound = false;
  for (auto& [name, budget] : budgets_) budget.bound = false;
  for (FileModel& file : files_) file.refs.clear();
  file_ids_.clear();
  for (std::string& dir : SpillDirsUnder(workload_.local_dirs)) orphans_.insert(std::move(dir));
}

// ---------------------------------------------------------------------------------------
// reap

bool WorkloadRun::CanRun(const scenario::Reap&) const { return true; }

void WorkloadRun::Predict(const scenario::Reap& v, ActRun* run) {
  for (const std::string& dir : orphans_) {
    for (const std::string& root : v.local_dirs) {
      if (ParentPath(dir) == root && runner().base_fs().Exists(dir)) run->orphans.push_back(dir);
    }
  }
}

bool WorkloadRun::Answers(const scenario::Reap&, const InjectedFault& fault, const Status&) const {
  return fault.error_number == ENOENT;  // A reap has nothing to do with what is gone.
}

void WorkloadRun::Follow(const scenario::Reap& v, const ActRun& run) {
  for (const Status& failure : runner().last_reap().failures) {
    if (!failure.path().empty()) reap_failed_.insert(failure.path());
  }
  CheckReap(v, run);
}

}  // namespace spillway::workload_sweep::internal
