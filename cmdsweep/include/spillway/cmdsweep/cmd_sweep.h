// `spillway sweep -- CMD`: runs an unmodified program once without faults (the baseline),
// then once per in-scope filesystem call of the baseline, errno and mode with that call
// failing (through `spillway inject`), and gives every run a verdict (docs/sweep.md).
#ifndef SPILLWAY_CMDSWEEP_CMD_SWEEP_H_
#define SPILLWAY_CMDSWEEP_CMD_SWEEP_H_

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/vfs/status.h"

namespace spillway::cmdsweep {

// A run's verdicts, in the order reports list them.
enum class Verdict : uint8_t {
  kCleanError,
  kTolerated,
  kSilentWrongOutput,
  kLeak,
  kCrash,
  kHang,
  kDiverged,
};
inline constexpr int kVerdictCount = 7;

// "clean_error", "tolerated", "silent_wrong_output", "leak", "crash", "hang", "diverged".
const char* VerdictName(Verdict verdict);
// True for the verdicts that make the sweep fail (exit 1).
bool IsViolation(Verdict verdict);

enum class FaultMode : uint8_t { kTransient, kPersistent };
const char* FaultModeName(FaultMode mode);

// The word in CMD that each run replaces by its own fresh scope directory.
inline constexpr std::string_view kDirWord = "{dir}";

struct CmdSweepOptions {
  std::string under;         // The scope's parent (or the scope, without {dir}).
  std::vector<int> errnos;   // Empty: ENOSPC, EIO, plus ENOENT for create and mkdir.
  std::vector<uint8_t> ops;  // FaultOp codes to sweep; empty: every operation.
  std::vector<FaultMode> modes = {FaultMode::kTransient, FaultMode::kPersistent};
  int jobs = 1;           // Parallel runs (only with {dir} in the command).
  double timeout = 0;     // Seconds per run; 0: derived from the baseline.
  uint64_t max_runs = 0;  // 0: every run.
  int shard_index = 1;    // 1-based K of --shard K/N.
  int shard_count = 1;
  bool compare_stdout = true;  // --compare stdout (false: none).
  std::string out_dir;         // Empty: keep no files of the runs.
  std::vector<std::string> command;
  std::string spillway_binary;  // The executable that runs `spillway inject`.
  std::string share_with;       // `spillway inject --share-with USER`; empty: none.
  // Called after each run (from the thread that ran it, serialised by the sweep).
  std::function<void(uint64_t done, uint64_t total, uint64_t violations)> on_progress;
};

// An entry left under a run's scope after it exited.
struct Leftover {
  enum class Kind : uint8_t { kLeak, kLeftByFault, kBaseline };
  std::string path;  // With the run's scope shown as {dir} when the command has one.
  uint64_t size = 0;
  Kind kind = Kind::kLeak;
};
const char* LeftoverKindName(Leftover::Kind kind);

// One in-scope call of a run, from its trace, in the order the calls reached the shim.
struct TracedCall {
  std::string op;    // The rule operation ("write").
  std::string call;  // The C library function ("pwrite64").
  std::string path;  // The resolved path, the scope shown as {dir} when the command has one.
  bool injected = false;
};

// The run that fails the baseline's call `n` (1-based) with `error_number` in `mode`.
struct RunSpec {
  uint64_t n = 0;
  TracedCall call;     // The baseline's call n.
  uint64_t after = 0;  // Earlier baseline calls of the same operation.
  int error_number = 0;
  FaultMode mode = FaultMode::kTransient;
};

// `OP ERRNO after=N [times=forever]`: the rule that fails the spec's call.
std::string FaultRuleFor(const RunSpec& spec);

struct RunResult {
  RunSpec spec;
  std::optional<int> exit_code;  // Set when the program exited by itself.
  std::optional<int> signal;     // Set when a signal killed it.
  std::vector<Verdict> verdicts;
  std::vector<Leftover> leftovers;
  std::string diverged_at;  // For kDiverged: what call n was instead.
  std::string reproducer;   // A shell command line running `spillway inject`.
  std::string kept_as;      // With --out: the files' common prefix; else empty.
};

struct Baseline {
  int exit_code = 0;
  std::string stdout_text;  // The scope shown as {dir} when the command has one.
  std::vector<TracedCall> calls;
  std::vector<Leftover> leftovers;
  double seconds = 0;
};

struct CmdSweepResult {
  Baseline baseline;
  double timeout = 0;           // Seconds per run.
  uint64_t planned_runs = 0;    // Every (call, errno, mode) of the baseline.
  uint64_t sampled_runs = 0;    // After --max-runs (== planned_runs without it).
  std::vector<RunResult> runs;  // This shard's, in plan order.
  std::array<uint64_t, kVerdictCount> by_verdict = {};
  uint64_t violations = 0;  // Runs with at least one violation verdict.
};

// Runs the sweep. Errors (InvalidArgument): bad options, a command `spillway inject`
// refuses, a baseline that does not exit 0, an --out directory that cannot be made.
// Runs the program 1 + runs times; not thread-safe (it changes no global state, but runs
// in the scope directory it is given).
StatusOr<CmdSweepResult> RunCmdSweep(const CmdSweepOptions& options);

// True when `a` and `b` name the same entry up to the random parts of temp names: the same
// number of components, each pair equal, or equal once every run of digits is one digit,
// or of the same length with every difference inside one run of at least 6 letters and
// digits (mkstemp's XXXXXX and its relatives).
bool SamePathPattern(std::string_view a, std::string_view b);

}  // namespace spillway::cmdsweep

#endif  // SPILLWAY_CMDSWEEP_CMD_SWEEP_H_
