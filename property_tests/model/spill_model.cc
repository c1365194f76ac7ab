// The spill model: the verbs' transitions, their expectations, the invariants and the
// generators (see spill_model.h for the behaviour encoded here).
#include "spill_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <string_view>
#include <utility>

#include "spillway/spill/cleanup_log.h"
#include "spillway/spill/plan_disk_manager.h"
#include "spillway/spill/spill_manager.h"
#include "spillway/vfs/glob.h"
#include "spillway/vfs/status.h"

namespace spillway::model {

using ScenarioCommand = scenario::Command;
using scenario::StepResult;
using scenario::Verb;

std::string LocalDirPath(int index) {
  if (index == kTmpDir) return "/tmp";
  return fmt::format("/l{}", index);
}

uint64_t RandomChooser::Pick(uint64_t n) {
  return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng_);
}

int NameSet::Number(const std::string& name, char prefix) {
  if (name.size() < 2 || name.size() > 7 || name[0] != prefix) return -1;
  if (name[1] == '0' && name.size() > 2) return -1;  // A leading zero: not canonical.
  int n = 0;
  for (size_t i = 1; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return -1;
    n = n * 10 + (name[i] - '0');
  }
  return n;
}

bool NameSet::Contains(const std::string& name) const {
  if (const int n = Number(name, 'p'); n >= 0) {
    return static_cast<size_t>(n) < plans_.size() && plans_[n];
  }
  if (const int n = Number(name, 'f'); n >= 0) {
    return static_cast<size_t>(n) < files_.size() && files_[n];
  }
  return others_.count(name) != 0;
}

void NameSet::Insert(const std::string& name) {
  for (auto [prefix, bits] : {std::pair{'p', &plans_}, std::pair{'f', &files_}}) {
    if (const int n = Number(name, prefix); n >= 0) {
      if (static_cast<size_t>(n) >= bits->size()) bits->resize(n + 1);
      (*bits)[n] = true;
      return;
    }
  }
  others_.insert(name);
}

uint64_t SpillModel::MemBytes() const {
  uint64_t bytes = 0;
  for (const auto& [id, f] : files) {
    if (f.on_disk || f.refs > 0) bytes += f.size;
  }
  return bytes;
}

uint64_t SpillModel::SpillDirCount(int local_dir) const {
  uint64_t n = 0;
  for (const auto& [id, d] : dirs) {
    if (d.on_disk && d.local_dir == local_dir) ++n;
  }
  return n;
}

uint64_t SpillModel::SpillFileCount(bool tmp) const {
  uint64_t n = 0;
  for (const auto& [id, f] : files) {
    if (!f.on_disk) continue;
    const bool in_tmp = plans.at(f.plan).kind == PlanKind::kOsTmp;
    if (in_tmp == tmp) ++n;
  }
  return n;
}

