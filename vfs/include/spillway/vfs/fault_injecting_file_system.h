// FaultInjectingFileSystem: a decorator that makes any FileSystem fail on purpose, and
// counts every call.
//
// Faults are rules (fail this kind of operation with this errno, after N matching calls,
// K times or forever, optionally only on paths matching a glob), seeded random faults that
// replay identically from the seed, and short writes (store part of the bytes, then EIO).
// It also acts from outside, as a tmp cleaner or an operator would, without counting or
// faulting those actions. Every injected fault is recorded.
//
// Every FileSystem call, and every call on a WritableFile it returns, is counted by OpKind
// and checked against the faults before it reaches the target; the exceptions are
// TempDir() and WritableFile::path() (never counted), RemoveTree() (its steps are counted
// instead) and the actions from outside. A call
// that is failed does not reach the target; it returns Status::FromErrno(errno, op, path)
// whose op is OpKindName(kind), as the real implementations report a failure of that
// kind of call ("mkdir", "create", "open", "write", "sync", "size", "close", "read",
// "list", "stat", "remove", "rmdir", "chmod").
//
// The path a call is matched on is its path argument, with two exceptions:
// CreateUniqueDir and CreateUniqueFile match on their parent directory (the new name is
// not known before the call), and a WritableFile call matches on the file's path().
//
// Rules are decided by the rule engine shared with `spillway inject` (private to spillway,
// docs/inject.md). The kinds are derived from its one table of operations, which has
// rename (no FileSystem call) and no size or chmod: here they are kinds of their own (size
// is the engine's stat of an open file; chmod is never faulted by `spillway inject`).
//
// Only faults Linux can produce. Each kind may fail only with an errno its Linux call can
// return: the rule engine's per-operation table (docs/inject.md), where size is a stat
// (fstat(2)) and chmod has its own row (chmod(2)). CheckFaultRule() refuses any other
// pair, AddRule() drops such a rule, an "any" rule matches only the calls whose kind can
// return its errno (the others neither count nor fail), and random faults reach only
// those calls too.
//
// A kKill rule stands for the process dying at the call it matches (the OOM killer, kill
// -9): that call and every later call through this filesystem, and through every
// WritableFile it handed out, reach nothing and fail with kAborted ("killed"), as if the
// process had vanished; later calls are not counted. What the process made stays on the
// target as it was; the actions from outside still work (another process can look), and
// destroying a WritableFile still closes the target's file, as the kernel closes a dead
// process's files. A new FaultInjectingFileSystem over the same target is the next
// process.
//
// Faults that state a fact make it true, on the target, before the call fails:
// - ENOENT on remove, rmdir or list removes the path with everything under it, as a tmp
//   cleaner would; on mkdir or create it removes the directory the entry is made in (the
//   parent of a named entry, the `parent`/`dir` argument of a unique one); on stat only
//   through "any" (a stat rule's ENOENT is an answer, not a fact). "/" is never removed.
// - EEXIST on a named mkdir or create first creates the name (an empty directory, or an
//   empty file that is closed at once), as a racing process would. On a unique name
//   (CreateUniqueDir, CreateUniqueFile) the racing process's entry is made under another
//   unique name and the creation then retries, as mkdtemp(3) does, and succeeds: the call
//   returns the target's answer. Entries made this way belong to no caller.
// The facts are made outside the counters: they are not counted and never fail.
//
// Order of checks for one call: the rules, in the order added; then the random faults;
// then, for an Append, the pending short writes.
//
// Thread safety: all methods may be called concurrently. Rules are tried, and counters
// advanced, under one internal lock that is never held while the target runs, so the same
// sequence of calls meets the same faults.
#ifndef SPILLWAY_VFS_FAULT_INJECTING_FILE_SYSTEM_H_
#define SPILLWAY_VFS_FAULT_INJECTING_FILE_SYSTEM_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/vfs/fault_action.h"
#include "spillway/vfs/file_system.h"

