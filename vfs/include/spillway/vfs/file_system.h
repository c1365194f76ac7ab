// FileSystem: the seam between its callers and the operating system.
//
// Code written against FileSystem never calls the OS directly. spillway ships
// three: PosixFileSystem (real system calls, posix_file_system.h), MemFileSystem (in
// memory, deterministic from a seed, mem_file_system.h) and FaultInjectingFileSystem (a
// decorator over either, fault_injecting_file_system.h). A conformance suite and a
// differential property test hold MemFileSystem to what Linux does.
//
// Conventions for every method below:
// - Paths are absolute, '/'-separated, without "." or ".." components and without a
//   trailing '/'. A malformed path gives kInvalidArgument.
// - An error is a Status::FromErrno carrying the exact errno Linux would give, the operation
//   and the path. Nothing throws.
// - A path is never followed through a symlink in its last component (lstat semantics).
// - Thread safety: every implementation is safe for concurrent use by many threads. A
//   WritableFile may be used by several threads, but appends from different threads to one
//   file are not ordered with respect to each other.
#ifndef SPILLWAY_VFS_FILE_SYSTEM_H_
#define SPILLWAY_VFS_FILE_SYSTEM_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/vfs/status.h"

namespace spillway {

// The random part of the names CreateUniqueDir and CreateUniqueFile make:
// kUniqueNameLength characters of kUniqueNameAlphabet, which is what Rust's
// tempfile::Builder makes by default (NUM_RAND_CHARS = 6, ASCII alphanumerics) and so what
// DataFusion's spill files and directories are named with.
inline constexpr std::string_view kUniqueNameAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
inline constexpr size_t kUniqueNameLength = 6;

enum class FileType { kRegular, kDirectory, kSymlink, kOther };

struct FileStat {
  FileType type = FileType::kRegular;
  uint64_t size = 0;  // Bytes, for a regular file; 0 otherwise.
  uint32_t mode = 0;  // Permission bits only (e.g. 0700).
  friend bool operator==(const FileStat&, const FileStat&) = default;
};

struct DirEntry {
  std::string name;  // A single path component.
  FileType type = FileType::kRegular;
  friend bool operator==(const DirEntry&, const DirEntry&) = default;
};

// The outcome of an append: how many bytes reached the file, and whether all of them did.
// On failure `bytes_written` may be non-zero (a short write: the bytes that fit before
// ENOSPC, or before an injected EIO). Those bytes are in the file.
struct [[nodiscard]] AppendResult {
  uint64_t bytes_written = 0;
  Status status;
};

// An open file, positioned at its end. Destroying it closes it (errors are dropped; call
// Close() first to see them). It stays usable after its path has been unlinked. Not
// copyable: it is used through a pointer to the interface.
class WritableFile {
 public:
  WritableFile() = default;
  virtual ~WritableFile() = default;

  WritableFile(const WritableFile&) = delete;
  WritableFile& operator=(const WritableFile&) = delete;

  // The path the file was opened or created at.
  virtual const std::string& path() const = 0;

  // Appends all of `data`, retrying short writes and EINTR. Errors: ENOSPC when the
  // filesystem is full (the bytes that fit are stored and counted in bytes_written), EIO,
  // EBADF after Close().
  virtual AppendResult Append(std::string_view data) = 0;

  // Flushes the file's data to stable storage (fsync). Errors: EIO, EBADF after Close().
  virtual Status Sync() = 0;

  // The file's current size in bytes (fstat), also after it has been unlinked.
  // Errors: EBADF after Close().
  virtual StatusOr<uint64_t> Size() = 0;

  // Closes the file. A second Close() is an error (EBADF).
  virtual Status Close() = 0;
};

// An advisory lock held on a directory (LockDir). Destroying it releases the lock. Not
// copyable: it is held through a pointer to the interface.
class DirLock {
 public:
  DirLock() = default;
  virtual ~DirLock() = default;

  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

