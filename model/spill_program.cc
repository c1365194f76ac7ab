// Programs of model commands run against a scenario Runner: the invariants checked after
// every line, the drops and leftover check that end a run, rebuilding a program from
// scenario lines.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spill_model_internal.h"
#include "spillway/model/spill_model.h"
#include "spillway/spill/cleanup_log.h"
#include "spillway/spill/plan_disk_manager.h"
#include "spillway/spill/reap.h"
#include "spillway/spill/spill_budget.h"
#include "spillway/spill/spill_file.h"
#include "spillway/spill/spill_manager.h"
#include "spillway/vfs/glob.h"
#include "spillway/vfs/status.h"

namespace spillway::model {

using ScenarioCommand = scenario::Command;
using scenario::StepResult;

// ---------------------------------------------------------------------------------------
// Invariants

namespace {

// Runs an invariant of kind `kind` that has a scenario form, as an `expect` line through
// the runner.
std::optional<Violation> ExpectHolds(SpillSut& sut, const ScenarioCommand& c, InvariantKind kind) {
  std::string message;
  ++sut.checks;
  const StepResult r = sut.runner->Step(c, &message);
  if (r == StepResult::kOk) return std::nullopt;
  return Violation{r == StepResult::kMalformed ? InvariantKind::kMalformed : kind,
                   fmt::format("{} does not hold: {}", Quoted(c), message)};
}

// "budget": each budget's usage (bound, or kept alive by its plans) is the sum of its
// plans' live bytes, and never over its limit (unless the limit was lowered below the
// bytes already written).
std::optional<Violation> CheckBudgets(const SpillModel& s, SpillSut& sut) {
  for (const auto& [id, model_budget] : s.budgets) {
    const std::string& name = model_budget.name;
    const std::shared_ptr<const SpillBudget> budget = sut.runner->budget(name);
    sut.checks += 2;
    if (budget == nullptr) {
      return Violation{InvariantKind::kBudget,
                       fmt::format("budget {} is gone while plans use it", name)};
    }
    const uint64_t expected = s.BudgetUsed(id);
    const uint64_t limit = model_budget.limit;
    if (budget->used() > std::max(limit, expected)) {
      return Violation{
          InvariantKind::kBudget,
          fmt::format("budget {}: used {} is over its limit {}", name, budget->used(), limit)};
    }
    if (budget->used() != expected) {
      return Violation{InvariantKind::kBudget,
                       fmt::format("budget {}: used {} is not the sum of its plans' live "
                                   "bytes, {}",
                                   name, budget->used(), expected)};
    }
  }
  return std::nullopt;
}

}  // namespace

// "reap": each local dir holds at least the spill directories the model's live plans (bound
// or not) have on disk there: a reap never removes a live plan's directory.
std::optional<Violation> CheckLiveDirs(const SpillModel& s, SpillSut& sut) {
  std::map<int, uint64_t> live;  // Local dir -> live plans' directories on disk there.
  for (const auto& [id, plan] : s.plans) {
    if (plan.finished) continue;
    for (const int dir : plan.slots) {
      if (dir >= 0 && s.dirs.at(dir).on_disk) ++live[s.dirs.at(dir).local_dir];
    }
  }
  for (const auto& [local_dir, count] : live) {
    ++sut.checks;
    const uint64_t present = ExpandGlob(sut.runner->base_fs(), SpillDirsGlob(local_dir)).size();
    if (present < count) {
      return Violation{InvariantKind::kReap,
                       fmt::format("{} holds {} spill directories, fewer than the {} "
                                   "that live plans hold there",
                                   LocalDirPath(local_dir), present, count)};
    }
  }
  return std::nullopt;
}

namespace {

// "metrics": each bound plan's spills and spilled bytes are those of its creates and
// writes, and its peak is at least its usage.
std::optional<Violation> CheckMetrics(const SpillModel& s, SpillSut& sut) {
  for (const auto& [name, id] : s.plan_names) {
    const ModelPlan& plan = s.plans.at(id);
    if (auto v = ExpectHolds(sut, Line(scenario::ExpectSpills{name, plan.spills}),
                             InvariantKind::kMetrics)) {
      return v;
    }
    if (auto v = ExpectHolds(sut, Line(scenario::ExpectSpilled{name, plan.spilled}),
                             InvariantKind::kMetrics)) {
      return v;
    }
    const SpillManager* manager = sut.runner->plan(name);
    ++sut.checks;
    if (manager != nullptr && manager->metrics().peak < manager->used_disk_space()) {
      return Violation{InvariantKind::kMetrics,
                       fmt::format("plan {}: peak {} is below used {}", name,
                                   manager->metrics().peak, manager->used_disk_space())};
    }
  }
  return std::nullopt;
}

// A bound plan's invariants that have no scenario form: its limit, its progress, and a
// lazy plan that has not spilled having no directory.
std::optional<Violation> CheckPlanManager(const std::string& name, const ModelPlan& plan,
                                          SpillSut& sut) {
  const SpillManager* manager = sut.runner->plan(name);
  sut.checks += 2;  // The limit and the progress below.
  if (manager == nullptr) {
    return Violation{InvariantKind::kMalformed,
                     fmt::format("plan {} is not bound in the runner", name)};
  }
  if (manager->max_temp_directory_size() != plan.limit) {
    return Violation{InvariantKind::kLimit,
                     fmt::format("plan {}: max_temp_directory_size is {}, the model says {}", name,
                                 manager->max_temp_directory_size(), plan.limit)};
  }
  if (manager->spilling_progress().current_bytes != manager->used_disk_space()) {
    return Violation{
        InvariantKind::kUsage,
        fmt::format("plan {}: spilling_progress().current_bytes {} differs from "
                    "used_disk_space() {}",
                    name, manager->spilling_progress().current_bytes, manager->used_disk_space())};
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------
// The invariants that name a defect (CheckDefectInvariants)

// The bound plan `name` as a PlanDiskManager, or null (an os_tmp or disabled plan).
const PlanDiskManager* PlanManager(SpillSut& sut, const std::string& name) {
  return dynamic_cast<const PlanDiskManager*>(sut.runner->plan(name));
}

// Each bound plan's inner manager is its own, and a plan whose name and files are gone
// has released it.
std::optional<Violation> CheckCrossPlan(const SpillModel& s, SpillSut& sut) {
  for (const auto& [name, id] : s.plan_names) {
    const PlanDiskManager* plan = PlanManager(sut, name);
    std::shared_ptr<DiskManager> inner = plan != nullptr ? plan->inner() : nullptr;
    if (inner == nullptr) continue;
    ++sut.checks;
    for (const auto& [other, manager] : sut.inner_managers) {
      if (other != name && manager.lock() == inner) {
        return Violation{InvariantKind::kCrossPlanVisibility,
                         fmt::format("plan {} spills through the manager of plan {}: each "
                                     "sees the other's bytes, files, directories and limit",
                                     name, other)};
      }
    }
    sut.inner_managers.emplace(name, inner);
  }
  std::set<std::string> alive;  // Plans whose name or files are still there.
  for (const auto& [id, plan] : s.plans) {
    if (!plan.finished) alive.insert(plan.name);
  }
  for (auto it = sut.inner_managers.begin(); it != sut.inner_managers.end();) {
    if (alive.count(it->first) != 0) {
      ++it;
      continue;
    }
    ++sut.checks;
    if (!it->second.expired()) {
      return Violation{InvariantKind::kCrossPlanVisibility,
                       fmt::format("plan {} and its files are gone but its manager is still "
                                   "alive, kept for other plans: its directories and usage "
                                   "outlive it",
                                   it->first)};
    }
    it = sut.inner_managers.erase(it);
  }
  return std::nullopt;
}

// A bound plan's manager reports what its inner manager, which holds the accounting, has.
std::optional<Violation> CheckOuterAccounting(const SpillModel& s, SpillSut& sut) {
  for (const auto& entry : s.plan_names) {
    const std::string& name = entry.first;
    const PlanDiskManager* plan = PlanManager(sut, name);
    std::shared_ptr<DiskManager> inner = plan != nullptr ? plan->inner() : nullptr;
    if (inner == nullptr) continue;
    ++sut.checks;
    auto differ = [&](std::string_view what, auto outer_value, auto inner_value) {
      return Violation{InvariantKind::kOuterAccounting,
                       fmt::format("plan {}: its manager's {} is {}, its inner manager's {}", name,
                                   what, outer_value, inner_value)};
    };
    if (plan->used_disk_space() != inner->used_disk_space()) {
      return differ("used_disk_space()", plan->used_disk_space(), inner->used_disk_space());
    }
    if (plan->max_temp_directory_size() != inner->max_temp_directory_size()) {
      return differ("max_temp_directory_size()", plan->max_temp_directory_size(),
                    inner->max_temp_directory_size());
    }
    const SpillingProgress outer_progress = plan->spilling_progress();
    const SpillingProgress inner_progress = inner->spilling_progress();
    if (outer_progress.active_files_count != inner_progress.active_files_count) {
      return differ("active file count", outer_progress.active_files_count,
                    inner_progress.active_files_count);
    }
    if (outer_progress.current_bytes != inner_progress.current_bytes) {
      return differ("spilling_progress().current_bytes", outer_progress.current_bytes,
                    inner_progress.current_bytes);
    }
    const SpillMetrics outer_metrics = plan->metrics();
    const SpillMetrics inner_metrics = inner->metrics();
    if (!(outer_metrics == inner_metrics)) {
      return differ("metrics (spills, spilled, peak)",
                    fmt::format("({}, {}, {})", outer_metrics.spills, outer_metrics.spilled,
                                outer_metrics.peak),
                    fmt::format("({}, {}, {})", inner_metrics.spills, inner_metrics.spilled,
                                inner_metrics.peak));
    }
  }
  return std::nullopt;
}

// A `plan` line of a plan that is not eager makes no filesystem call, and a lazy plan
// that has not spilled has no inner manager.
std::optional<Violation> CheckNoDirsBeforeFirstSpill(const SpillModel& s,
                                                     const ScenarioCommand& line,
                                                     uint64_t calls_before, SpillSut& sut) {
  if (const auto* built = std::get_if<scenario::Plan>(&line.verb)) {
    const std::optional<int> id = BoundPlan(s, built->name);
    const uint64_t calls = sut.runner->fs().total_calls() - calls_before;
    ++sut.checks;
    if (id.has_value() && s.plans.at(*id).kind != PlanKind::kEager && calls != 0) {
      return Violation{InvariantKind::kDirsBeforeFirstSpill,
                       fmt::format("building plan {} made {} filesystem calls; a plan that "
                                   "has not spilled makes none",
                                   built->name, calls)};
    }
  }
  for (const auto& [name, id] : s.plan_names) {
    const ModelPlan& plan = s.plans.at(id);
    if (plan.kind != PlanKind::kLazy || plan.built) continue;
    ++sut.checks;
    const PlanDiskManager* lazy = PlanManager(sut, name);
    if (lazy == nullptr || lazy->inner() != nullptr) {
      return Violation{InvariantKind::kDirsBeforeFirstSpill,
                       fmt::format("plan {} has not spilled but has built its directories", name)};
    }
  }
  return std::nullopt;
}

// Each bound plan's used_disk_space is the sum of its live files' sizes: what would stay
// counted once they are all dropped is zero.
std::optional<Violation> CheckAccountingAfterDrops(const SpillModel& s, SpillSut& sut) {
  std::map<int, uint64_t> held;  // Plan id -> bytes its live files hold, in the runner.
  std::set<int> seen;
  for (const auto& [name, id] : s.file_names) {
    const SpillFile* file = sut.runner->file(name);
    if (!seen.insert(id).second || file == nullptr) continue;
    held[s.files.at(id).plan] += file->size();
  }
  for (const auto& [name, id] : s.plan_names) {
    const SpillManager* manager = sut.runner->plan(name);
    if (manager == nullptr) continue;
    ++sut.checks;
    const uint64_t used = manager->used_disk_space();
    if (used != held[id]) {
      return Violation{InvariantKind::kAccountingAfterDrops,
                       fmt::format("plan {}: used_disk_space() is {} but its live files hold "
                                   "{} bytes, so dropping them would not bring it back to 0",
                                   name, used, held[id])};
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<Violation> CheckDefectInvariants(const SpillModel& s1, const ScenarioCommand& line,
                                               uint64_t calls_before, SpillSut& sut) {
  if (auto v = CheckCrossPlan(s1, sut)) return v;
  if (auto v = CheckOuterAccounting(s1, sut)) return v;
  if (auto v = CheckNoDirsBeforeFirstSpill(s1, line, calls_before, sut)) return v;
  return CheckAccountingAfterDrops(s1, sut);
}

std::optional<Violation> CheckInvariants(const SpillModel& s, SpillSut& sut) {
  // The checks of the features beyond upstream first, so that a defect in one of them is
  // reported as its own kind rather than as the counts it throws off.
  if (auto v = CheckBudgets(s, sut)) return v;
  if (auto v = CheckLiveDirs(s, sut)) return v;
  if (auto v = CheckMetrics(s, sut)) return v;
  auto expect = [&sut](const ScenarioCommand& c, InvariantKind kind) {
    return ExpectHolds(sut, c, kind);
  };
  for (const auto& [name, id] : s.plan_names) {
    const ModelPlan& plan = s.plans.at(id);
    // used_disk_space is the sum of the live files' sizes, and the active-file count is
    // the number of live files.
    if (auto v = expect(ExpectUsed(name, plan.used), InvariantKind::kUsage)) return v;
    if (auto v = expect(ExpectFiles(name, plan.active), InvariantKind::kActiveFileCount)) {
      return v;
    }
    if (auto v = CheckPlanManager(name, plan, sut)) return v;
  }
  for (const auto& [name, id] : s.file_names) {
    if (auto v = expect(ExpectSize(name, s.files.at(id).size), InvariantKind::kFileSize)) {
      return v;
    }
  }
  // Every spill directory that should be there, and no other; the local dirs themselves.
  for (int i = 0; i < kMaxLocalDirs; ++i) {
    if (auto v =
            expect(ExpectCount(SpillDirsGlob(i), s.SpillDirCount(i)), InvariantKind::kSpillDirs)) {
      return v;
    }
    if (auto v = expect(ExpectRoot(i, s.root_exists[i]), InvariantKind::kLocalDirs)) return v;
  }
  if (auto v = expect(ExpectCount(SpillDirsGlob(kTmpDir), s.SpillDirCount(kTmpDir)),
                      InvariantKind::kSpillDirs)) {
    return v;
  }
  // Every live file exists until its last handle goes, unless a cleaner removed it.
  if (auto v = expect(ExpectCount(std::string(kLocalFilesGlob), s.SpillFileCount(false)),
                      InvariantKind::kSpillFiles)) {
    return v;
  }
  if (auto v = expect(ExpectCount(std::string(kTmpFilesGlob), s.SpillFileCount(true)),
                      InvariantKind::kSpillFiles)) {
    return v;
  }
  return std::nullopt;
}

std::optional<Violation> CheckDropReported(size_t faults_before, uint64_t log_before,
                                           SpillSut& sut) {
  const std::vector<InjectedFault> faults = sut.runner->fs().injected();
  const std::vector<Status> log = sut.runner->cleanup_log()->failures();
  std::vector<bool> used(log.size(), false);
  for (size_t f = faults_before; f < faults.size(); ++f) {
    const InjectedFault& fault = faults[f];
    if (fault.op != OpKind::kRemove && fault.op != OpKind::kRmdir && fault.op != OpKind::kList) {
      continue;
    }
    ++sut.checks;
    bool reported = false;
    for (size_t i = log_before; i < log.size() && !reported; ++i) {
      reported = !used[i] && log[i].path() == fault.path && log[i].IsErrno(fault.error_number);
      used[i] = used[i] || reported;
    }
    if (!reported) {
      return Violation{
          InvariantKind::kLeftover,
          fmt::format("{} on {} {} and no CleanupLog record reports it",
                      ErrnoName(fault.error_number), OpKindName(fault.op), fault.path)};
    }
  }
  return std::nullopt;
}

namespace {

// A spill directory on disk at the end of a run.
struct LeftDir {
  bool reported = false;           // The CleanupLog reports it, or a path inside it.
  std::vector<std::string> files;  // Its files the CleanupLog does not report.
};

// Every spill directory on disk (local dirs' and the OS temp dir's), by path.
std::map<std::string, LeftDir> SpillDirsLeft(SpillSut& sut) {
  const std::vector<std::string> left = sut.runner->cleanup_log()->left_behind();
  auto reported = [&](const std::string& path) {
    return std::any_of(left.begin(), left.end(), [&](const std::string& l) {
      return l == path || (l.size() > path.size() && l.compare(0, path.size(), path) == 0 &&
                           l[path.size()] == '/');
    });
  };
  std::map<std::string, LeftDir> dirs;
  const std::string local_dirs = "/l*" + std::string(kSpillDirsSuffix);
  for (const std::string_view glob : {std::string_view(local_dirs), kTmpSpillDirsGlob}) {
    for (const std::string& path : ExpandGlob(sut.runner->base_fs(), glob)) {
      dirs[path].reported = reported(path);
    }
  }
  for (const std::string_view glob : {kLocalFilesGlob, kTmpFilesGlob}) {
    for (const std::string& path : ExpandGlob(sut.runner->base_fs(), glob)) {
      if (!reported(path)) dirs[ParentPath(path)].files.push_back(path);
    }
  }
  return dirs;
}

// Local dir -> how many of its spill directories may stay whole, whatever is in them:
// those a crash left (a failed removal it reported before the crash does not make one
// less so), and the spill-directory-named ones racing processes made.
std::map<std::string, uint64_t> DirsThatMayStay(const SpillModel& s) {
  std::map<std::string, uint64_t> stay;
  for (const auto& [id, d] : s.dirs) {
    if (d.on_disk && d.crashed) ++stay[LocalDirPath(d.local_dir)];
  }
  for (int i = 0; i <= kMaxLocalDirs; ++i) stay[LocalDirPath(i)] += s.foreign_dirs[i];
  return stay;
}

// The end of a run, everything dropped: the filesystem holds nothing a manager made,
// except what the CleanupLog reports as left behind (a path, or a directory holding one),
// what a crash left (as many directories per local dir as the model has, with whatever
// is in them: their process could report nothing) and the files racing processes made.
std::optional<Violation> CheckLeftovers(const SpillModel& s, SpillSut& sut) {
  const std::map<std::string, LeftDir> dirs = SpillDirsLeft(sut);
  std::map<std::string, uint64_t> stay = DirsThatMayStay(s);
  // Per local dir, the directories that need excusing: unreported ones first (nothing
  // else excuses them), then those with the most unreported files.
  using Entry = const std::pair<const std::string, LeftDir>*;
  std::map<std::string, std::vector<Entry>> to_excuse;
  for (const auto& entry : dirs) {
    if (!entry.second.reported || !entry.second.files.empty()) {
      to_excuse[ParentPath(entry.first)].push_back(&entry);
    }
  }
  // Files racing processes made (injected EEXIST) belong to no plan and stay.
  uint64_t foreign_files = s.SpillFileCount(false) - s.ManagedFileCount(false) +
                           s.SpillFileCount(true) - s.ManagedFileCount(true);
  for (auto& [local_dir, candidates] : to_excuse) {
    std::stable_sort(candidates.begin(), candidates.end(), [](Entry a, Entry b) {
      if (a->second.reported != b->second.reported) return !a->second.reported;
      return a->second.files.size() > b->second.files.size();
    });
    uint64_t& may_stay = stay[local_dir];
    for (const Entry entry : candidates) {
      const auto& [path, dir] = *entry;
      if (may_stay > 0) {
        --may_stay;
        continue;
      }
      const std::string* unreported = dir.reported ? nullptr : &path;
      for (const std::string& file : dir.files) {
        if (unreported != nullptr) break;
        if (foreign_files > 0) {
          --foreign_files;
        } else {
          unreported = &file;
        }
      }
      if (unreported == nullptr) continue;
      return Violation{InvariantKind::kLeftover,
                       fmt::format("after everything was dropped, {} is still there "
                                   "and the CleanupLog does not report it",
                                   *unreported)};
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<Violation> DropEverything(SpillModel& s, SpillSut& sut, std::string* text) {
  std::vector<std::string> names = Keys(s.file_names);
  for (const std::string& plan : Keys(s.plan_names)) names.push_back(plan);
  for (const std::string& budget : Keys(s.budget_names)) names.push_back(budget);
  bool lost = false;  // Set once a drop's outcome was not predictable.
  for (const std::string& name : names) {
    // A pending kill may fire during a drop: the names the dead process held die with it.
    if (!lost && s.file_names.count(name) == 0 && s.plan_names.count(name) == 0 &&
        s.budget_names.count(name) == 0) {
      continue;
    }
    const ScenarioCommand drop = Line(scenario::Drop{name});
    CommandPtr command = lost ? nullptr : MakeCommand(drop, s);
    if (command != nullptr) {
      text->append(command->ToText()).append("\n");
      if (std::optional<Violation> v = command->Execute(s, sut)) return v;
      command->Apply(s);
      continue;
    }
    // From here on the model cannot follow; the CleanupLog check below still holds.
    lost = true;
    text->append(drop.ToString()).append("\n");
    std::string message;
    const uint64_t kills_before = sut.runner->kills();
    if (sut.runner->Step(drop, &message) != StepResult::kOk) {
      return Violation{InvariantKind::kMalformed, fmt::format("{}: {}", Quoted(drop), message)};
    }
    // A pending kill fired: every name died with the process, and what it held stays as
    // a crash leaves it (the model's crash marks its plans' directories so).
    if (sut.runner->kills() != kills_before) {
      SpillCommand::Affected crashed;
      if (!executor_verbs::Transition(scenario::Crash{}, s, &crashed).has_value()) {
        return std::nullopt;  // Not a state a crash is followed in: nothing to check.
      }
      break;
    }
  }

  return CheckLeftovers(s, sut);
}

std::string ScenarioText(const std::vector<CommandPtr>& commands) {
  std::string text;
  for (const CommandPtr& c : commands) text.append(c->ToText()).append("\n");
  return text;
}

Program ProgramFromLines(const std::vector<ScenarioCommand>& lines, scenario::FsKind fs) {
  Program program;
  program.state = InitialState(fs);
  for (const ScenarioCommand& line : lines) {
    if (scenario::IsExpect(line.verb)) continue;
    CommandPtr command = MakeCommand(line, program.state);
    if (command == nullptr) continue;
    command->Apply(program.state);
    program.commands.push_back(std::move(command));
  }
  return program;
}

std::optional<Violation> RunProgram(const Program& program, const scenario::RunnerOptions& options,
                                    std::string* text) {
  std::string scratch;
  std::string* out = text != nullptr ? text : &scratch;
  out->clear();
  StatusOr<std::unique_ptr<scenario::Runner>> runner = scenario::Runner::Create(options);
  if (!runner.ok()) {
    return Violation{InvariantKind::kSetup,
                     "cannot create the runner: " + runner.status().ToString()};
  }
  SpillSut sut{runner->get()};
  SpillModel s = InitialState(options.fs);
  for (const CommandPtr& command : program.commands) {
    out->append(command->ToText()).append("\n");
    if (std::optional<Violation> v = command->Execute(s, sut)) return v;
    command->Apply(s);
  }
  return DropEverything(s, sut, out);
}

}  // namespace spillway::model
