// Internal to the sweep (workload_sweep/): one run of a workload from a fresh filesystem, with
// or without an injected fault, checking the ioerr discipline after every act and at the
// end (docs/sweep.md), and what it finds. Not part of the sweep's interface (sweep.h).
#ifndef SPILLWAY_WORKLOAD_SWEEP_WORKLOAD_RUN_H_
#define SPILLWAY_WORKLOAD_SWEEP_WORKLOAD_RUN_H_

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/scenario/scenario.h"
#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/status.h"
#include "spillway/workload_sweep/sweep.h"
#include "workload.h"

namespace spillway::workload_sweep::internal {

// The fault one run injects: none, or `error_number` at operation `fault_op` (1-based) in
// `mode`.
struct WorkloadRunSpec {
  std::optional<int> error_number;  // nullopt: no fault.
  FaultMode mode = FaultMode::kTransient;
  uint64_t fault_op = 0;
  OpKind damaged_op = OpKind::kWrite;  // kCorrupt and kLost: the kind fault_op counts.
};

// True for the modes that damage data rather than fail a call (kCorrupt, kLost).
bool IsDamageMode(FaultMode mode);
// "write call 3 corrupt": the damage a run of such a mode injects.
std::string DescribeDamage(FaultMode mode, OpKind op, uint64_t call);

// A violation as one run found it.
struct Finding {
  Check check = Check::kAccounting;
  std::string key;      // Identifies the violation across runs.
  std::string message;  // One line.
  // The index of the act in the run's lines; -1 for one found at the end of the run.
  int line = -1;
  std::vector<scenario::Command> expects;  // Fail on the violation, placed after `line`.
  std::string note;  // A comment placed after `line` when no expect can say it.
};

// One line the run executed, and where it came from.
struct Line {
  scenario::Command command;
  int act = -1;  // Index into Workload::acts; -1 for setup, quirk and fault lines.
};

// One run of the workload from a fresh filesystem, checking as it goes.
// Thread safety: not thread-safe; one run per thread. `workload` and `options` must outlive
// it.
class WorkloadRun final {
 public:
  WorkloadRun(const Workload& workload, const SweepOptions& options, const WorkloadRunSpec& spec)
      : workload_(workload), options_(options), spec_(spec) {}

  // Runs the quirks, the setup, the fault line and the acts, then drops what is left and
  // looks for leftovers; what it finds goes to findings() and report(). A violation is a
  // finding, not an error. Errors: those of scenario::Runner::Create (the filesystem
  // cannot be set up). REQUIRES: called once.
  Status Execute();

  // Of the run's filesystem calls, those of a kind that can fail with `error_number`: the
  // operations an `any` rule of that errno counts. REQUIRES: Execute() ran.
  uint64_t OperationsThatCanReturn(int error_number) const;
  // The run's calls of kind `op`. REQUIRES: Execute() ran.
  uint64_t Calls(OpKind op) const { return runner_->fs().calls(op); }

  // Tests only: `hook` runs on the runner after each act, before the next one, so a test
  // can make the runner lose what the run bound (Check::kRunner). REQUIRES: before Execute().
  void SetAfterActHookForTesting(std::function<void(scenario::Runner&)> hook) {
    after_act_hook_ = std::move(hook);
  }

  const std::vector<Line>& lines() const { return lines_; }
  const std::vector<Finding>& findings() const { return findings_; }
  RunReport& report() { return report_; }

 private:
  struct PlanModel {
    bool bound = false;
    bool lazy = false;         // Builds without touching the filesystem.
    bool spill_tried = false;  // A spill through it has run (whatever its outcome).
    bool disabled = false;
    bool failover = false;  // failover=on: a create may go on to its other local dirs.
    bool framed = false;    // frame=on: a write adds a frame header; reads check frames.
    uint64_t limit = 0;
    std::string budget;                    // The budget it names; empty for none.
    std::vector<std::string> spill_roots;  // Where its spill directories go.
    // Its metrics, by the acts' outcomes: files created, bytes that reached them, and the
    // highest usage after an act (a floor for the peak, which also counts the bytes a
    // failed write reserved); and the peak the plan reported after the previous act.
    uint64_t spills = 0;
    uint64_t spilled = 0;
    uint64_t peak = 0;
    uint64_t peak_seen = 0;
    bool flagged = false;  // Its accounting was already reported in this run.
    bool metrics_flagged = false;
  };
  struct BudgetModel {
    bool bound = false;  // The workload's name for it (plans keep it alive after a drop).
    uint64_t limit = 0;
    uint64_t peak_seen = 0;  // The peak it reported after the previous act.
    bool flagged = false;
    bool metrics_flagged = false;
  };
  struct FileModel {
    std::string plan;
    std::string path;
    uint64_t expected = 0;  // Bytes that reached the file, by the acts' outcomes.
    bool torn = false;      // Framed, a failed write left part of a frame.
    std::set<std::string> refs;
    bool flagged = false;
  };

