// WorkloadRun: runs a workload through the scenario runner and checks every act against a
// model of the plans and files it binds.
#include "workload_run.h"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "spillway/spill/disk_manager.h"
#include "spillway/spill/spill_file.h"
#include "spillway/spill/spill_manager.h"
#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/glob.h"

namespace spillway::sweep::internal {
namespace {

using scenario::Command;
using scenario::Verb;

bool IsRemoval(OpKind op) {
  return op == OpKind::kRemove || op == OpKind::kRmdir || op == OpKind::kList;
}

// Whether an injected fault is an answer a caller may act on rather than an error it must
// report: a stat failing with ENOENT says "it does not exist".
bool IsAnswer(const InjectedFault& fault) {
  return fault.op == OpKind::kStat && fault.error_number == ENOENT;
}

Command ExpectOk() {
  Command c;
  c.verb = Verb::kExpectOk;
  return c;
}

Command ExpectError(std::string error) {
  Command c;
  c.verb = Verb::kExpectError;
  c.error = std::move(error);
  return c;
}

Command ExpectNamed(Verb verb, const std::string& name, uint64_t size, uint64_t count) {
  Command c;
  c.verb = verb;
  c.name = name;
  c.size = size;
  c.count = count;
  return c;
}

std::string CountsByKind(const std::array<uint64_t, kOpKindCount>& before,
                         const FaultInjectingFileSystem& fs) {
  std::string out;
  for (int i = 0; i < kOpKindCount; ++i) {
    const auto kind = static_cast<OpKind>(i);
    const uint64_t delta = fs.calls(kind) - before[i];
    if (delta == 0) continue;
    if (!out.empty()) out += ", ";
    out += fmt::format("{} {}", OpKindName(kind), delta);
  }
  return out;
}

std::array<uint64_t, kOpKindCount> CallsByKind(const FaultInjectingFileSystem& fs) {
  std::array<uint64_t, kOpKindCount> calls{};
  for (int i = 0; i < kOpKindCount; ++i) calls[i] = fs.calls(static_cast<OpKind>(i));
  return calls;
}

std::string DescribeFault(const InjectedFault& fault) {
  if (fault.bytes_stored > 0) {
    return fmt::format("a short write of {} bytes then {} on {}", fault.bytes_stored,
                       ErrnoName(fault.error_number), fault.path);
  }
  return fmt::format("{} on {} {}", ErrnoName(fault.error_number), OpKindName(fault.op),
                     fault.path);
}

}  // namespace

Command ExpectCount(const std::string& glob, uint64_t count) {
  Command c;
  c.verb = Verb::kExpectCount;
  c.path = glob;
  c.count = count;
  return c;
}

bool WorkloadRun::Bound(const std::string& name) const {
  auto plan = plans_.find(name);
  return (plan != plans_.end() && plan->second.bound) || file_ids_.contains(name);
}

// Whether every name the act needs is bound (a failed plan or spill binds nothing, so the
// acts on it are skipped, as a scenario that met the failure would have to).
bool WorkloadRun::CanRun(const Command& command) const {
  auto plan_bound = [&](const std::string& name) {
    auto it = plans_.find(name);
    return it != plans_.end() && it->second.bound;
  };
  switch (command.verb) {
    case Verb::kPlan:
      return !Bound(command.name);
    case Verb::kSpill:
      return !Bound(command.name) && plan_bound(command.target);
    case Verb::kClone:
      return !Bound(command.name) && file_ids_.contains(command.target);
    case Verb::kWrite:
    case Verb::kShortWrite:
      return file_ids_.contains(command.name);
    case Verb::kSetLimit:
      return plan_bound(command.name);
    case Verb::kDrop:
      return Bound(command.name);
    default:
      return false;
  }
}

uint64_t WorkloadRun::ModelUsed(const std::string& plan) const {
  uint64_t used = 0;
  for (const FileModel& file : files_) {
    if (!file.refs.empty() && file.plan == plan) used += file.expected;
  }
  return used;
}

void WorkloadRun::Add(Check check, std::string key, std::string message, int line,
                      std::vector<Command> expects, std::string note) {
  report_.violations.push_back(fmt::format("{}: {}", CheckName(check), message));
  if (!keys_.insert(key).second) return;
  findings_.push_back(Finding{check, std::move(key), std::move(message), line, std::move(expects),
                              std::move(note)});
}

bool WorkloadRun::Step(const Command& command, int act) {
  lines_.push_back(Line{command, act});
  std::string message;
  const scenario::StepResult result = runner().Step(command, &message);
  if (result == scenario::StepResult::kOk) return true;
  Add(Check::kRunner, fmt::format("runner|{}", act),
      fmt::format("the runner refused `{}`: {}", command.ToString(), message),
      static_cast<int>(lines_.size()) - 1, {},
      "the runner refused this line although every name it uses is bound");
  return false;
}

Status WorkloadRun::Execute() {
  scenario::RunnerOptions runner_options;
  runner_options.fs = options_.fs;
  auto created = scenario::Runner::Create(runner_options);
  if (!created.ok()) return created.status();
  runner_ = std::move(*created);
  report_.error_number = spec_.error_number;
  report_.mode = spec_.mode;
  report_.fault_op = spec_.fault_op;

  // Quirks go first, as lines, so that the scenario written for a violation carries them.
  for (Quirk quirk : AllQuirks()) {
    if (!options_.quirks.Has(quirk)) continue;
    Command command;
    command.verb = Verb::kQuirk;
    command.quirk = quirk;
    if (!Step(command, -1)) return OkStatus();
  }
  for (const Command& command : workload_.setup) {
    if (!Step(command, -1)) return OkStatus();
  }
  // The fault goes after the setting up, which the fault rules do not count.
  if (spec_.error_number) {
    Command command;
    command.verb = Verb::kFault;
    command.fault.op = std::nullopt;
    command.fault.error_number = *spec_.error_number;
    command.fault.after = spec_.fault_op - 1;
    if (spec_.mode == FaultMode::kTransient) {
      command.fault.times = 1;
    } else {
      command.fault.times = std::nullopt;
    }
    if (!Step(command, -1)) return OkStatus();
  }
  for (size_t i = 0; i < workload_.acts.size(); ++i) {
    const Command& command = workload_.acts[i];
    if (!CanRun(command)) {
      ++report_.acts_skipped;
      continue;
    }
    RunAct(command, static_cast<int>(i));
  }

  // The workload drops everything it binds; DropAll drops whatever a skipped drop left.
  FaultInjectingFileSystem& fs = runner().fs();
  const size_t faults_before = fs.injected().size();
  const size_t log_before = runner().cleanup_log()->failure_count();
  runner().DropAll();
  const std::vector<InjectedFault> all_faults = fs.injected();
  CheckDropFaults(std::vector<InjectedFault>(all_faults.begin() + faults_before, all_faults.end()),
                  log_before, -1, "dropping what the workload left bound", "dropall");
  plans_.clear();
  file_ids_.clear();
  CheckLeftovers();

  report_.operations = fs.total_calls();
  report_.faults_injected = all_faults.size();
  report_.cleanup_records = runner().cleanup_log()->failure_count();
  if (spec_.error_number) {
    bool met = false;
    for (const InjectedFault& fault : all_faults) {
      met = met || (fault.bytes_stored == 0 && fault.error_number == *spec_.error_number);
    }
    if (!met) {
      Add(Check::kFaultMissed, "fault_missed",
          fmt::format("no {} was injected although operation {} was counted in the run "
                      "without a fault: the workload's operations do not replay identically",
                      ErrnoName(*spec_.error_number), spec_.fault_op),
          -1, {}, "the fault rule above never fired");
    }
  }
  return OkStatus();
}

void WorkloadRun::RunAct(const Command& command, int act) {
  FaultInjectingFileSystem& fs = runner().fs();
  CleanupLog& log = *runner().cleanup_log();
  const size_t faults_before = fs.injected().size();
  const size_t log_before = log.failure_count();
  const uint64_t calls_before = fs.total_calls();
  const auto kinds_before = CallsByKind(fs);
  const std::string key_suffix = fmt::format("|{}", act);

  // What the model predicts, before the act changes it.
  const PlanModel* plan_model = nullptr;
  bool lazy_check = false;
  std::vector<std::string> lazy_roots;
  std::map<std::string, uint64_t> dirs_before;
  bool fits = true;
  if (command.verb == Verb::kPlan) {
    const scenario::PlanSpec& spec = command.plan;
    lazy_check = spec.mode == scenario::PlanMode::kLazy;
    if (spec.dirs_kind == scenario::DirsKind::kList) {
      lazy_roots = spec.local_dirs;
    } else if (spec.dirs_kind == scenario::DirsKind::kOsTmp) {
      lazy_roots = {runner().base_fs().TempDir()};
    }
  } else if (command.verb == Verb::kDrop) {
    auto it = plans_.find(command.name);
    if (it != plans_.end() && it->second.bound) {
      plan_model = &it->second;
      lazy_check = it->second.lazy && !it->second.spill_tried;
      lazy_roots = it->second.spill_roots;
    }
  } else if (command.verb == Verb::kWrite) {
    const FileModel& file = files_[file_ids_.at(command.name)];
    const PlanModel& plan = plans_.at(file.plan);
    fits = ModelUsed(file.plan) + command.size <= plan.limit;
  }
  if (lazy_check) dirs_before = CountSpillDirs(lazy_roots);

  const int line = static_cast<int>(lines_.size());
  if (!Step(command, act)) return;
  const Status outcome = runner().last_outcome();
  if (!outcome.ok()) ++report_.acts_failed;
  const std::vector<InjectedFault> all_faults = fs.injected();
  const std::vector<InjectedFault> faults(all_faults.begin() + faults_before, all_faults.end());
  const std::string act_text = fmt::format("`{}`", command.ToString());

  // Every injected fault surfaces: as the act's error, or (for a drop, which cannot fail)
  // as a CleanupLog record. A stat failing with ENOENT is the exception: it answers "does
  // not exist", which an act may act on and then succeed (a missing local dir is created).
  std::vector<InjectedFault> errors;
  for (const InjectedFault& fault : faults) {
    if (!IsAnswer(fault)) errors.push_back(fault);
  }
  if (command.verb == Verb::kDrop) {
    CheckDropFaults(faults, log_before, line, act_text, "unreported" + key_suffix);
  } else if (!errors.empty() && outcome.ok()) {
    Add(Check::kFalseSuccess, "false_success" + key_suffix,
        fmt::format("{} met {} and reported success", act_text, DescribeFault(errors[0])), line,
        {ExpectError(ErrnoName(errors[0].error_number))});
  } else if (faults.empty() && !outcome.ok()) {
    // Without a fault, only LIMIT (for a write that does not fit) and DISABLED (for a
    // disabled plan) are errors an act may return.
    const bool explained = (IsLimitExceeded(outcome) && command.verb == Verb::kWrite && !fits) ||
                           (IsDisabled(outcome) && command.verb == Verb::kSpill &&
                            plans_.at(command.target).disabled) ||
                           (IsDisabled(outcome) && command.verb == Verb::kSetLimit &&
                            plans_.at(command.name).disabled && command.size != 0);
    if (!explained) {
      Add(Check::kUnexplainedError, "unexplained" + key_suffix,
          fmt::format("{} failed although no fault was injected during it{}: {}", act_text,
                      command.verb == Verb::kWrite ? " and its bytes fit under the limit" : "",
                      outcome.ToString()),
          line, {ExpectOk()});
    }
  }

  // The model follows the act.
  switch (command.verb) {
    case Verb::kPlan: {
      if (!outcome.ok()) break;
      PlanModel plan;
      plan.bound = true;
      plan.lazy = lazy_check;
      plan.disabled = command.plan.dirs_kind == scenario::DirsKind::kDisabled;
      plan.limit = command.plan.limit;
      plan.spill_roots = lazy_roots;
      plans_[command.name] = plan;
      if (runner().plan(command.name) == nullptr) {
        Add(Check::kRunner, "runner" + key_suffix,
            fmt::format("{} succeeded but the runner binds no plan {}", act_text, command.name),
            line);
      }
      if (lazy_check && fs.total_calls() != calls_before) {
        std::vector<Command> expects;
        for (const auto& [glob, count] : CountSpillDirs(lazy_roots)) {
          if (count != dirs_before[glob]) expects.push_back(ExpectCount(glob, dirs_before[glob]));
        }
        Add(Check::kLazyPlan, "lazy" + key_suffix,
            fmt::format("building lazy plan {} touched the filesystem ({})", command.name,
                        CountsByKind(kinds_before, fs)),
            line, expects,
            expects.empty() ? "the plan's build made filesystem calls but created nothing "
                              "the scenario language can count"
                            : "");
      }
      break;
    }
    case Verb::kSpill: {
      plans_.at(command.target).spill_tried = true;
      if (!outcome.ok()) break;
      const SpillFile* file = runner().file(command.name);
      if (file == nullptr) {
        Add(Check::kRunner, "runner" + key_suffix,
            fmt::format("{} succeeded but the runner binds no file {}", act_text, command.name),
            line);
        break;
      }
      FileModel model;
      model.plan = command.target;
      model.path = file->path();
      model.refs.insert(command.name);
      file_ids_[command.name] = files_.size();
      files_.push_back(std::move(model));
      break;
    }
    case Verb::kClone: {
      const size_t id = file_ids_.at(command.target);
      file_ids_[command.name] = id;
      files_[id].refs.insert(command.name);
      break;
    }
    case Verb::kDrop: {
      if (plan_model != nullptr) {
        plans_.at(command.name).bound = false;
        if (lazy_check && fs.total_calls() != calls_before) {
          std::vector<Command> expects;
          for (const auto& [glob, count] : CountSpillDirs(lazy_roots)) {
            if (count != dirs_before[glob]) {
              expects.push_back(ExpectCount(glob, dirs_before[glob]));
            }
          }
          Add(Check::kLazyPlan, "lazy" + key_suffix,
              fmt::format("dropping lazy plan {}, which never tried to spill, touched the "
                          "filesystem ({})",
                          command.name, CountsByKind(kinds_before, fs)),
              line, expects,
              expects.empty() ? "the drop made filesystem calls but changed nothing the "
                                "scenario language can count"
                              : "");
        }
      } else {
        const size_t id = file_ids_.at(command.name);
        files_[id].refs.erase(command.name);
        file_ids_.erase(command.name);
      }
      break;
    }
    case Verb::kWrite: {
      FileModel& file = files_[file_ids_.at(command.name)];
      if (outcome.ok()) {
        file.expected += command.size;
        if (!fits) {
          Add(Check::kLimitNotEnforced, "limit" + key_suffix,
              fmt::format("{} succeeded although plan {} holds {} bytes of a {}-byte limit",
                          act_text, file.plan, ModelUsed(file.plan) - command.size,
                          plans_.at(file.plan).limit),
              line, {ExpectError("LIMIT")});
        }
      } else {
        // A failed write counts exactly what reached the file: the bytes an injected short
        // write stored, and nothing else.
        for (const InjectedFault& fault : faults) {
          if (fault.op == OpKind::kWrite && fault.path == file.path) {
            file.expected += fault.bytes_stored;
          }
        }
        if (!fits && fs.total_calls() != calls_before) {
          Add(Check::kLimitNotEnforced, "limit_fs" + key_suffix,
              fmt::format("{} did not fit under plan {}'s {}-byte limit ({} bytes held) but "
                          "reached the filesystem ({}) instead of being refused first",
                          act_text, file.plan, plans_.at(file.plan).limit, ModelUsed(file.plan),
                          CountsByKind(kinds_before, fs)),
              line, {},
              "this write did not fit under its plan's limit, yet it reached the filesystem; "
              "no expect can see that (the accounting expects may)");
        }
      }
      break;
    }
    case Verb::kSetLimit:
      if (outcome.ok()) plans_.at(command.name).limit = command.size;
      break;
    default:
      break;
  }

  CheckAccounting(line, act);
}

void WorkloadRun::CheckDropFaults(const std::vector<InjectedFault>& faults, size_t log_before,
                                  int line, const std::string& what, const std::string& key) {
  if (faults.empty()) return;
  const std::vector<Status> all_records = runner().cleanup_log()->failures();
  std::vector<Status> records(all_records.begin() + static_cast<long>(log_before),
                              all_records.end());
  std::vector<bool> used(records.size(), false);
  for (const InjectedFault& fault : faults) {
    if (!IsRemoval(fault.op)) continue;
    bool matched = false;
    for (size_t i = 0; i < records.size() && !matched; ++i) {
      if (!used[i] && records[i].path() == fault.path && records[i].IsErrno(fault.error_number)) {
        used[i] = true;
        matched = true;
      }
    }
    if (!matched) {
      Add(Check::kUnreportedFault, key,
          fmt::format("{} met {} and no CleanupLog record reports it", what, DescribeFault(fault)),
          line, {},
          fmt::format("{} failed here and the CleanupLog has no record of it "
                      "(the scenario language cannot read the CleanupLog)",
                      fault.path));
      return;
    }
  }
}

void WorkloadRun::CheckAccounting(int line, int act) {
  std::vector<std::string> problems;
  std::vector<Command> expects;
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
    const size_t problems_before = problems.size();
    if (used != want_bytes) {
      problems.push_back(
          fmt::format("plan {} used_disk_space is {}, expected {}", name, used, want_bytes));
      expects.push_back(ExpectNamed(Verb::kExpectUsed, name, want_bytes, 0));
    }
    if (progress.current_bytes != want_bytes) {
      problems.push_back(fmt::format("plan {} spilling_progress counts {} bytes, expected {}", name,
                                     progress.current_bytes, want_bytes));
    }
    if (progress.active_files_count != want_files) {
      problems.push_back(fmt::format("plan {} counts {} active files, expected {}", name,
                                     progress.active_files_count, want_files));
      expects.push_back(ExpectNamed(Verb::kExpectFiles, name, 0, want_files));
    }
    if (problems.size() != problems_before) plan.flagged = true;
  }
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
    const size_t problems_before = problems.size();
    const uint64_t recorded = spill_file->size();
    if (recorded != file.expected) {
      problems.push_back(
          fmt::format("file {} records {} bytes, expected {}", ref, recorded, file.expected));
      expects.push_back(ExpectNamed(Verb::kExpectSize, ref, file.expected, 0));
    }
    const StatusOr<FileStat> stat = runner().base_fs().Stat(file.path);
    if (!stat.ok()) {
      problems.push_back(fmt::format("file {} is not on disk: {}", ref, stat.status().ToString()));
    } else if (stat->size != file.expected) {
      problems.push_back(fmt::format("file {} holds {} bytes on disk, expected {}", ref, stat->size,
                                     file.expected));
    }
    if (problems.size() != problems_before) file.flagged = true;
  }
  if (problems.empty()) return;
  std::string message = fmt::format("after `{}`: ", lines_[line].command.ToString());
  for (size_t i = 0; i < problems.size(); ++i) message += (i ? "; " : "") + problems[i];
  const bool expressible = !expects.empty();
  Add(Check::kAccounting, fmt::format("accounting|{}", act), message, line, std::move(expects),
      expressible ? "" : "only the size on disk is wrong, which no expect can check");
}

std::map<std::string, uint64_t> WorkloadRun::CountSpillDirs(const std::vector<std::string>& roots) {
  std::map<std::string, uint64_t> counts;
  for (const std::string& root : roots) {
    const std::string_view prefix =
        root == runner().base_fs().TempDir() ? kOsTmpDirPrefix : kSpillDirPrefix;
    const std::string glob = JoinPath(root, std::string(prefix) + "*");
    counts[glob] = ExpandGlob(runner().base_fs(), glob).size();
  }
  return counts;
}

}  // namespace spillway::sweep::internal
