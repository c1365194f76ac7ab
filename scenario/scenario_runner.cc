// The runner: executes Commands against a fresh filesystem, one step at a time.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "pattern_data.h"
#include "scenario_syntax.h"
#include "spillway/scenario/scenario.h"
#include "spillway/spill/read_spill_file.h"
#include "spillway/spill/reap.h"
#include "spillway/spill/spill_budget.h"
#include "spillway/spill/spill_writer.h"
#include "spillway/vfs/glob.h"
#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/posix_file_system.h"
#include "spillway/vfs/process_file_system.h"

namespace spillway::scenario {
namespace {

using internal::Describe;

// splitmix64's finaliser: spreads a run seed and a plan counter into unrelated seeds.
uint64_t MixSeed(uint64_t seed, uint64_t counter) {
  uint64_t z = seed + counter * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Creates `path` and its missing parents on `fs`, like mkdir -p.
Status MakeDirs(FileSystem& fs, const std::string& path) {
  if (path == "/") return OkStatus();
  size_t pos = 0;
  while (true) {
    pos = path.find('/', pos + 1);
    const std::string prefix = path.substr(0, pos);
    const bool last = pos == std::string::npos;
    Status s = fs.CreateDir(prefix);
    if (s.IsErrno(EEXIST)) {
      // An existing directory is fine. Anything else in the way of a parent shows up at the
      // next level as ENOTDIR, as mkdir(2) reports it; in the way of `path`, as EEXIST.
      StatusOr<FileStat> st = fs.Stat(prefix);
      if (!last || (st.ok() && st->type == FileType::kDirectory)) s = OkStatus();
    }
    if (!s.ok() || last) return s;
  }
}

std::string TempBase() {
  const char* env = std::getenv("TMPDIR");
  std::string dir = (env != nullptr && env[0] == '/') ? env : "/tmp";
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

}  // namespace

struct Runner::Impl {
  RunnerOptions options;
  std::string private_root;  // Non-empty when this Runner made the root and must remove it.
  std::shared_ptr<MemFileSystem> mem;  // kMem only.
  std::shared_ptr<FileSystem> base;
  std::shared_ptr<FaultInjectingFileSystem> fs;
  // The filesystem of the last process a `kill` killed, kept so that references to it
  // taken before the line that killed it stay valid.
  std::shared_ptr<FaultInjectingFileSystem> killed_fs;
  uint64_t kills = 0;  // Processes a `kill` killed.
  // The filesystem as the running process sees it (over `fs`): managers and reaps use it,
  // and `crash` kills it and starts another.
  std::shared_ptr<ProcessFileSystem> process;
  std::shared_ptr<CleanupLog> cleanup_log = std::make_shared<CleanupLog>();
  std::shared_ptr<SharedManagerCache> shared_cache = NewSharedManagerCache();
  Quirks quirks;
  uint64_t plans_built = 0;
  std::map<std::string, std::shared_ptr<SpillManager>> plans;
  std::map<std::string, SpillFile> files;
  std::map<std::string, std::shared_ptr<SpillBudget>> budgets;
  // Every budget made in this process, by name, while something keeps it alive.
  std::map<std::string, std::weak_ptr<SpillBudget>> made_budgets;
  std::set<std::string> dropped;
  std::set<std::string> crashed;  // Names bound when the process crashed.
  Status last_outcome;
  ReapReport last_reap;   // Of the most recent `reap`.
  std::string last_read;  // What the most recent `read` returned.
  bool seen_act = false;
  internal::PatternData data;

  // Name checks. Each returns an empty string when the name may be used that way, and
  // what is wrong otherwise.
  std::string CheckUnbound(const std::string& name) const {
    if (dropped.count(name) != 0) {
      return fmt::format("\"{}\" was dropped; a name cannot be used again after drop", name);
    }
    if (crashed.count(name) != 0) {
      return fmt::format("\"{}\" died in a crash; a name cannot be used again after it", name);
    }
    if (plans.count(name) != 0) return fmt::format("\"{}\" is already bound to a plan", name);
    if (files.count(name) != 0) return fmt::format("\"{}\" is already bound to a file", name);
    if (budgets.count(name) != 0) return fmt::format("\"{}\" is already bound to a budget", name);
    return {};
  }
  std::string UseError(const std::string& name, std::string_view wanted) const {
    if (dropped.count(name) != 0) return fmt::format("\"{}\" was dropped", name);
    if (crashed.count(name) != 0) return fmt::format("\"{}\" died in a crash", name);
    if (plans.count(name) != 0) return fmt::format("\"{}\" is a plan, not a {}", name, wanted);
    if (files.count(name) != 0) return fmt::format("\"{}\" is a file, not a {}", name, wanted);
    if (budgets.count(name) != 0) {
      return fmt::format("\"{}\" is a budget, not a {}", name, wanted);
    }
    return fmt::format("unknown name \"{}\" (no {} is bound to it)", name, wanted);
  }
  SpillManager* FindPlan(const std::string& name, std::string* message) const {
    auto it = plans.find(name);
    if (it != plans.end()) return it->second.get();
    *message = UseError(name, "plan");
    return nullptr;
  }
  // The budget bound to `name`, or null (with no message: a budget is never required).
  SpillBudget* FindBudget(const std::string& name) const {
    auto it = budgets.find(name);
    return it == budgets.end() ? nullptr : it->second.get();
  }
  // The budget made under `name` while something keeps it alive, bound or dropped; null
  // for any other name.
  std::shared_ptr<const SpillBudget> LiveBudget(const std::string& name) const {
    auto it = made_budgets.find(name);
    return it == made_budgets.end() ? nullptr : it->second.lock();
  }
  const SpillFile* FindFile(const std::string& name, std::string* message) const {
    auto it = files.find(name);
    if (it != files.end()) return &it->second;
    *message = UseError(name, "file");
    return nullptr;
  }

  // REQUIRES: spec.budget is empty or bound to a budget.
  StatusOr<std::shared_ptr<SpillManager>> BuildPlan(const PlanSpec& spec) {
    SpillOptions spill;
    if (spec.dirs_kind == DirsKind::kList) spill.local_dirs = spec.local_dirs;
    spill.max_temp_directory_size = spec.limit;
    spill.missing_dir = spec.missing_dir;
    spill.layout = spec.layout;
    spill.failover = spec.failover;
    spill.frame_spill_files = spec.frame;
    spill.quirks = quirks;
    spill.seed = MixSeed(options.seed, ++plans_built);
    spill.cleanup_log = cleanup_log;
    if (!spec.budget.empty()) spill.budget = budgets.at(spec.budget);
    if (spec.dirs_kind == DirsKind::kList && spec.mode == PlanMode::kLazy) {
      spill.limit_config_key = std::string(internal::kCometLimitKey);
      StatusOr<std::shared_ptr<PlanDiskManager>> built =
          NewPlanDiskManager(process, {.spill = std::move(spill), .shared_cache = shared_cache});
      if (!built.ok()) return built.status();
      return std::shared_ptr<SpillManager>(std::move(*built));
    }
    DiskManagerOptions o;
    switch (spec.dirs_kind) {
      case DirsKind::kList:
        o.mode = DiskManagerMode::kDirectories;
        break;
      case DirsKind::kOsTmp:
        o.mode = DiskManagerMode::kOsTmpDirectory;
        break;
      case DirsKind::kDisabled:
        o.mode = DiskManagerMode::kDisabled;
        break;
    }
    o.spill = std::move(spill);
    StatusOr<std::shared_ptr<DiskManager>> built = NewDiskManager(process, std::move(o));
    if (!built.ok()) return built.status();
    return std::shared_ptr<SpillManager>(std::move(*built));
  }

  Status CleanGlob(const std::string& glob) {
    Status first_failure;
    for (const std::string& match : ExpandGlob(*base, glob)) {
      // A match below one removed earlier is already gone.
      if (!base->Exists(match)) continue;
      Status s = base->RemoveTree(match);
      if (!s.ok() && first_failure.ok()) first_failure = std::move(s);
    }
    return first_failure;
  }

  // The acts: each runs its verb, giving kOk with its outcome in `outcome`, or
  // kMalformed with what is wrong in `message`.
  StepResult Act(const Capacity& c, Status*, std::string*) {
    if (mem != nullptr) mem->SetCapacity(c.size);  // Ignored on a real disk.
    return StepResult::kOk;
  }
  StepResult Act(const Dir& c, Status* outcome, std::string*) {
    *outcome = MakeDirs(*base, c.path);
    return StepResult::kOk;
  }
  StepResult Act(const File& c, Status* outcome, std::string*) {
    *outcome = MakeDirs(*base, ParentPath(c.path));
    if (!outcome->ok()) return StepResult::kOk;
    StatusOr<std::unique_ptr<WritableFile>> file = base->CreateFile(c.path);
    *outcome = file.ok() ? (*file)->Close() : file.status();
    return StepResult::kOk;
  }
  StepResult Act(const Plan& c, Status* outcome, std::string* message) {
    *message = CheckUnbound(c.name);
    if (!message->empty()) return StepResult::kMalformed;
    if (!c.spec.budget.empty() && FindBudget(c.spec.budget) == nullptr) {
      *message = UseError(c.spec.budget, "budget");
      return StepResult::kMalformed;
    }
    StatusOr<std::shared_ptr<SpillManager>> plan = BuildPlan(c.spec);
    *outcome = plan.status();
    if (plan.ok()) plans.emplace(c.name, std::move(*plan));
    return StepResult::kOk;
  }
  StepResult Act(const SetQuirk& c, Status*, std::string*) {
    quirks = quirks.With(c.quirk);
    return StepResult::kOk;
  }
  StepResult Act(const Spill& c, Status* outcome, std::string* message) {
    *message = CheckUnbound(c.file);
    if (!message->empty()) return StepResult::kMalformed;
    SpillManager* plan = FindPlan(c.plan, message);
    if (plan == nullptr) return StepResult::kMalformed;
    StatusOr<SpillFile> file =
        plan->CreateTempFile(c.description.empty() ? Spill::kDefaultDescription : c.description);
    *outcome = file.status();
    if (file.ok()) files.emplace(c.file, std::move(*file));
    return StepResult::kOk;
  }
  StepResult Act(const Write& c, Status* outcome, std::string* message) {
    const SpillFile* file = FindFile(c.file, message);
    if (file == nullptr) return StepResult::kMalformed;
    StatusOr<std::string_view> bytes = data.Get(c.size);
    if (!bytes.ok()) {
      *outcome = bytes.status();
      return StepResult::kOk;
    }
    SpillWriter writer(*file);
    *outcome = writer.Write(*bytes);
    return StepResult::kOk;
  }
  StepResult Act(const Read& c, Status* outcome, std::string* message) {
    const SpillFile* file = FindFile(c.file, message);
    if (file == nullptr) return StepResult::kMalformed;
    StatusOr<std::string> bytes = ReadSpillFile(*file);
    last_read = bytes.ok() ? std::move(*bytes) : std::string();
    *outcome = bytes.status();
    return StepResult::kOk;
  }
  StepResult Act(const Clone& c, Status*, std::string* message) {
    *message = CheckUnbound(c.name);
    if (!message->empty()) return StepResult::kMalformed;
    const SpillFile* file = FindFile(c.file, message);
    if (file == nullptr) return StepResult::kMalformed;
    files.emplace(c.name, *file);
    return StepResult::kOk;
  }
  StepResult Act(const Drop& c, Status*, std::string* message) {
    if (files.erase(c.name) == 0 && plans.erase(c.name) == 0 && budgets.erase(c.name) == 0) {
      *message = UseError(c.name, "plan, file or budget");
      return StepResult::kMalformed;
    }
    dropped.insert(c.name);
    return StepResult::kOk;
  }
  StepResult Act(const SetLimit& c, Status* outcome, std::string* message) {
    if (SpillBudget* budget = FindBudget(c.plan)) {
      budget->SetLimit(c.size);
      return StepResult::kOk;
    }
    SpillManager* plan = FindPlan(c.plan, message);
    if (plan == nullptr) return StepResult::kMalformed;
    *outcome = plan->SetMaxTempDirectorySize(c.size);
    return StepResult::kOk;
  }
  StepResult Act(const Fault& c, Status*, std::string* message) {
    if (c.rule.error_number == 0 && c.rule.action == FaultAction::kFail) {
      *message = "a fault needs a non-zero errno";
      return StepResult::kMalformed;
    }
    // A rule Linux could never honour is malformed here too, not silently dropped (a
    // command built without the parser, as the simulator's, meets the same check).
    if (Status added = fs->TryAddRule(c.rule); !added.ok()) {
      *message = added.message();
      return StepResult::kMalformed;
    }
    return StepResult::kOk;
  }
  StepResult Act(const ShortWrite& c, Status*, std::string* message) {
    const SpillFile* file = FindFile(c.file, message);
    if (file == nullptr) return StepResult::kMalformed;
    // Spill paths are made of the local dir as written, "datafusion-", ".tmp." and
    // random alphanumerics; only a local dir spelled with '*' or '?' would make this
    // glob match more than the one file.
    fs->AddShortWrite(file->path(), c.bytes);
    return StepResult::kOk;
  }
  StepResult Act(const Clean& c, Status* outcome, std::string*) {
    *outcome = CleanGlob(c.glob);
    return StepResult::kOk;
  }
  StepResult Act(const Budget& c, Status*, std::string* message) {
    *message = CheckUnbound(c.name);
    if (!message->empty()) return StepResult::kMalformed;
    std::shared_ptr<SpillBudget> budget = NewSpillBudget(c.size);
    made_budgets.emplace(c.name, budget);
    budgets.emplace(c.name, std::move(budget));
    return StepResult::kOk;
  }
  StepResult Act(const Crash&, Status*, std::string*) {
    KillProcess();
    return StepResult::kOk;
  }
  StepResult Act(const Kill& c, Status*, std::string* message) {
    FaultRule rule;
    rule.action = FaultAction::kKill;
    rule.after = c.call - 1;
    if (Status added = fs->TryAddRule(rule); !added.ok()) {
      *message = added.message();
      return StepResult::kMalformed;
    }
    return StepResult::kOk;
  }
#ifdef SPILLWAY_TRIAL_VERB
  StepResult Act(const Note&, Status*, std::string*) { return StepResult::kOk; }
#endif
  StepResult Act(const Reap& c, Status* outcome, std::string*) {
    ReapOptions reap_options;
    reap_options.quirks = quirks;
    last_reap = ReapOrphans(*process, c.local_dirs, reap_options);
    *outcome = last_reap.status;
    return StepResult::kOk;
  }

  // The process dies (kill -9) and another starts. The dead process's filesystem is
  // killed first, so that destroying its files, plans and budgets removes nothing; the
  // kernel's part is closing their descriptors, which releases their flocks on a real
  // disk, and MemFileSystem::Crash() does the same for the in-memory one. The failures
  // its destructors record (ESRCH) die with it: the new process starts a log of its own
  // that holds what the dead one had recorded before.
  void KillProcess() {
    auto next_log = std::make_shared<CleanupLog>();
    next_log->TakeFrom(*cleanup_log);  // Moved, not copied: the log grows with the run.
    process->Kill();
    if (mem != nullptr) mem->Crash();
    for (const auto& [name, file] : files) crashed.insert(name);
    for (const auto& [name, plan] : plans) crashed.insert(name);
    for (const auto& [name, budget] : budgets) crashed.insert(name);
    files.clear();
    plans.clear();
    budgets.clear();
    made_budgets.clear();
    shared_cache = NewSharedManagerCache();
    cleanup_log = std::move(next_log);
    process = NewProcessFileSystem(fs);
  }

  // After a line during which a `kill` fired: the process is dead, as after `crash`, and
  // the next one has a filesystem of its own over the same target (the dead one's fault
  // rules die with it).
  void RestartIfKilled() {
    if (!fs->killed()) return;
    killed_fs = fs;
    fs = NewFaultInjectingFileSystem(base, options.seed);
    ++kills;
    KillProcess();
  }

  // The checks: each gives kOk when its expectation holds, kExpectationFailed with
  // "expected ..., got ..." in `message`, or kMalformed.
  static StepResult Fail(std::string* message, std::string text) {
    *message = std::move(text);
    return StepResult::kExpectationFailed;
  }
  StepResult Check(const ExpectOk&, std::string* message) {
    if (last_outcome.ok()) return StepResult::kOk;
    return Fail(message, fmt::format("expected ok, got {}", Describe(last_outcome)));
  }
  StepResult Check(const ExpectError& c, std::string* message) {
    if (!last_outcome.ok() && OutcomeName(last_outcome) == c.error) return StepResult::kOk;
    return Fail(message, fmt::format("expected error {}, got {}", c.error, Describe(last_outcome)));
  }
  StepResult Check(const ExpectUsed& c, std::string* message) {
    // A dropped budget is still read while its plans keep it alive: the scenario dropped
    // its reference, not the budget.
    std::shared_ptr<const SpillBudget> budget = LiveBudget(c.plan);
    if (budget == nullptr && dropped.count(c.plan) != 0 && made_budgets.count(c.plan) != 0) {
      *message = fmt::format("\"{}\" was dropped, and no plan keeps the budget alive", c.plan);
      return StepResult::kMalformed;
    }
    const SpillManager* plan = budget != nullptr ? nullptr : FindPlan(c.plan, message);
    if (budget == nullptr && plan == nullptr) return StepResult::kMalformed;
    const uint64_t used = budget != nullptr ? budget->used() : plan->used_disk_space();
    if (used == c.size) return StepResult::kOk;
    return Fail(message, fmt::format("expected used {} {}, got {}", c.plan, c.size, used));
  }
  StepResult Check(const ExpectFiles& c, std::string* message) {
    const SpillManager* plan = FindPlan(c.plan, message);
    if (plan == nullptr) return StepResult::kMalformed;
    const uint64_t active = plan->spilling_progress().active_files_count;
    if (active == c.count) return StepResult::kOk;
    return Fail(message, fmt::format("expected files {} {}, got {}", c.plan, c.count, active));
  }
  StepResult Check(const ExpectSpilled& c, std::string* message) {
    const SpillManager* plan = FindPlan(c.plan, message);
    if (plan == nullptr) return StepResult::kMalformed;
    const uint64_t spilled = plan->metrics().spilled;
    if (spilled == c.size) return StepResult::kOk;
    return Fail(message, fmt::format("expected spilled {} {}, got {}", c.plan, c.size, spilled));
  }
  StepResult Check(const ExpectSpills& c, std::string* message) {
    const SpillManager* plan = FindPlan(c.plan, message);
    if (plan == nullptr) return StepResult::kMalformed;
    const uint64_t spills = plan->metrics().spills;
    if (spills == c.count) return StepResult::kOk;
    return Fail(message, fmt::format("expected spills {} {}, got {}", c.plan, c.count, spills));
  }
  StepResult Check(const ExpectSize& c, std::string* message) {
    const SpillFile* file = FindFile(c.file, message);
    if (file == nullptr) return StepResult::kMalformed;
    if (file->size() == c.size) return StepResult::kOk;
    return Fail(message, fmt::format("expected size {} {}, got {}", c.file, c.size, file->size()));
  }
  StepResult Check(const ExpectCount& c, std::string* message) {
    const std::vector<std::string> matches = ExpandGlob(*base, c.glob);
    if (matches.size() == c.count) return StepResult::kOk;
    return Fail(message,
                fmt::format("expected count {} {}, got {}{}{}", c.glob, c.count, matches.size(),
                            matches.empty() ? "" : ": ", fmt::join(matches, " ")));
  }
  StepResult Check(const ExpectExists& c, std::string* message) {
    StatusOr<FileStat> st = base->Stat(c.path);
    if (st.ok()) return StepResult::kOk;
    return Fail(message, fmt::format("expected exists {}, got missing ({})", c.path,
                                     OutcomeName(st.status())));
  }
  StepResult Check(const ExpectMissing& c, std::string* message) {
    StatusOr<FileStat> st = base->Stat(c.path);
    if (!st.ok() && (st.status().IsErrno(ENOENT) || st.status().IsErrno(ENOTDIR))) {
      return StepResult::kOk;
    }
    if (!st.ok()) {
      return Fail(message,
                  fmt::format("expected missing {}, got {}", c.path, Describe(st.status())));
    }
    return Fail(message, fmt::format("expected missing {}, got exists (a {})", c.path,
                                     st->type == FileType::kDirectory ? "directory" : "file"));
  }

  // One step of either kind: an act records its outcome; a check needs an act before it.
  template <typename V>
  StepResult Step(const V& verb, std::string* message) {
    if constexpr (V::kIsExpect) {
      if (!seen_act) {
        *message = "expect before any command: there is no outcome to check yet";
        return StepResult::kMalformed;
      }
      return Check(verb, message);
    } else {
      Status outcome;
      const StepResult result = Act(verb, &outcome, message);
      RestartIfKilled();
      if (result == StepResult::kOk) {
        last_outcome = std::move(outcome);
        seen_act = true;
      }
      return result;
    }
  }
};

Runner::Runner(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

StatusOr<std::unique_ptr<Runner>> Runner::Create(RunnerOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->quirks = options.quirks;
  if (options.fs == FsKind::kMem) {
    // Without root's override, as on the real disk, a directory's permissions are checked.
    MemFileSystemOptions mem_options;
    mem_options.seed = options.seed;
    mem_options.enforce_permissions = ::geteuid() != 0;
    impl->mem = NewMemFileSystem(mem_options);
    impl->base = impl->mem;
  } else {
    std::string root = options.posix_root;
    if (root.empty()) {
      std::string tmpl = TempBase() + "/spillway-run-XXXXXX";
      if (::mkdtemp(tmpl.data()) == nullptr) {
        return Status::FromErrno(errno, "mkdtemp", tmpl);
      }
      root = tmpl;
      impl->private_root = root;
    } else {
      struct stat st;
      if (root.front() != '/' || ::stat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        return Status::InvalidArgument(
            fmt::format("root \"{}\" is not an absolute path to an existing directory", root));
      }
    }
    PosixFileSystemOptions posix_options;
    posix_options.root = root;
    impl->base = NewPosixFileSystem(posix_options);
    // The in-memory filesystem starts with an empty /tmp; so does this one.
    Status tmp = impl->base->CreateDir("/tmp");
    if (!tmp.ok() && !tmp.IsErrno(EEXIST)) {
      // Let the Runner's destructor remove the private root.
      Runner cleanup(std::move(impl));
      return tmp;
    }
  }
  impl->fs = NewFaultInjectingFileSystem(impl->base, options.seed);
  impl->process = NewProcessFileSystem(impl->fs);
  impl->options = std::move(options);
  return std::unique_ptr<Runner>(new Runner(std::move(impl)));
}

Runner::~Runner() {
  if (impl_ == nullptr) return;
  DropAll();
  // Managers cached under the shared_limit quirk live as long as the run.
  impl_->shared_cache.reset();
  const std::string root = impl_->private_root;
  impl_.reset();  // Closes every file before the tree goes.
  if (!root.empty()) {
    // RemoveTree never follows a symlink, so a link a scenario planted cannot reach
    // outside the root. A failure leaves a stray directory in the temp dir; there is no
    // one to report it to from a destructor.
    Status removed = NewPosixFileSystem()->RemoveTree(root);
    if (!removed.ok()) {
      std::fprintf(stderr, "spillway: could not remove %s: %s\n", root.c_str(),
                   removed.ToString().c_str());
    }
  }
}

StepResult Runner::Step(const Command& command, std::string* message) {
  message->clear();
  return std::visit([&](const auto& verb) { return impl_->Step(verb, message); }, command.verb);
}

const Status& Runner::last_outcome() const { return impl_->last_outcome; }
const ReapReport& Runner::last_reap() const { return impl_->last_reap; }
uint64_t Runner::kills() const { return impl_->kills; }
const std::string& Runner::last_read() const { return impl_->last_read; }
FaultInjectingFileSystem& Runner::fs() { return *impl_->fs; }
FileSystem& Runner::base_fs() { return *impl_->base; }

SpillManager* Runner::plan(const std::string& name) {
  auto it = impl_->plans.find(name);
  return it == impl_->plans.end() ? nullptr : it->second.get();
}

const SpillFile* Runner::file(const std::string& name) {
  auto it = impl_->files.find(name);
  return it == impl_->files.end() ? nullptr : &it->second;
}

std::shared_ptr<const SpillBudget> Runner::budget(const std::string& name) const {
  return impl_->LiveBudget(name);
}

std::vector<std::string> Runner::plan_names() const {
  std::vector<std::string> names;
  for (const auto& [name, plan] : impl_->plans) names.push_back(name);
  return names;
}

std::vector<std::string> Runner::file_names() const {
  std::vector<std::string> names;
  for (const auto& [name, file] : impl_->files) names.push_back(name);
  return names;
}

std::shared_ptr<CleanupLog> Runner::cleanup_log() const { return impl_->cleanup_log; }

void Runner::DropAll() {
  while (!impl_->files.empty()) {
    impl_->dropped.insert(impl_->files.begin()->first);
    impl_->files.erase(impl_->files.begin());
  }
  while (!impl_->plans.empty()) {
    impl_->dropped.insert(impl_->plans.begin()->first);
    impl_->plans.erase(impl_->plans.begin());
  }
  for (const auto& [name, budget] : impl_->budgets) impl_->dropped.insert(name);
  impl_->budgets.clear();
}

}  // namespace spillway::scenario