namespace {

// Globs for the counts the model predicts.
constexpr std::string_view kSpillDirsSuffix = "/datafusion-*";
constexpr std::string_view kLocalFilesGlob = "/l*/datafusion-*/*";
constexpr std::string_view kTmpFilesGlob = "/tmp/datafusion-*/*";
constexpr std::string_view kOk = "OK";

// ---------------------------------------------------------------------------------------
// Lines

ScenarioCommand Line(Verb verb) {
  ScenarioCommand c;
  c.verb = verb;
  return c;
}

ScenarioCommand ExpectUsed(const std::string& plan, uint64_t size) {
  ScenarioCommand c = Line(Verb::kExpectUsed);
  c.name = plan;
  c.size = size;
  return c;
}

ScenarioCommand ExpectFiles(const std::string& plan, uint64_t count) {
  ScenarioCommand c = Line(Verb::kExpectFiles);
  c.name = plan;
  c.count = count;
  return c;
}

ScenarioCommand ExpectSize(const std::string& file, uint64_t size) {
  ScenarioCommand c = Line(Verb::kExpectSize);
  c.name = file;
  c.size = size;
  return c;
}

ScenarioCommand ExpectCount(std::string glob, uint64_t count) {
  ScenarioCommand c = Line(Verb::kExpectCount);
  c.path = std::move(glob);
  c.count = count;
  return c;
}

ScenarioCommand ExpectRoot(int local_dir, bool exists) {
  ScenarioCommand c = Line(exists ? Verb::kExpectExists : Verb::kExpectMissing);
  c.path = LocalDirPath(local_dir);
  return c;
}

std::string SpillDirsGlob(int local_dir) {
  return LocalDirPath(local_dir) + std::string(kSpillDirsSuffix);
}

// The local dir index of "/lN" (N < kMaxLocalDirs); -1 for any other path.
int LocalDirIndex(std::string_view path) {
  if (path.size() != 3 || path[0] != '/' || path[1] != 'l') return -1;
  const int n = path[2] - '0';
  return n >= 0 && n < kMaxLocalDirs ? n : -1;
}

// ---------------------------------------------------------------------------------------
// The filesystem calls an operation makes, as the model accounts for them.

// The errno an injected rule gives the next call of kind `op` (0 when none is due),
// consuming one failure of a rule that fails a limited number of times.
int TakeFault(SpillModel& s, OpKind op) {
  for (ModelRule& rule : s.rules) {
    if (rule.op != op) continue;
    if (rule.remaining.has_value()) {
      if (*rule.remaining == 0) continue;
      --*rule.remaining;
    }
    return rule.error_number;
  }
  return 0;
}

// True when a rule for `op` that fails a limited number of times is still due.
bool LimitedRulePending(const SpillModel& s, OpKind op) {
  return std::any_of(s.rules.begin(), s.rules.end(), [op](const ModelRule& r) {
    return r.op == op && r.remaining.has_value() && *r.remaining > 0;
  });
}

// RemoveTree of a spill directory: a list, a remove per file left in it, an rmdir. It
// stops at the first failure, which leaves the directory (and what is still in it)
// behind; a directory a cleaner removed fails at the list (ENOENT). REQUIRES: no open file
// is in it, and every file left in it has a known directory.
void RemoveDirTree(SpillModel& s, int dir_id) {
  ModelDir& dir = s.dirs.at(dir_id);
  if (TakeFault(s, OpKind::kList) != 0 || !dir.on_disk) return;
  for (auto& [id, f] : s.files) {
    if (f.dir != dir_id || !f.on_disk) continue;
    if (TakeFault(s, OpKind::kRemove) != 0) return;
    f.on_disk = false;
  }
  if (TakeFault(s, OpKind::kRmdir) != 0) return;
  dir.on_disk = false;
}

// MakeSpillDir: with `create_parent`, a stat of the local dir and, when it is missing, a
// mkdir of it (one level deep); then a mkdir of a new "datafusion-*" directory in it.
// Returns the failing call's errno, or 0 with the new directory's id in *dir_id.
int MakeSpillDir(SpillModel& s, int local_dir, bool create_parent, int* dir_id) {
  if (create_parent && !s.root_exists[local_dir]) {
    if (const int e = TakeFault(s, OpKind::kMkdir); e != 0) return e;
    s.root_exists[local_dir] = true;
  }
  if (const int e = TakeFault(s, OpKind::kMkdir); e != 0) return e;
  *dir_id = s.next_id++;
  s.dirs[*dir_id] = ModelDir{local_dir, true};
  return 0;
}

// A kDirectories manager's build: a spill directory in each local dir, in order. When one
// fails, the ones made so far are removed in order and the errno returned.
int BuildDirs(SpillModel& s, ModelPlan& plan) {
  std::vector<int> made;
  for (const int local_dir : plan.local_dirs) {
    int id = -1;
    if (const int e = MakeSpillDir(s, local_dir, /*create_parent=*/true, &id); e != 0) {
      for (const int m : made) RemoveDirTree(s, m);
      return e;
    }
    made.push_back(id);
  }
  plan.slots = std::move(made);
  plan.built = true;
  return 0;
}

// Once a plan's name is dropped and it has no live file, its directories are removed
// together, in order. Stale directories (already gone) were removed by then too.
void MaybeFinish(SpillModel& s, ModelPlan& plan) {
  if (plan.bound || plan.active != 0 || !plan.built || plan.finished) return;
  for (const int id : plan.slots) RemoveDirTree(s, id);
  s.pending_stale_lists -= plan.stale_dirs;
  plan.stale_dirs = 0;
  plan.finished = true;
}

// Forgets what can no longer be observed: spent fault rules, closed files that are gone,
// plans whose name is dropped and whose directories and files are all done with,
// directories that are gone and referenced by nothing.
void Collect(SpillModel& s) {
  // A rule that has failed all the calls it was to fail never fails another.
  s.rules.erase(std::remove_if(s.rules.begin(), s.rules.end(),
                               [](const ModelRule& r) {
                                 return r.remaining.has_value() && *r.remaining == 0;
                               }),
                s.rules.end());
  std::set<int> referenced_plans, referenced_dirs;
  for (auto it = s.files.begin(); it != s.files.end();) {
    if (it->second.refs == 0 && !it->second.on_disk) {
      it = s.files.erase(it);
      continue;
    }
    referenced_plans.insert(it->second.plan);
    referenced_dirs.insert(it->second.dir);
    ++it;
  }
  for (auto it = s.plans.begin(); it != s.plans.end();) {
    const ModelPlan& p = it->second;
    const bool done = !p.bound && (p.finished || !p.built);
    if (done && referenced_plans.count(it->first) == 0) {
      it = s.plans.erase(it);
      continue;
    }
    for (const int id : p.slots) referenced_dirs.insert(id);
    ++it;
  }
  for (auto it = s.dirs.begin(); it != s.dirs.end();) {
    if (!it->second.on_disk && referenced_dirs.count(it->first) == 0) {
      it = s.dirs.erase(it);
    } else {
      ++it;
    }
  }
}

std::string CodeName(int error_number) {
  return error_number == 0 ? std::string(kOk) : ErrnoName(error_number);
}

// The next fresh name with `prefix` ("p" or "f"), counting from `*counter`.
std::string FreshName(const SpillModel& s, std::string_view prefix, int counter) {
  while (true) {
    std::string name = fmt::format("{}{}", prefix, counter++);
    if (!s.used_names.Contains(name)) return name;
  }
}

// Records that `name` is used, so that it is never bound again, and moves the fresh-name
// counters past it.
void UseName(SpillModel& s, const std::string& name) {
  s.used_names.Insert(name);
  if (name.size() < 2) return;
  int* counter = name[0] == 'p' ? &s.plan_counter : name[0] == 'f' ? &s.file_counter : nullptr;
  if (counter == nullptr) return;
  const std::string_view digits = std::string_view(name).substr(1);
  if (digits.size() > 6 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return;
  }
  *counter = std::max(*counter, std::stoi(std::string(digits)) + 1);
}

bool Fresh(const SpillModel& s, const std::string& name) {
  return !name.empty() && !s.used_names.Contains(name);
}

std::optional<int> BoundPlan(const SpillModel& s, const std::string& name) {
  auto it = s.plan_names.find(name);
  if (it == s.plan_names.end()) return std::nullopt;
  return it->second;
}

std::optional<int> BoundFile(const SpillModel& s, const std::string& name) {
  auto it = s.file_names.find(name);
  if (it == s.file_names.end()) return std::nullopt;
  return it->second;
}

// ---------------------------------------------------------------------------------------
// The verbs. One command struct per verb; each is a scenario line and its transition.

class DirCommand final : public SpillCommand {
 public:
  DirCommand(ScenarioCommand line, const SpillModel& s0, bool* ok) : SpillCommand(std::move(line)) {
    *ok = Init(s0);
  }

