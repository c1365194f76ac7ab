// Private to the spill library: the pieces a manager, its directories and its files share.
// Not installed.
//
// Ownership (DataFusion's DiskManager / TempDir / RefCountedTempFile, in C++):
//
//   DiskManager ──> DiskManagerCore ──> SpillDirSet ──> SpillDir (one per slot)
//                          │                 ▲              ▲
//                          ▼                 │              │
//                    SpillAccounting <── SpillFileState ────┘ <── SpillFile (copies share
//                                                                 one SpillFileState)
//
// A file holds its accounting, its directory and its manager's directory set, never the
// manager itself, so files may outlive the manager; the directories are removed together
// when the manager and all its files are gone. Every failed removal goes to the
// CleanupLog that the accounting carries.
#ifndef SPILLWAY_SRC_SPILL_INTERNAL_H_
#define SPILLWAY_SRC_SPILL_INTERNAL_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/spill/cleanup_log.h"
#include "spillway/spill/quirks.h"
#include "spillway/spill/spill_budget.h"
#include "spillway/spill/spill_file.h"
#include "spillway/spill/spill_status.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/status.h"

namespace spillway::internal {

// The counters behind one limit (a manager's or a budget's): usage checked against a
// limit with CAS, and the metrics. Thread safety: every method may be called concurrently.
class SpillLedger {
 public:
  SpillLedger(uint64_t limit, std::string limit_config_key)
      : limit_(limit), limit_config_key_(std::move(limit_config_key)) {}

  SpillLedger(const SpillLedger&) = delete;
  SpillLedger& operator=(const SpillLedger&) = delete;

  // Counts `bytes` more as used unless that would take used over the limit (used == limit
  // is allowed, as DataFusion checks `>`); returns the new total, or nullopt if it counted
  // nothing. Does not raise the peak: the caller does once the reservation is final.
  [[nodiscard]] std::optional<uint64_t> TryReserve(uint64_t bytes);
  // Counts `bytes` more as used whatever the limit; returns the new total.
  uint64_t Add(uint64_t bytes);
  // Counts `bytes` fewer as used. REQUIRES: bytes <= used().
  void Release(uint64_t bytes);
  // Metrics: a file was created; `bytes` reached a file.
  void CountSpill() { spills_.fetch_add(1, std::memory_order_relaxed); }
  void CountSpilled(uint64_t bytes) { spilled_.fetch_add(bytes, std::memory_order_relaxed); }

  uint64_t used() const { return used_.load(); }
  uint64_t limit() const { return limit_.load(); }
  void set_limit(uint64_t bytes) { limit_.store(bytes); }
  const std::string& limit_config_key() const { return limit_config_key_; }
  SpillMetrics metrics() const;
  // Raises the peak to `used` if it is higher.
  void RaisePeak(uint64_t used);

  // Tests only: when set, TryReserve calls it between its check and its compare-and-swap,
  // so that a test can land another reservation in that window deterministically.
  static inline std::atomic<void (*)()> reserve_window_for_testing{nullptr};

 private:
  std::atomic<uint64_t> used_{0};
  std::atomic<uint64_t> limit_;
  std::atomic<uint64_t> spills_{0};
  std::atomic<uint64_t> spilled_{0};
  std::atomic<uint64_t> peak_{0};
  const std::string limit_config_key_;
};
// The counters of one manager (DataFusion's used_disk_space, active_files_count and
// max_temp_directory_size, and the spill metrics), shared by the manager and every file it
// made, and outliving both; and the budget the manager's writes must also fit, if any.
// Also carries what the files need to know about their manager: its quirks, the
// configuration key to name in limit errors, its CleanupLog, and whether its files are
// framed.
//
// Thread safety: every method may be called concurrently.
class SpillAccounting {
 public:
  // REQUIRES: cleanup_log != nullptr. `budget` may be null (no executor-wide budget).
  // `frame_spill_files`: SpillOptions::frame_spill_files.
  SpillAccounting(uint64_t limit, std::string limit_config_key, Quirks quirks,
                  std::shared_ptr<CleanupLog> cleanup_log,
                  std::shared_ptr<SpillBudget> budget = nullptr, bool frame_spill_files = false);

