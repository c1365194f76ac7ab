// The spill model: how spill files, spill directories and their accounting must behave,
// as a stateful model whose commands are scenario lines. Plain C++: `spillway simulate`
// drives it with a seeded generator, and the property tests (tests/property/) wrap its
// commands as RapidCheck state commands.
//
// SpillModel is what a correct spill manager's state must be after a sequence of scenario
// commands, computed without running one. Each SpillCommand is one scenario line (a
// scenario::Command) plus the `expect` lines the model predicts right after it; the system
// under test is a scenario::Runner, which runs both. So a failing, shrunk program printed
// as a counterexample is a scenario file, and `spillway run` replays it.
//
// The model predicts every outcome exactly (ok, an errno name, LIMIT, DISABLED), because it
// knows which filesystem calls each operation makes and in what order, and so which call
// an injected fault rule (`fault OP ERRNO`, always after=0) fails:
// - a plan's directories (the first spill of a lazy plan, the build of an eager one): per
//   local dir a stat, a mkdir of the local dir when it is missing, a mkdir of the
//   "datafusion-*" directory; when one fails, the directories made so far are removed (a
//   list, a remove per file made in it, an rmdir) and the error is returned (with
//   failover=on, the build goes on and fails only when every local dir failed). With
//   layout=each the build makes nothing;
// - a spill: a create in one of the plan's directories; with missing_dir=recreate an
//   ENOENT there makes a new directory in the same local dir (stat, mkdir) and creates
//   again. With layout=each a slot without a directory first makes one (stat, mkdir),
//   which stays in the slot even when the create then fails. With failover=on a failed
//   attempt goes on to the plan's next slot until one succeeds or every one failed (the
//   first error is the outcome);
// - a write: nothing when the bytes would take used_disk_space over the limit (LIMIT),
//   else one append: an injected fault stores nothing, a pending short write stores its
//   bytes then fails with EIO, a full in-memory filesystem stores what fits then fails
//   with ENOSPC; exactly the stored bytes are counted;
// - the drop of a file's last handle: its bytes leave used_disk_space and the active-file
//   count, and one remove of the file;
// - once a plan and every file it made are gone: its directories are removed together, in
//   order, each as a list, a remove per file its manager made there, an rmdir; a failed
//   removal leaves the path behind, recorded in the CleanupLog.
// Faults state facts that the fault injector makes true first (docs/scenarios.md): an
// injected ENOENT removes what the call names (a create's spill directory, a unique
// mkdir's local dir, a removal's path) with everything in it; an injected EEXIST on a
// unique name leaves a racing process's entry there and the call succeeds; on the mkdir of
// a missing local dir it makes the dir, which the manager accepts. A stat rule's ENOENT
// only says the local dir is missing. The generator draws only errnos the call can return
// on Linux (OpKindCanReturn).
//
// Beyond upstream:
// - a plan with budget=B: a write must also fit the budget (its plans' used bytes summed),
//   checked after the plan's own limit; a refused write counts in neither;
// - `crash`: every plan, file and budget is forgotten and nothing is removed; the crashed
//   plans' directories and files stay on disk, unlocked (valid only when no os_tmp plan
//   has a directory, which `reap` does not look at);
// - `kill N` (valid only while no fault rule is due, no kill is pending and no os_tmp plan
//   is alive): the process dies at its N-th call from there on, counted over every call
//   the operations above make: that call and every later one fail without effect (the
//   operation goes on as after any failed call), and after the line the process crashes
//   as by `crash` and the next one has no rules; what the dead one left (a directory made
//   and not yet used) is counted right away;
// - `reap DIRS` (valid only while no fault rule is due): every spill directory on disk in
//   those local dirs that no live plan holds (a crashed plan's, one a failed removal left
//   behind) is removed with its files; a live plan's are untouched;
// - metrics: a successful spill counts one spill, every stored byte counts as spilled;
// - frame=on: a write appends a 20-byte frame header and then its bytes (two appends, the
//   limit checked on both together; an empty write appends a header); `read FILE` is one
//   read call: its errno, else DATA_LOSS when the file holds damage (a corrupt or lost
//   write of at least one byte, a frame a failed write cut short, or a `read corrupt` of
//   a non-empty file), else ok. Without framing a damaged file reads back ok, wrong.
// The printed expectations cover what a line changes; after every line every invariant is
// checked too (CheckInvariants), through the same `expect` lines where the language has
// one, and a violation names the line that does not hold.
//
// A spill file goes into one of its plan's local dirs at random, so where the model cannot
// know the outcome (for instance a tmp cleaner removing one of a two-dir plan's spill
// directories while it holds files, or a layout=each spill that makes the directories of
// some of a plan's local dirs but not all) the command is not valid in that state and is
// not generated (see SpillCommand::IsValid).
//
// Thread safety: a SpillModel and its commands are values; distinct models may be used
// from different threads. A SpillSut is driven by one thread. GenerateCommand may run in
// several threads at once, each with its own Chooser.
#ifndef SPILLWAY_MODEL_SPILL_MODEL_H_
#define SPILLWAY_MODEL_SPILL_MODEL_H_

