/* The shim's wrappers for data: the write and read families (their stdio forms are in
 * shim_stdio.c), and the calls that grow a file (ftruncate, fallocate, posix_fallocate,
 * copy_file_range, sendfile). Each passes straight through unless its fd is in scope (shim_core.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "shim_core.h"
#include "shim_damage.h"

/* Starts an in-scope call on `fd`; returns `fail` with errno from the wrapper when a rule
 * fails it. */
#define SPW_BEGIN(c, op, name, fd, fail)                              \
  struct spw_call c = {(op), (name), spw_fd_path(fd), 0, 0, 0, 0, 0}; \
  do {                                                                \
    int e_ = spw_begin(&c);                                           \
    if (e_ != 0) {                                                    \
      errno = e_;                                                     \
      return (fail);                                                  \
    }                                                                 \
  } while (0)

/* ---- The write family. ---- */

/* A write of `len` bytes at `offset` (-1: the fd's position) on an in-scope fd, made by
 * `doit` with at most `allowed` bytes, or by `hurt` when a corrupt or lost rule damages
 * it. Applies the rules, then the quota. */
typedef ssize_t (*WriteFn)(void* ctx, size_t allowed);
typedef ssize_t (*DamageFn)(void* ctx, struct spw_call* c, size_t allowed);
static ssize_t WriteInScope(const char* name, int fd, off_t offset, size_t len, WriteFn doit,
                            DamageFn hurt, void* ctx) {
  SPW_BEGIN(c, SPW_WRITE, name, fd, -1);
  uint64_t reserved = 0;
  size_t allowed = len;
  if (spw_quota_on() && len > 0) {
    allowed = spw_quota_reserve(fd, offset, len, &reserved);
    if (allowed == 0) {
      spw_quota_fault(&c);
      errno = ENOSPC;
      return -1;
    }
  }
  const int damaged = c.damage != SPW_DAMAGE_NONE;
  const ssize_t r = damaged ? hurt(ctx, &c, allowed) : doit(ctx, allowed);
  int err = errno;
  spw_quota_settle(reserved, allowed, r);
  if (!damaged || r < 0) spw_end(&c, r < 0, err);
  errno = err;
  return r;
}

struct PlainWrite {
  int fd;
  const void* buf;
  off_t offset;
  int positioned;
};
SPW_DECLARE_REAL(write);
SPW_DECLARE_REAL(pwrite);
SPW_DECLARE_REAL(pwrite64);
static ssize_t DoPlainWrite(void* ctx, size_t allowed) {
  struct PlainWrite* w = ctx;
  if (!w->positioned) return SPW_REAL(write)(w->fd, w->buf, allowed);
  return SPW_REAL(pwrite64)(w->fd, w->buf, allowed, w->offset);
}
static ssize_t DamagePlainWrite(void* ctx, struct spw_call* c, size_t allowed) {
  struct PlainWrite* w = ctx;
  const struct iovec iov = {(void*)w->buf, allowed};
  return spw_damage_write(c, w->fd, w->positioned ? w->offset : -1, &iov, 1, allowed);
}

ssize_t write(int fd, const void* buf, size_t n) {
  if (!spw_fd_in_scope(fd)) return SPW_REAL(write)(fd, buf, n);
  struct PlainWrite w = {fd, buf, 0, 0};
  return WriteInScope("write", fd, -1, n, DoPlainWrite, DamagePlainWrite, &w);
}

ssize_t pwrite(int fd, const void* buf, size_t n, off_t offset) {
  if (!spw_fd_in_scope(fd)) return SPW_REAL(pwrite)(fd, buf, n, offset);
  struct PlainWrite w = {fd, buf, offset, 1};
  return WriteInScope("pwrite", fd, offset, n, DoPlainWrite, DamagePlainWrite, &w);
}

