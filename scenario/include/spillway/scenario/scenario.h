// The scenario language: parsing scenario files, printing them, and running them.
//
// A scenario is the project's unit of reproduction: a bug report, a regression test and a
// property test's shrunk counterexample are all the same small text file. The language and
// the exit codes of `spillway run` are specified in docs/scenarios.md.
//
// Parse() turns text into Commands (every syntax error is found before anything runs);
// Runner executes Commands one at a time against a fresh filesystem and reports each
// step; Command::ToString() prints a command back as a scenario line, so generated
// programs (property tests, sweeps) can be written out and replayed.
#ifndef SPILLWAY_SCENARIO_SCENARIO_H_
#define SPILLWAY_SCENARIO_SCENARIO_H_

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "spillway/spill/cleanup_log.h"
#include "spillway/spill/disk_manager.h"
#include "spillway/spill/plan_disk_manager.h"
#include "spillway/spill/quirks.h"
#include "spillway/spill/spill_file.h"
#include "spillway/spill/spill_manager.h"
#include "spillway/spill/spill_status.h"
#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/status.h"

namespace spillway::scenario {

enum class Verb {
  // Setting up.
  kCapacity,  // capacity SIZE                      -> size
  kDir,       // dir PATH                           -> path
  kFile,      // file PATH                          -> path
  kPlan,      // plan NAME DIRS [mode=] [limit=] [missing_dir=]  -> name, plan
  kQuirk,     // quirk NAME                         -> quirk
  // Acting.
  kSpill,       // spill FILE PLAN [DESCRIPTION]      -> name, target, description
  kWrite,       // write FILE SIZE                    -> name, size
  kClone,       // clone NEW FILE                     -> name, target
  kDrop,        // drop NAME                          -> name
  kSetLimit,    // set_limit PLAN SIZE                -> name, size
  kFault,       // fault OP ERRNO [after=] [times=] [path=]  -> fault
  kShortWrite,  // short_write FILE BYTES             -> name, size
  kClean,       // clean GLOB                         -> path
  // Checking.
  kExpectOk,       // expect ok
  kExpectError,    // expect error E                 -> error
  kExpectUsed,     // expect used PLAN SIZE          -> name, size
  kExpectFiles,    // expect files PLAN N            -> name, count
  kExpectSize,     // expect size FILE SIZE          -> name, size
  kExpectCount,    // expect count GLOB N            -> path, count
  kExpectExists,   // expect exists PATH             -> path
  kExpectMissing,  // expect missing PATH            -> path
};

// True for the kExpect* verbs.
bool IsExpect(Verb verb);

enum class DirsKind { kList, kOsTmp, kDisabled };
enum class PlanMode { kLazy, kEager };

struct PlanSpec {
  DirsKind dirs_kind = DirsKind::kList;
  std::vector<std::string> local_dirs;  // kList only; as written.
  PlanMode mode = PlanMode::kLazy;
  uint64_t limit = kDefaultMaxTempDirectorySize;
  MissingDirPolicy missing_dir = MissingDirPolicy::kFail;
  // Which options were written, so ToString() prints what was written.
  bool mode_written = false, limit_written = false, missing_dir_written = false;
};

// One line of a scenario. Which fields matter depends on the verb (see Verb).
struct Command {
  Verb verb = Verb::kExpectOk;
  int line = 0;                     // 1-based line in its file; 0 for generated commands.
  std::string name;                 // The plan or file name the command acts on or binds.
  std::string target;               // spill: the PLAN; clone: the FILE cloned.
  std::string description;          // spill: the description ("spill" unless written).
  std::string path;                 // A path, or a glob for clean and expect count.
  uint64_t size = 0;                // capacity, write, set_limit, short_write, expect used/size.
  uint64_t count = 0;               // expect files, expect count.
  std::string error;                // expect error: an errno name, "LIMIT" or "DISABLED".
  PlanSpec plan;                    // plan.
  Quirk quirk = Quirk::kWriteLeak;  // quirk.
  FaultRule fault;                  // fault ("any" is op == nullopt).

