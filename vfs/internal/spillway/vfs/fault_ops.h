/* The one table of the operations spillway fails: each one's name and the errnos its
 * Linux calls can return. The rule engine (fault_rules.h: FaultOp, FaultOpName,
 * FaultOpCanReturn), the LD_PRELOAD shim (inject/shim_core.h: its C enum SPW_*) and
 * FaultInjectingFileSystem (its OpKind, derived from these rows in
 * vfs/op_kind.cc) all expand it, so nothing lists the operations twice.
 *
 * C and C++: the shim's wrappers are C. Only macros live here.
 *
 * A row is X(ID, Name, "name", (ERRNOS...)): ID makes the shim's SPW_ID, Name the engine's
 * FaultOp::kName, "name" the word of a rule and of a trace line, and ERRNOS (expanded only
 * where <errno.h> is included) the errnos a rule may fail the operation with. The errnos
 * come from the calls' man pages (man-pages 6.x), keeping the ones a working program can
 * meet (not EFAULT, EBADF of a bad argument, ...); EIO is added to every operation that
 * reaches the disk; EDQUOT, EROFS, EMFILE and ENFILE only where the page lists them.
 *
 * Private to spillway, as fault_rules.h is (vfs/internal/ is never installed). */
#ifndef SPILLWAY_VFS_FAULT_OPS_H_
#define SPILLWAY_VFS_FAULT_OPS_H_

/* The rule engine's operations, in the order of their codes (FaultOp, SPW_*): the order
 * only numbers them between the `spillway` tool and the shim, both built from this table,
 * and orders the per-operation lists they print. */
#define SPILLWAY_FAULT_OPS(X)                                                                    \
  /* open(2), creat(2), mkstemp(3), tmpfile(3), fopen(3): with O_CREAT. */                       \
  X(CREATE, Create, "create",                                                                    \
    (EACCES, EDQUOT, EEXIST, EINTR, EIO, EISDIR, ELOOP, EMFILE, ENAMETOOLONG, ENFILE, ENOENT,    \
     ENOMEM, ENOSPC, ENOTDIR, EPERM, EROFS, ETXTBSY))                                            \
  /* open(2), fopen(3): an existing file, nothing created. */                                    \
  X(OPEN, Open, "open",                                                                          \
    (EACCES, EFBIG, EINTR, EIO, EISDIR, ELOOP, EMFILE, ENAMETOOLONG, ENFILE, ENOENT, ENOMEM,     \
     ENOTDIR, EPERM, EROFS, ETXTBSY))                                                            \
  /* write(2), pwrite(2), writev(2), fallocate(2), posix_fallocate(3), ftruncate(2),             \
   * copy_file_range(2), sendfile(2), fwrite(3), fflush(3). */                                   \
  X(WRITE, Write, "write", (EAGAIN, EDQUOT, EFBIG, EINTR, EINVAL, EIO, ENOSPC, EPERM))           \
  /* read(2), pread(2), readv(2), fread(3). */                                                   \
  X(READ, Read, "read", (EAGAIN, EINTR, EINVAL, EIO, EISDIR))                                    \
  /* mkdir(2), mkdtemp(3). */                                                                    \
  X(MKDIR, Mkdir, "mkdir",                                                                       \
    (EACCES, EDQUOT, EEXIST, EINVAL, EIO, ELOOP, EMLINK, ENAMETOOLONG, ENOENT, ENOMEM, ENOSPC,   \
     ENOTDIR, EPERM, EROFS))                                                                     \
  /* unlink(2), remove(3). */                                                                    \
  X(REMOVE, Remove, "remove",                                                                    \
    (EACCES, EBUSY, EIO, EISDIR, ELOOP, ENAMETOOLONG, ENOENT, ENOMEM, ENOTDIR, EPERM, EROFS))    \
  /* rmdir(2), unlinkat(2) with AT_REMOVEDIR. */                                                 \
  X(RMDIR, Rmdir, "rmdir",                                                                       \
    (EACCES, EBUSY, EINVAL, EIO, ELOOP, ENAMETOOLONG, ENOENT, ENOMEM, ENOTDIR, ENOTEMPTY, EPERM, \
     EROFS))                                                                                     \
  /* rename(2), renameat2(2). */                                                                 \
  X(RENAME, Rename, "rename",                                                                    \
    (EACCES, EBUSY, EDQUOT, EEXIST, EINVAL, EIO, EISDIR, ELOOP, EMLINK, ENAMETOOLONG, ENOENT,    \
     ENOMEM, ENOSPC, ENOTDIR, ENOTEMPTY, EPERM, EROFS, EXDEV))                                   \
  /* opendir(3), readdir(3), getdents64(2). */                                                   \
  X(LIST, List, "list", (EACCES, EIO, EMFILE, ENFILE, ENOENT, ENOMEM, ENOTDIR))                  \
  /* stat(2), statx(2), access(2). */                                                            \
  X(STAT, Stat, "stat",                                                                          \
    (EACCES, EIO, ELOOP, ENAMETOOLONG, ENOENT, ENOMEM, ENOTDIR, EOVERFLOW, EROFS))               \
  /* fsync(2), fdatasync(2), sync_file_range(2). */                                              \
  X(SYNC, Sync, "sync", (EDQUOT, EINTR, EINVAL, EIO, ENOSPC, EROFS))                             \
  /* close(2), fclose(3). */                                                                     \
  X(CLOSE, Close, "close", (EDQUOT, EINTR, EIO, ENOSPC))

/* The operations only FaultInjectingFileSystem counts (its OpKind), which the shim does not
 * wrap and the engine has no code for: chmod(2), without EFAULT and EBADF. (Its other own
 * kind, size, is a stat of an open file: fstat(2), the STAT row.) */
#define SPILLWAY_FAULT_FS_ONLY_OPS(X) \
  X(CHMOD, Chmod, "chmod",            \
    (EACCES, EIO, ELOOP, ENAMETOOLONG, ENOENT, ENOMEM, ENOTDIR, EPERM, EROFS))

/* Expands a row's parenthesised ERRNOS to a braced list's contents: {SPILLWAY_FAULT_OP_ERRNOS
 * errnos}. */
#define SPILLWAY_FAULT_OP_ERRNOS(...) __VA_ARGS__

#endif /* SPILLWAY_VFS_FAULT_OPS_H_ */