  // One act as it runs: what was counted before it, what the model predicted, and what
  // happened.
  struct ActRun {
    size_t faults_before = 0;
    size_t log_before = 0;
    uint64_t calls_before = 0;
    std::array<uint64_t, kOpKindCount> kinds_before{};
    std::string key_suffix;  // "|ACT", for finding keys.
    int line = 0;            // Index of the act in lines_.
    std::string act_text;    // The act in backquotes.
    // Predictions, made before the act.
    bool plan_bound = false;  // A drop of a bound plan.
    bool lazy_check = false;  // A lazy plan whose build or drop must not touch the fs.
    std::vector<std::string> lazy_roots;
    std::map<std::string, uint64_t> dirs_before;
    // A write's bytes fit under its plan's limit, and under its budget's (true without).
    bool fits_plan = true;
    bool fits_budget = true;
    bool fits = true;  // Both.
    // A reap: the crashed process's spill directories under its dirs, before it.
    std::vector<std::string> orphans;
    // In a run that injects ENOENT: every path under the roots before the act.
    std::set<std::string> paths_before;
    // Outcome.
    Status outcome;
    std::vector<InjectedFault> faults;  // Injected during the act.
  };

  scenario::Runner& runner() { return *runner_; }
  bool Bound(const std::string& name) const;
  bool PlanBound(const std::string& name) const;
  // Whether every name the act needs is bound (a failed plan or spill binds nothing, so
  // the acts on it are skipped, as a scenario that met the failure would have to).
  bool CanRun(const scenario::Command& command) const;
  bool BudgetBound(const std::string& name) const;
  // The bytes of the live files of `plan`, and of every plan that names `budget`.
  uint64_t ModelUsed(const std::string& plan) const;
  uint64_t ModelBudgetUsed(const std::string& budget) const;
  void Add(Check check, std::string key, std::string message, int line,
           std::vector<scenario::Command> expects = {}, std::string note = {});
  // A fault_missed finding when the run's planned fault or damage never fired.
  void CheckFaultMet(const std::vector<InjectedFault>& all_faults);
  // Runs one line through the Runner; false (with a kRunner finding) when it refused it.
  bool Step(const scenario::Command& command, int act);
  // After a `kill` fired (kKill): the dead process's names are forgotten and its spill
  // directories are orphans, as after `crash` (workload_kill.cc).
  void FollowKill();
  // The next process (kKill): a plan over every local dir spills and writes, reaps the
  // local dirs (its own directory is live), writes again and drops everything, each act
  // checked as the workload's are.
  void RunRestart();
  // After Runner::DropAll(): when the kill fired there, the next process's turn.
  void RestartAfterDropAll();
  // A kill run whose kill never fired is a kFaultMissed.
  void CheckKillFired();
  // Runs the quirk lines, the setup and the fault line; false when the runner refused one.
  bool RunPreamble();
  void RunAct(const scenario::Command& command, int act);
  template <typename V>
  void RunActOf(const V& verb, const scenario::Command& command, int act);
  // Checks that every injected fault surfaced, or that an error without one is explained.
  void CheckOutcome(const scenario::Command& command, const ActRun& run, bool explained);
  // Whether an injected fault is an answer the act may act on rather than an error it
  // must report (docs/sweep.md, false_success), given the act's outcome.
  bool IsAnswer(const scenario::Command& command, const InjectedFault& fault,
                const Status& outcome) const;

