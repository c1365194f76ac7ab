/* The shim's wrappers for stdio's reads and writes. Each passes straight through unless
 * its stream's fd is in scope (shim_core.h). A failed call sets the stream's error
 * indicator, as a real failure would; a corrupt or lost rule damages the bytes handed to
 * stdio or returned by it (shim_damage.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "shim_core.h"
#include "shim_damage.h"

/* glibc's stdio entry points used by its inline getc/putc; not in its public headers. */
int __overflow(FILE* f, int ch);
int __uflow(FILE* f);
ssize_t __getdelim(char** line, size_t* n, int delim, FILE* f);

static int StreamFd(FILE* f) { return f == NULL ? -1 : f->_fileno; }
static void SetStreamError(FILE* f) { f->_flags |= _IO_ERR_SEEN; }
/* Drops a stream's buffered output, as a failed flush loses it. */
static void DropPending(FILE* f) { f->_IO_write_ptr = f->_IO_write_base; }
static int HasPending(FILE* f) { return f->_IO_write_ptr > f->_IO_write_base; }

/* The stream's position, where the bytes of its next read or write are. */
static off_t StreamPos(FILE* f) {
  spw_guard = 1;
  const off_t at = ftello(f);
  spw_guard = 0;
  return at;
}

/* A damaged write of `len` bytes at `p` handed to stdio; fewer on a real error. */
static size_t StreamDamaged(struct spw_call* c, FILE* f, const void* p, size_t len) {
  const size_t written = spw_damage_stream_write(c, f, p, len);
  if (written < len) SPW_END(*c, 1);
  return written;
}

/* printf's output damaged: formatted on the stack, then written as StreamDamaged does.
 * False, with nothing written, when it does not fit the stack buffer: the call then goes
 * through undamaged (docs/inject.md). */
static int FormatDamaged(struct spw_call* c, FILE* f, const char* format, va_list ap, int* r) {
  char buf[4096];
  va_list copy;
  va_copy(copy, ap);
  const int n = vsnprintf(buf, sizeof(buf), format, copy);
  va_end(copy);
  if (n < 0 || (size_t)n >= sizeof(buf)) return 0;
  *r = StreamDamaged(c, f, buf, (size_t)n) == (size_t)n ? n : -1;
  return 1;
}

/* How many of `len` bytes a stdio write may add under the quota. */
static size_t StdioQuota(FILE* f, size_t len) {
  if (!spw_quota_on() || len == 0) return len;
  uint64_t reserved;
  return spw_quota_reserve(StreamFd(f), ftello(f), len, &reserved);
}

/* Ends a stdio write that the quota cut short: the stream reports ENOSPC. */
static void StdioQuotaFault(struct spw_call* c, FILE* f) {
  SetStreamError(f);
  spw_quota_fault(c);
  errno = ENOSPC;
}

#define SPW_STREAM_BEGIN(c, op, name, f, fail)                                 \
  struct spw_call c = {(op), (name), spw_fd_path(StreamFd(f)), 0, 0, 0, 0, 0}; \
  do {                                                                         \
    int e_ = spw_begin(&c);                                                    \
    if (e_ != 0) {                                                             \
      SetStreamError(f);                                                       \
      errno = e_;                                                              \
      return (fail);                                                           \
    }                                                                          \
  } while (0)

