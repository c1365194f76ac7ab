// The model's verbs: one transition per scenario verb (the state the model predicts after
// the line, its outcome and what its expectations cover; those of budget, crash and reap
// are in executor_verbs.cc), and MakeCommand, which makes the verb's command for a line.
// A verb without a transition of its own is not a model command.
#include <algorithm>
#include <cerrno>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "spill_model_internal.h"
#include "spillway/model/spill_model.h"
#include "spillway/spill/read_spill_file.h"

namespace spillway::model {

using Affected = SpillCommand::Affected;

namespace {

// ---------------------------------------------------------------------------------------
// The verbs' transitions, one overload per scenario verb: each advances `s` by the line
// and returns the outcome's code name ("OK", an errno name, "LIMIT", "DISABLED"), or
// nullopt when the line is not valid in `s` or its outcome is not predictable there. A
// verb without one is not run by the model (NotModeled).

// The transition of a verb the model does not run (the checks, `file`, `quirk`, and any
// verb without an overload of its own): MakeCommand looks only at its return type and
// never calls it.
struct NotModeled {};
template <typename V>
NotModeled Transition(const V&, SpillModel&, Affected*) {
  return {};
}

// budget, crash and reap act on the executor rather than on one plan (executor_verbs.cc).
using executor_verbs::Transition;

std::optional<std::string> Transition(const scenario::Dir& v, SpillModel& s, Affected* a) {
  const int index = LocalDirIndex(v.path);
  if (index < 0) return std::nullopt;
  s.root_exists[index] = true;
  a->outcome = false;
  return std::string(kOk);
}

std::optional<std::string> Transition(const scenario::Capacity& v, SpillModel& s, Affected* a) {
  if (s.enforce_capacity) s.capacity = v.size;
  a->outcome = false;
  return std::string(kOk);
}

std::optional<std::string> Transition(const scenario::Plan& v, SpillModel& s, Affected* a) {
  const scenario::PlanSpec& spec = v.spec;
  if (!Fresh(s, v.name)) return std::nullopt;
  ModelPlan plan;
  plan.name = v.name;
  plan.limit = spec.limit;
  plan.recreate = spec.missing_dir == MissingDirPolicy::kRecreate;
  plan.each = spec.layout == SpillDirLayout::kEach;
  plan.failover = spec.failover;
  plan.framed = spec.frame;
  switch (spec.dirs_kind) {
    case scenario::DirsKind::kList:
      plan.kind = spec.mode == scenario::PlanMode::kEager ? PlanKind::kEager : PlanKind::kLazy;
      for (const std::string& dir : spec.local_dirs) {
        const int index = LocalDirIndex(dir);
        // Only the local dirs the model knows, each once.
        if (index < 0 || std::count(plan.local_dirs.begin(), plan.local_dirs.end(), index)) {
          return std::nullopt;
        }
        plan.local_dirs.push_back(index);
      }
      break;
    case scenario::DirsKind::kOsTmp:
      plan.kind = PlanKind::kOsTmp;
      plan.local_dirs = {kTmpDir};
      break;
    case scenario::DirsKind::kDisabled:
      plan.kind = PlanKind::kDisabled;
      plan.limit = 0;  // A disabled manager's limit is 0.
      break;
  }
  if (!spec.budget.empty()) {
    const std::optional<int> budget = BoundBudget(s, spec.budget);
    if (!budget.has_value()) return std::nullopt;
    plan.budget = *budget;
  }
  UseName(s, plan.name);
  a->local_dirs.insert(plan.local_dirs.begin(), plan.local_dirs.end());
  if (plan.kind == PlanKind::kEager) {
    if (const int e = BuildDirs(s, plan); e != 0) return Outcome(e);  // Not bound.
  }
  const int id = s.next_id++;
  s.plan_names[plan.name] = id;
  s.plans[id] = std::move(plan);
  return std::string(kOk);
}

// The first spill of a plan that has not built its directories builds them: a lazy plan
// all of them, an os_tmp manager its one directory in the temp dir (which the manager
// never creates). Returns the failing call's errno, or 0.
int BuildOnFirstSpill(SpillModel& s, ModelPlan& plan) {
  if (plan.built) return 0;
  if (plan.kind != PlanKind::kOsTmp) return BuildDirs(s, plan);
  int id = -1;
  const int e = MakeSpillDir(s, kTmpDir, /*create_parent=*/false, &id);
  if (e == 0) {
    plan.slots = {id};
    plan.built = true;
  }
  return e;
}

// missing_dir=recreate after an ENOENT in the one slot of `plan`: a new directory
// replaces the missing one (an injected ENOENT has removed it), and the create is tried
// again. When the stale directory's removal lists it is not something the model can know
// while a limited list rule is pending (nullopt).
std::optional<int> Recreate(SpillModel& s, ModelPlan& plan) {
  if (plan.slots.size() != 1 || s.rules.LimitedDue(OpKind::kList)) return std::nullopt;
  int id = -1;
  if (const int made = MakeSpillDir(s, plan.local_dirs[0], plan.kind != PlanKind::kOsTmp, &id);
      made != 0) {
    return made;
  }
  plan.slots[0] = id;
  ++plan.stale_dirs;
  ++s.pending_stale_lists;
  return CreateIn(s, id);
}

// A spill's file in a plan whose every slot has a directory: a create in one chosen at
// random, and with failover one in each of the others in turn until one succeeds (the
// rules match every path, so which slot comes first changes nothing). Returns the
// outcome's errno (the first failure's) and, on success, the file's directory in *dir
// (-1 when the plan has several); nullopt when the outcome depends on the choice, as the
// facts of an injected ENOENT or EEXIST do with several directories.
std::optional<int> CreateInMadeDirs(SpillModel& s, ModelPlan& plan, int* dir) {
  bool any_present = false, any_missing = false;
  for (const int id : plan.slots) (s.dirs.at(id).on_disk ? any_present : any_missing) = true;
  if (any_present && any_missing) return std::nullopt;
  const bool one = plan.slots.size() == 1;
  const size_t attempts = plan.failover ? plan.slots.size() : 1;
  int first = 0;
  for (size_t i = 0; i < attempts; ++i) {
    int e = 0;
    if (one) {
      e = CreateIn(s, plan.slots[0]);
    } else {
      e = s.rules.Take(OpKind::kCreate);
      if (e == ENOENT || e == EEXIST) return std::nullopt;
      if (e == 0 && any_missing) e = ENOENT;
    }
    if (e == ENOENT && plan.recreate) {
      const std::optional<int> again = Recreate(s, plan);
      if (!again.has_value() || *again == kUnpredictable) return std::nullopt;
      e = *again;
    }
    if (e == 0) {
      *dir = one ? plan.slots[0] : -1;
      return 0;
    }
    if (first == 0) first = e;
  }
  return first;
}

// Entries racing processes made (injected EEXIST), in every directory.
int ForeignEntries(const SpillModel& s) {
  int n = 0;
  for (const int count : s.foreign_dirs) n += count;
  for (const auto& [id, d] : s.dirs) n += d.foreign_files;
  return n;
}

// A layout=each spill's file in a plan whose slots have no directory yet: each attempt
// makes its slot's directory (stat, mkdir), which stays even if the create in it fails;
// with failover, attempts go on through the other slots. Predictable only when the
// attempts make every slot's directory or none (or the plan has one local dir), and, for
// several local dirs, when all of them exist. Returns as CreateInMadeDirs.
std::optional<int> CreateInNewDirs(SpillModel& s, ModelPlan& plan, int* dir) {
  const size_t n = plan.slots.size();
  for (const int local_dir : plan.local_dirs) {
    if (n > 1 && !s.root_exists[local_dir]) return std::nullopt;
  }
  const size_t attempts = plan.failover ? n : 1;
  size_t made = 0;
  int first = 0;
  bool created = false;
  for (size_t i = 0; i < attempts && !created; ++i) {
    int id = -1;
    const int foreign_before = ForeignEntries(s);
    int e = MakeSpillDir(s, plan.local_dirs[made], /*create_parent=*/true, &id);
    if (e == kUnpredictable) return std::nullopt;
    if (e == 0) {
      plan.slots[made++] = id;  // Local dirs in order: only all or none is predicted.
      e = CreateIn(s, id);
    }
    // The facts of an injected ENOENT or EEXIST land in the local dir chosen at random.
    if (n > 1 && (e == ENOENT || e == EEXIST || ForeignEntries(s) != foreign_before)) {
      return std::nullopt;
    }
    // missing_dir=recreate replaces a new directory whose create failed with ENOENT:
    // which slot ends up with which directory is not something the model can know.
    if (e == ENOENT && plan.recreate) return std::nullopt;
    created = e == 0;
    if (first == 0) first = e;
  }
  if (made != 0 && made != n) return std::nullopt;
  if (!created) return first;
  *dir = n == 1 ? plan.slots[0] : -1;
  return 0;
}

std::optional<std::string> Transition(const scenario::Spill& v, SpillModel& s, Affected* a) {
  const std::optional<int> plan_id = BoundPlan(s, v.plan);
  if (!Fresh(s, v.file) || !plan_id.has_value()) return std::nullopt;
  UseName(s, v.file);
  ModelPlan& plan = s.plans.at(*plan_id);
  a->active.insert(*plan_id);
  a->metrics.insert(*plan_id);
  a->local_dirs.insert(plan.local_dirs.begin(), plan.local_dirs.end());
  if (plan.kind == PlanKind::kDisabled) return std::string("DISABLED");

  if (const int e = BuildOnFirstSpill(s, plan); e != 0) return Outcome(e);

  // The manager picks one of its slots at random: the outcome must be the same whichever
  // it picks.
  const auto unmade = std::count(plan.slots.begin(), plan.slots.end(), -1);
  int dir = -1;
  std::optional<int> e;
  if (unmade == 0) {
    e = CreateInMadeDirs(s, plan, &dir);
  } else if (unmade == std::ssize(plan.slots)) {
    e = CreateInNewDirs(s, plan, &dir);
  }
  if (!e.has_value()) return std::nullopt;  // Also: some slots made, some not.
  if (*e != 0) return Outcome(*e);

  ModelFile file;
  file.plan = *plan_id;
  file.dir = dir;
  file.refs = 1;
  const int id = s.next_id++;
  s.files[id] = std::move(file);
  s.file_names[v.file] = id;
  ++plan.active;
  ++plan.spills;
  return std::string(kOk);
}

// One append of `n` bytes to `file`: an injected fault stores nothing; a corrupt or lost
// rule stores the bytes damaged (recorded in file.damaged when there is at least one); a
// pending short write lets some bytes through (the filesystem may store fewer when it is
// full, and then says ENOSPC), then fails with EIO; a full in-memory filesystem stores what
// fits, then fails with ENOSPC. Adds the bytes stored to *stored and returns the errno, 0
// on success, kUnpredictable for a damaged append the filesystem cut short.
int Append(SpillModel& s, ModelFile& file, uint64_t n, uint64_t* stored) {
  FaultAction action = FaultAction::kFail;
  if (const int e = s.rules.Take(OpKind::kWrite, &action); e != 0) return e;
  const uint64_t free_bytes = !s.capacity.has_value()       ? n
                              : s.MemBytes() >= *s.capacity ? 0
                                                            : *s.capacity - s.MemBytes();
  const bool damaged = action == FaultAction::kCorrupt || action == FaultAction::kLost;
  uint64_t allowed = n;
  int e = 0;
  if (!damaged && !file.short_writes.empty()) {
    allowed = std::min(file.short_writes.front(), n);
    file.short_writes.pop_front();
    e = EIO;
  }
  const uint64_t now = std::min(allowed, free_bytes);
  if (now < allowed) e = ENOSPC;
  if (damaged && e != 0) return kUnpredictable;
  if (damaged && n != 0) file.damaged.emplace_back(file.size, file.size + n);
  file.size += now;
  *stored += now;
  return e;
}

std::optional<std::string> Transition(const scenario::Write& v, SpillModel& s, Affected* a) {
  const std::optional<int> file_id = BoundFile(s, v.file);
  if (!file_id.has_value()) return std::nullopt;
  ModelFile& file = s.files.at(*file_id);
  ModelPlan& plan = s.plans.at(file.plan);
  a->sizes.insert(v.file);
  a->used.insert(file.plan);
  a->metrics.insert(file.plan);
  if (plan.budget >= 0) a->budgets.insert(plan.budget);
  // Framed, a header goes before the bytes, and the limits count both.
  const uint64_t n = plan.framed ? v.size + kSpillFrameHeaderBytes : v.size;
  if (!PassesLimit(plan.used, plan.limit, n)) return std::string("LIMIT");
  // Then the budget's, if any: a write refused by either counts in neither.
  if (plan.budget >= 0 &&
      !PassesLimit(s.BudgetUsed(plan.budget), s.budgets.at(plan.budget).limit, n)) {
    return std::string("LIMIT");
  }
  if (n == 0) return std::string(kOk);  // No filesystem call, nothing counted.

  // One append, or (framed) the header's and then the bytes', the second only after the
  // first succeeded.
  const uint64_t start = file.size;
  uint64_t stored = 0;
  int e = Append(s, file, plan.framed ? kSpillFrameHeaderBytes : n, &stored);
  if (plan.framed && e == 0) e = Append(s, file, v.size, &stored);
  if (e == kUnpredictable) return std::nullopt;
  // A frame cut short reads back as a truncation, and so does everything after it.
  if (plan.framed && stored != 0 && stored < n) file.damaged.emplace_back(start, start + stored);
  plan.used += stored;
  plan.spilled += stored;
  return CodeName(e);
}

std::optional<std::string> Transition(const scenario::Read& v, SpillModel& s, Affected*) {
  const std::optional<int> file_id = BoundFile(s, v.file);
  if (!file_id.has_value()) return std::nullopt;
  const ModelFile& file = s.files.at(*file_id);
  // One read call: its fault, or the file as it is on disk, or a read corrupt's flipped bit.
  FaultAction action = FaultAction::kFail;
  if (const int e = s.rules.Take(OpKind::kRead, &action); e != 0) return CodeName(e);
  if (!file.on_disk) return CodeName(ENOENT);
  const bool damaged = !file.damaged.empty() || (action == FaultAction::kCorrupt && file.size != 0);
  if (damaged && s.plans.at(file.plan).framed) return std::string(kDataLoss);
  return std::string(kOk);  // Plain: the damaged bytes come back as data, unnoticed.
}

std::optional<std::string> Transition(const scenario::Clone& v, SpillModel& s,
                                      Affected* /*affected*/) {
  const std::optional<int> file_id = BoundFile(s, v.file);
  if (!Fresh(s, v.name) || !file_id.has_value()) return std::nullopt;
  UseName(s, v.name);
  ++s.files.at(*file_id).refs;
  s.file_names[v.name] = *file_id;
  return std::string(kOk);
}

std::optional<std::string> Transition(const scenario::Drop& v, SpillModel& s, Affected* a) {
  const std::string& name = v.name;
  if (const std::optional<int> budget_id = BoundBudget(s, name); budget_id.has_value()) {
    s.budget_names.erase(name);
    s.budgets.at(*budget_id).bound = false;  // Its plans keep it alive.
    Collect(s);
    return std::string(kOk);
  }
  if (const std::optional<int> plan_id = BoundPlan(s, name); plan_id.has_value()) {
    s.plan_names.erase(name);
    ModelPlan& plan = s.plans.at(*plan_id);
    plan.bound = false;
    a->local_dirs.insert(plan.local_dirs.begin(), plan.local_dirs.end());
    a->file_count = true;
    MaybeFinish(s, plan);
    Collect(s);
    return std::string(kOk);
  }
  const std::optional<int> file_id = BoundFile(s, name);
  if (!file_id.has_value()) return std::nullopt;
  s.file_names.erase(name);
  ModelFile& file = s.files.at(*file_id);
  ModelPlan& plan = s.plans.at(file.plan);
  a->used.insert(file.plan);
  a->active.insert(file.plan);
  a->local_dirs.insert(plan.local_dirs.begin(), plan.local_dirs.end());
  a->file_count = true;
  if (--file.refs > 0) return std::string(kOk);
  // The last handle: the bytes and the file leave the accounting, the file is closed and
  // removed. A failed removal leaves it on disk (recorded in the CleanupLog); a file a
  // cleaner removed fails with ENOENT, which changes nothing, and an injected ENOENT
  // removes it.
  plan.used -= file.size;
  --plan.active;
  if (plan.budget >= 0) a->budgets.insert(plan.budget);
  if (const int e = s.rules.Take(OpKind::kRemove); e == 0 || e == ENOENT || !file.on_disk) {
    file.on_disk = false;
  } else if (file.dir < 0 && e != kKilled) {
    // Left behind in a directory the model cannot name. Not so when the process dies at
    // the removal: the kill crashes its plan, and the file stays as a crash leaves an open
    // one, wherever it is, until a reap of all of its plan's local dirs.
    return std::nullopt;
  }
  MaybeFinish(s, plan);
  Collect(s);
  return std::string(kOk);
}

std::optional<std::string> Transition(const scenario::SetLimit& v, SpillModel& s, Affected* a) {
  if (const std::optional<int> budget_id = BoundBudget(s, v.plan); budget_id.has_value()) {
    s.budgets.at(*budget_id).limit = v.size;
    a->budgets.insert(*budget_id);
    return std::string(kOk);
  }
  const std::optional<int> plan_id = BoundPlan(s, v.plan);
  if (!plan_id.has_value()) return std::nullopt;
  ModelPlan& plan = s.plans.at(*plan_id);
  if (plan.kind == PlanKind::kDisabled) {
    return std::string(v.size == 0 ? kOk : std::string_view("DISABLED"));
  }
  plan.limit = v.size;
  return std::string(kOk);
}

std::optional<std::string> Transition(const scenario::Fault& v, SpillModel& s, Affected* a) {
  const FaultRule& rule = v.rule;
  // The model predicts rules on one kind of call, on every path, acting from the first
  // matching call on. A corrupt, lost or ok rule takes its calls and lets them succeed
  // (a damaged Append stores as many bytes, a delay changes no outcome), so it holds such
  // a rule as one of errno 0 that names its action: a file's damaged ranges follow it.
  const bool succeeds = rule.action == FaultAction::kCorrupt || rule.action == FaultAction::kLost ||
                        rule.action == FaultAction::kOk;
  if (!rule.op.has_value() || (rule.error_number == 0 && !succeeds) || rule.after != 0 ||
      !rule.path_glob.empty()) {
    return std::nullopt;
  }
  switch (*rule.op) {
    case OpKind::kMkdir:
    case OpKind::kCreate:
    case OpKind::kWrite:
    case OpKind::kRead:
    case OpKind::kRemove:
    case OpKind::kRmdir:
    case OpKind::kList:
    case OpKind::kStat:
    case OpKind::kSync:
      break;
    default:
      return std::nullopt;
  }
  // While a stale directory's removal is pending, the model cannot say which list call
  // a rule that fails a limited number of times would fail.
  if (*rule.op == OpKind::kList && rule.times.has_value() && s.pending_stale_lists > 0) {
    return std::nullopt;
  }
  // No call the model follows is a sync (a spill file is never synced): a sync rule
  // fails none of them and is not kept.
  if (*rule.op != OpKind::kSync) s.rules.Add(*rule.op, rule.error_number, rule.times, rule.action);
  a->outcome = false;
  return std::string(kOk);
}

std::optional<std::string> Transition(const scenario::ShortWrite& v, SpillModel& s, Affected* a) {
  const std::optional<int> file_id = BoundFile(s, v.file);
  if (!file_id.has_value()) return std::nullopt;
  s.files.at(*file_id).short_writes.push_back(v.bytes);
  a->outcome = false;
  return std::string(kOk);
}

std::optional<std::string> Transition(const scenario::Clean& v, SpillModel& s, Affected* a) {
  // A tmp cleaner removing spill directories: /lN/datafusion-*, /l*/datafusion-* or
  // /tmp/.tmp*.
  const std::string& glob = v.glob;
  std::set<int> cleaned;
  if (glob == "/l*" + std::string(kSpillDirsSuffix)) {
    for (int i = 0; i < kMaxLocalDirs; ++i) cleaned.insert(i);
  } else if (glob == SpillDirsGlob(kTmpDir)) {
    cleaned.insert(kTmpDir);
  } else if (glob.size() > kSpillDirsSuffix.size() &&
             glob.substr(glob.size() - kSpillDirsSuffix.size()) == kSpillDirsSuffix &&
             LocalDirIndex(glob.substr(0, glob.size() - kSpillDirsSuffix.size())) >= 0) {
    cleaned.insert(LocalDirIndex(glob.substr(0, glob.size() - kSpillDirsSuffix.size())));
  } else {
    return std::nullopt;
  }
  if (!RemoveSpillDirsIn(s, cleaned)) return std::nullopt;
  for (const int index : cleaned) {
    if (index == kTmpDir || index < kMaxLocalDirs) a->local_dirs.insert(index);
  }
  a->file_count = true;
  Collect(s);
  return std::string(kOk);
}

// The model command of verb V: the line and its transition.
template <typename V>
class VerbCommand final : public SpillCommand {
 public:
  explicit VerbCommand(scenario::Command line) : SpillCommand(std::move(line)) {}