#include <cstdint>
#include <deque>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spillway/model/model_rules.h"
#include "spillway/scenario/scenario.h"
#include "spillway/spill/quirks.h"
#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vocab/vocab.h"

namespace spillway {
class DiskManager;
}  // namespace spillway

namespace spillway::model {

// The local dirs a generated program uses are /l0 .. /l3; index kTmpDir stands for the
// filesystem's temp dir (/tmp), where an os_tmp plan spills.
inline constexpr int kMaxLocalDirs = 4;
inline constexpr int kTmpDir = kMaxLocalDirs;
// "/l0" .. "/l3", or "/tmp" for kTmpDir.
std::string LocalDirPath(int index);

// What a generated program may contain.
struct GenOptions {
  // Local dirs used: /l0 .. /l{local_dirs-1}. REQUIRES: 1 <= local_dirs <= kMaxLocalDirs.
  int local_dirs = 3;
  // At most this many plans and file names are bound at once (more are not generated).
  int max_live_plans = 3;
  int max_live_files = 6;
  // Relative weight of `fault` commands among all commands (the other verbs weigh 2 to
  // 20, OtherVerbsWeight() in all); `short_write` weighs a third of it. 0: none.
  int fault_weight = 8;
  // `capacity` commands (the in-memory filesystem only; ignored on a real disk).
  bool capacity = true;
  // Percent of `fault` commands that fail every later matching call (times=forever)
  // rather than the next one. REQUIRES: 0 <= forever_percent <= 100.
  int forever_percent = 10;
};

// The limit rule of a write: whether `bytes` written through a file of a plan holding
// `used` bytes under `limit` get past the limit check. An empty write always does (it
// makes no filesystem call and counts nothing); otherwise the limit is checked before
// anything is written, and bytes that would take used over it are refused (LIMIT),
// neither written nor counted; used may already be over a lowered limit. Shared by the
// model's `write` and the sweep's expectations.
bool PassesLimit(uint64_t used, uint64_t limit, uint64_t bytes);

// The sum of the nominal generator weights of the verbs other than `fault` and
// `short_write` (model/command_generator.cc's table), for turning a fault rate into
// GenOptions::fault_weight.
int OtherVerbsWeight();

// The source of every random choice made while generating a command, so that the same
// generation code serves a seeded simulation and a property-test framework that shrinks
// choices toward 0. Not copyable: a generator draws through a reference to the
// interface. Implementations are not thread-safe.
class Chooser {
 public:
  Chooser() = default;
  virtual ~Chooser() = default;

  Chooser(const Chooser&) = delete;
  Chooser& operator=(const Chooser&) = delete;

  // A number in [0, n). Smaller is simpler. REQUIRES: n > 0.
  virtual uint64_t Pick(uint64_t n) = 0;
};

// Choices from a seeded std::mt19937_64: the same seed gives the same choices.
class RandomChooser final : public Chooser {
 public:
  explicit RandomChooser(uint64_t seed) : rng_(seed) {}
  uint64_t Pick(uint64_t n) override;

