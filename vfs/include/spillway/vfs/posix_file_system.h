// PosixFileSystem: the FileSystem of real system calls.
//
// Files are created with O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC and mode 0600, directories
// with mode 0700. Unique names draw their random part from getrandom(2), so they cannot be
// guessed. Appends loop over short writes and EINTR. RemoveTree walks with openat/unlinkat
// and never follows a symlink. errno is mapped to a Status in one place, always with the
// path.
#ifndef SPILLWAY_VFS_POSIX_FILE_SYSTEM_H_
#define SPILLWAY_VFS_POSIX_FILE_SYSTEM_H_

#include <memory>
#include <string>

#include "spillway/vfs/file_system.h"

namespace spillway {

struct PosixFileSystemOptions {
  // When non-empty, an existing directory under which every path is resolved: "/a" means
  // root + "/a". Statuses still report the unprefixed path. This lets a test or a simulation
  // use a real disk without touching the host's "/".
  std::string root;
  // What TempDir() returns. Empty means "/tmp" under a root, or else $TMPDIR (when set and
  // absolute) or "/tmp".
  std::string temp_dir;
};

// REQUIRES: options.root, when set, is an absolute path to an existing directory.
std::shared_ptr<FileSystem> NewPosixFileSystem(PosixFileSystemOptions options = {});

}  // namespace spillway

#endif  // SPILLWAY_VFS_POSIX_FILE_SYSTEM_H_
