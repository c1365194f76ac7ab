// The scenario language: parsing scenario files, printing them, and running them.
//
// A scenario is the project's unit of reproduction: a bug report, a regression test and a
// property test's shrunk counterexample are all the same small text file. The language and
// the exit codes of `spillway run` are specified in docs/scenarios.md.
//
// Parse() turns text into Commands (every syntax error is found before anything runs);
// Runner executes Commands one at a time against a fresh filesystem and reports each
// step; Command::ToString() prints a command back as a scenario line, so generated
// programs (property tests, sweeps) can be written out and replayed. A Command's verb is
// a std::variant of one struct per verb (see Verb).
#ifndef SPILLWAY_SCENARIO_SCENARIO_H_
#define SPILLWAY_SCENARIO_SCENARIO_H_

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "spillway/spill/cleanup_log.h"
#include "spillway/spill/disk_manager.h"
#include "spillway/spill/plan_disk_manager.h"
#include "spillway/spill/quirks.h"
#include "spillway/spill/reap.h"
#include "spillway/spill/spill_budget.h"
#include "spillway/spill/spill_file.h"
#include "spillway/spill/spill_manager.h"
#include "spillway/spill/spill_status.h"
#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/status.h"
#include "spillway/vocab/vocab.h"

namespace spillway::scenario {

enum class DirsKind { kList, kOsTmp, kDisabled };
using PlanMode = vocab::PlanMode;  // lazy (the default) or eager.

struct PlanSpec {
  DirsKind dirs_kind = DirsKind::kList;
  std::vector<std::string> local_dirs;  // kList only; as written.
  PlanMode mode = PlanMode::kLazy;
  uint64_t limit = kDefaultMaxTempDirectorySize;
  MissingDirPolicy missing_dir = MissingDirPolicy::kFail;
  // Which options were written, so ToString() prints what was written.
  bool mode_written = false, limit_written = false, missing_dir_written = false;
  // Beyond upstream: where the spill directories go and whether files fail over (kList
  // only; `layout=` and `failover=` with os_tmp or disabled are malformed).
  SpillDirLayout layout = SpillDirLayout::kAll;
  bool layout_written = false;
  bool failover = false;
  bool failover_written = false;
  // frame=on: the plan's spill files are framed and checked when read back
  // (SpillOptions::frame_spill_files; off by default, as upstream).
  bool frame = false;
  bool frame_written = false;
  // budget=B: the executor-wide budget (a `budget` name) the plan's writes must also fit;
  // empty for none (the default, as Comet).
  std::string budget;

