// `spillway sweep -- CMD`: runs an unmodified program once without faults (the baseline),
// then once per planned call (by default each call site's first call; with --depth all
// every in-scope call), errno and mode with that call failing (through the launcher,
// inject::Run), and gives every run a verdict (docs/sweep.md).
#ifndef SPILLWAY_PROGRAM_SWEEP_CMD_SWEEP_H_
#define SPILLWAY_PROGRAM_SWEEP_CMD_SWEEP_H_

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/inject/launcher.h"
#include "spillway/vfs/fault_action.h"
#include "spillway/vfs/status.h"
#include "spillway/vocab/vocab.h"

namespace spillway::program_sweep {

// A run's verdicts, in the order reports list them, their names ("clean_error", ...), which
// of them are violations, and the fault modes: the shared vocabulary's
// (spillway/vocab/vocab.h).
using vocab::FaultMode;
using vocab::FaultModeName;
using vocab::IsViolation;
using vocab::kVerdictCount;
using vocab::Verdict;
using vocab::VerdictName;

// The action a mode's rule takes in place of an errno (kill, corrupt, lost); nullopt for
// the errno modes (transient, persistent).
std::optional<FaultAction> ModeAction(FaultMode mode);

// True for the modes that damage data instead of failing a call: corrupt (`read` and
// `write` calls) and lost (`write` calls).
bool IsDamageMode(FaultMode mode);

// Which calls of the baseline the plan fails: each site's first call, its first, second and
// last calls, or every call number.
enum class Depth : uint8_t { kFirst, kEdges, kAll };

constexpr std::string_view DepthName(Depth depth) {
  switch (depth) {
    case Depth::kFirst:
      return "first";
    case Depth::kEdges:
      return "edges";
    case Depth::kAll:
      return "all";
  }
  return {};
}

inline constexpr size_t kDepthCount = vocab::kCountOf<DepthName>;
static_assert(vocab::IsSnakeCaseVocabulary<DepthName>());

// False for a name that is none of the three.
bool DepthFromName(std::string_view name, Depth* depth);

// The word in CMD that each run replaces by its own fresh scope directory.
inline constexpr std::string_view kDirWord = "{dir}";

struct CmdSweepOptions {
  std::string under;         // The scope's parent (or the scope, without {dir}).
  std::vector<int> errnos;   // Empty: DefaultErrnosFor each operation (defaults.h).
  std::vector<uint8_t> ops;  // FaultOp codes to sweep; empty: every operation.
  std::vector<FaultMode> modes = {FaultMode::kTransient, FaultMode::kPersistent, FaultMode::kKill,
                                  FaultMode::kCorrupt, FaultMode::kLost};
  // After a kill run, this shell command (run by /bin/sh -c, {dir} replaced) is run without
  // faults in the killed run's scope instead of the swept command; its output is compared
  // with its own run without faults, made once after the baseline. Unset: the swept command.
  std::optional<std::string> restart;
  int jobs = 1;           // Parallel runs (only with {dir} in the command).
  double timeout = 0;     // Seconds per run; 0: derived from the baseline.
  uint64_t max_runs = 0;  // 0: every run.
  // A run whose planned call never came (diverged) is made again, at most this many more
  // times; the program may reach the call on another try (threads, random order). More for
  // a site that only some baseline runs reached (AttemptsFor).
  int retries = 2;
  // Runs without faults: the plan covers every site any of them reached, so that a program
  // whose threads or timing vary is swept where it sometimes goes.
  int baselines = 1;
  int shard_index = 1;  // 1-based K of --shard K/N.
  int shard_count = 1;
  Depth depth = Depth::kFirst;
  bool scratch = false;       // The scope is temporary space: every leftover is a leak.
  std::string error_pattern;  // ECMAScript regex; empty: none.
  // ECMAScript regexes whose matches in every stdout become one placeholder (mask.h).
  std::vector<std::string> masks;
  std::string baseline_file;   // Record the baseline here, or plan from the one recorded.
  bool compare_stdout = true;  // --compare stdout (false: none).
  std::string out_dir;         // Empty: keep no files of the runs.
  std::vector<std::string> command;
  std::string spillway_binary;  // The spillway executable the reproducers name.
  std::string share_with;       // `spillway inject --share-with USER`; empty: none.
  // False when the runs' sites in Java code keep native frames (--no-java-frames, which
  // sets the shim's switch for every run): the reproducers then pass it on, so that a
  // site id means the same there.
  bool java_frames = true;
  // Trace every run, as the sweep once did (--trace-all). By default only the baselines
  // and the violations --out keeps are traced; a run planned by site is judged by its
  // rule's counters, one planned by call number by its first fault's record.
  bool trace_all = false;
  // Neighbours: before the plan, `neighbour_rounds` rounds of 1 + `neighbours` instances
  // of the command started at once in one scope, without faults, each at an offset seeded
  // by `seed` within the first half of the baseline's time. 0: none. Only shard 1 of N
  // runs them.
  int neighbours = 0;  // 0..kMaxNeighbours.
  int neighbour_rounds = 3;
  // Seeds the neighbours' offsets, and every run's `spillway inject --seed`: the byte and
  // bit a corrupt run flips.
  uint64_t seed = 0;
  // Called after each run (from the thread that ran it, serialised by the sweep).
  std::function<void(uint64_t done, uint64_t total, uint64_t violations)> on_progress;
};

// An entry left under a run's scope after it exited (the launcher's Leftover, its path
// with the run's scope shown as {dir} when the command has one), and what the sweep made
// of it.
struct SweepLeftover : inject::Leftover {
  enum class Kind : uint8_t { kLeak, kLeftByFault, kBaseline };
  Kind kind = Kind::kLeak;
};

constexpr std::string_view LeftoverKindName(SweepLeftover::Kind kind) {
  switch (kind) {
    case SweepLeftover::Kind::kLeak:
      return "leak";
    case SweepLeftover::Kind::kLeftByFault:
      return "left_by_fault";
    case SweepLeftover::Kind::kBaseline:
      return "baseline";
  }
  return {};
}
static_assert(vocab::IsSnakeCaseVocabulary<LeftoverKindName>());

// One in-scope call of a run, from its trace, in the order the calls reached the shim.
struct TracedCall {
  std::string op;    // The rule operation ("write").
  std::string call;  // The C library function ("pwrite64").
  std::string path;  // The resolved path, the scope shown as {dir} when the command has one.
  bool injected = false;
  std::string site;  // 12 hex digits; empty when the trace has no call sites.
  // Its number among the run's in-scope calls as the shim counted them (the trace's
  // "seq"): its place in the trace but for calls whose line never came (a process that
  // died inside a call), which an untraced run's fault record counts too.
  uint64_t seq = 0;
};

// A call site of the baseline: where the program made calls of one operation.
struct SiteInfo {
  std::string id;
  std::string op;    // The operation of its first call; `calls` counts that operation's.
  std::string call;  // The C library function of its first call.
  std::string path;  // Its calls' path pattern: components that differ between calls are *.
  uint64_t calls = 0;
  std::vector<std::string> frames;  // "MODULE+0xOFFSET SYMBOL", innermost first.
  int baselines = 1;                // How many of the baseline's runs reached it.
};

// The run that fails the baseline's call `n` (1-based) with `error_number` in `mode`; in a
// site plan, the `nth` call of `site`.
struct RunSpec {
  uint64_t index = 0;    // Its place in the whole plan (before sampling and sharding).
  uint64_t n = 0;        // 0 in a site plan: call numbers are not planned there.
  TracedCall call;       // The baseline's call n, or the site's first call.
  uint64_t after = 0;    // Earlier baseline calls of the same operation.
  std::string site;      // The call's site; empty when the baseline has none.
  uint64_t nth = 0;      // Which of the site's calls (1-based); 0 without sites.
  bool by_site = false;  // The rule names site= and nth= (not after=).
  int error_number = 0;
  FaultMode mode = FaultMode::kTransient;
};

// The rule that fails the spec's call: `OP ERRNO site=ID nth=K [times=forever then=any]`
// by site, else `OP ERRNO after=N [times=forever]` (persistent: that call and every later
// call of the op, from any site); for a kill, corrupt or lost run `OP ACTION site=ID nth=K`
// or `OP ACTION after=N` (`read corrupt site=ID nth=1`).
std::string FaultRuleFor(const RunSpec& spec);

// The restart after a kill run: the command run again without faults in the killed run's
// scope (or --restart's).
struct RestartResult {
  std::optional<int> exit_code;  // Set when it exited by itself.
  std::optional<int> signal;     // Set when a signal ended it.
  bool timed_out = false;
  bool output_matches = false;           // Its stdout is the expected one (or not compared).
  std::vector<SweepLeftover> leftovers;  // What it made and left itself, classified.
};

struct RunResult {
  RunSpec spec;
  std::optional<int> exit_code;  // Set when the program exited by itself.
  std::optional<int> signal;     // Set when a signal killed it.
  std::vector<Verdict> verdicts;
  std::vector<SweepLeftover> leftovers;
  std::string diverged_at;      // For kDiverged: what call n was instead.
  std::string reproducer;       // A shell command line running `spillway inject`.
  std::string kept_as;          // With --out: the files' common prefix; else empty.
  bool reported_error = false;  // Exited 0 but printed a match of --error-pattern.
  // Runs made for it: 1 + the retries a divergence took (+ 1 for the traced run --out
  // makes again of a violation found untraced).
  int attempts = 1;
  // A kill run whose rule fired: the restart, and the entries the killed run left that
  // are still there after it (their sizes now).
  std::optional<RestartResult> restart;
  std::vector<inject::Leftover> orphans;
  // A corrupt or lost run whose rule damaged its call: the launcher's record of what it did
  // (op, path shown as the report shows paths, offset and bit, or offset and lost_bytes).
  // Unset when the call moved no bytes of its own (fclose, ftruncate).
  std::optional<inject::ProgramFault> damage;
};

inline constexpr int kMaxNeighbours = 16;

// One instance of a neighbour round (--neighbours), judged as a run is (its spec names no
// fault): its exit, signal, verdicts, the round's leftovers (a shared scope cannot say
// whose they are) and the round's reproducer.
struct NeighbourRun {
  int round = 1;      // 1-based.
  int instance = 1;   // 1-based, in the round.
  double offset = 0;  // Seconds after the round's start that it was started.
  RunResult run;
};

// The neighbour rounds of a sweep; instances 0 when none were run (--neighbours 0, or a
// shard other than the first).
struct NeighbourResult {
  int instances = 0;  // 1 + --neighbours.
  int rounds = 0;
  uint64_t seed = 0;
  std::vector<NeighbourRun> runs;  // By round, then instance.
  std::array<uint64_t, kVerdictCount> by_verdict = {};
  uint64_t violations = 0;  // Runs with at least one violation verdict.
};

// What the run without faults did (the first of `runs`: the others add their sites and
// leftovers). Its calls are not held: `trace` is read again to plan by call number.
struct Baseline {
  int runs = 1;
  int exit_code = 0;
  std::string stdout_text;  // The scope shown as {dir} when the command has one.
  std::string stderr_text;
  uint64_t calls = 0;  // In-scope calls.
  std::map<std::string, uint64_t> calls_by_op;
  // Of those, the calls that move no bytes of their own (FaultCallMovesBytes), per operation.
  std::map<std::string, uint64_t> calls_moving_no_bytes_by_op;
  struct FirstCall {
    uint64_t n = 0;           // Its number.
    bool moves_bytes = true;  // FaultCallMovesBytes of its function.
  };
  std::map<std::string, FirstCall> first_call_of_op;  // Per operation.
  std::vector<SiteInfo> sites;                        // In the order of their first calls.
  std::vector<SweepLeftover> leftovers;  // kBaseline; kLeak with --scratch (then they are leaks).
  double seconds = 0;
  std::string trace;  // A trace file (after `trace_skip` header lines) of its calls.
  int trace_skip = 0;
  std::string scope;  // The scope it ran in, resolved: shown as {dir} in paths.
  bool with_dir = false;
};

// The finished runs of a sweep, held outside memory (spooled to a file as they finish, or
// in the shards' reports being merged) and read back in plan order, so that a sweep of any
// size holds only its counts.
class RunSource {
 public:
  virtual ~RunSource() = default;