 private:
  std::mt19937_64 rng_;
};

// One "datafusion-*" spill directory a manager made.
struct ModelDir {
  int local_dir = 0;    // Index (kTmpDir for the temp dir).
  bool on_disk = true;  // False once removed (by its manager, a cleaner or a fault).
  // Files a racing process made in it (an injected EEXIST): no manager removes them, so
  // the directory stays too.
  int foreign_files = 0;
  bool crashed = false;  // On disk when the process crashed: only a reap removes it.
};

// One spill file (all clones of it share it).
struct ModelFile {
  int plan = 0;         // Id of the plan whose manager made it.
  int dir = -1;         // Id of its directory; -1 when the plan has several and the
                        // manager chose one at random.
  uint64_t size = 0;    // Bytes in the file, and counted in its plan's used_disk_space.
  int refs = 0;         // Bound names (handles); 0 once dropped.
  bool on_disk = true;  // The directory entry exists.
  std::deque<uint64_t> short_writes;  // Pending `short_write` byte counts, in order.
  // Byte ranges [first, second) whose content is not what was written: a corrupt or lost
  // write's, and (framed) a frame cut short by a failed write. A framed file with any
  // reads back as DATA_LOSS; a plain one reads back as ok, with these bytes wrong.
  std::vector<std::pair<uint64_t, uint64_t>> damaged;
};

enum class PlanKind { kLazy, kEager, kOsTmp, kDisabled };

// One plan's manager.
struct ModelPlan {
  std::string name;
  PlanKind kind = PlanKind::kLazy;
  std::vector<int> local_dirs;  // Indexes, as written (kTmpDir for os_tmp).
  uint64_t limit = 0;
  bool recreate = false;  // missing_dir=recreate.
  bool each = false;      // layout=each: a slot's directory is made by its first file.
  bool failover = false;  // failover=on.
  bool framed = false;    // frame=on: its files are framed and checked when read.
  bool bound = true;      // The plan's name is bound (not dropped).
  bool built = false;     // Its directories were made (slots is filled).
  bool finished = false;  // Its directories were removed (plan and files gone), or it
                          // died in a crash (they never will be).
  // Directory ids, one per local dir, once built; -1 for a slot whose directory is not
  // made (layout=each before a file lands there, or a failover build's failed slot).
  std::vector<int> slots;
  int stale_dirs = 0;    // Directories replaced after a cleaner removed them.
  uint64_t used = 0;     // Sum of its live files' sizes.
  uint64_t active = 0;   // Its live files.
  int budget = -1;       // Id of its budget (budget=B); -1 for none.
  bool crashed = false;  // Its process crashed: its directories and files stay on disk.
  uint64_t spills = 0;   // Metrics: spill files it created ...
  uint64_t spilled = 0;  // ... and bytes that reached them; neither ever goes down.
};

// One executor-wide budget (`budget NAME SIZE`). Its usage is not stored: it is the sum
// of its plans' used bytes (SpillModel::BudgetUsed).
struct ModelBudget {
  std::string name;
  uint64_t limit = 0;
  bool bound = true;  // The name is bound (not dropped); plans keep the budget alive.
};

// A set of scenario names whose size does not grow with a run: the generated "p<N>",
// "f<N>" and "b<N>" are used in increasing order, so each prefix keeps a watermark below
// which every number is in the set and the few numbers above it.
// clang-tidy 14 reports a name of its own making ('__i0') on this class.
// NOLINTNEXTLINE(bugprone-reserved-identifier,readability-identifier-naming)
class NameSet {
 public:
  bool Contains(const std::string& name) const;
  void Insert(const std::string& name);
  // The first name "<prefix><N>" with N >= from that is not in the set. REQUIRES: prefix
  // is 'p', 'f' or 'b'; from >= 0.
  std::string FirstFree(char prefix, int from) const;

 private:
  // The numbers of one prefix in the set: every N < below, and those in above (all >
  // below).
  struct Numbers {
    int below = 0;
    std::set<int> above;
    bool Contains(int n) const { return n < below || above.count(n) != 0; }
    void Insert(int n);
  };
  // The N of "<prefix><N>" written without leading zeros (at most 9 digits); -1 for any
  // other name.
  static int Number(const std::string& name, char prefix);

  static constexpr char kPrefixes[] = {'p', 'f', 'b'};  // Plans, files, budgets.
  Numbers numbers_[std::size(kPrefixes)];               // By prefix, in kPrefixes order.
  std::set<std::string> others_;                        // Every other name.
};

// The whole state: the managers, their files and directories, the filesystem's local dirs,
// its fault rules and capacity, and the scenario's names.
struct SpillModel {
  std::map<int, ModelPlan> plans;
  std::map<int, ModelFile> files;
  std::map<int, ModelDir> dirs;
  std::map<int, ModelBudget> budgets;
  int next_id = 0;                          // For plans, files and dirs alike.
  std::map<std::string, int> plan_names;    // Bound plan names -> plan id.
  std::map<std::string, int> file_names;    // Bound file names -> file id.
  std::map<std::string, int> budget_names;  // Bound budget names -> budget id.
  NameSet used_names;                       // Every name ever bound, dropped or failed.
  int plan_counter = 0;                     // For fresh names p0, p1, ...
  int file_counter = 0;                     // For fresh names f0, f1, ...
  // Which local dirs exist; [kTmpDir] is the temp dir, which only a fault removes.
  bool root_exists[kMaxLocalDirs + 1] = {};
  // Spill-directory-named directories a racing process made in each local dir (an
  // injected EEXIST on a unique mkdir), which no manager removes; [kTmpDir] in /tmp.
  int foreign_dirs[kMaxLocalDirs + 1] = {};
  ModelRules rules;  // The fault rules due.
  // Whether `capacity` is enforced: by the in-memory filesystem, not by a real disk.
  bool enforce_capacity = true;
  std::optional<uint64_t> capacity;
  // Removals of stale directories (missing ones a recreate replaced) whose moment is not
  // part of the contract: each is one list call, at the latest when its plan finishes.
  // While any is pending, a `fault list` that fails only once is not generated.
  int pending_stale_lists = 0;