 protected:
  std::optional<std::string> Transition(SpillModel& s, Affected* a) const override {
    const int index = LocalDirIndex(line().path);
    if (index < 0) return std::nullopt;
    s.root_exists[index] = true;
    a->outcome = false;
    return std::string(kOk);
  }
};

class CapacityCommand final : public SpillCommand {
 public:
  CapacityCommand(ScenarioCommand line, const SpillModel& s0, bool* ok)
      : SpillCommand(std::move(line)) {
    *ok = Init(s0);
  }

 protected:
  std::optional<std::string> Transition(SpillModel& s, Affected* a) const override {
    if (s.enforce_capacity) s.capacity = line().size;
    a->outcome = false;
    return std::string(kOk);
  }
};

class PlanCommand final : public SpillCommand {
 public:
  PlanCommand(ScenarioCommand line, const SpillModel& s0, bool* ok)
      : SpillCommand(std::move(line)) {
    *ok = Init(s0);
  }

 protected:
  std::optional<std::string> Transition(SpillModel& s, Affected* a) const override {
    const scenario::PlanSpec& spec = line().plan;
    if (!Fresh(s, line().name)) return std::nullopt;
    ModelPlan plan;
    plan.name = line().name;
    plan.limit = spec.limit;
    plan.recreate = spec.missing_dir == MissingDirPolicy::kRecreate;
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
    UseName(s, plan.name);
    a->local_dirs.insert(plan.local_dirs.begin(), plan.local_dirs.end());
    if (plan.kind == PlanKind::kEager) {
      if (const int e = BuildDirs(s, plan); e != 0) return CodeName(e);  // Not bound.
    }
    const int id = s.next_id++;
    s.plan_names[plan.name] = id;
    s.plans[id] = std::move(plan);
    return std::string(kOk);
  }
};

class SpillFileCommand final : public SpillCommand {
 public:
  SpillFileCommand(ScenarioCommand line, const SpillModel& s0, bool* ok)
      : SpillCommand(std::move(line)) {
    *ok = Init(s0);
  }

 protected:
  std::optional<std::string> Transition(SpillModel& s, Affected* a) const override {
    const std::optional<int> plan_id = BoundPlan(s, line().target);
    if (!Fresh(s, line().name) || !plan_id.has_value()) return std::nullopt;
    UseName(s, line().name);
    ModelPlan& plan = s.plans.at(*plan_id);
    a->active.insert(*plan_id);
    a->local_dirs.insert(plan.local_dirs.begin(), plan.local_dirs.end());
    if (plan.kind == PlanKind::kDisabled) return std::string("DISABLED");

    if (!plan.built) {
      // The first spill of a lazy plan builds its directories; an os_tmp manager makes its
      // one directory in the temp dir (which is never created by the manager).
      int e = 0;
      if (plan.kind == PlanKind::kOsTmp) {
        int id = -1;
        e = MakeSpillDir(s, kTmpDir, /*create_parent=*/false, &id);
        if (e == 0) {
          plan.slots = {id};
          plan.built = true;
        }
      } else {
        e = BuildDirs(s, plan);
      }
      if (e != 0) return CodeName(e);
    }

    // The manager picks one of its directories at random: the outcome must be the same
    // whichever it picks.
    bool any_present = false, any_missing = false;
    for (const int id : plan.slots) (s.dirs.at(id).on_disk ? any_present : any_missing) = true;
    if (any_present && any_missing) return std::nullopt;
    int e = TakeFault(s, OpKind::kCreate);
    if (e == 0 && any_missing) e = ENOENT;
    if (e == ENOENT && plan.recreate) {
      // A new directory replaces the missing one. Which one is replaced, whether an
      // injected ENOENT replaces a directory that is still there, and when the stale
      // directory's removal lists it, are not something the model can know.
      if (!any_missing || plan.slots.size() != 1 || LimitedRulePending(s, OpKind::kList)) {
        return std::nullopt;
      }
      int id = -1;
      if (const int made = MakeSpillDir(s, plan.local_dirs[0], plan.kind != PlanKind::kOsTmp, &id);
          made != 0) {
        return CodeName(made);
      }
      plan.slots[0] = id;
      ++plan.stale_dirs;
      ++s.pending_stale_lists;
      e = TakeFault(s, OpKind::kCreate);
    }
    if (e != 0) return CodeName(e);

    ModelFile file;
    file.plan = *plan_id;
    file.dir = plan.slots.size() == 1 ? plan.slots[0] : -1;
    file.refs = 1;
    const int id = s.next_id++;
    s.files[id] = std::move(file);
    s.file_names[line().name] = id;
    ++plan.active;
    return std::string(kOk);
  }
};

class WriteCommand final : public SpillCommand {
 public:
  WriteCommand(ScenarioCommand line, const SpillModel& s0, bool* ok)
      : SpillCommand(std::move(line)) {
    *ok = Init(s0);
  }

