// Quirks: emulated upstream defects, switchable per manager and all off by default.
//
// spillway is a reference for correct spill behaviour, and a correct reference is only
// convincing when its tests can be shown to catch the known ways to get it wrong. Each
// quirk turns on one defect found in Apache DataFusion or in the first version of Apache
// DataFusion Comet PR #7066 (or, for spillway's own features beyond upstream, the likely
// way to get one wrong), reproduced faithfully, so that a property test, a sweep or a
// scenario can demonstrate that it notices.
#ifndef SPILLWAY_SPILL_QUIRKS_H_
#define SPILLWAY_SPILL_QUIRKS_H_

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace spillway {

enum class Quirk : uint32_t {
  // apache/datafusion#24228, case A (FileSpillWriter::write in disk_manager.rs at DataFusion
  // commit 02ee6daeb0cf): the writer adds `len` to used_disk_space before writing and does
  // not give it back when the write fails; the file's own size is not updated either, so
  // dropping the file gives back too little. The counter drifts up and the budget shrinks.
  kWriteLeak = 1u << 0,
  // apache/datafusion#24230 and #24228, case B: DataFusion 54.1's
  // RefCountedTempFile::update_disk_usage adds (new - old) to used_disk_space, then returns
  // the limit error without storing the new size on the file. Dropping the file subtracts
  // only the old size, so used_disk_space stays (new - old) too high for the life of the
  // manager: the counter does not return to zero.
  kNoRollback = 1u << 1,
  // DiskManager::create_tmp_file (datafusion/execution/src/disk_manager.rs at DataFusion
  // commit 02ee6daeb0cf) raises active_files_count before the file exists and does not
  // lower it when the creation fails.
  kCountLeak = 1u << 2,
  // DataFusion's eager Directories mode under PlanDiskManager: the spill directories are
  // created when the plan is built, whether or not it ever spills.
  kEagerDirs = 1u << 3,
  // The first version of Comet PR #7066: one cached manager per (local dirs, limit) for
  // the whole process, so plans share one budget, its directories are never removed, and
  // a directory removed by a tmp cleaner breaks every later spill. A plan takes the cached
  // manager (building it on a miss) at its first spill; that version also built it when
  // the first plan was built, which is kEagerDirs' defect: turn on both to reproduce it
  // as written.
  kSharedLimit = 1u << 4,
  // Comet PR #7066 as merged: the plan's outer manager only carries the factory, so it
  // reports used_disk_space() == 0 and never checks its own limit; the inner manager holds
  // the accounting.
  kOuterAccounting = 1u << 5,
  // Not an upstream defect: the way spillway's own failover (failover=on) would most
  // easily be got wrong. When a file cannot be created in a local dir's spill directory,
  // the directory is marked as failed and then forgotten rather than removed: it stays on
  // disk after the plan and its files are gone (its lock is released, so only a reaper
  // ever removes it).
  kFailoverLeak = 1u << 6,
  // Beyond upstream, where there is no upstream code to copy, the likely ways to get the
  // new features wrong; each shows that the model catches its feature's defect.
  // A budget charged before it is checked (fetch_add, then compare, as a plan's limit is
  // under kNoRollback): a write over the budget is refused, but its bytes stay charged to
  // the budget, which goes over its limit and no longer equals its plans' live bytes.
  kBudgetAfterAdd = 1u << 7,
  // A reaper that removes every spill directory it finds, without taking its lock: a live
  // manager's directories (and its open files) go with the dead ones'.
  kReapIgnoresLocks = 1u << 8,
  // The spilled-bytes metric counts the bytes a write asked for before the limit check,
  // so bytes the limit refused (that never reached a file) count as spilled.
  kSpilledCountsRefused = 1u << 9,
  // Errors swallowed on the way, the ways the ioerr discipline is most easily broken; each
  // makes a lie the sweep's own check names (docs/sweep.md).
  // tempfile's NamedTempFile and TempDir, under DataFusion's RefCountedTempFile: their drop
  // ignores a failed removal (`let _ = remove_file(..)`), so a spill file or directory
  // whose removal failed is recorded nowhere (the CleanupLog stays empty).
  kDropIgnoresErrors = 1u << 10,
  // A writer that drops the append's result (`let _ = file.write_all(buf)`): a write the
  // filesystem failed reports success. The bytes that reached the file are counted, so
  // only the outcome lies.
  kWriteIgnoresErrors = 1u << 11,
  // A reaper that passes over what it cannot do (`if let Ok(entries) = read_dir(dir)`,
  // `let _ = remove_dir_all(path)`): a local dir it cannot list and a spill directory it
  // cannot remove are reported nowhere, and the reap succeeds.
  kReapIgnoresErrors = 1u << 12,
  // A reaper that leaves an empty spill directory alone, taking it for one a live manager
  // has just made and not yet locked (the wrong answer to the race between a mkdir and
  // its lock): a process killed between making a spill directory and creating its first
  // file there leaves it for good, and the reap reports nothing.
  kReapSkipsEmpty = 1u << 13,
  // A reader of framed spill files that trusts each frame's length and skips the
  // checksums (the way Arrow IPC readers skip re-validation for speed, apache/datafusion
  // #15320): a flipped bit or a lost write's zeros come back as data, and the read succeeds.
  kReaderSkipsCheck = 1u << 14,
};

// A set of quirks. Thread safety: a value; safe to copy and read concurrently.
class Quirks {
 public:
  constexpr Quirks() = default;
  constexpr Quirks(Quirk q) : bits_(static_cast<uint32_t>(q)) {}  // NOLINT: implicit

  constexpr bool Has(Quirk q) const { return (bits_ & static_cast<uint32_t>(q)) != 0; }
  constexpr Quirks With(Quirk q) const { return Quirks(bits_ | static_cast<uint32_t>(q)); }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr friend bool operator==(Quirks, Quirks) = default;

  // "write_leak,count_leak"; "" for none.
  std::string ToString() const;

 private:
  constexpr explicit Quirks(uint32_t bits) : bits_(bits) {}
  uint32_t bits_ = 0;
};

// Every quirk, in declaration order.
const std::vector<Quirk>& AllQuirks();
// "write_leak", "no_rollback", "count_leak", "eager_dirs", "shared_limit",
// "outer_accounting", "failover_leak", "budget_after_add", "reap_ignores_locks",
// "spilled_counts_refused", "drop_ignores_errors", "write_ignores_errors",
// "reap_ignores_errors", "reap_skips_empty", "reader_skips_check".
std::string_view QuirkName(Quirk q);
std::optional<Quirk> QuirkFromName(std::string_view name);
// Prints QuirkName(q), so that test frameworks show a quirk parameter by name.
std::ostream& operator<<(std::ostream& os, Quirk q);

}  // namespace spillway

#endif  // SPILLWAY_SPILL_QUIRKS_H_
