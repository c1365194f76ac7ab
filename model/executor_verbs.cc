// The model's transitions of the verbs beyond upstream, which act on the executor rather
// than on one plan: `budget` (a limit its plans share), `crash` (the process dies) and
// `reap` (a new process removes what dead ones left). verb_commands.cc holds the other
// verbs' transitions and makes the commands of all of them.
#include <algorithm>
#include <cerrno>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "spill_model_internal.h"
#include "spillway/model/spill_model.h"

namespace spillway::model {

using Affected = SpillCommand::Affected;

namespace {

// The spill directories `reap` removes in local dirs `reaped`: those on disk that no live
// plan holds. Nullopt when a file in one of them is in a directory the model cannot name
// and only some of its plan's local dirs are reaped.
std::optional<std::set<int>> Orphans(const SpillModel& s, const std::set<int>& reaped) {
  std::set<int> live;
  for (const auto& [id, p] : s.plans) {
    if (!p.finished) live.insert(p.slots.begin(), p.slots.end());
  }
  std::set<int> orphans;
  for (const auto& [id, d] : s.dirs) {
    if (d.on_disk && reaped.count(d.local_dir) != 0 && live.count(id) == 0) orphans.insert(id);
  }
  for (const auto& [id, f] : s.files) {
    if (f.dir >= 0 || !f.on_disk || !s.plans.at(f.plan).finished) continue;
    const std::vector<int>& dirs = s.plans.at(f.plan).local_dirs;
    const auto n = std::count_if(dirs.begin(), dirs.end(),
                                 [&](int index) { return reaped.count(index) != 0; });
    if (n != 0 && static_cast<size_t>(n) != dirs.size()) return std::nullopt;
  }
  return orphans;
}

}  // namespace

namespace executor_verbs {

std::optional<std::string> Transition(const scenario::Budget& v, SpillModel& s, Affected* a) {
  if (!Fresh(s, v.name)) return std::nullopt;
  UseName(s, v.name);
  const int id = s.next_id++;
  s.budgets[id] = ModelBudget{v.name, v.size, true};
  s.budget_names[v.name] = id;
  a->budgets.insert(id);
  return std::string(kOk);
}

std::optional<std::string> Transition(const scenario::Crash&, SpillModel& s, Affected*) {
  // An os_tmp plan's directory would stay for good: `reap` does not look in the temp dir.
  for (const auto& [id, p] : s.plans) {
    if (p.kind == PlanKind::kOsTmp && !p.finished && p.built) return std::nullopt;
  }
  for (auto& [id, p] : s.plans) {
    if (p.finished) continue;
    s.pending_stale_lists -= p.stale_dirs;
    p = ModelPlan{.name = p.name,
                  .kind = p.kind,
                  .local_dirs = p.local_dirs,
                  .bound = false,
                  .built = p.built,
                  .finished = true,
                  .slots = p.slots,
                  .crashed = true};
  }
  for (auto& [id, f] : s.files) {
    f.refs = 0;
    f.short_writes.clear();
  }
  for (auto& [id, d] : s.dirs) d.crashed = d.on_disk;
  s.plan_names.clear();
  s.file_names.clear();
  s.budget_names.clear();
  s.budgets.clear();
  Collect(s);
  return std::string(kOk);
}

std::optional<std::string> Transition(const scenario::Reap& v, SpillModel& s, Affected* a) {
  a->reaps = true;
  std::set<int> reaped;
  for (const std::string& dir : v.local_dirs) {
    const int index = LocalDirIndex(dir);
    if (index < 0) return std::nullopt;
    reaped.insert(index);
  }
  // Entries racing processes made (injected EEXIST) hold no lock and would be reaped too;
  // the model does not follow them there.
  for (const int index : reaped) {
    if (s.foreign_dirs[index] != 0) return std::nullopt;
  }
  for (const auto& [id, d] : s.dirs) {
    if (d.on_disk && d.foreign_files != 0 && reaped.count(d.local_dir) != 0) return std::nullopt;
  }
  const std::optional<std::set<int>> orphans = Orphans(s, reaped);
  if (!orphans.has_value()) return std::nullopt;
  if (orphans->empty()) {
    a->local_dirs = reaped;
    // Its only calls are one list per local dir, in order; a missing one (ENOENT) has
    // nothing to reap and is not an error.
    int first = 0;
    for (size_t i = 0; i < v.local_dirs.size(); ++i) {
      const int e = s.rules.Take(OpKind::kList);
      // An injected ENOENT removes the local dir it lists, with everything in it: not
      // followed here.
      if (e == ENOENT) return std::nullopt;
      if (e != 0 && first == 0) first = e;
    }
    return CodeName(first);
  }
  // Which of the removals' calls (lists, removes, rmdirs) a rule would fail is not
  // modelled.
  if (!ReapUnfaulted(s)) return std::nullopt;
  for (const int id : *orphans) s.dirs.at(id).on_disk = false;
  for (auto& [id, f] : s.files) {
    if (!f.on_disk) continue;
    const ModelPlan& plan = s.plans.at(f.plan);
    if (f.dir >= 0 ? orphans->count(f.dir) != 0
                   : plan.finished && reaped.count(plan.local_dirs[0]) != 0) {
      f.on_disk = false;
    }
  }
  a->local_dirs = reaped;
  a->file_count = true;
  Collect(s);
  return std::string(kOk);
}

std::optional<std::string> Transition(const scenario::Kill& v, SpillModel& s, Affected*) {
  // Only while no rule is due: then the kill rule is the first that every call meets, and
  // the model counts the calls of the lines that follow as its rules do; nor while a stale
  // directory's list is pending, whose moment the model does not know. Not with an
  // os_tmp plan that may make a directory: `reap` would never take it back.
  if (v.call == 0 || s.rules.KillPending() || s.rules.killed() || s.rules.AnyDue() ||
      s.pending_stale_lists != 0) {
    return std::nullopt;
  }
  for (const auto& [id, p] : s.plans) {
    if (p.kind == PlanKind::kOsTmp && !p.finished) return std::nullopt;
  }
  s.rules.Kill(v.call);
  return std::string(kOk);
}

std::optional<std::string> FollowKill(SpillModel& s, Affected* a) {
  *a = Affected{};
  if (!Transition(scenario::Crash{}, s, a).has_value()) return std::nullopt;
  s.rules = ModelRules{};
  a->outcome = false;
  for (int i = 0; i < kMaxLocalDirs; ++i) {
    if (s.root_exists[i]) a->local_dirs.insert(i);
  }
  a->file_count = true;
  return std::string(kOk);
}

}  // namespace executor_verbs
}  // namespace spillway::model