  // Calls `visit` with each run, in plan order; each call is a new pass over all of them.
  // Errors: where the runs are kept cannot be read back, or holds something that is no run
  // (`visit` has then seen the runs before it). Not thread-safe.
  virtual Status ForEach(const std::function<void(const RunResult&)>& visit) const = 0;
};

struct CmdSweepResult {
  Baseline baseline;
  std::vector<std::string> command;
  double timeout = 0;                                 // Seconds per run.
  Depth depth = Depth::kFirst;                        // As planned (kAll without sites).
  std::array<uint64_t, kDepthCount> plan_sizes = {};  // The plan's size under each depth.
  uint64_t planned_runs = 0;                          // Under `depth`.
  uint64_t sampled_runs = 0;  // After --max-runs (== planned_runs without it).
  uint64_t max_runs = 0;
  int shard_index = 1;
  int shard_count = 1;
  bool scratch = false;
  std::shared_ptr<const RunSource> runs;  // This shard's, in plan order (never null here).
  uint64_t run_count = 0;                 // How many.
  std::array<uint64_t, kVerdictCount> by_verdict = {};
  std::map<std::string, std::array<uint64_t, kVerdictCount>> by_site;  // By site id.
  uint64_t violations = 0;  // Runs with at least one violation verdict.
  // The corrupt and lost runs among them ("does it notice?"), and their verdicts.
  uint64_t damage_runs = 0;
  std::array<uint64_t, kVerdictCount> damage_by_verdict = {};
  NeighbourResult neighbours;