  // The directory locked.
  virtual const std::string& path() const = 0;
};

// One step of a tree removal (FileSystem::RemoveTreeGated), named as the call it is.
enum class TreeStep {
  kList,    // Open and list a directory ("list").
  kRemove,  // Unlink a file or symlink ("remove").
  kRmdir,   // Remove an emptied directory ("rmdir").
};

// Asked before each step of a tree removal, with the step and its path: OkStatus() lets
// the step happen; an error stops the removal there (the step is not taken) and is
// returned as the removal's result. Must not call the filesystem that asks it.
using TreeStepGate = std::function<Status(TreeStep step, const std::string& path)>;

// Not copyable: a filesystem is shared through a pointer to the interface.
class FileSystem {
 public:
  FileSystem() = default;
  virtual ~FileSystem() = default;

  FileSystem(const FileSystem&) = delete;
  FileSystem& operator=(const FileSystem&) = delete;

  // Creates directory `path` with mode 0700. Its parent must exist.
  // Errors: EEXIST (anything exists at path), ENOENT (parent missing), ENOTDIR (a
  // component of the parent is not a directory), EACCES (parent not writable), ENOSPC.
  virtual Status CreateDir(const std::string& path) = 0;

  // Creates a new directory named `prefix` + a random suffix inside `parent`, mode 0700,
  // exclusively (like mkdtemp). Returns its path. Errors: as CreateDir, for `parent`.
  virtual StatusOr<std::string> CreateUniqueDir(const std::string& parent,
                                                std::string_view prefix) = 0;

  // Creates and opens a new regular file `path`, exclusively (O_CREAT|O_EXCL|O_NOFOLLOW),
  // mode 0600. Errors: EEXIST, ENOENT (parent missing), ENOTDIR, EACCES, ENOSPC.
  virtual StatusOr<std::unique_ptr<WritableFile>> CreateFile(const std::string& path) = 0;

  // Creates and opens a new regular file named `prefix` + a random suffix inside `dir`,
  // exclusively, mode 0600. Errors: as CreateFile, for `dir`.
  virtual StatusOr<std::unique_ptr<WritableFile>> CreateUniqueFile(const std::string& dir,
                                                                   std::string_view prefix) = 0;

  // Opens an existing regular file for appending. Errors: ENOENT, ENOTDIR, EISDIR, ELOOP
  // (path is a symlink), EACCES.
  virtual StatusOr<std::unique_ptr<WritableFile>> OpenForAppend(const std::string& path) = 0;

  // Reads a whole regular file. Errors: ENOENT, ENOTDIR, EISDIR, ELOOP, EACCES, EIO.
  virtual StatusOr<std::string> ReadFile(const std::string& path) = 0;

  // Lists a directory: its entries other than "." and "..", sorted by name, each with the
  // type of the entry itself (a symlink is kSymlink). A final symlink is not followed:
  // listing one is ENOTDIR, as open(O_DIRECTORY|O_NOFOLLOW). Errors: ENOENT, ENOTDIR,
  // EACCES.
  virtual StatusOr<std::vector<DirEntry>> ListDir(const std::string& path) = 0;

  // Describes `path` without following a final symlink (lstat). Errors: ENOENT, ENOTDIR,
  // EACCES.
  virtual StatusOr<FileStat> Stat(const std::string& path) = 0;

  // Removes a file or symlink (unlink). An open file stays usable through its handle.
  // Errors: ENOENT, ENOTDIR, EISDIR (path is a directory), EACCES.
  virtual Status RemoveFile(const std::string& path) = 0;

  // Removes an empty directory (rmdir). Errors: ENOENT, ENOTDIR, ENOTEMPTY, EACCES.
  virtual Status RemoveDir(const std::string& path) = 0;

  // Removes `path` and everything below it. Never follows a symlink: a link inside the
  // tree is removed as a link and its target is untouched. Removing a file or a symlink
  // removes just that. Stops at the first error and returns it (with the path it failed
  // on); what was removed before stays removed. Errors: as ListDir, RemoveFile, RemoveDir.
  virtual Status RemoveTree(const std::string& path) = 0;