  // The same plan: the *_written flags are ignored, and so are local_dirs unless kList.
  bool operator==(const PlanSpec& other) const;
};

// The verbs. Each is one struct holding only its fields, with its word(s) (kWord), its
// usage line (kUsage), whether it checks rather than acts (kIsExpect) and equality (the
// same meaning). Its text is read by its ParseArgs (scenario_parser.cc: the words after
// the verb into the fields) and written by its PrintArgs (scenario.cc: the words ToString
// prints after the verb); ParseArgs accepts what PrintArgs prints, so Parse(ToString())
// gives an equal verb back.
//
// The parser, the printer and the runner handle every verb through one overload set each,
// defined where it is dispatched and with no generic fallback, so a verb that one of them
// misses does not compile. The model, its generator and the reference sweep have defaults
// for a verb they do not use (not modeled, never generated, not swept); docs/scenarios.md
// ("Adding a verb") lists the places. Parsing, usage text, the verb words in error
// messages and Dictionary() come from the structs through ForEachVerb.

// Setting up.
struct Dir {
  static constexpr std::string_view kWord = "dir";
  static constexpr std::string_view kUsage = "dir PATH";
  static constexpr bool kIsExpect = false;
  std::string path;
  bool operator==(const Dir&) const = default;
};
struct File {
  static constexpr std::string_view kWord = "file";
  static constexpr std::string_view kUsage = "file PATH";
  static constexpr bool kIsExpect = false;
  std::string path;
  bool operator==(const File&) const = default;
};
struct Plan {
  static constexpr std::string_view kWord = "plan";
  static constexpr std::string_view kUsage =
      "plan NAME DIRS [mode=lazy|eager] [limit=SIZE] [missing_dir=fail|recreate] "
      "[layout=all|each] [failover=on|off] [frame=on|off] [budget=B]";
  static constexpr bool kIsExpect = false;
  std::string name;
  PlanSpec spec;
  bool operator==(const Plan&) const = default;
};
struct SetQuirk {  // `quirk NAME`
  static constexpr std::string_view kWord = "quirk";
  static constexpr std::string_view kUsage = "quirk NAME";
  static constexpr bool kIsExpect = false;
  Quirk quirk = Quirk::kWriteLeak;
  bool operator==(const SetQuirk&) const = default;
};
// Acting.
struct Spill {
  static constexpr std::string_view kWord = "spill";
  static constexpr std::string_view kUsage = "spill FILE PLAN [DESCRIPTION]";
  static constexpr bool kIsExpect = false;
  std::string file;
  std::string plan;
  // The description when none is written; an empty description means it too.
  static constexpr std::string_view kDefaultDescription = "spill";
  std::string description{kDefaultDescription};
  bool operator==(const Spill& other) const;
};
struct Write {
  static constexpr std::string_view kWord = "write";
  static constexpr std::string_view kUsage = "write FILE SIZE";
  static constexpr bool kIsExpect = false;
  std::string file;
  uint64_t size = 0;
  bool operator==(const Write&) const = default;
};
struct Read {
  // Reads the file back whole (ReadSpillFile: framed, every frame checked): ok, DATA_LOSS
  // for damage a framed file's checks catch, or an errno.
  static constexpr std::string_view kWord = "read";
  static constexpr std::string_view kUsage = "read FILE";
  static constexpr bool kIsExpect = false;
  std::string file;
  bool operator==(const Read&) const = default;
};
struct Clone {
  static constexpr std::string_view kWord = "clone";
  static constexpr std::string_view kUsage = "clone NEW FILE";
  static constexpr bool kIsExpect = false;
  std::string name;  // NEW.
  std::string file;
  bool operator==(const Clone&) const = default;
};
struct Drop {
  static constexpr std::string_view kWord = "drop";
  static constexpr std::string_view kUsage = "drop NAME";
  static constexpr bool kIsExpect = false;
  std::string name;
  bool operator==(const Drop&) const = default;
};
struct SetLimit {
  static constexpr std::string_view kWord = "set_limit";
  static constexpr std::string_view kUsage = "set_limit PLAN SIZE";
  static constexpr bool kIsExpect = false;
  std::string plan;
  uint64_t size = 0;
  bool operator==(const SetLimit&) const = default;
};
struct Fault {
  static constexpr std::string_view kWord = "fault";
  static constexpr std::string_view kUsage =
      "fault OP ERRNO|corrupt|lost|ok [after=N] [times=K|forever] [path=GLOB] [delay=MS]";
  static constexpr bool kIsExpect = false;
  FaultRule rule;  // "any" is op == nullopt.
  bool operator==(const Fault& other) const;
};
struct ShortWrite {
  static constexpr std::string_view kWord = "short_write";
  static constexpr std::string_view kUsage = "short_write FILE BYTES";
  static constexpr bool kIsExpect = false;
  std::string file;
  uint64_t bytes = 0;
  bool operator==(const ShortWrite&) const = default;
};
struct Clean {
  static constexpr std::string_view kWord = "clean";
  static constexpr std::string_view kUsage = "clean GLOB";
  static constexpr bool kIsExpect = false;
  std::string glob;
  bool operator==(const Clean&) const = default;
};
struct Capacity {
  static constexpr std::string_view kWord = "capacity";
  static constexpr std::string_view kUsage = "capacity SIZE";
  static constexpr bool kIsExpect = false;
  uint64_t size = 0;
  bool operator==(const Capacity&) const = default;
};
// Beyond upstream.
struct Budget {
  static constexpr std::string_view kWord = "budget";
  static constexpr std::string_view kUsage = "budget NAME SIZE";
  static constexpr bool kIsExpect = false;
  std::string name;
  uint64_t size = 0;  // The limit.
  bool operator==(const Budget&) const = default;
};
struct Crash {
  static constexpr std::string_view kWord = "crash";
  static constexpr std::string_view kUsage = "crash";
  static constexpr bool kIsExpect = false;
  bool operator==(const Crash&) const = default;
};
struct Reap {
  static constexpr std::string_view kWord = "reap";
  static constexpr std::string_view kUsage = "reap DIRS";
  static constexpr bool kIsExpect = false;
  std::vector<std::string> local_dirs;  // As written.
  bool operator==(const Reap&) const = default;
};
struct Kill {
  static constexpr std::string_view kWord = "kill";
  static constexpr std::string_view kUsage = "kill N";
  static constexpr bool kIsExpect = false;
  // The process dies at its N-th filesystem call from here on (1: the next one), inside
  // whichever line makes it; then the next process starts, as after `crash`.
  uint64_t call = 1;
  bool operator==(const Kill&) const = default;
};
// Checking.
struct ExpectOk {
  static constexpr std::string_view kWord = "expect ok";
  static constexpr std::string_view kUsage = "expect ok";
  static constexpr bool kIsExpect = true;
  bool operator==(const ExpectOk&) const = default;
};
struct ExpectError {
  static constexpr std::string_view kWord = "expect error";
  static constexpr std::string_view kUsage = "expect error E";
  static constexpr bool kIsExpect = true;
  std::string error;  // An errno name, "LIMIT", "DISABLED" or "DATA_LOSS".
  bool operator==(const ExpectError&) const = default;
};
struct ExpectUsed {
  static constexpr std::string_view kWord = "expect used";
  static constexpr std::string_view kUsage = "expect used PLAN SIZE";
  static constexpr bool kIsExpect = true;
  std::string plan;
  uint64_t size = 0;
  bool operator==(const ExpectUsed&) const = default;
};
struct ExpectFiles {
  static constexpr std::string_view kWord = "expect files";
  static constexpr std::string_view kUsage = "expect files PLAN N";
  static constexpr bool kIsExpect = true;
  std::string plan;
  uint64_t count = 0;
  bool operator==(const ExpectFiles&) const = default;
};
struct ExpectSize {
  static constexpr std::string_view kWord = "expect size";
  static constexpr std::string_view kUsage = "expect size FILE SIZE";
  static constexpr bool kIsExpect = true;
  std::string file;
  uint64_t size = 0;
  bool operator==(const ExpectSize&) const = default;
};
struct ExpectCount {
  static constexpr std::string_view kWord = "expect count";
  static constexpr std::string_view kUsage = "expect count GLOB N";
  static constexpr bool kIsExpect = true;
  std::string glob;
  uint64_t count = 0;
  bool operator==(const ExpectCount&) const = default;
};
struct ExpectSpilled {
  static constexpr std::string_view kWord = "expect spilled";
  static constexpr std::string_view kUsage = "expect spilled PLAN SIZE";
  static constexpr bool kIsExpect = true;
  std::string plan;
  uint64_t size = 0;
  bool operator==(const ExpectSpilled&) const = default;
};
struct ExpectSpills {
  static constexpr std::string_view kWord = "expect spills";
  static constexpr std::string_view kUsage = "expect spills PLAN N";
  static constexpr bool kIsExpect = true;
  std::string plan;
  uint64_t count = 0;
  bool operator==(const ExpectSpills&) const = default;
};
struct ExpectExists {
  static constexpr std::string_view kWord = "expect exists";
  static constexpr std::string_view kUsage = "expect exists PATH";
  static constexpr bool kIsExpect = true;
  std::string path;
  bool operator==(const ExpectExists&) const = default;
};
struct ExpectMissing {
  static constexpr std::string_view kWord = "expect missing";
  static constexpr std::string_view kUsage = "expect missing PATH";
  static constexpr bool kIsExpect = true;
  std::string path;
  bool operator==(const ExpectMissing&) const = default;
};

#ifdef SPILLWAY_TRIAL_VERB
// Only in the test build that adds a verb first in the table (tests/model/CMakeLists.txt,
// trial_verb): `note TEXT`, which does nothing. A seeded program must not change until
// the generator's weight table lists it.
struct Note {
  static constexpr std::string_view kWord = "note";
  static constexpr std::string_view kUsage = "note TEXT";
  static constexpr bool kIsExpect = false;
  std::string text;
  bool operator==(const Note&) const = default;
};
#endif

// The table of verbs: parsing, usage text, the words in error messages and the fuzz
// dictionary all come from this list, and its order is the order of the checks in
// messages. It plays no part in generating programs: the model's generator draws verbs by
// its own table of weights (model/command_generator.cc), so a verb inserted anywhere here
// changes no seeded program until that table gives it a weight.
using Verb = std::variant<
#ifdef SPILLWAY_TRIAL_VERB
    Note,
#endif
    Dir, File, Plan, SetQuirk, Spill, Write, Read, Clone, Drop, SetLimit, Fault, ShortWrite, Clean,
    Capacity, Budget, Crash, Reap, Kill, ExpectOk, ExpectError, ExpectUsed, ExpectFiles, ExpectSize,
    ExpectCount, ExpectSpilled, ExpectSpills, ExpectExists, ExpectMissing>;

// Calls f(V{}) for every verb type V, in table order.
template <typename F>
void ForEachVerb(F&& f) {
  [&]<size_t... I>(std::index_sequence<I...>) { (f(std::variant_alternative_t<I, Verb>{}), ...); }
  (std::make_index_sequence<std::variant_size_v<Verb>>{});
}

// True for the checking verbs.
bool IsExpect(const Verb& verb);

// The kinds of call `fault` names besides `any` (each by OpKindName), in the order
// docs/scenarios.md lists them: the language's one table of them. The other OpKinds are
// not part of the language.
std::span<const OpKind> FaultOps();

// Every word the language gives meaning to, as the fuzzer's dictionary spells them: verb
// words, "expect" and the checks, DIRS words, options ("mode=eager", "limit=", ...), fault
// OPs, quirk names, LIMIT and DISABLED.
std::vector<std::string> Dictionary();

// One line of a scenario: a verb and where it was written.
struct Command {
  Verb verb;
  int line = 0;  // 1-based line in its file; 0 for generated commands.

