// Internal to the spillway_model library: what its files share beyond spill_model.h. The
// scenario lines the model prints, the filesystem calls an operation makes as the model
// accounts for them, and the scenario's names, defined in spill_model.cc; and the
// transitions of the verbs that act on the executor, defined in executor_verbs.cc.
//
// Thread safety: these are functions of the SpillModel value they are given.
#ifndef SPILLWAY_MODEL_SPILL_MODEL_INTERNAL_H_
#define SPILLWAY_MODEL_SPILL_MODEL_INTERNAL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/model/spill_model.h"
#include "spillway/scenario/scenario.h"

namespace spillway::model {

// Globs for the counts the model predicts.
inline constexpr std::string_view kSpillDirsSuffix = "/datafusion-*";
inline constexpr std::string_view kLocalFilesGlob = "/l*/datafusion-*/*";
// The OsTmpDirectory mode's directory is tempfile::tempdir()'s ".tmp" + random.
inline constexpr std::string_view kTmpSpillDirsGlob = "/tmp/.tmp*";
inline constexpr std::string_view kTmpFilesGlob = "/tmp/.tmp*/*";
// The code name of a successful outcome, and of damage a framed file's reader caught.
inline constexpr std::string_view kOk = "OK";
inline constexpr std::string_view kDataLoss = "DATA_LOSS";

// ---------------------------------------------------------------------------------------
// Lines

// A generated line of `verb`.
scenario::Command Line(scenario::Verb verb);
// `expect used PLAN SIZE`, `expect files PLAN COUNT`, `expect size FILE SIZE`,
// `expect count GLOB COUNT`, and `expect exists|missing` of local dir `local_dir`.
scenario::Command ExpectUsed(const std::string& plan, uint64_t size);
scenario::Command ExpectFiles(const std::string& plan, uint64_t count);
scenario::Command ExpectSize(const std::string& file, uint64_t size);
scenario::Command ExpectCount(std::string glob, uint64_t count);
scenario::Command ExpectRoot(int local_dir, bool exists);

// The glob of the spill directories in local dir `local_dir` (kTmpDir for /tmp).
std::string SpillDirsGlob(int local_dir);

// The local dir index of "/lN" (N < kMaxLocalDirs); -1 for any other path.
int LocalDirIndex(std::string_view path);

// The line as text in backquotes, for messages.
std::string Quoted(const scenario::Command& c);

// ---------------------------------------------------------------------------------------
// The filesystem calls an operation makes, as the model accounts for them.

// What an operation returns when the model cannot know its outcome (a fact that removes
// files the model cannot place); the command is then not valid.
inline constexpr int kUnpredictable = -1;

// A spill directory removed with its files, by a fault's fact or a cleaner.
void RemoveSpillDir(SpillModel& s, int dir_id);

// The spill directories in the local dirs `cleaned` removed with their files (foreign
// entries too), as a cleaner or a fault's fact does. False (changing nothing useful) when
// a file whose directory the model does not know would be removed with some but not all
// of its plan's directories.
bool RemoveSpillDirsIn(SpillModel& s, const std::set<int>& cleaned);

// A spill file created in directory `dir_id`: one create, with the facts of an injected
// ENOENT (the directory is removed) or EEXIST (a racing file, then success). Returns the
// errno, 0 on success.
int CreateIn(SpillModel& s, int dir_id);

// The kinds of call a reap makes.
inline constexpr OpKind kReapCalls[] = {OpKind::kList, OpKind::kRemove, OpKind::kRmdir};

// True when no rule is due for the calls a reap makes (kReapCalls) and no kill is pending,
// so that its outcome is predictable.
bool ReapUnfaulted(const SpillModel& s);

// MakeSpillDir: with `create_parent`, a stat of the local dir and, when it is missing, a
// mkdir of it (one level deep); then a mkdir of a new "datafusion-*" directory in it.
// Returns the failing call's errno, or 0 with the new directory's id in *dir_id.
int MakeSpillDir(SpillModel& s, int local_dir, bool create_parent, int* dir_id);

// A kDirectories manager's build: a spill directory in each local dir, in order. When one
// fails, the ones made so far are removed in order and the errno returned.
int BuildDirs(SpillModel& s, ModelPlan& plan);

// Once a plan's name is dropped and it has no live file, its directories are removed
// together, in order. Stale directories (already gone) were removed by then too.
void MaybeFinish(SpillModel& s, ModelPlan& plan);

// Forgets what can no longer be observed: closed files that are gone, plans whose name
// is dropped and whose directories and files are all done with, directories that are gone
// and referenced by nothing. (ModelRules drops a spent fault rule itself.)
void Collect(SpillModel& s);

// "OK" for 0, else the errno's name.
std::string CodeName(int error_number);
// CodeName, or nullopt for kUnpredictable.
std::optional<std::string> Outcome(int error_number);

// The "reap" invariant (see Violation): each local dir holds at least the spill
// directories the live plans (bound or not) have on disk there. Checked by Execute before
// a line's printed expectations, and again among the invariants.
std::optional<Violation> CheckLiveDirs(const SpillModel& s, SpillSut& sut);

// The "leftover" invariant as a drop runs: every fault injected since `faults_before` on a
// removal (a remove, an rmdir, a directory's listing) is a CleanupLog record since
// `log_before`, with its path and errno, since a drop cannot fail. Checked by Execute
// after a `drop`.
std::optional<Violation> CheckDropReported(size_t faults_before, uint64_t log_before,
                                           SpillSut& sut);

// ---------------------------------------------------------------------------------------
// Names

// The next fresh name with `prefix` ("p", "f" or "b"), counting from `counter`.
std::string FreshName(const SpillModel& s, std::string_view prefix, int counter);

// Records that `name` is used, so that it is never bound again, and moves the fresh-name
// counters past it.
void UseName(SpillModel& s, const std::string& name);

// True when `name` may be bound: not empty and never used.
bool Fresh(const SpillModel& s, const std::string& name);

// The id bound to a plan, file or budget name, if any.
std::optional<int> BoundPlan(const SpillModel& s, const std::string& name);
std::optional<int> BoundFile(const SpillModel& s, const std::string& name);
std::optional<int> BoundBudget(const SpillModel& s, const std::string& name);

// The names bound in `m`, in order.
std::vector<std::string> Keys(const std::map<std::string, int>& m);

// ---------------------------------------------------------------------------------------
// The verbs that act on the executor rather than on one plan: budget, crash and reap.
// Each transition advances `s` by the line and returns the outcome's code name, or
// nullopt when the line is not valid in `s` or its outcome is not predictable there, as
// every verb's does (verb_commands.cc, which brings these in beside the others).
namespace executor_verbs {

std::optional<std::string> Transition(const scenario::Budget& v, SpillModel& s,
                                      SpillCommand::Affected* a);
std::optional<std::string> Transition(const scenario::Crash& v, SpillModel& s,
                                      SpillCommand::Affected* a);
std::optional<std::string> Transition(const scenario::Reap& v, SpillModel& s,
                                      SpillCommand::Affected* a);
std::optional<std::string> Transition(const scenario::Kill& v, SpillModel& s,
                                      SpillCommand::Affected* a);

// After a line during which a `kill` fired (s.rules.killed()): the process died at that
// call, every later call of it failed without effect (the transition followed them as
// failures that change nothing), and the runner then crashed it: as `crash`, and the next
// process has none of the dead one's rules. The line's outcome is not printed (ABORTED,
// or whatever the dead process made of its calls failing); every existing local dir's
// spill directories and the spill files on disk are: what the dead process left, a
// directory made and not yet used included. Nullopt when a crash is not valid in `s`.
std::optional<std::string> FollowKill(SpillModel& s, SpillCommand::Affected* a);

}  // namespace executor_verbs

}  // namespace spillway::model

#endif  // SPILLWAY_MODEL_SPILL_MODEL_INTERNAL_H_