  // RemoveTree, asking `gate` before each step: for a directory, a kList, then its entries
  // in name order (a kRemove per file or symlink, the same walk per subdirectory), then a
  // kRmdir; for a file or symlink (its listing fails with ENOTDIR), a kList and a kRemove.
  // A null gate lets every step happen. The default walks by path with ListDir, RemoveFile
  // and RemoveDir of this filesystem (RemoveTreeByParts), which is right for a filesystem
  // without symlinks or one whose removal is atomic; one with symlinks overrides it to
  // walk through directory handles, so that a subdirectory swapped for a symlink after
  // its listing is never followed. Errors: the gate's, and as RemoveTree.
  // Thread safety: as RemoveTree; the gate runs on the calling thread.
  virtual Status RemoveTreeGated(const std::string& path, const TreeStepGate& gate);

  // Sets the permission bits of `path` (chmod). Errors: ENOENT, ENOTDIR, EPERM.
  virtual Status SetPermissions(const std::string& path, uint32_t mode) = 0;

  // The filesystem's temp dir, where callers put temporary files and directories.
  // Never fails; the directory is not created by this call.
  virtual std::string TempDir() = 0;

  // Takes an exclusive advisory lock on directory `path` without waiting, as
  // open(O_DIRECTORY|O_NOFOLLOW) + flock(LOCK_EX|LOCK_NB) do: the lock is held until the
  // returned handle is destroyed or the process holding it dies, and conflicts with every
  // other LockDir of the same directory (from this process too). It only excludes other
  // LockDir calls: nothing else is prevented (a locked directory may still be removed).
  // Errors: EWOULDBLOCK (EAGAIN: held by another handle), ENOENT, ENOTDIR (also for a
  // final symlink, which is not followed), EACCES; ENOTSUP from a filesystem without
  // locks (the default).
  // Thread safety: as the filesystem's other calls; a handle may be destroyed on any
  // thread.
  virtual StatusOr<std::unique_ptr<DirLock>> LockDir(const std::string& path);

  // Non-virtual conveniences built on the calls above.
  // True when Stat(path) succeeds.
  bool Exists(const std::string& path) { return Stat(path).ok(); }
};

// Removes `path` recursively using only ListDir, RemoveFile and RemoveDir of `fs`: one
// ListDir per directory, one RemoveFile per file or symlink, one RemoveDir per directory,
// each asked of `gate` first (when not null) as RemoveTreeGated describes. Each step looks
// its full path up again, so a directory swapped for a symlink between its listing and
// the removal of its entries is followed: use it only where that cannot happen. A child
// that is already gone (ENOENT) is passed over, as by rm -rf.
Status RemoveTreeByParts(FileSystem& fs, const std::string& path,
                         const TreeStepGate& gate = nullptr);

// Forwards every call to another FileSystem, so that a decorator overrides only what it
// changes (as RocksDB's FileSystemWrapper). Thread safety: that of the target.
class FileSystemWrapper : public FileSystem {
 public:
  // REQUIRES: target != nullptr.
  explicit FileSystemWrapper(std::shared_ptr<FileSystem> target);

  FileSystem& target() const { return *target_; }
  const std::shared_ptr<FileSystem>& shared_target() const { return target_; }

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
  Status RemoveTree(const std::string& path) override;
  Status RemoveTreeGated(const std::string& path, const TreeStepGate& gate) override;
  Status SetPermissions(const std::string& path, uint32_t mode) override;
  std::string TempDir() override;
  StatusOr<std::unique_ptr<DirLock>> LockDir(const std::string& path) override;

 private:
  std::shared_ptr<FileSystem> target_;
};

// Checks that `path` is absolute, has no empty, "." or ".." component and no trailing
// '/' (except "/" itself). Returns kInvalidArgument naming the path otherwise.
Status ValidatePath(std::string_view path);
// Checks that a unique-name `prefix` (CreateUniqueDir, CreateUniqueFile) stays inside one
// path component: no '/' and no NUL byte. Returns kInvalidArgument naming it otherwise.
Status ValidatePrefix(std::string_view prefix);

// The parent directory of a valid path ("/a/b" -> "/a", "/a" -> "/"), and its last
// component ("/a/b" -> "b").
std::string ParentPath(std::string_view path);
std::string BaseName(std::string_view path);
// Joins a directory and a single component: ("/", "a") -> "/a", ("/a", "b") -> "/a/b".
std::string JoinPath(std::string_view dir, std::string_view name);

}  // namespace spillway

#endif  // SPILLWAY_VFS_FILE_SYSTEM_H_