  // The command as one scenario line, without a comment; Parse(ToString()) gives an
  // equivalent command back.
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

// True when `a` and `b` mean the same: equal verbs (see each verb's operator==); `line`
// is ignored. For a command `c` that Parse accepted or a generator built with valid
// fields, CommandsEquivalent(c, Parse(c.ToString()).commands[0]) holds.
bool CommandsEquivalent(const Command& a, const Command& b);

// The name of an outcome in the language (`expect error NAME`, reports): "OK"; an errno
// name ("ENOENT") for a filesystem error; "LIMIT" for a limit error and "DISABLED" for a
// disabled error (spill_status.h); "INVALID" for an invalid argument; the code's name
// (StatusCodeName) for anything else.
std::string OutcomeName(const Status& status);

// The filesystem a Runner runs on (the shared vocabulary's; spillway/vocab/vocab.h).
using vocab::FsKind;

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
  // What the most recent `reap` removed, found live and failed on (empty before any).
  const ReapReport& last_reap() const;
  // How many processes a `kill` line has killed; each time, fs() is the next process's.
  uint64_t kills() const;
  // The bytes the most recent `read` returned (empty before any, and after a failed one).
  const std::string& last_read() const;

  // State, for property tests and sweeps.
  FaultInjectingFileSystem& fs();                  // The filesystem under test.
  FileSystem& base_fs();                           // The filesystem beneath the fault injector.
  SpillManager* plan(const std::string& name);     // Null when unbound.
  const SpillFile* file(const std::string& name);  // Null when unbound.
  // The budget made as NAME in the running process while it is bound or its plans keep it
  // alive (after `drop NAME`); null otherwise.
  std::shared_ptr<const SpillBudget> budget(const std::string& name) const;
  // The bound plan and file names, in order.
  std::vector<std::string> plan_names() const;
  std::vector<std::string> file_names() const;
  // Every failed removal of every plan in this run.
  std::shared_ptr<CleanupLog> cleanup_log() const;
  // Drops every file, plan and budget (in name order, files first), as `drop` would.
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
