// SpillDir: one spill directory (DataFusion's TempDir), the set of a manager's, and
// MakeSpillDir, which makes one and locks it (spill_internal.h).
#include <cerrno>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spill_internal.h"
#include "spillway/spill/disk_manager.h"

namespace spillway::internal {

SpillDir::SpillDir(std::shared_ptr<FileSystem> fs, std::string path,
                   std::shared_ptr<CleanupLog> cleanup_log, std::unique_ptr<DirLock> lock)
    : lock_(std::move(lock)),
      fs_(std::move(fs)),
      path_(std::move(path)),
      cleanup_log_(std::move(cleanup_log)) {}

// NOLINTNEXTLINE(bugprone-exception-escape): *entries (std::get) is read only after ok().
SpillDir::~SpillDir() {
  if (abandoned_.load()) return;  // kFailoverLeak: forgotten, not removed.
  // TempDir's Drop: remove the directory and what the manager left in it, but never an
  // entry someone else made (then the directory stays too, ENOTEMPTY). Every failure is
  // recorded (ENOENT too: the log says what was gone already, cleanup_log.h).
  StatusOr<std::vector<DirEntry>> entries = fs_->ListDir(path_);
  if (!entries.ok()) {
    cleanup_log_->Record(entries.status());
    return;
  }
  for (const DirEntry& entry : *entries) {
    // No lock: nothing else can reach a directory while it is destroyed.
    if (!owned_.contains(entry.name)) continue;
    Status removed = fs_->RemoveFile(JoinPath(path_, entry.name));
    if (!removed.ok()) cleanup_log_->Record(removed);
  }
  if (Status removed = fs_->RemoveDir(path_); !removed.ok()) cleanup_log_->Record(removed);
}

void SpillDir::Own(std::string name) {
  std::lock_guard<std::mutex> lock(mu_);
  owned_.insert(std::move(name));
}

SpillDirSet::~SpillDirSet() {
  for (std::shared_ptr<SpillDir>& dir : dirs) dir.reset();
}

namespace {

// How often MakeSpillDir makes a new directory when a reaper took the one it made.
constexpr int kLockAttempts = 8;

bool ReapedWhileMade(const Status& lock_error) {
  return lock_error.IsErrno(EWOULDBLOCK) || lock_error.IsErrno(ENOENT);
}

}  // namespace

StatusOr<std::shared_ptr<SpillDir>> MakeSpillDir(const std::shared_ptr<FileSystem>& fs,
                                                 const std::string& parent, SpillDirKind kind,
                                                 const std::shared_ptr<CleanupLog>& log) {
  if (kind == SpillDirKind::kLocalDir) {
    // DataFusion: `if !Path::new(root).exists() { std::fs::create_dir(root)? }`. Only a
    // missing parent is created; any other Stat error (EACCES, ENOTDIR) is the answer.
    StatusOr<FileStat> stat = fs->Stat(parent);
    if (!stat.ok()) {
      if (!stat.status().IsErrno(ENOENT)) return stat.status();
      Status made = fs->CreateDir(parent);
      if (!made.ok() && !made.IsErrno(EEXIST)) return made;  // EEXIST: another plan won.
    }
  }
  const std::string_view prefix =
      kind == SpillDirKind::kLocalDir ? kSpillDirPrefix : kOsTmpDirPrefix;
  for (int attempt = 0;; ++attempt) {
    StatusOr<std::string> path = fs->CreateUniqueDir(parent, prefix);
    if (!path.ok()) return path.status();
    // Between the mkdir and the lock, a reaper may take the new directory for an orphan:
    // if it holds the lock now (EWOULDBLOCK) or has removed it (ENOENT), make another.
    StatusOr<std::unique_ptr<DirLock>> lock = fs->LockDir(*path);
    if (!lock.ok() && ReapedWhileMade(lock.status()) && attempt < kLockAttempts) continue;
    // A filesystem without locks (ENOTSUP), or a lock that keeps failing, leaves the
    // directory unlocked: spilling works as upstream's, without crash recovery.
    return std::make_shared<SpillDir>(fs, std::move(*path), log,
                                      lock.ok() ? std::move(*lock) : nullptr);
  }
}

}  // namespace spillway::internal