  SpillAccounting(const SpillAccounting&) = delete;
  SpillAccounting& operator=(const SpillAccounting&) = delete;

  // Counts `bytes` more as used in the manager and in its budget, unless that would take
  // either over its limit; then counts nothing in either and returns the limit error of
  // the one that refused (the manager's is checked first).
  Status Reserve(uint64_t bytes);
  // Counts `bytes` more as used in both whatever the limits, then reports the first limit
  // now exceeded. For the kNoRollback quirk, which checks only afterwards.
  Status AddThenCheck(uint64_t bytes);
  // Counts `bytes` more as used in both whatever the limits (a rolled-back Release).
  void Add(uint64_t bytes);
  // Counts `bytes` fewer as used in both. REQUIRES: bytes <= used().
  void Release(uint64_t bytes);

  // The manager's limit error (LimitExceededError), naming the limit now and the
  // configuration key (DataFusion's text, upstream_text.h).
  Status LimitError() const;

  void FileCreated() { active_files_.fetch_add(1); }
  void FileRemoved() { active_files_.fetch_sub(1); }
  // Metrics: a spill file was created; `bytes` reached a spill file.
  void CountSpill();
  void CountSpilled(uint64_t bytes);

  uint64_t used() const { return ledger_.used(); }
  uint64_t active_files() const { return active_files_.load(); }
  uint64_t limit() const { return ledger_.limit(); }
  void set_limit(uint64_t bytes) { ledger_.set_limit(bytes); }
  SpillMetrics metrics() const { return ledger_.metrics(); }

  Quirks quirks() const { return quirks_; }
  const std::shared_ptr<CleanupLog>& cleanup_log() const { return cleanup_log_; }
  bool frame_spill_files() const { return frame_spill_files_; }
  // Where the drops of this manager's files and directories record a failed removal: the
  // CleanupLog, or with kDropIgnoresErrors a log no one reads.
  const std::shared_ptr<CleanupLog>& removal_log() const { return removal_log_; }

 private:
  SpillLedger ledger_;
  std::atomic<uint64_t> active_files_{0};
  const Quirks quirks_;
  const std::shared_ptr<CleanupLog> cleanup_log_;
  const std::shared_ptr<CleanupLog> removal_log_;
  const std::shared_ptr<SpillBudget> budget_;  // May be null.
  SpillLedger* const budget_ledger_;           // budget_'s counters; null without one.
  const bool frame_spill_files_;
};

// One "datafusion-XXXXXX" spill directory (DataFusion's TempDir). Destroying it removes it
// and everything left in it; a removal that fails is recorded in the CleanupLog. While it
// lives it holds the directory's advisory lock (if the filesystem has locks), released
// only after the removal, so that ReapOrphans (reap.h) never takes it for an orphan.
//
// Thread safety: immutable after construction, but for Abandon, which may be called
// concurrently with anything but the destructor.
class SpillDir {
 public:
  // Takes ownership of the existing directory `path`, and of its lock (null when the
  // filesystem has none). REQUIRES: fs, cleanup_log non-null.
  SpillDir(std::shared_ptr<FileSystem> fs, std::string path,
           std::shared_ptr<CleanupLog> cleanup_log, std::unique_ptr<DirLock> lock = nullptr);
  ~SpillDir();  // NOLINT(bugprone-exception-escape): see its definition.

  SpillDir(const SpillDir&) = delete;
  SpillDir& operator=(const SpillDir&) = delete;

  const std::string& path() const { return path_; }

  // Records that the manager made the entry `name` in this directory. Only such entries
  // are removed with it: an entry someone else made here (a racing process) is left, and
  // then so is the directory. Thread safety: may be called concurrently.
  void Own(std::string name);
  // The kFailoverLeak quirk: destroying this leaves the directory on disk (the lock is
  // still released).
  void Abandon() { abandoned_.store(true); }