  // Counts `run` in run_count, by_verdict, by_site, violations and (a corrupt or lost run)
  // damage_runs and damage_by_verdict.
  void Count(const RunResult& run);
};

// The runs to make at most for a run of `site` (1 + retries when every baseline run
// reached it): enough that, at the rate the baseline's runs reached it, every one of them
// missing it has a chance below 0.1 %; at most kMaxAttempts.
inline constexpr int kMaxAttempts = 40;
int AttemptsFor(const SiteInfo& site, int baseline_runs, int retries);

// 0 when no run, neighbour runs included, is a violation and (with --scratch) the baseline
// left nothing; else 1.
int ExitStatusOf(const CmdSweepResult& result);

// Runs the sweep. Errors (InvalidArgument): bad options, a command `spillway inject`
// refuses, a baseline that does not exit 0, an --out directory that cannot be made, a
// --baseline file of another command or a damaged one.
// Runs the program 1 + runs times; not thread-safe (it changes no global state, but runs
// in the scope directory it is given).
StatusOr<CmdSweepResult> RunCmdSweep(const CmdSweepOptions& options);

// True when `a` and `b` name the same entry up to the random parts of temp names: the same
// number of components, each pair equal, or equal once every run of digits is one digit,
// or of the same length with every difference inside one run of at least 6 letters and
// digits (mkstemp's XXXXXX and its relatives).
bool SamePathPattern(std::string_view a, std::string_view b);

}  // namespace spillway::program_sweep

#endif  // SPILLWAY_PROGRAM_SWEEP_CMD_SWEEP_H_