/* A write the quota cuts stores the items that fit and reports ENOSPC. */
#define SPW_FWRITE_WRAPPER(fn)                                             \
  SPW_DECLARE_REAL(fn);                                                    \
  size_t fn(const void* p, size_t size, size_t n, FILE* f) {               \
    if (!spw_fd_in_scope(StreamFd(f))) return SPW_REAL(fn)(p, size, n, f); \
    SPW_STREAM_BEGIN(c, SPW_WRITE, #fn, f, 0);                             \
    const size_t items = size == 0 ? n : StdioQuota(f, size * n) / size;   \
    if (c.damage != SPW_DAMAGE_NONE && items == n && size > 0) {           \
      return StreamDamaged(&c, f, p, size * n) / size;                     \
    }                                                                      \
    const size_t r = items == 0 ? 0 : SPW_REAL(fn)(p, size, items, f);     \
    if (items < n && r == items) {                                         \
      StdioQuotaFault(&c, f);                                              \
      return r;                                                            \
    }                                                                      \
    SPW_END(c, r < n);                                                     \
    return r;                                                              \
  }
SPW_FWRITE_WRAPPER(fwrite)
SPW_FWRITE_WRAPPER(fwrite_unlocked)

/* Output calls whose result is EOF (or negative) on failure and `ok` on success; `buf`
 * holds the `len` bytes they hand to stdio. */
#define SPW_PUT_WRAPPER(ret, fn, params, args, stream, buf, len, fail, ok)     \
  SPW_DECLARE_REAL(fn);                                                        \
  ret fn params {                                                              \
    if (!spw_fd_in_scope(StreamFd(stream))) return SPW_REAL(fn) args;          \
    SPW_STREAM_BEGIN(c, SPW_WRITE, #fn, stream, fail);                         \
    if (StdioQuota(stream, (len)) < (len)) {                                   \
      StdioQuotaFault(&c, stream);                                             \
      return (fail);                                                           \
    }                                                                          \
    if (c.damage != SPW_DAMAGE_NONE && (len) > 0) {                            \
      return StreamDamaged(&c, stream, (buf), (len)) == (len) ? (ok) : (fail); \
    }                                                                          \
    const ret r = SPW_REAL(fn) args;                                           \
    SPW_END(c, r == (fail));                                                   \
    return r;                                                                  \
  }
#define SPW_CHAR(ch) ((const unsigned char[]){(unsigned char)(ch)})
SPW_PUT_WRAPPER(int, fputs, (const char* s, FILE* f), (s, f), f, s, strlen(s), EOF, 1)
SPW_PUT_WRAPPER(int, fputs_unlocked, (const char* s, FILE* f), (s, f), f, s, strlen(s), EOF, 1)
SPW_PUT_WRAPPER(int, fputc, (int ch, FILE* f), (ch, f), f, SPW_CHAR(ch), 1, EOF, (unsigned char)ch)
SPW_PUT_WRAPPER(int, fputc_unlocked, (int ch, FILE* f), (ch, f), f, SPW_CHAR(ch), 1, EOF,
                (unsigned char)ch)
SPW_PUT_WRAPPER(int, putc, (int ch, FILE* f), (ch, f), f, SPW_CHAR(ch), 1, EOF, (unsigned char)ch)
SPW_PUT_WRAPPER(int, putc_unlocked, (int ch, FILE* f), (ch, f), f, SPW_CHAR(ch), 1, EOF,
                (unsigned char)ch)
/* __overflow(f, EOF) only flushes: no bytes of its own. */
SPW_PUT_WRAPPER(int, __overflow, (FILE * f, int ch), (f, ch), f, SPW_CHAR(ch), ch == EOF ? 0 : 1,
                EOF, (unsigned char)ch)

SPW_DECLARE_REAL(vfprintf);
int vfprintf(FILE* f, const char* format, va_list ap) {
  if (!spw_fd_in_scope(StreamFd(f))) return SPW_REAL(vfprintf)(f, format, ap);
  SPW_STREAM_BEGIN(c, SPW_WRITE, "vfprintf", f, -1);
  int r;
  if (c.damage != SPW_DAMAGE_NONE && FormatDamaged(&c, f, format, ap, &r)) return r;
  r = SPW_REAL(vfprintf)(f, format, ap);
  SPW_END(c, r < 0);
  return r;
}

int fprintf(FILE* f, const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  int r;
  if (!spw_fd_in_scope(StreamFd(f))) {
    r = SPW_REAL(vfprintf)(f, format, ap);
  } else {
    struct spw_call c = {SPW_WRITE, "fprintf", spw_fd_path(StreamFd(f)), 0, 0, 0, 0, 0};
    const int e = spw_begin(&c);
    if (e != 0) {
      SetStreamError(f);
      errno = e;
      r = -1;
    } else if (c.damage == SPW_DAMAGE_NONE || !FormatDamaged(&c, f, format, ap, &r)) {
      r = SPW_REAL(vfprintf)(f, format, ap);
      SPW_END(c, r < 0);
    }
  }
  va_end(ap);
  return r;
}

#define SPW_FLUSH_WRAPPER(fn)                                                      \
  SPW_DECLARE_REAL(fn);                                                            \
  int fn(FILE* f) {                                                                \
    if (f == NULL || !spw_fd_in_scope(StreamFd(f))) return SPW_REAL(fn)(f);        \
    struct spw_call c = {SPW_WRITE, #fn, spw_fd_path(StreamFd(f)), 0, 0, 0, 0, 0}; \
    const int e = spw_begin(&c);                                                   \
    if (e != 0) {                                                                  \
      DropPending(f);                                                              \
      SetStreamError(f);                                                           \
      errno = e;                                                                   \
      return EOF;                                                                  \
    }                                                                              \
    const int r = SPW_REAL(fn)(f);                                                 \
    SPW_END(c, r == EOF);                                                          \
    return r;                                                                      \
  }
SPW_FLUSH_WRAPPER(fflush)
SPW_FLUSH_WRAPPER(fflush_unlocked)

/* fclose is one call: a write when output is still buffered, else a close. Either way the
 * stream is freed and its fd closed, as fclose(3) does even when it fails. */
SPW_DECLARE_REAL(fclose);
int fclose(FILE* f) {
  const int fd = StreamFd(f);
  if (!spw_fd_in_scope(fd)) return SPW_REAL(fclose)(f);
  struct spw_call c = {
      HasPending(f) ? SPW_WRITE : SPW_CLOSE, "fclose", spw_fd_path(fd), 0, 0, 0, 0, 0};
  const int e = spw_begin(&c);
  if (e != 0 && c.op == SPW_WRITE) DropPending(f);
  spw_untrack(fd);
  const int r = SPW_REAL(fclose)(f);
  if (e != 0) {
    errno = e;
    return EOF;
  }
  SPW_END(c, r == EOF);
  return r;
}

/* Input calls; a corrupt rule flips a bit of the `len` bytes at `buf` they returned. */
#define SPW_GET_WRAPPER(ret, fn, params, args, stream, fail, buf, len)      \
  SPW_DECLARE_REAL(fn);                                                     \
  ret fn params {                                                           \
    if (!spw_fd_in_scope(StreamFd(stream))) return SPW_REAL(fn) args;       \
    SPW_STREAM_BEGIN(c, SPW_READ, #fn, stream, fail);                       \
    const off_t at_ = c.damage == SPW_DAMAGE_NONE ? -1 : StreamPos(stream); \
    ret const r = SPW_REAL(fn) args;                                        \
    if (c.damage != SPW_DAMAGE_NONE && r != (fail)) {                       \
      spw_damage_read(&c, at_, SPW_ONE_IOV((buf), (len)), 1, (len));        \
      return r;                                                             \
    }                                                                       \
    SPW_END(c, r == (fail) && ferror_unlocked(stream));                     \
    return r;                                                               \
  }
/* Calls that return one character: a corrupt rule flips a bit of it. */
#define SPW_GETC_WRAPPER(fn)                                           \
  SPW_DECLARE_REAL(fn);                                                \
  int fn(FILE* f) {                                                    \
    if (!spw_fd_in_scope(StreamFd(f))) return SPW_REAL(fn)(f);         \
    SPW_STREAM_BEGIN(c, SPW_READ, #fn, f, EOF);                        \
    const off_t at_ = c.damage == SPW_DAMAGE_NONE ? -1 : StreamPos(f); \
    const int r = SPW_REAL(fn)(f);                                     \
    if (c.damage != SPW_DAMAGE_NONE && r != EOF) {                     \
      unsigned char byte = (unsigned char)r;                           \
      spw_damage_read(&c, at_, SPW_ONE_IOV(&byte, 1), 1, 1);           \
      return byte;                                                     \
    }                                                                  \
    SPW_END(c, r == EOF && ferror_unlocked(f));                        \
    return r;                                                          \
  }
SPW_GET_WRAPPER(size_t, fread, (void* p, size_t s, size_t n, FILE* f), (p, s, n, f), f, 0, p, r* s)
SPW_GET_WRAPPER(size_t, fread_unlocked, (void* p, size_t s, size_t n, FILE* f), (p, s, n, f), f, 0,
                p, r* s)
SPW_GET_WRAPPER(char*, fgets, (char* s, int n, FILE* f), (s, n, f), f, NULL, s, strlen(s))
SPW_GET_WRAPPER(char*, fgets_unlocked, (char* s, int n, FILE* f), (s, n, f), f, NULL, s, strlen(s))
SPW_GETC_WRAPPER(fgetc)
SPW_GETC_WRAPPER(fgetc_unlocked)
SPW_GETC_WRAPPER(getc)
SPW_GETC_WRAPPER(getc_unlocked)
SPW_GETC_WRAPPER(__uflow)
SPW_GET_WRAPPER(ssize_t, getline, (char** l, size_t* n, FILE* f), (l, n, f), f, -1, *l, (size_t)r)
SPW_GET_WRAPPER(ssize_t, getdelim, (char** l, size_t* n, int d, FILE* f), (l, n, d, f), f, -1, *l,
                (size_t)r)
SPW_GET_WRAPPER(ssize_t, __getdelim, (char** l, size_t* n, int d, FILE* f), (l, n, d, f), f, -1, *l,
                (size_t)r)