ssize_t pwrite64(int fd, const void* buf, size_t n, off_t offset) {
  if (!spw_fd_in_scope(fd)) return SPW_REAL(pwrite64)(fd, buf, n, offset);
  struct PlainWrite w = {fd, buf, offset, 1};
  return WriteInScope("pwrite64", fd, offset, n, DoPlainWrite, DamagePlainWrite, &w);
}

/* Vector writes: the quota trims the vector to the bytes allowed. */
#define SPW_MAX_TRIMMED_IOV 64
struct VectorWrite {
  int fd;
  const struct iovec* iov;
  int iovcnt;
  off_t offset;
  int flags;
  int kind; /* 0 writev, 1 pwritev, 2 pwritev2 */
};
SPW_DECLARE_REAL(writev);
SPW_DECLARE_REAL(pwritev);
SPW_DECLARE_REAL(pwritev64);
SPW_DECLARE_REAL(pwritev2);
SPW_DECLARE_REAL(pwritev64v2);
static size_t IovTotal(const struct iovec* iov, int iovcnt) {
  size_t total = 0;
  for (int i = 0; i < iovcnt; ++i) total += iov[i].iov_len;
  return total;
}
/* The vector trimmed to its first `allowed` bytes, in *trimmed when it must be cut; false
 * when the vector is too long to trim. */
static int TrimVector(const struct VectorWrite* w, size_t allowed, struct iovec* trimmed,
                      const struct iovec** iov, int* count) {
  *iov = w->iov;
  *count = w->iovcnt;
  if (allowed >= IovTotal(w->iov, w->iovcnt)) return 1;
  if (w->iovcnt > SPW_MAX_TRIMMED_IOV) return 0;
  *count = 0;
  for (size_t left = allowed; *count < w->iovcnt && left > 0; ++*count) {
    trimmed[*count] = w->iov[*count];
    if (trimmed[*count].iov_len > left) trimmed[*count].iov_len = left;
    left -= trimmed[*count].iov_len;
  }
  *iov = trimmed;
  return 1;
}
/* A vector write, damaged when `c` is not NULL. */
static ssize_t VectorWriteWith(struct VectorWrite* w, struct spw_call* c, size_t allowed) {
  struct iovec trimmed[SPW_MAX_TRIMMED_IOV];
  const struct iovec* iov;
  int count;
  if (!TrimVector(w, allowed, trimmed, &iov, &count)) {
    errno = ENOSPC;
    return -1;
  }
  if (c != NULL)
    return spw_damage_write(c, w->fd, w->kind == 0 ? -1 : w->offset, iov, count, allowed);
  if (w->kind == 0) return SPW_REAL(writev)(w->fd, iov, count);
  if (w->kind == 1) return SPW_REAL(pwritev64)(w->fd, iov, count, w->offset);
  return SPW_REAL(pwritev64v2)(w->fd, iov, count, w->offset, w->flags);
}
static ssize_t DoVectorWrite(void* ctx, size_t allowed) {
  return VectorWriteWith(ctx, NULL, allowed);
}
static ssize_t DamageVectorWrite(void* ctx, struct spw_call* c, size_t allowed) {
  return VectorWriteWith(ctx, c, allowed);
}

ssize_t writev(int fd, const struct iovec* iov, int iovcnt) {
  if (!spw_fd_in_scope(fd)) return SPW_REAL(writev)(fd, iov, iovcnt);
  struct VectorWrite w = {fd, iov, iovcnt, -1, 0, 0};
  return WriteInScope("writev", fd, -1, IovTotal(iov, iovcnt), DoVectorWrite, DamageVectorWrite,
                      &w);
}

ssize_t pwritev(int fd, const struct iovec* iov, int iovcnt, off_t offset) {
  if (!spw_fd_in_scope(fd)) return SPW_REAL(pwritev)(fd, iov, iovcnt, offset);
  struct VectorWrite w = {fd, iov, iovcnt, offset, 0, 1};
  return WriteInScope("pwritev", fd, offset, IovTotal(iov, iovcnt), DoVectorWrite,
                      DamageVectorWrite, &w);
}