 protected:
  std::optional<std::string> Transition(SpillModel& s, Affected* a) const override {
    const std::optional<int> file_id = BoundFile(s, line().name);
    if (!file_id.has_value()) return std::nullopt;
    ModelFile& file = s.files.at(*file_id);
    ModelPlan& plan = s.plans.at(file.plan);
    a->sizes.insert(line().name);
    a->used.insert(file.plan);
    const uint64_t n = line().size;
    if (n == 0) return std::string(kOk);  // No filesystem call, nothing counted.
    // The limit is checked first: bytes that would not fit are neither written nor
    // counted (used may already be over a lowered limit).
    if (plan.used > plan.limit || n > plan.limit - plan.used) return std::string("LIMIT");

    // One append. An injected fault fails it before it stores anything.
    if (const int e = TakeFault(s, OpKind::kWrite); e != 0) return CodeName(e);
    const uint64_t free_bytes = !s.capacity.has_value()       ? n
                                : s.MemBytes() >= *s.capacity ? 0
                                                              : *s.capacity - s.MemBytes();
    uint64_t stored = 0;
    int e = 0;
    if (!file.short_writes.empty()) {
      // A pending short write lets some bytes through (the filesystem may store fewer when
      // it is full, and then says ENOSPC), then fails with EIO.
      const uint64_t allowed = std::min(file.short_writes.front(), n);
      file.short_writes.pop_front();
      stored = std::min(allowed, free_bytes);
      e = stored < allowed ? ENOSPC : EIO;
    } else {
      stored = std::min(n, free_bytes);
      e = stored < n ? ENOSPC : 0;
    }
    file.size += stored;
    plan.used += stored;
    return CodeName(e);
  }
};

class CloneCommand final : public SpillCommand {
 public:
  CloneCommand(ScenarioCommand line, const SpillModel& s0, bool* ok)
      : SpillCommand(std::move(line)) {
    *ok = Init(s0);
  }

 protected:
  std::optional<std::string> Transition(SpillModel& s, Affected* /*affected*/) const override {
    const std::optional<int> file_id = BoundFile(s, line().target);
    if (!Fresh(s, line().name) || !file_id.has_value()) return std::nullopt;
    UseName(s, line().name);
    ++s.files.at(*file_id).refs;
    s.file_names[line().name] = *file_id;
    return std::string(kOk);
  }
};

class DropCommand final : public SpillCommand {
 public:
  DropCommand(ScenarioCommand line, const SpillModel& s0, bool* ok)
      : SpillCommand(std::move(line)) {
    *ok = Init(s0);
  }

 protected:
  std::optional<std::string> Transition(SpillModel& s, Affected* a) const override {
    const std::string& name = line().name;
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
    // cleaner removed fails with ENOENT, which changes nothing.
    plan.used -= file.size;
    --plan.active;
    if (TakeFault(s, OpKind::kRemove) == 0 || !file.on_disk) {
      file.on_disk = false;
    } else if (file.dir < 0) {
      return std::nullopt;  // Left behind in a directory the model cannot name.
    }
    MaybeFinish(s, plan);
    Collect(s);
    return std::string(kOk);
  }
};

class SetLimitCommand final : public SpillCommand {
 public:
  SetLimitCommand(ScenarioCommand line, const SpillModel& s0, bool* ok)
      : SpillCommand(std::move(line)) {
    *ok = Init(s0);
  }

 protected:
  std::optional<std::string> Transition(SpillModel& s, Affected* /*affected*/) const override {
    const std::optional<int> plan_id = BoundPlan(s, line().name);
    if (!plan_id.has_value()) return std::nullopt;
    ModelPlan& plan = s.plans.at(*plan_id);
    if (plan.kind == PlanKind::kDisabled) {
      return std::string(line().size == 0 ? kOk : std::string_view("DISABLED"));
    }
    plan.limit = line().size;
    return std::string(kOk);
  }
};

class FaultCommand final : public SpillCommand {
 public:
  FaultCommand(ScenarioCommand line, const SpillModel& s0, bool* ok)
      : SpillCommand(std::move(line)) {
    *ok = Init(s0);
  }

 protected:
  std::optional<std::string> Transition(SpillModel& s, Affected* a) const override {
    const FaultRule& rule = line().fault;
    // The model predicts rules on one kind of call, on every path, failing from the
    // first matching call on.
    if (!rule.op.has_value() || rule.error_number == 0 || rule.after != 0 ||
        !rule.path_glob.empty()) {
      return std::nullopt;
    }
    switch (*rule.op) {
      case OpKind::kMkdir:
      case OpKind::kCreate:
      case OpKind::kWrite:
      case OpKind::kRemove:
      case OpKind::kRmdir:
      case OpKind::kList:
        break;
      default:
        return std::nullopt;
    }
    // While a stale directory's removal is pending, the model cannot say which list call
    // a rule that fails a limited number of times would fail.
    if (*rule.op == OpKind::kList && rule.times.has_value() && s.pending_stale_lists > 0) {
      return std::nullopt;
    }
    s.rules.push_back(ModelRule{*rule.op, rule.error_number, rule.times});
    a->outcome = false;
    return std::string(kOk);
  }
};

class ShortWriteCommand final : public SpillCommand {
 public:
  ShortWriteCommand(ScenarioCommand line, const SpillModel& s0, bool* ok)
      : SpillCommand(std::move(line)) {
    *ok = Init(s0);
  }

 protected:
  std::optional<std::string> Transition(SpillModel& s, Affected* a) const override {
    const std::optional<int> file_id = BoundFile(s, line().name);
    if (!file_id.has_value()) return std::nullopt;
    s.files.at(*file_id).short_writes.push_back(line().size);
    a->outcome = false;
    return std::string(kOk);
  }
};

class CleanCommand final : public SpillCommand {
 public:
  CleanCommand(ScenarioCommand line, const SpillModel& s0, bool* ok)
      : SpillCommand(std::move(line)) {
    *ok = Init(s0);
  }

