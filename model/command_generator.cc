// Generating commands: a random scenario line valid in the model's state, its choices
// drawn from a Chooser (a seeded one for `spillway simulate`, RapidCheck's for the
// property tests, which shrinks them).
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "spill_model_internal.h"
#include "spillway/model/spill_model.h"
#include "spillway/spill/spill_manager.h"

namespace spillway::model {

using ScenarioCommand = scenario::Command;

namespace {

// Picks an index by weight; weights.size() (none) when every weight is 0.
size_t PickWeighted(Chooser& chooser, const std::vector<uint64_t>& weights) {
  uint64_t total = 0;
  for (const uint64_t w : weights) total += w;
  uint64_t pick = chooser.Pick(total);
  for (size_t i = 0; i < weights.size(); ++i) {
    if (pick < weights[i]) return i;
    pick -= weights[i];
  }
  return weights.size();
}

template <typename T>
const T& PickOne(Chooser& chooser, const std::vector<T>& values) {
  return values[chooser.Pick(values.size())];
}

// Limits small enough that writes reach them, and the default.
constexpr uint64_t kLimits[] = {kDefaultMaxTempDirectorySize, 16, 64, 256, 4096, 1};
constexpr uint64_t kCapacities[] = {uint64_t{1} << 30, 0, 64, 256};
// The errnos a fault draws from: those of them its call can return on Linux.
constexpr int kErrnos[] = {EIO, ENOSPC, ENOENT, EACCES, EEXIST};
// Budgets small enough that plans sharing one reach it.
constexpr uint64_t kBudgetLimits[] = {64, 16, 256, 1};
// At most this many budgets are bound at once.
constexpr size_t kMaxLiveBudgets = 2;

// What the generator entries see: the state, the options and what is bound in it.
struct GenContext {
  GenContext(const SpillModel& state, const GenOptions& options)
      : s(state),
        o(options),
        plans(Keys(s.plan_names)),
        files(Keys(s.file_names)),
        budgets(Keys(s.budget_names)) {
    for (int i = 0; i < o.local_dirs; ++i) {
      if (!s.root_exists[i]) missing_roots.push_back(i);
    }
    for (const auto& [id, d] : s.dirs) any_dir = any_dir || d.on_disk;
    room_for_file = static_cast<int>(files.size()) < o.max_live_files;
  }

  const SpillModel& s;
  const GenOptions& o;
  std::vector<std::string> plans;
  std::vector<std::string> files;
  std::vector<std::string> budgets;
  std::vector<int> missing_roots;  // Local dirs in use that do not exist.
  bool any_dir = false;            // Some spill directory is on disk.
  bool room_for_file = false;      // Another file name may be bound.
};

// One generator per generated verb: Can, whether it can be generated in a state, and
// Make, which draws its fields. Its weight is in the table below (Weights), the one place
// that says which verbs are generated and how often; a verb listed there without a
// Generator does not compile, and a verb not listed needs none.
template <typename V>
struct Generator;

template <>
struct Generator<scenario::Dir> {
  static bool Can(const GenContext& g) { return !g.missing_roots.empty(); }
  static scenario::Dir Make(const GenContext& g, Chooser& chooser) {
    return {LocalDirPath(PickOne(chooser, g.missing_roots))};
  }
};

template <>
struct Generator<scenario::Plan> {
  static bool Can(const GenContext& g) {
    return static_cast<int>(g.plans.size()) < g.o.max_live_plans;
  }
  static scenario::Plan Make(const GenContext& g, Chooser& chooser) {
    scenario::Plan plan{FreshName(g.s, "p", g.s.plan_counter), {}};
    scenario::PlanSpec& spec = plan.spec;
    const uint64_t kind = chooser.Pick(20);
    if (kind >= 19) {
      spec.dirs_kind = scenario::DirsKind::kDisabled;
    } else if (kind >= 17) {
      spec.dirs_kind = scenario::DirsKind::kOsTmp;
    } else {
      PickLocalDirs(g.o.local_dirs, chooser, &spec.local_dirs);
      if (kind >= 14) {
        spec.mode = scenario::PlanMode::kEager;
        spec.mode_written = true;
      }
    }
    if (spec.dirs_kind == scenario::DirsKind::kDisabled) return plan;
    const uint64_t limit = chooser.Pick(std::size(kLimits));
    if (limit != 0) {
      spec.limit = kLimits[limit];
      spec.limit_written = true;
    }
    if (chooser.Pick(4) == 3) {
      spec.missing_dir = MissingDirPolicy::kRecreate;
      spec.missing_dir_written = true;
    }
    if (spec.dirs_kind == scenario::DirsKind::kList) PickPlacement(chooser, &spec);
    // Some plans frame their spill files, so that a read notices the damage a lie made.
    if (chooser.Pick(3) == 2) {
      spec.frame = true;
      spec.frame_written = true;
    }
    // Most plans share a budget when there is one, so that their sum reaches it.
    if (!g.budgets.empty() && chooser.Pick(4) != 0) spec.budget = PickOne(chooser, g.budgets);
    return plan;
  }

