// Generating commands: a random scenario line valid in the model's state, its choices
// drawn from a Chooser (a seeded one for `spillway simulate`, RapidCheck's for the
// property tests, which shrinks them).
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "spill_model_internal.h"
#include "spillway/model/spill_model.h"
#include "spillway/spill/spill_manager.h"

namespace spillway::model {

using ScenarioCommand = scenario::Command;
using scenario::Verb;

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

}  // namespace

CommandPtr GenerateCommand(const SpillModel& s0, const GenOptions& options, Chooser& chooser) {
  const std::optional<ScenarioCommand> line = GenerateLine(s0, options, chooser);
  if (!line.has_value()) return nullptr;
  return MakeCommand(*line, s0);
}

}  // namespace spillway::model
