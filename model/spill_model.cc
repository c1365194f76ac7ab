// The spill model's state: the SpillModel and its names, and what its verbs, expectations
// and checks share (spill_model_internal.h): the scenario lines it prints and the
// filesystem calls each operation makes, as the model accounts for them.
#include "spillway/model/spill_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <iterator>
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

namespace {

// Each quirk and the invariant that names its defect: the one table of them.
constexpr std::pair<Quirk, InvariantKind> kQuirkInvariants[] = {
    {Quirk::kWriteLeak, InvariantKind::kAccountingAfterDrops},
    {Quirk::kNoRollback, InvariantKind::kAccountingAfterDrops},
    {Quirk::kCountLeak, InvariantKind::kActiveFileCount},
    {Quirk::kEagerDirs, InvariantKind::kDirsBeforeFirstSpill},
    {Quirk::kSharedLimit, InvariantKind::kCrossPlanVisibility},
    {Quirk::kOuterAccounting, InvariantKind::kOuterAccounting},
    {Quirk::kFailoverLeak, InvariantKind::kSpillDirs},
    {Quirk::kBudgetAfterAdd, InvariantKind::kBudget},
    {Quirk::kReapIgnoresLocks, InvariantKind::kReap},
    {Quirk::kSpilledCountsRefused, InvariantKind::kMetrics},
    // A failed removal recorded nowhere: what it left is an unreported leftover at the end.
    {Quirk::kDropIgnoresErrors, InvariantKind::kLeftover},
    // A write or reap that met a fault and succeeded: the outcome the model predicts is the
    // fault's error.
    {Quirk::kWriteIgnoresErrors, InvariantKind::kOutcome},
    {Quirk::kReapIgnoresErrors, InvariantKind::kOutcome},
    {Quirk::kReapSkipsEmpty, InvariantKind::kReap},
    // A framed file's damage read back as ok.
    {Quirk::kReaderSkipsCheck, InvariantKind::kUndetectedDamage},
};

}  // namespace

std::optional<InvariantKind> QuirkInvariant(Quirk q) {
  for (const auto& [quirk, kind] : kQuirkInvariants) {
    if (quirk == q) return kind;
  }
  return std::nullopt;
}

bool ScenarioShows(InvariantKind kind) { return kind != InvariantKind::kLeftover; }

std::string QuirkLines(Quirks quirks) {
  std::string text;
  for (const Quirk q : AllQuirks()) {
    if (quirks.Has(q)) text.append(Line(scenario::SetQuirk{q}).ToString()).append("\n");
  }
  return text;
}

bool PassesLimit(uint64_t used, uint64_t limit, uint64_t bytes) {
  return bytes == 0 || (used <= limit && bytes <= limit - used);
}

uint64_t RandomChooser::Pick(uint64_t n) {
  return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng_);
}

int NameSet::Number(const std::string& name, char prefix) {
  if (name.size() < 2 || name.size() > 10 || name[0] != prefix) return -1;
  if (name[1] == '0' && name.size() > 2) return -1;  // A leading zero: not canonical.
  int n = 0;
  for (size_t i = 1; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return -1;
    n = n * 10 + (name[i] - '0');
  }
  return n;
}

void NameSet::Numbers::Insert(int n) {
  if (n < below) return;
  above.insert(n);
  // Numbers used in order move the watermark, so above stays empty.
  while (!above.empty() && *above.begin() == below) {
    above.erase(above.begin());
    ++below;
  }
}

bool NameSet::Contains(const std::string& name) const {
  for (size_t i = 0; i < std::size(kPrefixes); ++i) {
    if (const int n = Number(name, kPrefixes[i]); n >= 0) return numbers_[i].Contains(n);
  }
  return others_.count(name) != 0;
}

void NameSet::Insert(const std::string& name) {
  for (size_t i = 0; i < std::size(kPrefixes); ++i) {
    if (const int n = Number(name, kPrefixes[i]); n >= 0) {
      numbers_[i].Insert(n);
      return;
    }
  }
  others_.insert(name);
}