 protected:
  std::optional<std::string> Transition(SpillModel& s, Affected* a) const override {
    // A tmp cleaner removing spill directories: /lN/datafusion-*, /l*/datafusion-* or
    // /tmp/datafusion-*.
    const std::string& glob = line().path;
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
    // A file whose directory the model does not know must be removed with all of its
    // plan's directories or none of them.
    for (const auto& [id, f] : s.files) {
      if (f.dir >= 0 || !f.on_disk) continue;
      const ModelPlan& plan = s.plans.at(f.plan);
      const auto n = std::count_if(plan.local_dirs.begin(), plan.local_dirs.end(),
                                   [&](int index) { return cleaned.count(index) != 0; });
      if (n != 0 && static_cast<size_t>(n) != plan.local_dirs.size()) return std::nullopt;
    }
    std::set<int> removed_dirs;
    for (auto& [id, d] : s.dirs) {
      if (!d.on_disk || cleaned.count(d.local_dir) == 0) continue;
      d.on_disk = false;
      removed_dirs.insert(id);
    }
    for (auto& [id, f] : s.files) {
      if (!f.on_disk) continue;
      if (f.dir >= 0 ? removed_dirs.count(f.dir) != 0
                     : cleaned.count(s.plans.at(f.plan).local_dirs[0]) != 0) {
        f.on_disk = false;
      }
    }
    for (const int index : cleaned) {
      if (index == kTmpDir || index < kMaxLocalDirs) a->local_dirs.insert(index);
    }
    a->file_count = true;
    Collect(s);
    return std::string(kOk);
  }
};

// ---------------------------------------------------------------------------------------
// Checking against the runner

std::string Quoted(const ScenarioCommand& c) { return fmt::format("`{}`", c.ToString()); }

// Runs an expect line through the runner.
std::optional<Violation> CheckExpect(SpillSut& sut, const ScenarioCommand& expect,
                                     const ScenarioCommand& after, std::string_view invariant) {
  std::string message;
  ++sut.checks;
  const StepResult r = sut.runner->Step(expect, &message);
  if (r == StepResult::kOk) return std::nullopt;
  return Violation{
      r == StepResult::kMalformed ? "malformed" : std::string(invariant),
      fmt::format("after {}: {} does not hold: {}", Quoted(after), Quoted(expect), message)};
}

// The expectations the model prints after a line.
std::vector<ScenarioCommand> Render(const SpillModel& s, const std::string& outcome,
                                    const SpillCommand::Affected& a) {
  std::vector<ScenarioCommand> out;
  if (a.outcome) {
    if (outcome == kOk) {
      out.push_back(Line(Verb::kExpectOk));
    } else {
      ScenarioCommand c = Line(Verb::kExpectError);
      c.error = outcome;
      out.push_back(std::move(c));
    }
  }
  auto bound_plan = [&](int id) -> const ModelPlan* {
    auto it = s.plans.find(id);
    return it != s.plans.end() && it->second.bound ? &it->second : nullptr;
  };
  for (const int id : a.used) {
    if (const ModelPlan* plan = bound_plan(id)) out.push_back(ExpectUsed(plan->name, plan->used));
  }
  for (const int id : a.active) {
    if (const ModelPlan* plan = bound_plan(id)) {
      out.push_back(ExpectFiles(plan->name, plan->active));
    }
  }
  for (const std::string& name : a.sizes) {
    if (std::optional<int> id = BoundFile(s, name)) {
      out.push_back(ExpectSize(name, s.files.at(*id).size));
    }
  }
  bool local = false, tmp = false;
  for (const int index : a.local_dirs) {
    out.push_back(ExpectCount(SpillDirsGlob(index), s.SpillDirCount(index)));
    (index == kTmpDir ? tmp : local) = true;
  }
  if (a.file_count && (local || !tmp)) {
    out.push_back(ExpectCount(std::string(kLocalFilesGlob), s.SpillFileCount(false)));
  }
  if (a.file_count && tmp) {
    out.push_back(ExpectCount(std::string(kTmpFilesGlob), s.SpillFileCount(true)));
  }
  return out;
}

std::string LinesText(const std::vector<ScenarioCommand>& lines) {
  std::string text;
  for (const ScenarioCommand& c : lines) {
    if (!text.empty()) text += '\n';
    text += c.ToString();
  }
  return text;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// SpillCommand

bool SpillCommand::Init(const SpillModel& s0) {
  SpillModel s = s0;
  Affected a;
  const std::optional<std::string> outcome = Transition(s, &a);
  if (!outcome.has_value()) return false;
  expects_ = Render(s, *outcome, a);
  return true;
}

bool SpillCommand::IsValid(const SpillModel& s0) const {
  SpillModel s = s0;
  Affected a;
  const std::optional<std::string> outcome = Transition(s, &a);
  if (!outcome.has_value()) return false;
  const std::vector<ScenarioCommand> expects = Render(s, *outcome, a);
  return LinesText(expects) == LinesText(expects_);
}

std::string SpillCommand::ToText() const {
  std::string text = line_.ToString();
  for (const ScenarioCommand& e : expects_) {
    text += '\n';
    text += e.ToString();
  }
  return text;
}

std::optional<Violation> SpillCommand::Execute(const SpillModel& s0, SpillSut& sut) const {
  std::string message;
  if (sut.runner->Step(line_, &message) != StepResult::kOk) {
    return Violation{"malformed", fmt::format("{}: {}", Quoted(line_), message)};
  }
  for (const ScenarioCommand& e : expects_) {
    if (std::optional<Violation> v = CheckExpect(sut, e, line_, "expect")) return v;
  }
  SpillModel s1 = s0;
  apply(s1);
  if (std::optional<Violation> v = CheckInvariants(s1, sut)) {
    v->message = fmt::format("after {}: {}", Quoted(line_), v->message);
    return v;
  }
  return std::nullopt;
}

void SpillCommand::checkPreconditions(const SpillModel& s0) const { RC_PRE(IsValid(s0)); }

void SpillCommand::apply(SpillModel& s0) const {
  Affected a;
  // Valid in s0 (checked before apply), so the transition is defined.
  if (Transition(s0, &a).has_value()) Collect(s0);
}

void SpillCommand::run(const SpillModel& s0, SpillSut& sut) const {
  if (std::optional<Violation> v = Execute(s0, sut)) {
    RC_FAIL(fmt::format("[{}] {}", v->invariant, v->message));
  }
}

void SpillCommand::show(std::ostream& os) const { os << ToText(); }

// ---------------------------------------------------------------------------------------
// Factories

CommandPtr MakeCommand(const ScenarioCommand& line, const SpillModel& s0) {
  bool ok = false;
  std::shared_ptr<SpillCommand> c;
  switch (line.verb) {
    case Verb::kDir:
      c = std::make_shared<DirCommand>(line, s0, &ok);
      break;
    case Verb::kCapacity:
      c = std::make_shared<CapacityCommand>(line, s0, &ok);
      break;
    case Verb::kPlan:
      c = std::make_shared<PlanCommand>(line, s0, &ok);
      break;
    case Verb::kSpill:
      c = std::make_shared<SpillFileCommand>(line, s0, &ok);
      break;
    case Verb::kWrite:
      c = std::make_shared<WriteCommand>(line, s0, &ok);
      break;
    case Verb::kClone:
      c = std::make_shared<CloneCommand>(line, s0, &ok);
      break;
    case Verb::kDrop:
      c = std::make_shared<DropCommand>(line, s0, &ok);
      break;
    case Verb::kSetLimit:
      c = std::make_shared<SetLimitCommand>(line, s0, &ok);
      break;
    case Verb::kFault:
      c = std::make_shared<FaultCommand>(line, s0, &ok);
      break;
    case Verb::kShortWrite:
      c = std::make_shared<ShortWriteCommand>(line, s0, &ok);
      break;
    case Verb::kClean:
      c = std::make_shared<CleanCommand>(line, s0, &ok);
      break;
    default:
      return nullptr;  // Expectations, `file` and `quirk` are not model commands.
  }
  return ok ? c : nullptr;
}

namespace {

// Picks an index by weight. REQUIRES: some weight is positive.
size_t PickWeighted(Chooser& chooser, const std::vector<uint64_t>& weights) {
  uint64_t total = 0;
  for (const uint64_t w : weights) total += w;
  uint64_t pick = chooser.Pick(total);
  for (size_t i = 0; i < weights.size(); ++i) {
    if (pick < weights[i]) return i;
    pick -= weights[i];
  }
  return weights.size() - 1;
}

template <typename T>
const T& PickOne(Chooser& chooser, const std::vector<T>& values) {
  return values[chooser.Pick(values.size())];
}

std::vector<std::string> Keys(const std::map<std::string, int>& m) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : m) keys.push_back(k);
  return keys;
}

// Limits small enough that writes reach them, and the default.
constexpr uint64_t kLimits[] = {kDefaultMaxTempDirectorySize, 16, 64, 256, 4096, 1};
constexpr uint64_t kCapacities[] = {uint64_t{1} << 30, 0, 64, 256};
constexpr int kErrnos[] = {EIO, ENOSPC, ENOENT, EACCES};
constexpr OpKind kFaultOps[] = {OpKind::kCreate, OpKind::kWrite, OpKind::kMkdir,
                                OpKind::kRemove, OpKind::kRmdir, OpKind::kList};

enum GenVerb {
  kGenDir,
  kGenPlan,
  kGenSpill,
  kGenWrite,
  kGenClone,
  kGenDrop,
  kGenSetLimit,
  kGenFault,
  kGenShortWrite,
  kGenClean,
  kGenCapacity,
  kGenVerbCount
};

std::optional<ScenarioCommand> GenerateLine(const SpillModel& s, const GenOptions& o,
                                            Chooser& chooser) {
  const std::vector<std::string> plans = Keys(s.plan_names);
  const std::vector<std::string> files = Keys(s.file_names);
  std::vector<int> missing_roots;
  for (int i = 0; i < o.local_dirs; ++i) {
    if (!s.root_exists[i]) missing_roots.push_back(i);
  }
  bool any_dir = false;
  for (const auto& [id, d] : s.dirs) any_dir = any_dir || d.on_disk;
  const bool room_for_file = static_cast<int>(files.size()) < o.max_live_files;

  std::vector<uint64_t> w(kGenVerbCount, 0);
  w[kGenDir] = missing_roots.empty() ? 0 : 4;
  w[kGenPlan] = static_cast<int>(plans.size()) < o.max_live_plans ? 10 : 0;
  w[kGenSpill] = !plans.empty() && room_for_file ? 16 : 0;
  w[kGenWrite] = files.empty() ? 0 : 20;
  w[kGenClone] = !files.empty() && room_for_file ? 3 : 0;
  w[kGenDrop] = plans.empty() && files.empty() ? 0 : 10;
  w[kGenSetLimit] = plans.empty() ? 0 : 3;
  w[kGenFault] = static_cast<uint64_t>(o.fault_weight);
  w[kGenShortWrite] = files.empty() || o.fault_weight == 0 ? 0 : std::max(1, o.fault_weight / 3);
  w[kGenClean] = any_dir ? 3 : 0;
  w[kGenCapacity] = o.capacity ? 2 : 0;

  ScenarioCommand c;
  switch (PickWeighted(chooser, w)) {
    case kGenDir:
      c.verb = Verb::kDir;
      c.path = LocalDirPath(PickOne(chooser, missing_roots));
      break;
    case kGenPlan: {
      c.verb = Verb::kPlan;
      c.name = FreshName(s, "p", s.plan_counter);
      scenario::PlanSpec& spec = c.plan;
      const uint64_t kind = chooser.Pick(20);
      if (kind >= 19) {
        spec.dirs_kind = scenario::DirsKind::kDisabled;
      } else if (kind >= 17) {
        spec.dirs_kind = scenario::DirsKind::kOsTmp;
      } else {
        // One local dir, or two neighbours: a small menu, so that plans often share their
        // dirs (and, with the same limit, a manager under the shared_limit quirk).
        const int n = o.local_dirs;
        const int pick = static_cast<int>(chooser.Pick(n > 1 ? 2 * n - 1 : 1));
        spec.local_dirs.push_back(LocalDirPath(pick < n ? pick : pick - n));
        if (pick >= n) spec.local_dirs.push_back(LocalDirPath(pick - n + 1));
        if (kind >= 14) {
          spec.mode = scenario::PlanMode::kEager;
          spec.mode_written = true;
        }
      }
      if (spec.dirs_kind != scenario::DirsKind::kDisabled) {
        const uint64_t limit = chooser.Pick(std::size(kLimits));
        if (limit != 0) {
          spec.limit = kLimits[limit];
          spec.limit_written = true;
        }
        if (chooser.Pick(4) == 3) {
          spec.missing_dir = MissingDirPolicy::kRecreate;
          spec.missing_dir_written = true;
        }
      }
      break;
    }
    case kGenSpill:
      c.verb = Verb::kSpill;
      c.name = FreshName(s, "f", s.file_counter);
      c.target = PickOne(chooser, plans);
      break;
    case kGenWrite:
      c.verb = Verb::kWrite;
      c.name = PickOne(chooser, files);
      c.size = chooser.Pick(8) == 7 ? chooser.Pick(600) : chooser.Pick(41);
      break;
    case kGenClone:
      c.verb = Verb::kClone;
      c.name = FreshName(s, "f", s.file_counter);
      c.target = PickOne(chooser, files);
      break;
    case kGenDrop: {
      c.verb = Verb::kDrop;
      // Files more often than plans: a plan dropped early leaves its files outliving it.
      const bool file = !files.empty() && (plans.empty() || chooser.Pick(3) != 0);
      c.name = PickOne(chooser, file ? files : plans);
      break;
    }
    case kGenSetLimit:
      c.verb = Verb::kSetLimit;
      c.name = PickOne(chooser, plans);
      c.size = kLimits[chooser.Pick(std::size(kLimits))];
      break;
    case kGenFault:
      c.verb = Verb::kFault;
      c.fault.op = kFaultOps[chooser.Pick(std::size(kFaultOps))];
      c.fault.error_number = kErrnos[chooser.Pick(std::size(kErrnos))];
      if (chooser.Pick(100) >= static_cast<uint64_t>(100 - o.forever_percent)) {
        c.fault.times.reset();  // times=forever
      }
      break;
    case kGenShortWrite:
      c.verb = Verb::kShortWrite;
      c.name = PickOne(chooser, files);
      c.size = chooser.Pick(17);
      break;
    case kGenClean: {
      c.verb = Verb::kClean;
      const uint64_t pick = chooser.Pick(static_cast<uint64_t>(o.local_dirs) + 2);
      if (pick < static_cast<uint64_t>(o.local_dirs)) {
        c.path = SpillDirsGlob(static_cast<int>(pick));
      } else if (pick == static_cast<uint64_t>(o.local_dirs)) {
        c.path = "/l*" + std::string(kSpillDirsSuffix);
      } else {
        c.path = SpillDirsGlob(kTmpDir);
      }
      break;
    }
    case kGenCapacity:
      c.verb = Verb::kCapacity;
      c.size = kCapacities[chooser.Pick(std::size(kCapacities))];
      break;
    default:
      return std::nullopt;
  }
  return c;
}

// Draws choices with RapidCheck, inside rc::gen::exec.
class RcChooser final : public Chooser {
 public:
  uint64_t Pick(uint64_t n) override { return *rc::gen::inRange<uint64_t>(0, n); }
};

}  // namespace

