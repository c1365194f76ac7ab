// FaultInjectingFileSystem: a decorator that makes any FileSystem fail on purpose, and
// counts every call.
//
// Faults are rules (fail this kind of operation with this errno, after N matching calls,
// K times or forever, optionally only on paths matching a glob), seeded random faults that
// replay identically from the seed, and short writes (store part of the bytes, then EIO).
// It also acts from outside, as a tmp cleaner or an operator would, without counting or
// faulting those actions. Every injected fault is recorded.
//
// Thread safety: all methods may be called concurrently. Rules are tried, and counters
// advanced, under one internal lock, so the same sequence of calls meets the same faults.
#ifndef SPILLWAY_VFS_FAULT_INJECTING_FILE_SYSTEM_H_
#define SPILLWAY_VFS_FAULT_INJECTING_FILE_SYSTEM_H_

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/vfs/file_system.h"

namespace spillway {

// The kinds of call a rule can match and the counters count. Every FileSystem and
// WritableFile call is exactly one of them.
enum class OpKind {
  kMkdir,   // CreateDir, CreateUniqueDir
  kCreate,  // CreateFile, CreateUniqueFile
  kOpen,    // OpenForAppend
  kWrite,   // WritableFile::Append
  kSync,    // WritableFile::Sync
  kSize,    // WritableFile::Size
  kClose,   // WritableFile::Close (and the implicit close of a destroyed open file)
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

struct FaultRule {
  // The kind of call to fail; nullopt matches every kind ("any").
  std::optional<OpKind> op;
  // The errno the failing call returns. REQUIRES: non-zero.
  int error_number = 0;
  // Matching calls let through before the rule starts failing them.
  uint64_t after = 0;
  // How many matching calls fail once it has started; nullopt means every later one.
  std::optional<uint64_t> times = 1;
  // Only calls on a path matching this glob (glob.h) match; empty matches every path.
  std::string path_glob;
};

struct InjectedFault {
  OpKind op;
  std::string path;
  int error_number = 0;
  // For a short write: the bytes stored before the error; 0 otherwise.
  uint64_t bytes_stored = 0;
};

class FaultInjectingFileSystem final : public FileSystemWrapper {
 public:
  // `seed` drives the random faults (SetRandomFaults).
  explicit FaultInjectingFileSystem(std::shared_ptr<FileSystem> target, uint64_t seed = 0);
  ~FaultInjectingFileSystem() override;

  // Adds a rule. Rules are tried in the order added; the first one that is due fails the
  // call (a rule that matches a call but is still in its `after` phase counts the call).
  void AddRule(FaultRule rule);
  // Fails each call of kind `op` (every kind when nullopt) with probability 1/`one_in`,
  // with `error_number`, drawn from the seeded generator. one_in == 0 turns it off.
  void SetRandomFaults(std::optional<OpKind> op, int error_number, uint32_t one_in);
  // The next Append that reaches a file whose path matches `path_glob` stores only
  // min(bytes, size of the append) bytes and then fails with EIO. Queued in order.
  void AddShortWrite(std::string path_glob, uint64_t bytes);
  // Removes every rule, random fault and pending short write.
  void ClearFaults();

  // Calls seen (let through or failed), by kind and in total.
  uint64_t calls(OpKind kind) const;
  uint64_t total_calls() const;
  void ResetCounters();
  // Every fault injected so far, in order.
  std::vector<InjectedFault> injected() const;

  // Actions from outside: they reach the target directly, are not counted and never fail
  // by injection.
  // Removes a tree as a tmp cleaner would.
  Status RemoveTreeFromOutside(const std::string& path);
  // Changes permissions as an operator would (e.g. make a directory read-only).
  Status SetPermissionsFromOutside(const std::string& path, uint32_t mode);

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
  // Walks the tree with RemoveTreeByParts, so each list, remove and rmdir is counted and
  // can fail on its own.
  Status RemoveTree(const std::string& path) override;
  Status SetPermissions(const std::string& path, uint32_t mode) override;

  // For the wrapped WritableFile (implementation detail, public so it can call back).
  // Counts a call of `kind` on `path` and returns the fault to inject, if any (OK means
  // let it through).
  Status Check(OpKind kind, const std::string& path);
  // Returns the number of bytes a pending short write allows for an append of `size`
  // bytes to `path`, consuming it; nullopt when none is pending.
  std::optional<uint64_t> TakeShortWrite(const std::string& path, uint64_t size);

 private:
  struct RuleState {
    FaultRule rule;
    uint64_t matched = 0;  // Matching calls seen so far.
    uint64_t failed = 0;   // Matching calls failed so far.
  };
  struct ShortWrite {
    std::string path_glob;
    uint64_t bytes = 0;
  };

  mutable std::mutex mu_;
  std::vector<RuleState> rules_;
  std::optional<OpKind> random_op_;
  int random_error_ = 0;
  uint32_t random_one_in_ = 0;
  std::mt19937_64 rng_;
  std::vector<ShortWrite> short_writes_;
  std::array<uint64_t, kOpKindCount> calls_{};
  std::vector<InjectedFault> injected_;
};

}  // namespace spillway

#endif  // SPILLWAY_VFS_FAULT_INJECTING_FILE_SYSTEM_H_