std::string NameSet::FirstFree(char prefix, int from) const {
  const size_t i = std::find(std::begin(kPrefixes), std::end(kPrefixes), prefix) - kPrefixes;
  const Numbers& numbers = numbers_[i];
  int n = std::max(from, numbers.below);
  while (numbers.above.count(n) != 0) ++n;
  return fmt::format("{}{}", prefix, n);
}

uint64_t SpillModel::MemBytes() const {
  uint64_t bytes = 0;
  for (const auto& [id, f] : files) {
    if (f.on_disk || f.refs > 0) bytes += f.size;
  }
  return bytes;
}

uint64_t SpillModel::SpillDirCount(int local_dir) const {
  uint64_t n = static_cast<uint64_t>(foreign_dirs[local_dir]);
  for (const auto& [id, d] : dirs) {
    if (d.on_disk && d.local_dir == local_dir) ++n;
  }
  return n;
}

uint64_t SpillModel::SpillFileCount(bool tmp) const {
  uint64_t n = ManagedFileCount(tmp);
  for (const auto& [id, d] : dirs) {
    if (d.on_disk && (d.local_dir == kTmpDir) == tmp) n += static_cast<uint64_t>(d.foreign_files);
  }
  return n;
}

uint64_t SpillModel::ManagedFileCount(bool tmp) const {
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
  s.root_exists[kTmpDir] = true;
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

bool ReapUnfaulted(const SpillModel& s) {
  // A pending kill counts the calls of a reap's removals, which are not modelled.
  return !s.rules.KillPending() && std::none_of(std::begin(kReapCalls), std::end(kReapCalls),
                                                [&](OpKind op) { return s.rules.Due(op); });
}

namespace {

// A spill directory's removal by its manager: a list, a remove per file its manager made
// in it (a failure leaves that file and goes on), an rmdir (which fails while anything is
// left, foreign files included). A failed list leaves everything; a directory a cleaner
// removed fails at the list (ENOENT). An injected ENOENT removes the directory with all
// in it. REQUIRES: no open file is in it, and every file left in it has a known directory.
void RemoveDirTree(SpillModel& s, int dir_id) {
  const int listed = s.rules.Take(OpKind::kList);
  if (listed == ENOENT) RemoveSpillDir(s, dir_id);
  ModelDir& dir = s.dirs.at(dir_id);
  if (listed != 0 || !dir.on_disk) return;
  bool left = dir.foreign_files > 0;
  for (auto& [id, f] : s.files) {
    if (f.dir != dir_id || !f.on_disk) continue;
    const int removed = s.rules.Take(OpKind::kRemove);
    if (removed == 0 || removed == ENOENT) {
      f.on_disk = false;
    } else {
      left = true;
    }
  }
  const int e = s.rules.Take(OpKind::kRmdir);
  if (e == ENOENT || (e == 0 && !left)) RemoveSpillDir(s, dir_id);
}

}  // namespace

void RemoveSpillDir(SpillModel& s, int dir_id) {
  ModelDir& dir = s.dirs.at(dir_id);
  dir.on_disk = false;
  dir.foreign_files = 0;
  for (auto& [id, f] : s.files) {
    if (f.dir == dir_id) f.on_disk = false;
  }
}

bool RemoveSpillDirsIn(SpillModel& s, const std::set<int>& cleaned) {
  // A file whose directory the model does not know must be removed with all of its
  // plan's directories or none of them.
  for (const auto& [id, f] : s.files) {
    if (f.dir >= 0 || !f.on_disk) continue;
    const ModelPlan& plan = s.plans.at(f.plan);
    const auto n = std::count_if(plan.local_dirs.begin(), plan.local_dirs.end(),
                                 [&](int index) { return cleaned.count(index) != 0; });
    if (n != 0 && static_cast<size_t>(n) != plan.local_dirs.size()) return false;
  }
  for (auto& [id, d] : s.dirs) {
    if (d.on_disk && cleaned.count(d.local_dir) != 0) RemoveSpillDir(s, id);
  }
  for (auto& [id, f] : s.files) {
    if (f.on_disk && f.dir < 0 && cleaned.count(s.plans.at(f.plan).local_dirs[0]) != 0) {
      f.on_disk = false;
    }
  }
  for (const int index : cleaned) s.foreign_dirs[index] = 0;
  return true;
}

int CreateIn(SpillModel& s, int dir_id) {
  const int injected = s.rules.Take(OpKind::kCreate);
  if (injected == ENOENT) RemoveSpillDir(s, dir_id);  // The directory it is made in.
  ModelDir& dir = s.dirs.at(dir_id);
  if (injected == EEXIST && dir.on_disk) {
    ++dir.foreign_files;  // The racing process's file; the retry succeeds.
    return 0;
  }
  if (injected != 0 && injected != EEXIST) return injected;
  return dir.on_disk ? 0 : ENOENT;
}

namespace {

// DataFusion's create_local_dirs: a stat of the local dir and, when it is missing, a
// mkdir of it (one level deep). A stat rule's ENOENT says it is missing (it may exist: the
// mkdir then finds it); EEXIST from the mkdir (another plan made it first) is fine.
int EnsureLocalDir(SpillModel& s, int local_dir) {
  const int stat = s.rules.Take(OpKind::kStat);
  if (stat != 0 && stat != ENOENT) return stat;
  if (stat == 0 && s.root_exists[local_dir]) return 0;
  // A named mkdir's ENOENT removes its parent, "/", which is never removed.
  const int made = s.rules.Take(OpKind::kMkdir);
  if (made != 0 && made != EEXIST) return made;
  s.root_exists[local_dir] = true;  // Made, by this plan or (EEXIST) the racing one.
  return 0;
}

}  // namespace

int MakeSpillDir(SpillModel& s, int local_dir, bool create_parent, int* dir_id) {
  if (create_parent) {
    if (const int e = EnsureLocalDir(s, local_dir); e != 0) return e;
  }
  const int e = s.rules.Take(OpKind::kMkdir);
  if (e == ENOENT) {
    // The directory it is made in is gone, with every spill directory in it.
    if (!RemoveSpillDirsIn(s, {local_dir})) return kUnpredictable;
    s.root_exists[local_dir] = false;
    return ENOENT;
  }
  if (e != 0 && e != EEXIST) return e;
  if (!s.root_exists[local_dir]) return ENOENT;  // The temp dir, after a fault removed it.
  if (e == EEXIST) ++s.foreign_dirs[local_dir];  // The racing one; the retry succeeds.
  *dir_id = s.next_id++;
  s.dirs[*dir_id] = ModelDir{local_dir, true};
  return 0;
}

int BuildDirs(SpillModel& s, ModelPlan& plan) {
  std::vector<int> made;
  int first_error = 0;
  for (const int local_dir : plan.local_dirs) {
    int id = -1;
    if (plan.each) {
      made.push_back(id);  // Made by the first file that lands there.
      continue;
    }
    if (const int e = MakeSpillDir(s, local_dir, /*create_parent=*/true, &id); e != 0) {
      if (e == kUnpredictable) return e;
      if (first_error == 0) first_error = e;
      if (!plan.failover) {
        for (const int m : made) RemoveDirTree(s, m);
        return e;
      }
    }
    made.push_back(id);  // -1 for a failover build's failed slot.
  }
  if (!plan.each && std::count(made.begin(), made.end(), -1) == std::ssize(made)) {
    return first_error;  // Every local dir failed: nothing was made.
  }
  plan.slots = std::move(made);
  plan.built = true;
  return 0;
}

void MaybeFinish(SpillModel& s, ModelPlan& plan) {
  if (plan.bound || plan.active != 0 || !plan.built || plan.finished) return;
  for (const int id : plan.slots) {
    if (id >= 0) RemoveDirTree(s, id);
  }
  s.pending_stale_lists -= plan.stale_dirs;
  plan.stale_dirs = 0;
  plan.finished = true;
}

void Collect(SpillModel& s) {
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
  if (error_number == kKilled) return "ABORTED";  // What a killed call returns.
  return error_number == 0 ? std::string(kOk) : ErrnoName(error_number);
}

std::optional<std::string> Outcome(int error_number) {
  if (error_number == kUnpredictable) return std::nullopt;
  return CodeName(error_number);
}

std::string FreshName(const SpillModel& s, std::string_view prefix, int counter) {
  return s.used_names.FirstFree(prefix[0], counter);
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
