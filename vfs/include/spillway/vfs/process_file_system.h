// ProcessFileSystem: the filesystem as one process sees it, so that a test can model the
// process's death (kill -9) while its objects still exist.
//
// A process that dies removes nothing: its destructors never run. An in-process model of
// that death still has to destroy the dead process's managers and files, and their
// destructors would remove their directories. Giving the process its own
// ProcessFileSystem and calling Kill() first makes every later call fail (ESRCH, "no such
// process") without reaching the filesystem below, so those destructors change nothing.
// What the kernel does at death is the caller's part: closing the process's descriptors
// (destroying its WritableFile and DirLock handles, which touch no name) and, on
// MemFileSystem, Crash() to release its directory locks.
//
// Thread safety: every method may be called concurrently; Kill() takes effect for the
// calls that start after it returns.
#ifndef SPILLWAY_VFS_PROCESS_FILE_SYSTEM_H_
#define SPILLWAY_VFS_PROCESS_FILE_SYSTEM_H_

#include <memory>

#include "spillway/vfs/file_system.h"

namespace spillway {

class ProcessFileSystem : public FileSystemWrapper {
 public:
  using FileSystemWrapper::FileSystemWrapper;

  // Ends the process: every later call fails with ESRCH (op and path as the call's) and
  // never reaches the target, except TempDir(), which only names a path. Handles returned
  // earlier are not affected. Idempotent.
  virtual void Kill() = 0;
  // True once Kill() was called.
  virtual bool dead() const = 0;
};

// A live process over `target`. REQUIRES: target != nullptr.
std::shared_ptr<ProcessFileSystem> NewProcessFileSystem(std::shared_ptr<FileSystem> target);

}  // namespace spillway

#endif  // SPILLWAY_VFS_PROCESS_FILE_SYSTEM_H_