ssize_t pwritev64(int fd, const struct iovec* iov, int iovcnt, off_t offset) {
  if (!spw_fd_in_scope(fd)) return SPW_REAL(pwritev64)(fd, iov, iovcnt, offset);
  struct VectorWrite w = {fd, iov, iovcnt, offset, 0, 1};
  return WriteInScope("pwritev64", fd, offset, IovTotal(iov, iovcnt), DoVectorWrite,
                      DamageVectorWrite, &w);
}

ssize_t pwritev2(int fd, const struct iovec* iov, int iovcnt, off_t offset, int flags) {
  if (!spw_fd_in_scope(fd)) return SPW_REAL(pwritev2)(fd, iov, iovcnt, offset, flags);
  struct VectorWrite w = {fd, iov, iovcnt, offset, flags, 2};
  return WriteInScope("pwritev2", fd, offset, IovTotal(iov, iovcnt), DoVectorWrite,
                      DamageVectorWrite, &w);
}

ssize_t pwritev64v2(int fd, const struct iovec* iov, int iovcnt, off_t offset, int flags) {
  if (!spw_fd_in_scope(fd)) return SPW_REAL(pwritev64v2)(fd, iov, iovcnt, offset, flags);
  struct VectorWrite w = {fd, iov, iovcnt, offset, flags, 2};
  return WriteInScope("pwritev64v2", fd, offset, IovTotal(iov, iovcnt), DoVectorWrite,
                      DamageVectorWrite, &w);
}

/* ---- Calls that grow a file. ---- */

static off_t FileSize(int fd) {
  struct stat st;
  return SPW_SYS(SYS_fstat, fd, &st, 0, 0) == 0 ? st.st_size : -1;
}

/* A growth of `fd` to `new_end` by `name`: a write when it grows the file. Returns 0 to
 * go ahead, or the errno to fail with (counted, traced, quota applied). */
static int GrowthInScope(struct spw_call* c, int fd, off_t new_end, uint64_t* reserved) {
  *reserved = 0;
  const int e = spw_begin(c);
  if (e != 0) return e;
  if (spw_quota_on()) {
    const off_t size = FileSize(fd);
    if (size >= 0 && new_end > size) {
      const size_t growth = (size_t)(new_end - size);
      if (spw_quota_reserve(fd, size, growth, reserved) < growth) {
        spw_quota_release(*reserved);
        *reserved = 0;
        spw_quota_fault(c);
        return ENOSPC;
      }
    }
  }
  return 0;
}

SPW_DECLARE_REAL(ftruncate);
SPW_DECLARE_REAL(ftruncate64);
static int TruncateInScope(const char* name, int fd, off_t length, int (*real)(int, off_t)) {
  const off_t size = FileSize(fd);
  if (size >= 0 && length <= size) {
    /* Shrinking is no write: it only gives bytes back to the quota. */
    const int r = real(fd, length);
    if (r == 0 && spw_quota_on()) spw_quota_release((uint64_t)(size - length));
    return r;
  }
  struct spw_call c = {SPW_WRITE, name, spw_fd_path(fd), 0, 0, 0, 0, 0};
  uint64_t reserved;
  const int e = GrowthInScope(&c, fd, length, &reserved);
  if (e != 0) {
    errno = e;
    return -1;
  }
  const int r = real(fd, length);
  if (r != 0 && reserved != 0) spw_quota_release(reserved);
  SPW_END(c, r != 0);
  return r;
}

int ftruncate(int fd, off_t length) {
  if (!spw_fd_in_scope(fd)) return SPW_REAL(ftruncate)(fd, length);
  return TruncateInScope("ftruncate", fd, length, SPW_REAL(ftruncate));
}

int ftruncate64(int fd, off_t length) {
  if (!spw_fd_in_scope(fd)) return SPW_REAL(ftruncate64)(fd, length);
  return TruncateInScope("ftruncate64", fd, length, SPW_REAL(ftruncate64));
}