  // The command as one scenario line, without a comment; Parse(ToString()) gives the
  // same command back.
  std::string ToString() const;
};

struct Scenario {
  std::string file_name;  // For messages: "FILE:LINE: ...".
  std::vector<Command> commands;
};

struct ParseError {
  int line = 0;
  std::string message;  // What is wrong, without the "FILE:LINE: " prefix.
};

// Parses a whole scenario. Syntax errors (unknown command or option, bad size, bad path,
// unknown errno name, mode=eager with os_tmp or disabled, an expect before any command)
// are reported here, for the first offending line. Name errors are found by the Runner.
std::variant<Scenario, ParseError> Parse(std::string_view text, std::string_view file_name);

// Prints a scenario, one command a line.
std::string ToText(const std::vector<Command>& commands);

// True when `a` and `b` mean the same: the same verb and equal values in every field that
// verb uses (see Verb). `line` and PlanSpec's *_written flags are ignored, and an empty
// spill description equals "spill". For a command `c` that Parse accepted or a generator
// built with valid fields, CommandsEquivalent(c, Parse(c.ToString()).commands[0]) holds.
bool CommandsEquivalent(const Command& a, const Command& b);

// The name of an outcome in the language (`expect error NAME`, reports): "OK"; an errno
// name ("ENOENT") for a filesystem error; "LIMIT" for a limit error and "DISABLED" for a
// disabled error (spill_status.h); "INVALID" for an invalid argument; the code's name
// (StatusCodeName) for anything else.
std::string OutcomeName(const Status& status);

enum class FsKind { kMem, kPosix };

struct RunnerOptions {
  FsKind fs = FsKind::kMem;
  // kPosix: the directory to run under; empty means a fresh private temporary root that
  // the Runner creates and removes when destroyed.
  std::string posix_root;
  // Quirks in force from the start, as if `quirk NAME` opened the file.
  Quirks quirks;
  // Seeds the in-memory filesystem's names and every manager's choice of directory.
  uint64_t seed = 0;
};

// What one step did.
enum class StepResult {
  kOk,                 // Ran; for an expect, it held. (A failing act is still kOk.)
  kExpectationFailed,  // An expect did not hold: exit code 1.
  kMalformed,          // A name error: exit code 2.
};

// Runs commands against one fresh filesystem. The filesystem under test is a
// FaultInjectingFileSystem over a MemFileSystem or a PosixFileSystem; setting-up commands
// (dir, file, capacity, clean) and every check go around its rules and counters.
//
// Thread safety: not thread-safe; one thread drives a Runner.
class Runner {
 public:
  static StatusOr<std::unique_ptr<Runner>> Create(RunnerOptions options);
  ~Runner();  // Drops every file and plan, then removes a private posix root.

  // Executes one command. On kExpectationFailed, `message` is "expected ..., got ...";
  // on kMalformed it says what is wrong. Neither includes "FILE:LINE: ".
  StepResult Step(const Command& command, std::string* message);

  // The outcome of the most recent command that is not an expect (OK before any).
  const Status& last_outcome() const;

  // State, for property tests and sweeps.
  FaultInjectingFileSystem& fs();                  // The filesystem under test.
  FileSystem& base_fs();                           // The filesystem beneath the fault injector.
  SpillManager* plan(const std::string& name);     // Null when unbound.
  const SpillFile* file(const std::string& name);  // Null when unbound.
  std::vector<std::string> plan_names() const;
  std::vector<std::string> file_names() const;
  // Every failed removal of every plan in this run.
  std::shared_ptr<CleanupLog> cleanup_log() const;
  // Drops every file and plan (in name order, files first), as `drop` would.
  void DropAll();

 private:
  struct Impl;
  explicit Runner(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Reads a scenario file from the host's filesystem (not the filesystem under test).
// Errors: an errno Status from open or read, with the path.
StatusOr<std::string> ReadScenarioFile(const std::string& path);

// Runs one scenario file, printing failures to `err` ("FILE:LINE: ...") and, with
// `verbose`, each command and its outcome to `out`. Returns 0, 1 or 2 as `spillway run`.
int RunScenarioFile(const std::string& file_path, const RunnerOptions& options, bool verbose,
                    std::FILE* out, std::FILE* err);
// The same for text already in memory (`file_name` is used in messages).
int RunScenarioText(std::string_view text, std::string_view file_name, const RunnerOptions& options,
                    bool verbose, std::FILE* out, std::FILE* err);

}  // namespace spillway::scenario

#endif  // SPILLWAY_SCENARIO_SCENARIO_H_