namespace spillway {

// The kinds of call a rule can match and the counters count. Every counted call is
// exactly one of them. Each is derived from a row of the rule engine's table of operations
// (vfs/op_kind.cc checks, at compile time, that this order is the
// derivation's and that it covers the table); the order is printed, so it is kept.
enum class OpKind {
  kMkdir,   // CreateDir, CreateUniqueDir
  kCreate,  // CreateFile, CreateUniqueFile
  kOpen,    // OpenForAppend
  kWrite,   // WritableFile::Append
  kSync,    // WritableFile::Sync
  kSize,    // WritableFile::Size
  kClose,   // WritableFile::Close (not the implicit close of a destroyed file)
  kRead,    // ReadFile
  kList,    // ListDir
  kStat,    // Stat (and so Exists)
  kRemove,  // RemoveFile
  kRmdir,   // RemoveDir
  kChmod,   // SetPermissions
};
inline constexpr int kOpKindCount = 13;

// "mkdir", "create", "open", "write", "sync", "size", "close", "read", "list", "stat",
// "remove", "rmdir", "chmod".
std::string_view OpKindName(OpKind kind);
std::optional<OpKind> OpKindFromName(std::string_view name);
// True when a call of `kind` can fail with `error_number` on Linux (nullopt: some kind can).
bool OpKindCanReturn(std::optional<OpKind> kind, int error_number);

struct FaultRule {
  // The kind of call to act on; nullopt matches every kind ("any").
  std::optional<OpKind> op;
  // The errno the failing call returns. REQUIRES: non-zero for kFail, 0 for any other
  // action.
  int error_number = 0;
  // Matching calls let through before the rule starts failing them.
  uint64_t after = 0;
  // How many matching calls fail once it has started; nullopt means every later one.
  std::optional<uint64_t> times = 1;
  // Only calls on a path matching this glob (GlobMatch, glob.h) match; empty matches every
  // path. REQUIRES: at most 511 characters (the rule engine's capacity).
  std::string path_glob;
  // Only calls made from this call site match (docs/inject.md); all ones (no site): every
  // call. The calls of this filesystem carry no site (docs/sweep.md), so a rule that names
  // one never fails a call here.
  uint64_t site = ~uint64_t{0};
  // `then=any`: the site only triggers the rule, which then matches every site's calls
  // (fault_rules.h). REQUIRES: a site.
  bool then_any_site = false;
  // What happens to the call: it fails with `error_number` (kFail), or the process dies
  // at it (kKill, see the file comment), or it succeeds and lies: kCorrupt (an Append
  // stores, a ReadFile returns, the data with one bit flipped), kLost (an Append stores
  // zeros in place of the data: the file grows, the bytes never landed); kOk lets it
  // through.
  FaultAction action = FaultAction::kFail;
  // The call waits this long first (a slow disk); 0: no wait. At most kFaultMaxDelayMs
  // (3,600,000); REQUIRES: non-zero for kOk.
  uint32_t delay_ms = 0;
  friend bool operator==(const FaultRule&, const FaultRule&) = default;
};

// OK when Linux can produce the rule: a kFail rule's errno is one a call of rule.op can
// fail with (otherwise InvalidArgument names those it can), a kKill rule has no errno and
// fails once (times == 1: the process it kills makes no later call), kCorrupt names read
// or write, kLost write, kOk has a delay, every other action no errno, and delay_ms is at
// most kFaultMaxDelayMs.
Status CheckFaultRule(const FaultRule& rule);

struct InjectedFault {
  OpKind op;
  std::string path;
  int error_number = 0;  // 0 for a kill.
  // For a short write: the bytes stored before the error; 0 otherwise.
  uint64_t bytes_stored = 0;
  FaultAction action = FaultAction::kFail;
  // For kCorrupt: the file offset of the flipped byte and the bit (0..7) flipped; -1 when
  // nothing was flipped (a read or write of no bytes).
  uint64_t offset = 0;
  int bit = -1;
  // For kLost: the bytes reported written and never stored.
  uint64_t lost_bytes = 0;
  friend bool operator==(const InjectedFault&, const InjectedFault&) = default;
};

class FaultInjectingFileSystem;

// A FaultInjectingFileSystem over `target`, with no faults yet. `seed` drives the random
// faults (SetRandomFaults). REQUIRES: target != nullptr.
std::shared_ptr<FaultInjectingFileSystem> NewFaultInjectingFileSystem(
    std::shared_ptr<FileSystem> target, uint64_t seed = 0);

// Made only by NewFaultInjectingFileSystem. The class is public because its methods beyond
// FileSystem's (rules, counters, actions from outside) are its interface.
class FaultInjectingFileSystem final : public FileSystemWrapper {
 public:
  ~FaultInjectingFileSystem() override;

  // Adds a rule. Rules are tried in the order added, each seeing only the calls that the
  // rules before it let through. A rule that matches a call counts it; while it has
  // counted no more than `after` calls it lets them through, then it is due and fails the
  // next `times` matching calls (every later one when times is nullopt), then it is spent.
  // The first rule that is due fails the call, and the rules after it do not see it.
  // A rule CheckFaultRule() refuses is not added (Linux could never produce it). A spent
  // rule (or one with times == 0) can fail no call again and is dropped: it would only
  // count calls, so a long run's calls meet only the live rules.
  void AddRule(const FaultRule& rule);
  // As AddRule, but returns CheckFaultRule()'s InvalidArgument for a rule it refuses.
  Status TryAddRule(const FaultRule& rule);
  // Adds a rule given in the text form of `spillway inject --fault` (`OP ERRNO [site=ID]
  // [nth=K] [after=N] [times=K|forever] [then=site|any] [path=GLOB]`), parsed by the
  // shared rule engine.
  // Errors: InvalidArgument with the engine's one-line reason for bad text, for an OP
  // this filesystem has no call for (rename), and for probability=, which it does not take
  // (SetRandomFaults draws instead).
  Status AddRuleText(std::string_view text);
  // Fails each call of kind `op` (every kind when nullopt) that no rule failed with
  // probability 1/`one_in`, with `error_number`, if its kind can return that errno
  // (OpKindCanReturn; the other calls neither draw nor fail). Each such call draws once from a
  // std::mt19937_64 seeded with NewFaultInjectingFileSystem's seed, so the same seed and the same
  // sequence of calls give the same faults. one_in == 0 turns random faults off; one_in
  // == 1 fails every such call. Replaces an earlier setting; the generator is not
  // reseeded. REQUIRES: error_number != 0 unless one_in == 0.
  void SetRandomFaults(std::optional<OpKind> op, int error_number, uint32_t one_in);
  // The next Append that reaches a file whose path matches `path_glob` (empty matches
  // every file) and that no rule or random fault failed stores only min(bytes, size of
  // the append) bytes, by appending that prefix through the target, and then fails with
  // EIO, returning AppendResult{stored, EIO}. Pending short writes are consumed in the
  // order added; the first one whose glob matches is used. If the target itself fails
  // the prefix, its result is returned (the short write is still used up). A glob without
  // wildcards that names an existing file, or one a WritableFile from this filesystem is
  // open on, makes the short write that file's. A file removed while such a WritableFile
  // is open still takes that file's writes (as an unlinked file does on Linux), and they
  // still meet its short writes. Once the file is gone and no WritableFile is open on its
  // path, its short writes can never apply: they are dropped when pending short writes
  // are next checked (as they accumulate), so a file made later at that path gets them
  // only if it came before that check.
  void AddShortWrite(std::string path_glob, uint64_t bytes);
  // Removes every rule, random fault and pending short write. Counters, injected() and
  // the random generator's state are kept.
  void ClearFaults();

