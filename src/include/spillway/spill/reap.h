// ReapOrphans: crash recovery for spill directories (beyond upstream: after kill -9,
// DataFusion and Comet leave their spill directories behind, since only destructors
// remove them).
//
// A live manager holds an advisory lock (FileSystem::LockDir, flock(2) on POSIX) on every
// spill directory it made, from just after making it until after removing it, and the
// kernel releases the locks of a process that dies. So a spill directory that can be
// locked has no live owner, and its contents can go. Two reapers at once are safe: each
// removes a directory only while holding its lock, so each directory is removed once.
#ifndef SPILLWAY_SPILL_REAP_H_
#define SPILLWAY_SPILL_REAP_H_

#include <string>
#include <vector>

#include "spillway/spill/quirks.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/status.h"

namespace spillway {

struct ReapOptions {
  // Report what would be removed without removing anything (the locks are still taken,
  // to tell orphans from live directories, and released at once).
  bool dry_run = false;
  // Also reap the OS-temp-dir spill directories (".tmp" + 6 characters, DiskManager's
  // kOsTmpDirectory mode). Off by default: other programs (Rust's tempfile crate among
  // them) make directories with the same names, and cannot be told apart.
  bool include_os_tmp_dirs = false;
  // Emulated defects; only kReapIgnoresLocks and kReapSkipsEmpty apply (quirks.h).
  Quirks quirks;
};

struct ReapReport {
  std::vector<std::string> removed;  // Orphans removed (or, with dry_run, removable).
  std::vector<std::string> live;     // Spill directories a live process holds: untouched.
  // What could not be listed, locked or removed, in the order met.
  std::vector<Status> failures;
  // OK, or the first of `failures`.
  Status status;
};

// Removes the orphaned spill directories directly under each of `local_dirs`: entries
// named as a spill directory (kSpillDirPrefix + kUniqueNameLength characters of
// kUniqueNameAlphabet; with include_os_tmp_dirs also kOsTmpDirPrefix + the same) that are
// directories themselves (a symlink is never followed nor removed; files and other names
// are never touched) and whose lock can be taken. A local dir that does not exist has
// nothing to reap and is not an error.
// Thread safety: safe to run concurrently with managers and other reapers, in this
// process or others, on the same directories.
ReapReport ReapOrphans(FileSystem& fs, const std::vector<std::string>& local_dirs,
                       const ReapOptions& options = {});

// True when `name` is that of a spill directory ReapOrphans may reap.
bool IsSpillDirName(std::string_view name, bool include_os_tmp_dirs);

}  // namespace spillway

#endif  // SPILLWAY_SPILL_REAP_H_