  // The command for `line`, or null when the line is not valid in s0.
  static CommandPtr New(const scenario::Command& line, const SpillModel& s0) {
    auto command = std::make_shared<VerbCommand>(line);
    return command->Init(s0) ? command : nullptr;
  }

 protected:
  std::optional<std::string> Transition(SpillModel& s, Affected* a) const override {
    const V& verb = std::get<V>(line().verb);
    if constexpr (std::is_same_v<V, scenario::Plan>) {
      // An os_tmp plan's directory would outlive a pending kill for good (executor_verbs).
      if (s.rules.KillPending() && verb.spec.dirs_kind == scenario::DirsKind::kOsTmp) {
        return std::nullopt;
      }
    }
    std::optional<std::string> outcome = model::Transition(verb, s, a);
    if (outcome.has_value() && s.rules.killed()) return executor_verbs::FollowKill(s, a);
    // A stale directory's list comes at a moment the model does not know (SpillModel::
    // pending_stale_lists), so a pending kill could not be counted past it.
    if (s.rules.KillPending() && s.pending_stale_lists != 0) return std::nullopt;
    return outcome;
  }
};

}  // namespace

CommandPtr MakeCommand(const scenario::Command& line, const SpillModel& s0) {
  return std::visit(
      [&](const auto& v) -> CommandPtr {
        using V = std::decay_t<decltype(v)>;
        SpillModel scratch;
        Affected affected;
        using Result = decltype(Transition(v, scratch, &affected));
        if constexpr (std::is_same_v<Result, NotModeled>) {
          return nullptr;  // Expectations, `file` and `quirk` are not model commands.
        } else {
          return VerbCommand<V>::New(line, s0);
        }
      },
      line.verb);
}

}  // namespace spillway::model