CommandPtr GenerateCommand(const SpillModel& s0, const GenOptions& options, Chooser& chooser) {
  const std::optional<ScenarioCommand> line = GenerateLine(s0, options, chooser);
  if (!line.has_value()) return nullptr;
  return MakeCommand(*line, s0);
}

rc::Gen<RcCommandPtr> CommandGen(const SpillModel& s0, const GenOptions& options) {
  return rc::gen::exec([s0, options]() -> RcCommandPtr {
    RcChooser chooser;
    CommandPtr command = GenerateCommand(s0, options, chooser);
    // Those choices gave no valid command: try others.
    if (command == nullptr) RC_DISCARD("no valid command for these choices");
    return command;
  });
}

// ---------------------------------------------------------------------------------------
// Invariants

std::optional<Violation> CheckInvariants(const SpillModel& s, SpillSut& sut) {
  scenario::Runner& runner = *sut.runner;
  auto expect = [&](const ScenarioCommand& c) -> std::optional<Violation> {
    std::string message;
    ++sut.checks;
    const StepResult r = runner.Step(c, &message);
    if (r == StepResult::kOk) return std::nullopt;
    return Violation{r == StepResult::kMalformed ? "malformed" : "invariant",
                     fmt::format("{} does not hold: {}", Quoted(c), message)};
  };

  for (const auto& [name, id] : s.plan_names) {
    const ModelPlan& plan = s.plans.at(id);
    // used_disk_space is the sum of the live files' sizes, and the active-file count is
    // the number of live files.
    if (auto v = expect(ExpectUsed(name, plan.used))) return v;
    if (auto v = expect(ExpectFiles(name, plan.active))) return v;
    const SpillManager* manager = runner.plan(name);
    sut.checks += 3;  // The limit, the progress and the lazy plan's directories below.
    if (manager == nullptr) {
      return Violation{"invariant", fmt::format("plan {} is not bound in the runner", name)};
    }
    if (manager->max_temp_directory_size() != plan.limit) {
      return Violation{"invariant",
                       fmt::format("plan {}: max_temp_directory_size is {}, the model says {}",
                                   name, manager->max_temp_directory_size(), plan.limit)};
    }
    if (manager->spilling_progress().current_bytes != manager->used_disk_space()) {
      return Violation{"invariant",
                       fmt::format("plan {}: spilling_progress().current_bytes {} differs from "
                                   "used_disk_space() {}",
                                   name, manager->spilling_progress().current_bytes,
                                   manager->used_disk_space())};
    }
    // A lazy plan that has not spilled has no directory (and no inner manager).
    if (plan.kind == PlanKind::kLazy && !plan.built) {
      const auto* lazy = dynamic_cast<const PlanDiskManager*>(manager);
      if (lazy == nullptr || lazy->inner() != nullptr) {
        return Violation{
            "invariant",
            fmt::format("plan {} has not spilled but has built its directories", name)};
      }
    }
  }
  for (const auto& [name, id] : s.file_names) {
    if (auto v = expect(ExpectSize(name, s.files.at(id).size))) return v;
  }
  // Every spill directory that should be there, and no other; the local dirs themselves.
  for (int i = 0; i < kMaxLocalDirs; ++i) {
    if (auto v = expect(ExpectCount(SpillDirsGlob(i), s.SpillDirCount(i)))) return v;
    if (auto v = expect(ExpectRoot(i, s.root_exists[i]))) return v;
  }
  if (auto v = expect(ExpectCount(SpillDirsGlob(kTmpDir), s.SpillDirCount(kTmpDir)))) return v;
  // Every live file exists until its last handle goes, unless a cleaner removed it.
  if (auto v = expect(ExpectCount(std::string(kLocalFilesGlob), s.SpillFileCount(false)))) {
    return v;
  }
  if (auto v = expect(ExpectCount(std::string(kTmpFilesGlob), s.SpillFileCount(true)))) {
    return v;
  }
  return std::nullopt;
}

