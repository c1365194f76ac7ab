// WorkloadRun: runs a workload through the scenario runner and checks every act against a
// model of the plans, budgets and files it binds (the model's per-verb rules are in
// workload_acts.cc).
#include "workload_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "spillway/model/spill_model.h"
#include "spillway/spill/disk_manager.h"
#include "spillway/spill/spill_file.h"
#include "spillway/spill/spill_manager.h"
#include "spillway/spill/spill_status.h"
#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/glob.h"

namespace spillway::workload_sweep::internal {
namespace {

using scenario::Command;

std::array<uint64_t, kOpKindCount> CallsByKind(const FaultInjectingFileSystem& fs) {
  std::array<uint64_t, kOpKindCount> calls{};
  for (int i = 0; i < kOpKindCount; ++i) calls[i] = fs.calls(static_cast<OpKind>(i));
  return calls;
}

}  // namespace

bool IsRemoval(OpKind op) {
  return op == OpKind::kRemove || op == OpKind::kRmdir || op == OpKind::kList;
}

bool IsCreation(OpKind op) { return op == OpKind::kMkdir || op == OpKind::kCreate; }

bool AtOrUnder(const std::string& path, const std::string& root) {
  return path == root || (path.size() > root.size() && path.starts_with(root) &&
                          (root == "/" || path[root.size()] == '/'));
}

Command ExpectOk() { return Command{scenario::ExpectOk{}}; }

Command ExpectError(std::string error) { return Command{scenario::ExpectError{std::move(error)}}; }

Command ExpectCount(const std::string& glob, uint64_t count) {
  return Command{scenario::ExpectCount{glob, count}};
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

std::string DescribeFault(const InjectedFault& fault) {
  if (fault.bytes_stored > 0) {
    return fmt::format("a short write of {} bytes then {} on {}", fault.bytes_stored,
                       ErrnoName(fault.error_number), fault.path);
  }
  return fmt::format("{} on {} {}", ErrnoName(fault.error_number), OpKindName(fault.op),
                     fault.path);
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

bool IsDamageMode(FaultMode mode) {
  return mode == FaultMode::kCorrupt || mode == FaultMode::kLost;
}

std::string DescribeDamage(FaultMode mode, OpKind op, uint64_t call) {
  return fmt::format("{} call {} {}", OpKindName(op), call, FaultModeName(mode));
}

bool WorkloadRun::RunPreamble() {
  // Quirks go first, as lines, so that the scenario written for a violation carries them.
  for (Quirk quirk : AllQuirks()) {
    if (options_.quirks.Has(quirk) && !Step(Command{scenario::SetQuirk{quirk}}, -1)) return false;
  }
  for (const Command& command : workload_.setup) {
    if (!Step(command, -1)) return false;
  }
  // The fault goes after the setting up, which the fault rules do not count.
  if (spec_.mode == FaultMode::kKill) return Step(Command{scenario::Kill{spec_.fault_op}}, -1);
  scenario::Fault fault;
  if (IsDamageMode(spec_.mode)) {
    fault.rule.op = spec_.damaged_op;
    fault.rule.action = spec_.mode == FaultMode::kLost ? FaultAction::kLost : FaultAction::kCorrupt;
    fault.rule.after = spec_.fault_op - 1;
    return Step(Command{std::move(fault)}, -1);
  }
  if (!spec_.error_number) return true;
  fault.rule.op = std::nullopt;
  fault.rule.error_number = *spec_.error_number;
  fault.rule.after = spec_.fault_op - 1;
  if (spec_.mode == FaultMode::kTransient) {
    fault.rule.times = 1;
  } else {
    fault.rule.times = std::nullopt;
  }
  return Step(Command{std::move(fault)}, -1);
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
  report_.damaged_op = spec_.damaged_op;

  if (!RunPreamble()) return OkStatus();
  for (size_t i = 0; i < workload_.acts.size(); ++i) {
    const Command& command = workload_.acts[i];
    if (!CanRun(command)) {
      ++report_.acts_skipped;
      continue;
    }
    RunAct(command, static_cast<int>(i));
    if (killed_) break;
  }
  if (killed_) RunRestart();

  // The workload drops everything it binds; DropAll drops whatever a skipped drop left.
  FaultInjectingFileSystem& fs = runner().fs();
  const size_t faults_before = fs.injected().size();
  const size_t log_before = runner().cleanup_log()->failure_count();
  runner().DropAll();
  RestartAfterDropAll();
  const std::vector<InjectedFault> all_faults = fs.injected();
  CheckDropFaults(
      std::vector<InjectedFault>(all_faults.begin() + static_cast<std::ptrdiff_t>(faults_before),
                                 all_faults.end()),
      log_before, -1, "dropping what the workload left bound", "dropall");
  plans_.clear();
  file_ids_.clear();
  CheckLeftovers();

  report_.operations = fs.total_calls();
  report_.faults_injected = all_faults.size();
  report_.injected = all_faults;
  report_.cleanup_records = runner().cleanup_log()->failure_count();
  CheckKillFired();
  CheckFaultMet(all_faults);
  return OkStatus();
}

// A run planned to fault (or damage) an operation must have met that fault: otherwise
// the workload's operations did not replay as in the run without a fault.
void WorkloadRun::CheckFaultMet(const std::vector<InjectedFault>& all_faults) {
  if (spec_.error_number || IsDamageMode(spec_.mode)) {
    bool met = false;
    for (const InjectedFault& fault : all_faults) {
      met = met || (spec_.error_number
                        ? fault.bytes_stored == 0 && fault.error_number == *spec_.error_number
                        : fault.action != FaultAction::kFail && fault.op == spec_.damaged_op);
    }
    if (!met) {
      Add(Check::kFaultMissed, "fault_missed",
          fmt::format("no {} was injected although operation {} was counted in the run "
                      "without a fault: the workload's operations do not replay identically",
                      spec_.error_number ? ErrnoName(*spec_.error_number)
                                         : std::string(FaultModeName(spec_.mode)),
                      spec_.fault_op),
          -1, {}, "the fault rule above never fired");
    }
  }
}

void WorkloadRun::RunAct(const Command& command, int act) {
  std::visit(
      [&](const auto& v) {
        if constexpr (kHasRole<std::decay_t<decltype(v)>, ActRole>) RunActOf(v, command, act);
      },
      command.verb);
  if (after_act_hook_) after_act_hook_(runner());
}

template <typename V>
void WorkloadRun::RunActOf(const V& verb, const Command& command, int act) {
  FaultInjectingFileSystem& fs = runner().fs();
  ActRun run;
  run.faults_before = fs.injected().size();
  run.log_before = runner().cleanup_log()->failure_count();
  run.calls_before = fs.total_calls();
  run.kinds_before = CallsByKind(fs);
  run.key_suffix = fmt::format("|{}", act);
  if (spec_.error_number == ENOENT) run.paths_before = PathsUnderRoots();
  // What the model predicts, before the act changes it.
  Predict(verb, &run);
  if (run.lazy_check) run.dirs_before = CountSpillDirs(run.lazy_roots);

  run.line = static_cast<int>(lines_.size());
  const uint64_t kills_before = runner().kills();
  if (!Step(command, act)) return;
  if (runner().kills() != kills_before) {
    // The process died inside the act: there is nothing left to check it against.
    FollowKill();
    return;
  }
  run.outcome = runner().last_outcome();
  if (!run.outcome.ok()) ++report_.acts_failed;
  const std::vector<InjectedFault> all_faults = fs.injected();
  run.faults.assign(all_faults.begin() + static_cast<long>(run.faults_before), all_faults.end());
  run.act_text = fmt::format("`{}`", command.ToString());
  FollowFacts(run);
  // An ENOENT on a path an injected ENOENT removed is the world as it now is.
  const bool gone = run.outcome.IsErrno(ENOENT) && Gone(run.outcome.path());
  CheckOutcome(command, run, gone || Explained(verb, run));
  // The model follows the act.
  Follow(verb, run);
  CheckAccounting(run.line, act);
}

void WorkloadRun::CheckOutcome(const Command& command, const ActRun& run, bool explained) {
  // Every injected fault surfaces: as the act's error, or (for a drop, which cannot fail)
  // as a CleanupLog record. Answers are the exception (IsAnswer): a stat failing with
  // ENOENT says "does not exist", which an act may act on and then succeed (a missing local
  // dir is created).
  std::vector<InjectedFault> errors;
  for (const InjectedFault& fault : run.faults) {
    if (!IsAnswer(command, fault, run.outcome)) errors.push_back(fault);
  }
  const bool is_write = std::holds_alternative<scenario::Write>(command.verb);
  if (std::holds_alternative<scenario::Drop>(command.verb)) {
    CheckDropFaults(run.faults, run.log_before, run.line, run.act_text,
                    "unreported" + run.key_suffix);
  } else if (!errors.empty() && run.outcome.ok()) {
    Add(Check::kFalseSuccess, "false_success" + run.key_suffix,
        fmt::format("{} met {} and reported success", run.act_text, DescribeFault(errors[0])),
        run.line, {ExpectError(ErrnoName(errors[0].error_number))});
  } else if (errors.empty() && !run.outcome.ok() && !explained) {
    // Without a fault (or with only answers), only LIMIT (for a write that does not fit),
    // DISABLED (for a disabled plan) and ENOENT on what a fault removed are errors an act
    // may return.
    Add(Check::kUnexplainedError, "unexplained" + run.key_suffix,
        fmt::format("{} failed although no fault was injected during it{}: {}", run.act_text,
                    is_write ? " and its bytes fit under the limit" : "", run.outcome.ToString()),
        run.line, {ExpectOk()});
  }
}

void WorkloadRun::CheckDropFaults(const std::vector<InjectedFault>& faults, size_t log_before,
                                  int line, const std::string& what, const std::string& key) {
  if (faults.empty()) return;
  const std::vector<Status> all_records = runner().cleanup_log()->failures();
  std::vector<Status> records(all_records.begin() + static_cast<long>(log_before),
                              all_records.end());
  std::vector<bool> used(records.size(), false);
  for (const InjectedFault& fault : faults) {
    if (!IsRemoval(fault.op) || fault.action == FaultAction::kKill) continue;
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

std::vector<std::string> WorkloadRun::SpillDirsUnder(const std::vector<std::string>& roots) {
  FileSystem& base = runner().base_fs();
  std::vector<std::string> dirs;
  for (const std::string& root : roots) {
    for (std::string& path : ExpandGlob(base, JoinPath(root, std::string(kSpillDirPrefix) + "*"))) {
      const StatusOr<FileStat> stat = base.Stat(path);
      if (stat.ok() && stat->type == FileType::kDirectory) dirs.push_back(std::move(path));
    }
  }
  return dirs;
}

uint64_t WorkloadRun::OperationsThatCanReturn(int error_number) const {
  uint64_t operations = 0;
  for (int i = 0; i < kOpKindCount; ++i) {
    const auto kind = static_cast<OpKind>(i);
    if (OpKindCanReturn(kind, error_number)) operations += runner_->fs().calls(kind);
  }
  return operations;
}

std::set<std::string> WorkloadRun::PathsUnderRoots() {
  FileSystem& base = runner().base_fs();
  std::vector<std::string> roots = workload_.local_dirs;
  roots.push_back(base.TempDir());
  std::set<std::string> paths;
  for (const std::string& root : roots) {
    if (base.Exists(root)) paths.insert(root);
    std::string glob = root;
    for (int depth = 0; depth < 3; ++depth) {
      glob = JoinPath(glob, "*");
      for (std::string& path : ExpandGlob(base, glob)) paths.insert(std::move(path));
    }
  }
  return paths;
}

void WorkloadRun::FollowFacts(const ActRun& run) {
  FileSystem& base = runner().base_fs();
  for (const InjectedFault& fault : run.faults) {
    if (fault.bytes_stored > 0) continue;
    if (fault.error_number == EEXIST && IsCreation(fault.op)) {
      // A racing process made an entry there (the path of a unique creation is its
      // directory; a named one's entry is the path itself, a root, never a leftover).
      ++foreign_[fault.path];
    } else if (fault.error_number == ENOENT) {
      // The fault removed fault.path with everything under it: what was there before the
      // act and is not now is gone, and so is fault.path if the act made it (a lazy plan's
      // spill dir) and it is not there now. A root (a local dir, the temp dir) is never
      // gone as a whole: a named mkdir of a local dir fails on that path but removes its
      // parent, and what was in a root is followed path by path.
      for (const std::string& path : run.paths_before) {
        if (AtOrUnder(path, fault.path) && !base.Exists(path)) gone_.insert(path);
      }
      const bool root = fault.path == base.TempDir() ||
                        std::find(workload_.local_dirs.begin(), workload_.local_dirs.end(),
                                  fault.path) != workload_.local_dirs.end();
      if (!root && !base.Exists(fault.path)) gone_.insert(fault.path);
    }
  }
}

bool WorkloadRun::Gone(const std::string& path) const {
  for (const std::string& root : gone_) {
    if (AtOrUnder(path, root)) return true;
  }
  return false;
}

}  // namespace spillway::workload_sweep::internal