  // Bytes the in-memory filesystem holds: files on disk or still open.
  uint64_t MemBytes() const;
  // "datafusion-*" directories on disk in local dir `local_dir`.
  uint64_t SpillDirCount(int local_dir) const;
  // Files on disk in spill directories under the local dirs (tmp == false) or under /tmp
  // (tmp == true): the managers' and the foreign ones.
  uint64_t SpillFileCount(bool tmp) const;
  // Of those, the managers' spill files.
  uint64_t ManagedFileCount(bool tmp) const;
  // The used bytes of budget `id`: the sum of its plans' used bytes.
  uint64_t BudgetUsed(int id) const;
};

// The state before any command, on the filesystem `fs` runs on.
SpillModel InitialState(scenario::FsKind fs);

// The system under test: a scenario Runner (spillway/scenario/scenario.h), not owned.
struct SpillSut {
  scenario::Runner* runner = nullptr;
  uint64_t checks = 0;  // Invariants and expectations checked so far.
  // Each plan's inner manager, by plan name, from the first check after it had one until
  // the model says the plan and its files are gone: for the cross-plan checks.
  std::map<std::string, std::weak_ptr<DiskManager>> inner_managers = {};
};

// The invariant a violation breaks, and its name ("outer_accounting"): the shared
// vocabulary's (spillway/vocab/vocab.h), where their one table is.
using vocab::InvariantKind;
using vocab::InvariantKindName;

// The invariant whose violation shows quirk `q`'s defect (the model's one table of them);
// nullopt for a quirk the table does not name yet.
std::optional<InvariantKind> QuirkInvariant(Quirk q);

// Whether a scenario file can show a violation of `kind`: every kind but kLeftover, a path
// left that no CleanupLog record reports, which the scenario language cannot read (a
// reported one looks the same on disk). A replayed counterexample of it passes.
bool ScenarioShows(InvariantKind kind);

// A difference between the model and the system under test.
struct Violation {
  InvariantKind kind = InvariantKind::kOutcome;  // The invariant broken.
  std::string message;                           // What was expected and what was found.
};

// `quirk NAME` lines, one per quirk in `quirks` (in declaration order), each followed by
// a newline: what a scenario needs to show the quirks without --quirk.
std::string QuirkLines(Quirks quirks);

// One model command: a scenario line and the expectations the model predicts after it.
class SpillCommand {
 public:
  virtual ~SpillCommand() = default;
  SpillCommand(const SpillCommand&) = delete;
  SpillCommand& operator=(const SpillCommand&) = delete;

  // The scenario line and the `expect` lines printed after it.
  const scenario::Command& line() const { return line_; }
  const std::vector<scenario::Command>& expects() const { return expects_; }
  // The invariant each of expects() checks, in the same order.
  const std::vector<InvariantKind>& expect_kinds() const { return expect_kinds_; }

  // The line and its expects as scenario text, one per line, no trailing newline.
  std::string ToText() const;

  // Runs the line; checks the invariants that name a defect (CheckDefectInvariants), then
  // its expects, then every invariant against the model's next state. Returns the first
  // violation, if any. REQUIRES: IsValid(s0).
  std::optional<Violation> Execute(const SpillModel& s0, SpillSut& sut) const;

  // True when the line may run in s0 (names bound as it needs, outcome predictable) and
  // the expectations computed at construction are the ones s0 gives.
  bool IsValid(const SpillModel& s0) const;

  // Advances s0 to the state after the line. REQUIRES: IsValid(s0).
  void Apply(SpillModel& s0) const;