 private:
  // Declared first, so that it is destroyed (and the lock released) after the removal.
  const std::unique_ptr<DirLock> lock_;
  const std::shared_ptr<FileSystem> fs_;
  const std::string path_;
  const std::shared_ptr<CleanupLog> cleanup_log_;
  std::mutex mu_;
  std::set<std::string> owned_;  // Guarded by mu_ (Own); read unlocked by the destructor.
  std::atomic<bool> abandoned_{false};
};

// The spill directories a manager uses now, one per slot (a local dir, or the temp dir),
// and the directory each slot's is made in. The manager changes them (under its mutex);
// every file also holds the set, so that all of them are removed together, once the
// manager and every file it made are gone. A directory replaced in its slot (kRecreate)
// lives on as long as the files made in it.
struct SpillDirSet {
  SpillDirSet() = default;
  // Removes the directories in slot order.
  ~SpillDirSet();

  SpillDirSet(const SpillDirSet&) = delete;
  SpillDirSet& operator=(const SpillDirSet&) = delete;

  std::vector<std::shared_ptr<SpillDir>> dirs;
  std::vector<std::string> parents;
};

// Where a spill directory is made, which decides how, as upstream makes each kind.
enum class SpillDirKind {
  // create_local_dirs: a missing parent is created first (one level deep; EEXIST from a
  // concurrent creator is fine), then "datafusion-" + random in it.
  kLocalDir,
  // tempfile::tempdir(): ".tmp" + random in the OS temp dir, which is not created.
  kOsTmpDir,
};

// Makes a new spill directory of `kind` in `parent`. Errors: the failing call's errno
// Status (with its errno and path).
StatusOr<std::shared_ptr<SpillDir>> MakeSpillDir(const std::shared_ptr<FileSystem>& fs,
                                                 const std::string& parent, SpillDirKind kind,
                                                 const std::shared_ptr<CleanupLog>& log);

}  // namespace spillway::internal

namespace spillway {

// What every copy of one SpillFile shares (RefCountedTempFile's fields). Destroying it,
// when the last copy goes, gives the file's bytes back to the accounting, lowers the
// active-file count, closes the file, removes it (recording a failure in the CleanupLog),
// and lets go of its directory and of its manager's directory set.
//
// Thread safety: `size` may be read at any time; changes to it, and the appends they
// account for, happen under `write_mu`.
struct SpillFile::State {
  // REQUIRES: every pointer non-null; the file was created at file->path().
  State(std::shared_ptr<internal::SpillAccounting> accounting,
        std::shared_ptr<internal::SpillDir> dir,
        std::shared_ptr<internal::SpillDirSet> manager_dirs, std::shared_ptr<FileSystem> fs,
        std::unique_ptr<WritableFile> file);
  ~State();

  State(const State&) = delete;
  State& operator=(const State&) = delete;

  const std::shared_ptr<internal::SpillAccounting> accounting;
  std::shared_ptr<internal::SpillDir> dir;              // The directory the file is in.
  std::shared_ptr<internal::SpillDirSet> manager_dirs;  // Keeps its siblings alive too.
  const std::shared_ptr<FileSystem> fs;
  // Open for the file's whole life, so it stays writable after a cleaner unlinked it.
  std::unique_ptr<WritableFile> file;
  const std::string path;
  // The bytes of this file counted in accounting->used() (current_file_disk_usage).
  std::atomic<uint64_t> size{0};
  // Serializes appends with their accounting, and size updates, so that `size` is always
  // exactly what this file has counted.
  std::mutex write_mu;
};

// How the spill library makes a SpillFile and reaches its state; users cannot.
struct SpillFile::Access {
  static SpillFile Make(std::shared_ptr<State> state) { return SpillFile(std::move(state)); }
  static State& StateOf(const SpillFile& file) { return *file.state_; }
};

// A budget's counters (SpillBudget owns one).
struct SpillBudget::State {
  State(uint64_t limit, std::string limit_config_key)
      : ledger(limit, std::move(limit_config_key)) {}

  internal::SpillLedger ledger;
};

// How the spill library's accounting reaches a budget's counters; users cannot.
struct SpillBudget::Access {
  static internal::SpillLedger& Ledger(SpillBudget& budget) { return budget.state_->ledger; }
};

}  // namespace spillway

namespace spillway::internal {

using SpillFileState = SpillFile::State;

// SpillFile::UpdateDiskUsage with `state.write_mu` already held (the kNoRollback writer
// calls it after its append).
Status UpdateDiskUsageLocked(SpillFileState& state);

}  // namespace spillway::internal

#endif  // SPILLWAY_SRC_SPILL_INTERNAL_H_