  // The hooks of the act verbs (RoleOf gives ActRole), in workload_acts.cc. Every act verb
  // has its own CanRun and Follow (there is no generic one, so an act verb that misses
  // one does not compile); Predict, Explained and Answers have defaults, overloaded by
  // the verbs that need more:
  // - CanRun: whether every name the act needs is bound (a failed plan or spill binds
  //   nothing, so the acts on it are skipped, as a scenario that met the failure would
  //   have to);
  // - Predict: the model's prediction, before the act changes anything (by default none);
  // - Explained: whether an error without an injected fault is one the act may return (by
  //   default none is);
  // - Answers: whether an injected fault (other than the answers every act may act on,
  //   IsAnswer) is an answer to this act rather than an error it must report (by default
  //   none is);
  // - Follow: how the model follows the act, and the checks only that verb has.
  bool CanRun(const scenario::Plan& v) const;
  bool CanRun(const scenario::Spill& v) const;
  bool CanRun(const scenario::Write& v) const;
  bool CanRun(const scenario::Read& v) const;
  bool CanRun(const scenario::Clone& v) const;
  bool CanRun(const scenario::Drop& v) const;
  bool CanRun(const scenario::SetLimit& v) const;
  bool CanRun(const scenario::ShortWrite& v) const;
  bool CanRun(const scenario::Budget& v) const;
  bool CanRun(const scenario::Crash& v) const;
  bool CanRun(const scenario::Reap& v) const;
  void Follow(const scenario::Plan& v, const ActRun& run);
  void Follow(const scenario::Spill& v, const ActRun& run);
  void Follow(const scenario::Write& v, const ActRun& run);
  void Follow(const scenario::Read& v, const ActRun& run);
  void Follow(const scenario::Clone& v, const ActRun& run);
  void Follow(const scenario::Drop& v, const ActRun& run);
  void Follow(const scenario::SetLimit& v, const ActRun& run);
  void Follow(const scenario::ShortWrite& v, const ActRun& run);
  void Follow(const scenario::Budget& v, const ActRun& run);
  void Follow(const scenario::Crash& v, const ActRun& run);
  void Follow(const scenario::Reap& v, const ActRun& run);
  template <typename V>
  void Predict(const V&, ActRun*) {}
  void Predict(const scenario::Plan& v, ActRun* run);
  void Predict(const scenario::Write& v, ActRun* run);
  void Predict(const scenario::Drop& v, ActRun* run);
  void Predict(const scenario::Reap& v, ActRun* run);
  template <typename V>
  bool Explained(const V&, const ActRun&) const {
    return false;
  }
  bool Explained(const scenario::Spill& v, const ActRun& run) const;
  bool Explained(const scenario::Write& v, const ActRun& run) const;
  bool Explained(const scenario::Read& v, const ActRun& run) const;
  bool Explained(const scenario::SetLimit& v, const ActRun& run) const;
  template <typename V>
  bool Answers(const V&, const InjectedFault&, const Status&) const {
    return false;
  }
  bool Answers(const scenario::Spill& v, const InjectedFault& fault, const Status& outcome) const;
  bool Answers(const scenario::Reap& v, const InjectedFault& fault, const Status& outcome) const;