SPW_DECLARE_REAL(fallocate);
SPW_DECLARE_REAL(fallocate64);
SPW_DECLARE_REAL(posix_fallocate);
SPW_DECLARE_REAL(posix_fallocate64);
/* fallocate and posix_fallocate: `returns_errno` for posix_fallocate, which returns the
 * error instead of setting errno. */
static int AllocateInScope(const char* name, int fd, int mode, off_t offset, off_t len,
                           int returns_errno) {
  if (mode & ~FALLOC_FL_KEEP_SIZE) return SPW_REAL(fallocate64)(fd, mode, offset, len);
  struct spw_call c = {SPW_WRITE, name, spw_fd_path(fd), 0, 0, 0, 0, 0};
  uint64_t reserved;
  const int e = GrowthInScope(&c, fd, offset + len, &reserved);
  if (e != 0) {
    if (returns_errno) return e;
    errno = e;
    return -1;
  }
  int r = returns_errno ? SPW_REAL(posix_fallocate64)(fd, offset, len)
                        : SPW_REAL(fallocate64)(fd, mode, offset, len);
  const int failed = r != 0;
  if (failed && reserved != 0) spw_quota_release(reserved);
  if (returns_errno) {
    spw_end(&c, failed, r);
  } else {
    SPW_END(c, failed);
  }
  return r;
}

int fallocate(int fd, int mode, off_t offset, off_t len) {
  if (!spw_fd_in_scope(fd)) return SPW_REAL(fallocate)(fd, mode, offset, len);
  return AllocateInScope("fallocate", fd, mode, offset, len, 0);
}

int fallocate64(int fd, int mode, off_t offset, off_t len) {
  if (!spw_fd_in_scope(fd)) return SPW_REAL(fallocate64)(fd, mode, offset, len);
  return AllocateInScope("fallocate64", fd, mode, offset, len, 0);
}

int posix_fallocate(int fd, off_t offset, off_t len) {
  if (!spw_fd_in_scope(fd)) return SPW_REAL(posix_fallocate)(fd, offset, len);
  return AllocateInScope("posix_fallocate", fd, 0, offset, len, 1);
}

int posix_fallocate64(int fd, off_t offset, off_t len) {
  if (!spw_fd_in_scope(fd)) return SPW_REAL(posix_fallocate64)(fd, offset, len);
  return AllocateInScope("posix_fallocate64", fd, 0, offset, len, 1);
}

/* copy_file_range and sendfile: a write when the destination is in scope, else a read of
 * the in-scope source. */
struct CopyCall {
  int in_fd;
  off_t* in_off;
  int out_fd;
  off_t* out_off;
  unsigned flags;
  int sendfile;
};
SPW_DECLARE_REAL(copy_file_range);
SPW_DECLARE_REAL(sendfile);
SPW_DECLARE_REAL(sendfile64);
static ssize_t DoCopy(void* ctx, size_t allowed) {
  struct CopyCall* k = ctx;
  if (k->sendfile) return SPW_REAL(sendfile64)(k->out_fd, k->in_fd, k->in_off, allowed);
  return SPW_REAL(copy_file_range)(k->in_fd, k->in_off, k->out_fd, k->out_off, allowed, k->flags);
}
static ssize_t DamageCopy(void* ctx, struct spw_call* c, size_t allowed) {
  struct CopyCall* k = ctx;
  return spw_damage_copy(c, k->in_fd, k->in_off, k->out_fd, k->out_off, allowed, 1);
}
static ssize_t CopyInScope(const char* name, struct CopyCall* k, size_t len) {
  if (spw_fd_in_scope(k->out_fd)) {
    const off_t offset = k->out_off != NULL ? *k->out_off : -1;
    return WriteInScope(name, k->out_fd, offset, len, DoCopy, DamageCopy, k);
  }
  SPW_BEGIN(c, SPW_READ, name, k->in_fd, -1);
  if (c.damage != SPW_DAMAGE_NONE) {
    const ssize_t r = spw_damage_copy(&c, k->in_fd, k->in_off, k->out_fd, k->out_off, len, 0);
    if (r < 0) SPW_END(c, 1);
    return r;
  }
  const ssize_t r = DoCopy(k, len);
  SPW_END(c, r < 0);
  return r;
}