  // Calls seen (let through or failed), by kind and in total.
  uint64_t calls(OpKind kind) const;
  uint64_t total_calls() const;
  // Zeroes the call counters and forgets injected(). Rules keep their own progress.
  void ResetCounters();
  // Every fault injected since construction or the last ResetCounters(), in order.
  std::vector<InjectedFault> injected() const;
  // True once a kKill rule has fired: every call fails without effect from then on.
  bool killed() const;

  // Actions from outside: they reach the target directly, are not counted and never fail
  // by injection.
  // Removes a tree as a tmp cleaner would (the target's RemoveTree).
  Status RemoveTreeFromOutside(const std::string& path);
  // Changes permissions as an operator would (e.g. make a directory read-only).
  Status SetPermissionsFromOutside(const std::string& path, uint32_t mode);

  // The FileSystem calls, counted and checked as the file comment describes. A returned
  // WritableFile is a wrapper whose Append, Sync, Size and Close are counted and checked
  // too; destroying it closes the target's file without counting or faulting that
  // implicit close. A Close() that is failed does not reach the target, so the file stays
  // open (a later Close() may succeed) until the wrapper is destroyed. A wrapper may
  // outlive this FaultInjectingFileSystem; its calls are still counted and checked.
  Status CreateDir(const std::string& path) override;
  StatusOr<std::string> CreateUniqueDir(const std::string& parent,
                                        std::string_view prefix) override;
  StatusOr<std::unique_ptr<WritableFile>> CreateFile(const std::string& path) override;
  StatusOr<std::unique_ptr<WritableFile>> CreateUniqueFile(const std::string& dir,
                                                           std::string_view prefix) override;
  StatusOr<std::unique_ptr<WritableFile>> OpenForAppend(const std::string& path) override;
  StatusOr<std::string> ReadFile(const std::string& path) override;
  StatusOr<std::vector<DirEntry>> ListDir(const std::string& path) override;
  StatusOr<FileStat> Stat(const std::string& path) override;
  Status RemoveFile(const std::string& path) override;
  Status RemoveDir(const std::string& path) override;
  // The target's RemoveTreeGated walks the tree (through directory handles on a
  // PosixFileSystem, so a subdirectory swapped for a symlink mid-removal is not followed);
  // each of its list, remove and rmdir steps is counted and checked here as a call of
  // that kind, and can fail on its own (a failed step is not taken). RemoveTreeGated
  // asks `gate` after this filesystem's own check.
  Status RemoveTree(const std::string& path) override;
  Status RemoveTreeGated(const std::string& path, const TreeStepGate& gate) override;
  Status SetPermissions(const std::string& path, uint32_t mode) override;
  // TempDir() is inherited: forwarded, not counted, never failed.

 private:
  friend std::shared_ptr<FaultInjectingFileSystem> NewFaultInjectingFileSystem(
      std::shared_ptr<FileSystem> target, uint64_t seed);
  FaultInjectingFileSystem(std::shared_ptr<FileSystem> target, uint64_t seed);

  // Rules, counters and the generator, shared with the WritableFile wrappers so that a
  // file may outlive the FaultInjectingFileSystem. Defined in the .cc file.
  class State;
  // The WritableFile wrapper. Defined in the .cc file.
  class File;

  // Makes an injected ENOENT's fact true (removes `path`'s tree), then returns `fault`.
  Status Removed(const std::string& path, Status fault);
  // Wraps a file the target returned (an error passes through unchanged).
  StatusOr<std::unique_ptr<WritableFile>> Wrap(StatusOr<std::unique_ptr<WritableFile>> file);

  std::shared_ptr<State> state_;
};

}  // namespace spillway

#endif  // SPILLWAY_VFS_FAULT_INJECTING_FILE_SYSTEM_H_