std::optional<Violation> DropEverything(SpillModel& s, SpillSut& sut, std::string* text) {
  std::vector<std::string> names = Keys(s.file_names);
  for (const std::string& plan : Keys(s.plan_names)) names.push_back(plan);
  bool lost = false;  // Set once a drop's outcome was not predictable.
  for (const std::string& name : names) {
    ScenarioCommand drop = Line(Verb::kDrop);
    drop.name = name;
    CommandPtr command = lost ? nullptr : MakeCommand(drop, s);
    if (command != nullptr) {
      text->append(command->ToText()).append("\n");
      if (std::optional<Violation> v = command->Execute(s, sut)) return v;
      command->apply(s);
      continue;
    }
    // From here on the model cannot follow; the CleanupLog check below still holds.
    lost = true;
    text->append(drop.ToString()).append("\n");
    std::string message;
    if (sut.runner->Step(drop, &message) != StepResult::kOk) {
      return Violation{"malformed", fmt::format("{}: {}", Quoted(drop), message)};
    }
  }

  // Everything is dropped: the filesystem holds nothing a manager made, except what the
  // CleanupLog reports as left behind (a path, or a directory holding one).
  const std::vector<std::string> left = sut.runner->cleanup_log()->left_behind();
  auto reported = [&](const std::string& path) {
    return std::any_of(left.begin(), left.end(), [&](const std::string& l) {
      return l == path || (l.size() > path.size() && l.compare(0, path.size(), path) == 0 &&
                           l[path.size()] == '/');
    });
  };
  for (const std::string glob :
       {"/l*/datafusion-*", "/l*/datafusion-*/*", "/tmp/datafusion-*", "/tmp/datafusion-*/*"}) {
    for (const std::string& path : ExpandGlob(sut.runner->base_fs(), glob)) {
      if (!reported(path)) {
        return Violation{"leftover",
                         fmt::format("after everything was dropped, {} is still there and the "
                                     "CleanupLog does not report it",
                                     path)};
      }
    }
  }
  return std::nullopt;
}

