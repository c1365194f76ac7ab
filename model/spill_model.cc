// The spill model's state: the SpillModel and its names, and what its verbs, expectations
// and checks share (spill_model_internal.h): the scenario lines it prints and the
// filesystem calls each operation makes, as the model accounts for them.
#include "spillway/model/spill_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <utility>

#include "spill_model_internal.h"
#include "spillway/vfs/status.h"

namespace spillway::model {

using ScenarioCommand = scenario::Command;

std::string LocalDirPath(int index) {
  if (index == kTmpDir) return "/tmp";
  return fmt::format("/l{}", index);
}

bool PassesLimit(uint64_t used, uint64_t limit, uint64_t bytes) {
  return bytes == 0 || (used <= limit && bytes <= limit - used);
}

std::optional<std::string_view> FeatureInvariantOf(Quirk quirk) {
  switch (quirk) {
    case Quirk::kBudgetAfterAdd:
      return "budget";
    case Quirk::kReapIgnoresLocks:
      return "reap";
    case Quirk::kSpilledCountsRefused:
      return "metrics";
    default:
      return std::nullopt;
  }
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

uint64_t SpillModel::BudgetUsed(int id) const {
  uint64_t used = 0;
  for (const auto& [plan_id, p] : plans) {
    if (p.budget == id) used += p.used;
  }
  return used;
}

SpillModel InitialState(scenario::FsKind fs) {
  SpillModel s;
  s.enforce_capacity = fs == scenario::FsKind::kMem;
  return s;
}

// ---------------------------------------------------------------------------------------
// Lines

ScenarioCommand Line(scenario::Verb verb) { return ScenarioCommand{std::move(verb)}; }

ScenarioCommand ExpectUsed(const std::string& plan, uint64_t size) {
  return Line(scenario::ExpectUsed{plan, size});
}

ScenarioCommand ExpectFiles(const std::string& plan, uint64_t count) {
  return Line(scenario::ExpectFiles{plan, count});
}

ScenarioCommand ExpectSize(const std::string& file, uint64_t size) {
  return Line(scenario::ExpectSize{file, size});
}

ScenarioCommand ExpectCount(std::string glob, uint64_t count) {
  return Line(scenario::ExpectCount{std::move(glob), count});
}

ScenarioCommand ExpectRoot(int local_dir, bool exists) {
  if (exists) return Line(scenario::ExpectExists{LocalDirPath(local_dir)});
  return Line(scenario::ExpectMissing{LocalDirPath(local_dir)});
}

std::string SpillDirsGlob(int local_dir) {
  if (local_dir == kTmpDir) return std::string(kTmpSpillDirsGlob);
  return LocalDirPath(local_dir) + std::string(kSpillDirsSuffix);
}

int LocalDirIndex(std::string_view path) {
  if (path.size() != 3 || path[0] != '/' || path[1] != 'l') return -1;
  const int n = path[2] - '0';
  return n >= 0 && n < kMaxLocalDirs ? n : -1;
}

std::string Quoted(const ScenarioCommand& c) { return fmt::format("`{}`", c.ToString()); }

// ---------------------------------------------------------------------------------------
// The filesystem calls an operation makes, as the model accounts for them.

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

bool LimitedRulePending(const SpillModel& s, OpKind op) {
  return std::any_of(s.rules.begin(), s.rules.end(), [op](const ModelRule& r) {
    return r.op == op && r.remaining.has_value() && *r.remaining > 0;
  });
}

bool ReapUnfaulted(const SpillModel& s) {
  return std::none_of(s.rules.begin(), s.rules.end(), [](const ModelRule& r) {
    return r.op == OpKind::kList || r.op == OpKind::kRemove || r.op == OpKind::kRmdir;
  });
}

namespace {

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

}  // namespace

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

void MaybeFinish(SpillModel& s, ModelPlan& plan) {
  if (plan.bound || plan.active != 0 || !plan.built || plan.finished) return;
  for (const int id : plan.slots) RemoveDirTree(s, id);
  s.pending_stale_lists -= plan.stale_dirs;
  plan.stale_dirs = 0;
  plan.finished = true;
}

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
  // A plan holds its budget while its manager exists: until it is dropped and its files
  // are gone.
  std::set<int> referenced_budgets;
  for (const auto& [id, p] : s.plans) {
    if (p.bound || (p.built && !p.finished)) referenced_budgets.insert(p.budget);
  }
  for (auto it = s.budgets.begin(); it != s.budgets.end();) {
    if (!it->second.bound && referenced_budgets.count(it->first) == 0) {
      it = s.budgets.erase(it);
    } else {
      ++it;
    }
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

std::string FreshName(const SpillModel& s, std::string_view prefix, int counter) {
  while (true) {
    std::string name = fmt::format("{}{}", prefix, counter++);
    if (!s.used_names.Contains(name)) return name;
  }
}

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

std::optional<int> BoundBudget(const SpillModel& s, const std::string& name) {
  auto it = s.budget_names.find(name);
  if (it == s.budget_names.end()) return std::nullopt;
  return it->second;
}

std::optional<int> BoundFile(const SpillModel& s, const std::string& name) {
  auto it = s.file_names.find(name);
  if (it == s.file_names.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> Keys(const std::map<std::string, int>& m) {
  std::vector<std::string> keys;
  keys.reserve(m.size());
  for (const auto& [k, v] : m) keys.push_back(k);
  return keys;
}

}  // namespace spillway::model