  // The bytes a write of `size` appends to a file of `plan` (a frame header too, framed).
  uint64_t WriteBytes(const std::string& plan, uint64_t size) const;
  // Whether a `read` of `file` met damage: a write that lied into it (corrupt, lost) in
  // this run, a read of it that lied during `run`, or a frame a failed write cut short.
  bool ReadsDamage(const FileModel& file, const ActRun& run) const;
  // The limit a write that does not fit goes over, with what it holds, for messages.
  std::string RefusingLimit(const std::string& plan_name, const ActRun& run) const;
  // A reap's checks: what it met is in its report, a live process's files are still
  // there, and the crashed process's directories are gone or reported.
  void CheckReap(const scenario::Reap& v, const ActRun& run);
  // `expect count GLOB N` after a reap, where N is what matches GLOB now, plus the live
  // files matching it that the reap removed, less the orphans matching it that it left.
  // Globs, not paths: spill names on a real disk are random.
  scenario::Command ExpectCountAfterReap(const std::string& glob,
                                         const std::vector<std::string>& removed_live,
                                         const std::vector<std::string>& left_orphans);
  // A finding when a lazy plan's build or drop touched the filesystem.
  void CheckLazy(const ActRun& run, const std::string& what, const std::string& no_count_note);
  void CheckDropFaults(const std::vector<InjectedFault>& faults, size_t log_before, int line,
                       const std::string& what, const std::string& key);
  void CheckAccounting(int line, int act);
  // One finding of `check` at act `act` (line `line`) listing `problems`, with `expects`
  // or, when there are none, the note `unexpressible`; nothing when there is no problem.
  void AddProblems(Check check, int line, int act, const std::vector<std::string>& problems,
                   std::vector<scenario::Command> expects, std::string_view unexpressible);
  // The plans' and the files' halves of CheckAccounting: each adds what is wrong and the
  // expects that would fail on it.
  void CheckPlanAccounting(int line, int act, std::vector<std::string>* problems,
                           std::vector<scenario::Command>* expects);
  void CheckFileAccounting(int line, int act, std::vector<std::string>* problems,
                           std::vector<scenario::Command>* expects);
  void CheckBudgetAccounting(int line, int act, std::vector<std::string>* problems,
                             std::vector<scenario::Command>* expects);
  // The plans' and budgets' metrics (workload_accounting.cc).
  void CheckMetrics(int line, int act);
  // The world facts injected faults made true (docs/sweep.md): the paths an injected
  // ENOENT removed, and the entries an injected EEXIST made for a racing process.
  void FollowFacts(const ActRun& run);
  bool Gone(const std::string& path) const;
  // Every path under the local dirs and the temp dir (three levels), the roots included.
  std::set<std::string> PathsUnderRoots();
  void CheckLeftovers();
  // Of `leftovers`, those that are reported or may remain (workload_leftovers.cc).
  std::set<std::string> ExplainedLeftovers(const std::set<std::string>& leftovers) const;
  std::map<std::string, uint64_t> CountSpillDirs(const std::vector<std::string>& roots);
  // The spill directories directly under `roots`.
  std::vector<std::string> SpillDirsUnder(const std::vector<std::string>& roots);

  const Workload& workload_;
  const SweepOptions& options_;
  const WorkloadRunSpec spec_;
  std::unique_ptr<scenario::Runner> runner_;
  std::function<void(scenario::Runner&)> after_act_hook_;
  std::vector<Line> lines_;
  std::vector<Finding> findings_;
  std::set<std::string> keys_;
  RunReport report_;
  std::map<std::string, PlanModel> plans_;
  std::map<std::string, BudgetModel> budgets_;
  std::vector<FileModel> files_;
  std::map<std::string, size_t> file_ids_;   // Bound file reference -> index in files_.
  std::set<std::string> gone_;               // Paths an injected ENOENT removed.
  std::map<std::string, uint64_t> foreign_;  // Directory -> entries racing processes made.
  // The spill directories the crashed process left (a `crash` records them); a reap
  // removes those under its dirs.
  std::set<std::string> orphans_;
  std::set<std::string> reap_failed_;  // Paths a reap reported it could not reap.
  bool killed_ = false;                // A `kill` fired (kKill).
  // The temp-dir spill directories a killed process left: `reap` does not look in the
  // temp dir (ReapOptions::include_os_tmp_dirs), so they stay, by design.
  std::set<std::string> killed_tmp_;
};

// `expect count GLOB N`: the line a reproducer places where a count went wrong.
scenario::Command ExpectCount(const std::string& glob, uint64_t count);
scenario::Command ExpectOk();
scenario::Command ExpectError(std::string error);

// Helpers shared by the files of WorkloadRun.
bool IsRemoval(OpKind op);
bool IsCreation(OpKind op);
// Whether `path` is `root` or lies under it.
bool AtOrUnder(const std::string& path, const std::string& root);
// The calls made since `before`, by kind: "mkdir 1, create 2".
std::string CountsByKind(const std::array<uint64_t, kOpKindCount>& before,
                         const FaultInjectingFileSystem& fs);
std::string DescribeFault(const InjectedFault& fault);
// A path glob that matches `path` on any run of the workload, on either filesystem: the
// random parts of spill directory and file names become '*'.
std::string GeneralizePath(const std::string& path);

}  // namespace spillway::workload_sweep::internal

#endif  // SPILLWAY_WORKLOAD_SWEEP_WORKLOAD_RUN_H_