ssize_t copy_file_range(int in_fd, off_t* in_off, int out_fd, off_t* out_off, size_t len,
                        unsigned flags) {
  if (!spw_fd_in_scope(in_fd) && !spw_fd_in_scope(out_fd)) {
    return SPW_REAL(copy_file_range)(in_fd, in_off, out_fd, out_off, len, flags);
  }
  struct CopyCall k = {in_fd, in_off, out_fd, out_off, flags, 0};
  return CopyInScope("copy_file_range", &k, len);
}

ssize_t sendfile(int out_fd, int in_fd, off_t* offset, size_t count) {
  if (!spw_fd_in_scope(in_fd) && !spw_fd_in_scope(out_fd)) {
    return SPW_REAL(sendfile)(out_fd, in_fd, offset, count);
  }
  struct CopyCall k = {in_fd, offset, out_fd, NULL, 0, 1};
  return CopyInScope("sendfile", &k, count);
}

ssize_t sendfile64(int out_fd, int in_fd, off_t* offset, size_t count) {
  if (!spw_fd_in_scope(in_fd) && !spw_fd_in_scope(out_fd)) {
    return SPW_REAL(sendfile64)(out_fd, in_fd, offset, count);
  }
  struct CopyCall k = {in_fd, offset, out_fd, NULL, 0, 1};
  return CopyInScope("sendfile64", &k, count);
}

/* ---- The read family. ---- */

/* A read into `iov` (count `cnt`) from file offset `at` (-1: the fd's position). A corrupt
 * rule flips a bit of the bytes it read. */
#define SPW_READ_WRAPPER(fn, params, args, iov, cnt, at)                                         \
  SPW_DECLARE_REAL(fn);                                                                          \
  ssize_t fn params {                                                                            \
    if (!spw_fd_in_scope(fd)) return SPW_REAL(fn) args;                                          \
    SPW_BEGIN(c, SPW_READ, #fn, fd, -1);                                                         \
    const off_t at_ = c.damage == SPW_DAMAGE_NONE ? -1 : (at) >= 0 ? (at) : spw_fd_position(fd); \
    const ssize_t r = SPW_REAL(fn) args;                                                         \
    if (c.damage != SPW_DAMAGE_NONE && r >= 0) {                                                 \
      spw_damage_read(&c, at_, (iov), (cnt), (size_t)r);                                         \
      return r;                                                                                  \
    }                                                                                            \
    SPW_END(c, r < 0);                                                                           \
    return r;                                                                                    \
  }

SPW_READ_WRAPPER(read, (int fd, void* buf, size_t n), (fd, buf, n), SPW_ONE_IOV(buf, n), 1, -1)
SPW_READ_WRAPPER(pread, (int fd, void* buf, size_t n, off_t o), (fd, buf, n, o),
                 SPW_ONE_IOV(buf, n), 1, o)
SPW_READ_WRAPPER(pread64, (int fd, void* buf, size_t n, off_t o), (fd, buf, n, o),
                 SPW_ONE_IOV(buf, n), 1, o)
SPW_READ_WRAPPER(readv, (int fd, const struct iovec* v, int k), (fd, v, k), v, k, -1)
SPW_READ_WRAPPER(preadv, (int fd, const struct iovec* v, int k, off_t o), (fd, v, k, o), v, k, o)
SPW_READ_WRAPPER(preadv64, (int fd, const struct iovec* v, int k, off_t o), (fd, v, k, o), v, k, o)
SPW_READ_WRAPPER(preadv2, (int fd, const struct iovec* v, int k, off_t o, int f), (fd, v, k, o, f),
                 v, k, o)
SPW_READ_WRAPPER(preadv64v2, (int fd, const struct iovec* v, int k, off_t o, int f),
                 (fd, v, k, o, f), v, k, o)