  // Mostly Comet's layout=all without failover (0, what shrinking goes to); otherwise
  // layout=each, failover=on, or both.
  static void PickPlacement(Chooser& chooser, scenario::PlanSpec* spec) {
    const uint64_t placement = chooser.Pick(kPlacements);
    if (placement == 1 || placement == 3) {
      spec->layout = SpillDirLayout::kEach;
      spec->layout_written = true;
    }
    if (placement == 2 || placement == 3) {
      spec->failover = true;
      spec->failover_written = true;
    }
  }
  static constexpr uint64_t kPlacements = 6;

  // One local dir, or two neighbours: a small menu, so that plans often share their dirs
  // (and, with the same limit, a manager under the shared_limit quirk).
  static void PickLocalDirs(int n, Chooser& chooser, std::vector<std::string>* dirs) {
    const int pick = static_cast<int>(chooser.Pick(n > 1 ? 2 * n - 1 : 1));
    dirs->push_back(LocalDirPath(pick < n ? pick : pick - n));
    if (pick >= n) dirs->push_back(LocalDirPath(pick - n + 1));
  }
};

template <>
struct Generator<scenario::Spill> {
  static bool Can(const GenContext& g) { return !g.plans.empty() && g.room_for_file; }
  static scenario::Spill Make(const GenContext& g, Chooser& chooser) {
    std::string file = FreshName(g.s, "f", g.s.file_counter);
    return {std::move(file), PickOne(chooser, g.plans)};
  }
};

template <>
struct Generator<scenario::Write> {
  static bool Can(const GenContext& g) { return !g.files.empty(); }
  static scenario::Write Make(const GenContext& g, Chooser& chooser) {
    std::string file = PickOne(chooser, g.files);
    return {std::move(file), chooser.Pick(8) == 7 ? chooser.Pick(600) : chooser.Pick(41)};
  }
};

template <>
struct Generator<scenario::Read> {
  static bool Can(const GenContext& g) { return !g.files.empty(); }
  static scenario::Read Make(const GenContext& g, Chooser& chooser) {
    return {PickOne(chooser, g.files)};
  }
};

template <>
struct Generator<scenario::Clone> {
  static bool Can(const GenContext& g) { return !g.files.empty() && g.room_for_file; }
  static scenario::Clone Make(const GenContext& g, Chooser& chooser) {
    std::string name = FreshName(g.s, "f", g.s.file_counter);
    return {std::move(name), PickOne(chooser, g.files)};
  }
};

template <>
struct Generator<scenario::Drop> {
  static bool Can(const GenContext& g) { return !g.plans.empty() || !g.files.empty(); }
  static scenario::Drop Make(const GenContext& g, Chooser& chooser) {
    // Files more often than plans: a plan dropped early leaves its files outliving it. A
    // budget now and then: its plans keep it alive.
    if (!g.budgets.empty() && chooser.Pick(8) == 0) return {PickOne(chooser, g.budgets)};
    const bool file = !g.files.empty() && (g.plans.empty() || chooser.Pick(3) != 0);
    return {PickOne(chooser, file ? g.files : g.plans)};
  }
};

template <>
struct Generator<scenario::SetLimit> {
  static bool Can(const GenContext& g) { return !g.plans.empty() || !g.budgets.empty(); }
  static scenario::SetLimit Make(const GenContext& g, Chooser& chooser) {
    if (!g.budgets.empty() && (g.plans.empty() || chooser.Pick(3) == 0)) {
      std::string budget = PickOne(chooser, g.budgets);
      return {std::move(budget), kBudgetLimits[chooser.Pick(std::size(kBudgetLimits))]};
    }
    std::string plan = PickOne(chooser, g.plans);
    return {std::move(plan), kLimits[chooser.Pick(std::size(kLimits))]};
  }
};

template <>
struct Generator<scenario::Fault> {
  static bool Can(const GenContext&) { return true; }
  static scenario::Fault Make(const GenContext& g, Chooser& chooser) {
    // At most one rule at a time for each of a reap's calls: an rmdir is made about as
    // seldom as an rmdir rule is drawn, so they would pile up, stay due, and keep `crash`
    // (and a reap with orphans) from being drawn for the rest of the run.
    std::vector<OpKind> ops;
    for (const OpKind op : scenario::FaultOps()) {
      const bool reap_call =
          std::find(std::begin(kReapCalls), std::end(kReapCalls), op) != std::end(kReapCalls);
      if (!reap_call || !g.s.rules.Due(op)) ops.push_back(op);
    }
    scenario::Fault fault;
    fault.rule.op = PickOne(chooser, ops);
    std::vector<int> errnos;
    for (const int e : kErrnos) {
      if (OpKindCanReturn(fault.rule.op, e)) errnos.push_back(e);
    }
    // A third of the rules on reads and writes lie instead of failing: corrupt, or (a
    // write) lost.
    const bool lies = fault.rule.op == OpKind::kRead || fault.rule.op == OpKind::kWrite;
    if (lies && chooser.Pick(3) == 2) {
      const bool lost = fault.rule.op == OpKind::kWrite && chooser.Pick(2) == 1;
      fault.rule.action = lost ? FaultAction::kLost : FaultAction::kCorrupt;
    } else {
      fault.rule.error_number = PickOne(chooser, errnos);
    }
    if (chooser.Pick(100) >= static_cast<uint64_t>(100 - g.o.forever_percent)) {
      fault.rule.times.reset();  // times=forever
    }
    return fault;
  }
};

template <>
struct Generator<scenario::ShortWrite> {
  static bool Can(const GenContext& g) { return !g.files.empty(); }
  static scenario::ShortWrite Make(const GenContext& g, Chooser& chooser) {
    std::string file = PickOne(chooser, g.files);
    return {std::move(file), chooser.Pick(17)};
  }
};

template <>
struct Generator<scenario::Clean> {
  static bool Can(const GenContext& g) { return g.any_dir; }
  static scenario::Clean Make(const GenContext& g, Chooser& chooser) {
    const uint64_t dirs = static_cast<uint64_t>(g.o.local_dirs);
    const uint64_t pick = chooser.Pick(dirs + 2);
    if (pick < dirs) return {SpillDirsGlob(static_cast<int>(pick))};
    if (pick == dirs) return {"/l*" + std::string(kSpillDirsSuffix)};
    return {SpillDirsGlob(kTmpDir)};
  }
};

template <>
struct Generator<scenario::Capacity> {
  static bool Can(const GenContext& g) { return g.o.capacity; }
  static scenario::Capacity Make(const GenContext&, Chooser& chooser) {
    return {kCapacities[chooser.Pick(std::size(kCapacities))]};
  }
};

template <>
struct Generator<scenario::Budget> {
  static bool Can(const GenContext& g) { return g.budgets.size() < kMaxLiveBudgets; }
  static scenario::Budget Make(const GenContext& g, Chooser& chooser) {
    return {FreshName(g.s, "b", 0), kBudgetLimits[chooser.Pick(std::size(kBudgetLimits))]};
  }
};

template <>
struct Generator<scenario::Crash> {
  // Not while a rule for a reap's calls is due: the crash would leave it due for long (the
  // plans that would have used it up are gone), and no reap could follow.
  static bool Can(const GenContext& g) {
    return (!g.plans.empty() || !g.files.empty()) && ReapUnfaulted(g.s);
  }
  static scenario::Crash Make(const GenContext&, Chooser&) { return {}; }
};

template <>
struct Generator<scenario::Kill> {
  // The process dies at one of the next few calls, inside whichever line makes it.
  static constexpr uint64_t kMaxCall = 8;
  static bool Can(const GenContext& g) {
    if (g.plans.empty() && g.files.empty()) return false;
    if (g.s.rules.KillPending() || g.s.rules.AnyDue() || g.s.pending_stale_lists != 0) {
      return false;
    }
    return std::none_of(g.s.plans.begin(), g.s.plans.end(), [](const auto& entry) {
      return entry.second.kind == PlanKind::kOsTmp && !entry.second.finished;
    });
  }
  static scenario::Kill Make(const GenContext&, Chooser& chooser) {
    return {1 + chooser.Pick(kMaxCall)};
  }
};

template <>
struct Generator<scenario::Reap> {
  static bool Can(const GenContext& g) { return g.any_dir; }
  // Every local dir in use: the start-up of a new process.
  static scenario::Reap Make(const GenContext& g, Chooser&) {
    scenario::Reap reap;
    for (int i = 0; i < g.o.local_dirs; ++i) reap.local_dirs.push_back(LocalDirPath(i));
    return reap;
  }
};

// The weights' entries: verb V weighs kWeight, or (FaultWeight) GenOptions::fault_weight,
// or (ThirdOfFaultWeight) a third of it, at least 1 when faults are on; Of is its weight
// in a state where Generator<V>::Can holds, and 0 where it does not.
template <typename V, int kWeight>
struct Weight {
  using Verb = V;
  static constexpr int kBaseWeight = kWeight;
  static uint64_t Of(const GenContext& g) {
    if (kWeight == 0 || !Generator<V>::Can(g)) return 0;
    return static_cast<uint64_t>(kWeight);
  }
};
template <typename V>
struct FaultWeight {
  using Verb = V;
  static constexpr int kBaseWeight = 0;  // Not one of the other verbs' (OtherVerbsWeight).
  static uint64_t Of(const GenContext& g) {
    return Generator<V>::Can(g) ? static_cast<uint64_t>(g.o.fault_weight) : 0;
  }
};
template <typename V>
struct ThirdOfFaultWeight {
  using Verb = V;
  static constexpr int kBaseWeight = 0;
  static uint64_t Of(const GenContext& g) {
    if (!Generator<V>::Can(g) || g.o.fault_weight == 0) return 0;
    return static_cast<uint64_t>(std::max(1, g.o.fault_weight / 3));
  }
};

template <typename... Entries>
struct WeightTable {
  // The sum of the nominal weights (fault-like entries weigh 0 here).
  static constexpr int kOtherWeights = (Entries::kBaseWeight + ...);

