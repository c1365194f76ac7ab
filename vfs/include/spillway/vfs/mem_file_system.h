// MemFileSystem: a FileSystem in memory, deterministic from a seed.
//
// It follows the Linux semantics a caller can observe, and a differential property test
// holds it to PosixFileSystem: ENOENT for a missing parent or a removed directory, ENOTDIR
// when a component is a file, ENOTEMPTY for rmdir of a non-empty directory, EEXIST, EACCES
// for a directory without write permission (when permissions are enforced), an unlinked
// file that is still open stays writable and its bytes count until its last handle is
// closed, and a byte capacity that makes appends fail with ENOSPC as Linux does: an append
// that only partly fits stores what fits and then fails. Unique names come from a seeded
// generator, so the same seed and the same calls give the same names.
//
// A fresh MemFileSystem holds "/" and an empty "/tmp" (its TempDir()). Directory locks
// (LockDir) behave as flock(2) on a directory: one holder at a time, released when the
// handle goes or when Crash() models the holder's death.
#ifndef SPILLWAY_VFS_MEM_FILE_SYSTEM_H_
#define SPILLWAY_VFS_MEM_FILE_SYSTEM_H_

#include <cstdint>
#include <memory>
#include <optional>

#include "spillway/vfs/file_system.h"

namespace spillway {

struct MemFileSystemOptions {
  uint64_t seed = 0;
  // Bytes of file data the filesystem holds at most; nullopt means no bound.
  std::optional<uint64_t> capacity;
  // When false, files keep only their sizes (ReadFile returns that many zero bytes), so a
  // simulation can write gigabytes cheaply.
  bool keep_contents = true;
  // When false, permission bits are recorded but never checked, as for root on Linux.
  bool enforce_permissions = true;
};

class MemFileSystem : public FileSystem {
 public:
  // Changes the capacity; bytes already stored stay even when they exceed it.
  // Thread safety: may be called concurrently with any other method.
  virtual void SetCapacity(std::optional<uint64_t> capacity) = 0;
  // Bytes of file data currently held, counting unlinked files that are still open.
  virtual uint64_t used_bytes() const = 0;
  // Models the death of the process that uses this filesystem (kill -9): every directory
  // lock (LockDir) taken so far is released at once, as the kernel releases a dead
  // process's flocks; destroying those handles later releases nothing. Files and
  // directories stay as they are. Thread safety: may be called concurrently with any
  // other method.
  virtual void Crash() = 0;
};

// A fresh MemFileSystem: "/" and an empty "/tmp".
std::shared_ptr<MemFileSystem> NewMemFileSystem(MemFileSystemOptions options = {});

}  // namespace spillway

#endif  // SPILLWAY_VFS_MEM_FILE_SYSTEM_H_