std::string ScenarioText(const std::vector<CommandPtr>& commands) {
  std::string text;
  for (const CommandPtr& c : commands) text.append(c->ToText()).append("\n");
  return text;
}

SpillModel InitialState(scenario::FsKind fs) {
  SpillModel s;
  s.enforce_capacity = fs == scenario::FsKind::kMem;
  return s;
}

Program ProgramFromLines(const std::vector<ScenarioCommand>& lines, scenario::FsKind fs) {
  Program program;
  program.state = InitialState(fs);
  for (const ScenarioCommand& line : lines) {
    if (scenario::IsExpect(line.verb)) continue;
    CommandPtr command = MakeCommand(line, program.state);
    if (command == nullptr) continue;
    command->apply(program.state);
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
    return Violation{"setup", "cannot create the runner: " + runner.status().ToString()};
  }
  SpillSut sut{runner->get()};
  SpillModel s = InitialState(options.fs);
  for (const CommandPtr& command : program.commands) {
    out->append(command->ToText()).append("\n");
    if (std::optional<Violation> v = command->Execute(s, sut)) return v;
    command->apply(s);
  }
  return DropEverything(s, sut, out);
}

void SpillProgramProperty(const PropertyConfig& config) {
  const GenOptions gen = config.gen;
  const SpillModel initial = InitialState(config.runner.fs);
  const auto commands =
      *rc::state::gen::commands(initial, [gen](const SpillModel& s) { return CommandGen(s, gen); });
  StatusOr<std::unique_ptr<scenario::Runner>> runner = scenario::Runner::Create(config.runner);
  RC_ASSERT(runner.ok());
  SpillSut sut{runner->get()};
  SpillModel s = initial;
  for (const RcCommandPtr& command : commands) {
    command->checkPreconditions(s);
    command->run(s, sut);
    command->apply(s);
  }
  std::string drops;
  if (std::optional<Violation> v = DropEverything(s, sut, &drops)) {
    RC_FAIL(fmt::format("[{}] {}\nwhile dropping everything at the end:\n{}", v->invariant,
                        v->message, drops));
  }
}

}  // namespace spillway::model