  // What the printed expectations of a line cover (the invariants checked after every
  // line cover everything).
  struct Affected {
    std::set<int> used;           // Plan ids whose used_disk_space is printed.
    std::set<int> budgets;        // Budget ids whose used bytes are printed.
    std::set<int> metrics;        // Plan ids whose spills and spilled bytes are printed.
    std::set<int> active;         // Plan ids whose active-file count is printed.
    std::set<std::string> sizes;  // File names whose size is printed.
    std::set<int> local_dirs;     // Local dirs whose spill directories are counted.
    bool file_count = false;      // Count the spill files on disk.
    bool outcome = true;          // Print expect ok / expect error.
    // The line removes what no live plan holds (a reap): its printed counts check the reap
    // invariant, and the live plans' directories are checked before them.
    bool reaps = false;
  };

 protected:
  explicit SpillCommand(scenario::Command line) : line_(std::move(line)) {}

  // The verb's transition: advances `s` by the line and returns the outcome's code name
  // ("OK", an errno name, "LIMIT", "DISABLED"); nullopt when the line is not valid in `s`
  // or its outcome is not predictable there. Fills `affected`.
  virtual std::optional<std::string> Transition(SpillModel& s, Affected* affected) const = 0;

  // Computes expects_ from s0; returns false when the line is not valid in s0.
  bool Init(const SpillModel& s0);

 private:
  scenario::Command line_;
  std::vector<scenario::Command> expects_;
  std::vector<InvariantKind> expect_kinds_;
  bool reaps_ = false;  // Affected::reaps of the line, from Init.
};

using CommandPtr = std::shared_ptr<const SpillCommand>;

// The model command for a scenario line in state s0, or null when the line is not one the
// model knows (an expect, `file`, `quirk`, ...) or is not valid in s0.
CommandPtr MakeCommand(const scenario::Command& line, const SpillModel& s0);

// A random command valid in s0, or null when the choices led to none.
CommandPtr GenerateCommand(const SpillModel& s0, const GenOptions& options, Chooser& chooser);

// Every invariant, checked against the runner after a command: first each bound budget's
// usage and limit, each live plan's directories, and each bound plan's metrics (see
// Violation); then each bound plan's
// used_disk_space and active-file count, each bound file's size, each local dir's spill
// directories, the spill files on disk, which local dirs exist, and that a plan's limit
// is the one set. Runs the checks that have a scenario form as `expect` lines through the
// runner.
std::optional<Violation> CheckInvariants(const SpillModel& s, SpillSut& sut);

// The invariants that name a defect, checked right after `line` took the model from s0
// to s1 and before its expectations, so that a defect is reported as the invariant it
// breaks and not as the first printed expectation its side effects upset. In order:
// cross-plan visibility (each bound plan's inner manager is its own, and a plan whose
// name and files are gone has released it), outer accounting (a plan's manager reports
// its inner manager's usage, metrics, progress and limit), directories before the first
// spill (a `plan` line of a plan that is not eager makes no filesystem call, and a lazy
// plan that has not spilled has no inner manager), and accounting after drops (each bound
// plan's used_disk_space is the sum of its live files' sizes). `calls_before` is the
// filesystem's total_calls() before the line.
std::optional<Violation> CheckDefectInvariants(const SpillModel& s1, const scenario::Command& line,
                                               uint64_t calls_before, SpillSut& sut);

// The end of a run: drops every bound file (in name order) and then every bound plan, as
// model commands, appending their scenario text to `*text`; then checks that the
// filesystem holds nothing a manager made except paths the CleanupLog reports as left
// behind. `s` ends as the final state.
std::optional<Violation> DropEverything(SpillModel& s, SpillSut& sut, std::string* text);

// The commands as a scenario: each line followed by its expectations, one per line, with
// a newline after the last.
std::string ScenarioText(const std::vector<CommandPtr>& commands);

// A program: commands in order and the state after them.
struct Program {
  std::vector<CommandPtr> commands;
  SpillModel state;
};

// Rebuilds model commands from scenario lines, for a run on `fs` (expect lines are
// skipped; a line that is not valid where it stands is dropped). Used to shrink a failing
// run and to replay a printed counterexample.
Program ProgramFromLines(const std::vector<scenario::Command>& lines,
                         scenario::FsKind fs = scenario::FsKind::kMem);

// Runs a program on a fresh runner, then DropEverything. Returns the first violation.
// REQUIRES: the program was built for options.fs.
// `*text`, when given, receives the program's scenario text up to the violation (or the
// whole of it, drops included).
std::optional<Violation> RunProgram(const Program& program, const scenario::RunnerOptions& options,
                                    std::string* text = nullptr);

}  // namespace spillway::model

#endif  // SPILLWAY_MODEL_SPILL_MODEL_H_