  // A random line valid in the generator's state: a verb drawn by weight, walking the
  // entries in the table's order, then its fields; nullopt when every weight is 0.
  static std::optional<ScenarioCommand> Draw(const GenContext& g, Chooser& chooser) {
    const size_t picked = PickWeighted(chooser, {Entries::Of(g)...});
    std::optional<ScenarioCommand> line;
    size_t index = 0;
    (
        [&] {
          if (index++ == picked) line = Line(Generator<typename Entries::Verb>::Make(g, chooser));
        }(),
        ...);
    return line;
  }
};

// The generator's weights: every generated verb, once, with its weight. `read` weighs
// little: it changes no state, and a few reads after the lies that damage files are
// enough to check what they return. `kill` weighs as `capacity` does, twice `crash` (a
// kill is a crash at a call inside an operation); as it waits for no rule to be due and
// no os_tmp plan to be alive, about one line in 500 is a kill. A seed's program depends on
// this table and its order (the order a draw walks), never on the order of scenario::Verb;
// a verb not listed is never generated, so a new verb changes no seeded program until it
// is given a weight here (trial_verb_test in tests/model/).
using Weights =
    WeightTable<Weight<scenario::Dir, 4>, Weight<scenario::Plan, 10>, Weight<scenario::Spill, 16>,
                Weight<scenario::Write, 20>, Weight<scenario::Read, 3>, Weight<scenario::Clone, 3>,
                Weight<scenario::Drop, 10>, Weight<scenario::SetLimit, 3>,
                FaultWeight<scenario::Fault>, ThirdOfFaultWeight<scenario::ShortWrite>,
                Weight<scenario::Clean, 3>, Weight<scenario::Capacity, 2>,
                Weight<scenario::Budget, 3>, Weight<scenario::Crash, 1>, Weight<scenario::Reap, 4>,
                Weight<scenario::Kill, 2>>;

}  // namespace

int OtherVerbsWeight() { return Weights::kOtherWeights; }

CommandPtr GenerateCommand(const SpillModel& s0, const GenOptions& options, Chooser& chooser) {
  const std::optional<ScenarioCommand> line = Weights::Draw(GenContext(s0, options), chooser);
  if (!line.has_value()) return nullptr;
  return MakeCommand(*line, s0);
}

}  // namespace spillway::model
