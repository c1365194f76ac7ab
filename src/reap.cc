// ReapOrphans: removes spill directories whose owning process is gone.
#include "spillway/spill/reap.h"

#include <cerrno>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "spillway/spill/disk_manager.h"

namespace spillway {
namespace {

bool HasUniqueSuffix(std::string_view name, std::string_view prefix) {
  if (!name.starts_with(prefix) || name.size() != prefix.size() + kUniqueNameLength) {
    return false;
  }
  for (char c : name.substr(prefix.size())) {
    if (kUniqueNameAlphabet.find(c) == std::string_view::npos) return false;
  }
  return true;
}

void Fail(ReapReport& report, Status status) {
  if (report.status.ok()) report.status = status;
  report.failures.push_back(std::move(status));
}

// Reaps one spill directory: takes its lock, and removes it while holding it.
void ReapOne(FileSystem& fs, const std::string& path, const ReapOptions& options,
             ReapReport& report) {
  StatusOr<std::unique_ptr<DirLock>> lock = fs.LockDir(path);
  if (!lock.ok() && lock.status().IsErrno(EWOULDBLOCK) &&
      options.quirks.Has(Quirk::kReapIgnoresLocks)) {
    lock = std::unique_ptr<DirLock>();  // Removed as if no one held it.
  }
  if (!lock.ok()) {
    if (lock.status().IsErrno(EWOULDBLOCK)) {
      report.live.push_back(path);
    } else if (!lock.status().IsErrno(ENOENT)) {  // ENOENT: another reaper was first.
      Fail(report, lock.status());
    }
    return;
  }
  if (options.quirks.Has(Quirk::kReapSkipsEmpty)) {
    StatusOr<std::vector<DirEntry>> entries = fs.ListDir(path);
    if (entries.ok() && entries->empty()) return;  // Taken for one being made: left, unreported.
  }
  if (!options.dry_run) {
    // Removed while locked; the lock goes with the handle after the removal.
    if (Status removed = fs.RemoveTree(path); !removed.ok()) {
      if (options.quirks.Has(Quirk::kReapIgnoresErrors)) return;  // Passed over, unreported.
      // ENOENT at the top: another reaper removed it between our lock and theirs ending.
      if (!(removed.IsErrno(ENOENT) && !fs.Exists(path))) Fail(report, removed);
      return;
    }
  }
  report.removed.push_back(path);
}

}  // namespace

bool IsSpillDirName(std::string_view name, bool include_os_tmp_dirs) {
  return HasUniqueSuffix(name, kSpillDirPrefix) ||
         (include_os_tmp_dirs && HasUniqueSuffix(name, kOsTmpDirPrefix));
}

ReapReport ReapOrphans(FileSystem& fs, const std::vector<std::string>& local_dirs,
                       const ReapOptions& options) {
  ReapReport report;
  for (const std::string& local_dir : local_dirs) {
    if (Status valid = ValidatePath(local_dir); !valid.ok()) {
      Fail(report, std::move(valid));
      continue;
    }
    StatusOr<std::vector<DirEntry>> entries = fs.ListDir(local_dir);
    if (!entries.ok()) {
      const bool ignored = options.quirks.Has(Quirk::kReapIgnoresErrors);
      if (!entries.status().IsErrno(ENOENT) && !ignored) Fail(report, entries.status());
      continue;
    }
    for (const DirEntry& entry : *entries) {
      // ListDir reports a symlink as kSymlink: it is neither followed nor removed.
      if (entry.type != FileType::kDirectory) continue;
      if (!IsSpillDirName(entry.name, options.include_os_tmp_dirs)) continue;
      ReapOne(fs, JoinPath(local_dir, entry.name), options, report);
    }
  }
  return report;
}

}  // namespace spillway
