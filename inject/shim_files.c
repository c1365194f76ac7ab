/* The shim's wrappers for names: opening and creating files (open family, creat, the
 * mkstemp family, tmpfile, fopen), directories (mkdir, mkdtemp, listing), removal,
 * rename, sync, close, and the fd table's dup family (stat is in shim_stat.c). Each passes straight
 * through unless the path it names, or its fd, is in scope (shim_core.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim_core.h"

/* Entry points glibc's headers do not declare. */
int __open_2(const char* path, int flags);
int __open64_2(const char* path, int flags);
int __openat_2(int dirfd, const char* path, int flags);
int __openat64_2(int dirfd, const char* path, int flags);
ssize_t getdents64(int fd, void* buf, size_t n);

static int Exists(const char* path) { return SPW_SYS(SYS_faccessat, AT_FDCWD, path, F_OK, 0) == 0; }

/* ---- open, openat, creat: one path for every variant. ---- */

SPW_DECLARE_REAL(openat);
static int OpenInScope(const char* name, int dirfd, const char* path, int flags, mode_t mode,
                       const char* resolved) {
  const int creates = (flags & O_TMPFILE) == O_TMPFILE ||
                      ((flags & O_CREAT) && ((flags & O_EXCL) || !Exists(resolved)));
  struct spw_call c = {creates ? SPW_CREATE : SPW_OPEN, name, resolved, 0, 0, 0, 0, 0};
  const int e = spw_begin(&c);
  if (e != 0) {
    errno = e;
    return -1;
  }
  struct stat before;
  const int truncates = spw_quota_on() && (flags & O_TRUNC) &&
                        SPW_SYS(SYS_newfstatat, AT_FDCWD, resolved, &before, 0) == 0;
  const int fd = SPW_REAL(openat)(dirfd, path, flags, mode);
  const int err = errno;
  if (fd >= 0) {
    spw_track(fd, resolved, (flags & O_DIRECTORY) != 0);
    if (truncates) spw_quota_release((uint64_t)before.st_size);
  }
  spw_end(&c, fd < 0, err);
  errno = err;
  return fd;
}

static mode_t ModeArg(int flags, va_list ap) {
  return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, mode_t) : 0;
}

#define SPW_OPEN_WRAPPER(fn)                                        \
  SPW_DECLARE_REAL(fn);                                             \
  int fn(const char* path, int flags, ...) {                        \
    va_list ap;                                                     \
    va_start(ap, flags);                                            \
    const mode_t mode = ModeArg(flags, ap);                         \
    va_end(ap);                                                     \
    char resolved[SPW_PATH_MAX];                                    \
    if (!spw_resolve(AT_FDCWD, path, resolved)) {                   \
      return SPW_REAL(fn)(path, flags, mode);                       \
    }                                                               \
    return OpenInScope(#fn, AT_FDCWD, path, flags, mode, resolved); \
  }
SPW_OPEN_WRAPPER(open)
SPW_OPEN_WRAPPER(open64)

/* openat's slot is declared above, for OpenInScope. */
SPW_DECLARE_REAL(openat64);
#define SPW_OPENAT_WRAPPER(fn)                                   \
  int fn(int dirfd, const char* path, int flags, ...) {          \
    va_list ap;                                                  \
    va_start(ap, flags);                                         \
    const mode_t mode = ModeArg(flags, ap);                      \
    va_end(ap);                                                  \
    char resolved[SPW_PATH_MAX];                                 \
    if (!spw_resolve(dirfd, path, resolved)) {                   \
      return SPW_REAL(fn)(dirfd, path, flags, mode);             \
    }                                                            \
    return OpenInScope(#fn, dirfd, path, flags, mode, resolved); \
  }
SPW_OPENAT_WRAPPER(openat)
SPW_OPENAT_WRAPPER(openat64)

/* The _FORTIFY_SOURCE forms, called when the flags need no mode. */
#define SPW_OPEN2_WRAPPER(fn, params, args, dirfd)                     \
  SPW_DECLARE_REAL(fn);                                                \
  int fn params {                                                      \
    char resolved[SPW_PATH_MAX];                                       \
    if (!spw_resolve(dirfd, path, resolved)) return SPW_REAL(fn) args; \
    return OpenInScope(#fn, dirfd, path, flags, 0, resolved);          \
  }
SPW_OPEN2_WRAPPER(__open_2, (const char* path, int flags), (path, flags), AT_FDCWD)
SPW_OPEN2_WRAPPER(__open64_2, (const char* path, int flags), (path, flags), AT_FDCWD)
SPW_OPEN2_WRAPPER(__openat_2, (int dirfd, const char* path, int flags), (dirfd, path, flags), dirfd)
SPW_OPEN2_WRAPPER(__openat64_2, (int dirfd, const char* path, int flags), (dirfd, path, flags),
                  dirfd)

#define SPW_CREAT_WRAPPER(fn)                                                              \
  SPW_DECLARE_REAL(fn);                                                                    \
  int fn(const char* path, mode_t mode) {                                                  \
    char resolved[SPW_PATH_MAX];                                                           \
    if (!spw_resolve(AT_FDCWD, path, resolved)) return SPW_REAL(fn)(path, mode);           \
    return OpenInScope(#fn, AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, mode, resolved); \
  }
SPW_CREAT_WRAPPER(creat)
SPW_CREAT_WRAPPER(creat64)

/* ---- The mkstemp family and mkdtemp: the template's directory decides the scope. ---- */

/* After a successful call, `resolved` becomes the name the template was filled with. */
static void Refill(const char* template, char* resolved) {
  const char* slash = strrchr(resolved, '/');
  const char* name = strrchr(template, '/');
  name = name == NULL ? template : name + 1;
  const size_t dir_len = (size_t)(slash - resolved) + 1;
  if (dir_len + strlen(name) < SPW_PATH_MAX) strcpy(resolved + dir_len, name);
}

#define SPW_MKSTEMP_WRAPPER(fn, params, args)                                 \
  SPW_DECLARE_REAL(fn);                                                       \
  int fn params {                                                             \
    char resolved[SPW_PATH_MAX];                                              \
    if (!spw_resolve(AT_FDCWD, template, resolved)) return SPW_REAL(fn) args; \
    struct spw_call c = {SPW_CREATE, #fn, resolved, 0, 0, 0, 0, 0};           \
    const int e = spw_begin(&c);                                              \
    if (e != 0) {                                                             \
      errno = e;                                                              \
      return -1;                                                              \
    }                                                                         \
    const int fd = SPW_REAL(fn) args;                                         \
    const int err = errno;                                                    \
    if (fd >= 0) {                                                            \
      Refill(template, resolved);                                             \
      spw_track(fd, resolved, 0);                                             \
    }                                                                         \
    spw_end(&c, fd < 0, err);                                                 \
    errno = err;                                                              \
    return fd;                                                                \
  }
SPW_MKSTEMP_WRAPPER(mkstemp, (char* template), (template))
SPW_MKSTEMP_WRAPPER(mkstemp64, (char* template), (template))
SPW_MKSTEMP_WRAPPER(mkostemp, (char* template, int flags), (template, flags))
SPW_MKSTEMP_WRAPPER(mkostemp64, (char* template, int flags), (template, flags))
SPW_MKSTEMP_WRAPPER(mkstemps, (char* template, int suffix), (template, suffix))
SPW_MKSTEMP_WRAPPER(mkstemps64, (char* template, int suffix), (template, suffix))
SPW_MKSTEMP_WRAPPER(mkostemps, (char* template, int suffix, int flags), (template, suffix, flags))
SPW_MKSTEMP_WRAPPER(mkostemps64, (char* template, int suffix, int flags), (template, suffix, flags))

SPW_DECLARE_REAL(mkdtemp);
char* mkdtemp(char* template) {
  char resolved[SPW_PATH_MAX];
  if (!spw_resolve(AT_FDCWD, template, resolved)) return SPW_REAL(mkdtemp)(template);
  struct spw_call c = {SPW_MKDIR, "mkdtemp", resolved, 0, 0, 0, 0, 0};
  const int e = spw_begin(&c);
  if (e != 0) {
    errno = e;
    return NULL;
  }
  char* r = SPW_REAL(mkdtemp)(template);
  const int err = errno;
  if (r != NULL) Refill(template, resolved);
  spw_end(&c, r == NULL, err);
  errno = err;
  return r;
}

/* tmpfile(3) creates its unnamed file in P_tmpdir. */
#define SPW_TMPFILE_WRAPPER(fn)                                     \
  SPW_DECLARE_REAL(fn);                                             \
  FILE* fn(void) {                                                  \
    char resolved[SPW_PATH_MAX];                                    \
    if (!spw_resolve(AT_FDCWD, P_tmpdir "/", resolved)) {           \
      return SPW_REAL(fn)();                                        \
    }                                                               \
    struct spw_call c = {SPW_CREATE, #fn, resolved, 0, 0, 0, 0, 0}; \
    const int e = spw_begin(&c);                                    \
    if (e != 0) {                                                   \
      errno = e;                                                    \
      return NULL;                                                  \
    }                                                               \
    FILE* f = SPW_REAL(fn)();                                       \
    const int err = errno;                                          \
    if (f != NULL) spw_track(fileno(f), resolved, 0);               \
    spw_end(&c, f == NULL, err);                                    \
    errno = err;                                                    \
    return f;                                                       \
  }
SPW_TMPFILE_WRAPPER(tmpfile)
SPW_TMPFILE_WRAPPER(tmpfile64)

/* fopen and freopen: a create when the mode may create a file that does not exist. */
static FILE* FopenInScope(const char* name, const char* mode, const char* resolved,
                          FILE* (*open)(void* ctx), void* ctx) {
  const int creates = mode[0] != 'r' && !Exists(resolved);
  struct spw_call c = {creates ? SPW_CREATE : SPW_OPEN, name, resolved, 0, 0, 0, 0, 0};
  const int e = spw_begin(&c);
  if (e != 0) {
    errno = e;
    return NULL;
  }
  FILE* f = open(ctx);
  const int err = errno;
  if (f != NULL) spw_track(fileno(f), resolved, 0);
  spw_end(&c, f == NULL, err);
  errno = err;
  return f;
}

struct FopenArgs {
  FILE* (*fopen)(const char*, const char*);
  FILE* (*freopen)(const char*, const char*, FILE*);
  const char* path;
  const char* mode;
  FILE* stream;
};
static FILE* DoFopen(void* ctx) {
  struct FopenArgs* a = ctx;
  if (a->fopen != NULL) return a->fopen(a->path, a->mode);
  return a->freopen(a->path, a->mode, a->stream);
}

#define SPW_FOPEN_WRAPPER(fn)                                                    \
  SPW_DECLARE_REAL(fn);                                                          \
  FILE* fn(const char* path, const char* mode) {                                 \
    char resolved[SPW_PATH_MAX];                                                 \
    if (!spw_resolve(AT_FDCWD, path, resolved)) return SPW_REAL(fn)(path, mode); \
    struct FopenArgs a = {SPW_REAL(fn), NULL, path, mode, NULL};                 \
    return FopenInScope(#fn, mode, resolved, DoFopen, &a);                       \
  }
SPW_FOPEN_WRAPPER(fopen)
SPW_FOPEN_WRAPPER(fopen64)

#define SPW_FREOPEN_WRAPPER(fn)                                                  \
  SPW_DECLARE_REAL(fn);                                                          \
  FILE* fn(const char* path, const char* mode, FILE* f) {                        \
    const int old_fd = fileno(f);                                                \
    char resolved[SPW_PATH_MAX];                                                 \
    if (path == NULL || !spw_resolve(AT_FDCWD, path, resolved)) {                \
      FILE* r = SPW_REAL(fn)(path, mode, f);                                     \
      if (r != NULL && path != NULL && fileno(r) == old_fd) spw_untrack(old_fd); \
      return r;                                                                  \
    }                                                                            \
    struct FopenArgs a = {NULL, SPW_REAL(fn), path, mode, f};                    \
    spw_untrack(old_fd);                                                         \
    return FopenInScope(#fn, mode, resolved, DoFopen, &a);                       \
  }
SPW_FREOPEN_WRAPPER(freopen)
SPW_FREOPEN_WRAPPER(freopen64)

/* ---- Directories. ---- */

SPW_DECLARE_REAL(mkdir);
int mkdir(const char* path, mode_t mode) {
  char resolved[SPW_PATH_MAX];
  if (!spw_resolve(AT_FDCWD, path, resolved)) return SPW_REAL(mkdir)(path, mode);
  SPW_IN_SCOPE(int, SPW_MKDIR, "mkdir", resolved, -1, SPW_REAL(mkdir)(path, mode), r != 0);
}

SPW_DECLARE_REAL(mkdirat);
int mkdirat(int dirfd, const char* path, mode_t mode) {
  char resolved[SPW_PATH_MAX];
  if (!spw_resolve(dirfd, path, resolved)) return SPW_REAL(mkdirat)(dirfd, path, mode);
  SPW_IN_SCOPE(int, SPW_MKDIR, "mkdirat", resolved, -1, SPW_REAL(mkdirat)(dirfd, path, mode),
               r != 0);
}

SPW_DECLARE_REAL(opendir);
DIR* opendir(const char* path) {
  char resolved[SPW_PATH_MAX];
  if (!spw_resolve(AT_FDCWD, path, resolved)) return SPW_REAL(opendir)(path);
  struct spw_call c = {SPW_LIST, "opendir", resolved, 0, 0, 0, 0, 0};
  const int e = spw_begin(&c);
  if (e != 0) {
    errno = e;
    return NULL;
  }
  DIR* d = SPW_REAL(opendir)(path);
  const int err = errno;
  if (d != NULL) spw_track(dirfd(d), resolved, 1);
  spw_end(&c, d == NULL, err);
  errno = err;
  return d;
}

SPW_DECLARE_REAL(fdopendir);
DIR* fdopendir(int fd) {
  if (!spw_fd_in_scope(fd)) return SPW_REAL(fdopendir)(fd);
  SPW_IN_SCOPE(DIR*, SPW_LIST, "fdopendir", spw_fd_path(fd), NULL, SPW_REAL(fdopendir)(fd),
               r == NULL);
}

/* readdir reports an error as NULL with errno changed; NULL with errno kept is the end. */
#define SPW_READDIR_WRAPPER(type, fn)                                    \
  SPW_DECLARE_REAL(fn);                                                  \
  type* fn(DIR* d) {                                                     \
    const int fd = dirfd(d);                                             \
    if (!spw_fd_in_scope(fd)) return SPW_REAL(fn)(d);                    \
    struct spw_call c = {SPW_LIST, #fn, spw_fd_path(fd), 0, 0, 0, 0, 0}; \
    const int saved = errno;                                             \
    const int e = spw_begin(&c);                                         \
    if (e != 0) {                                                        \
      errno = e;                                                         \
      return NULL;                                                       \
    }                                                                    \
    errno = 0;                                                           \
    type* r = SPW_REAL(fn)(d);                                           \
    const int failed = r == NULL && errno != 0;                          \
    const int err = failed ? errno : saved;                              \
    spw_end(&c, failed, err);                                            \
    errno = err;                                                         \
    return r;                                                            \
  }
SPW_READDIR_WRAPPER(struct dirent, readdir)
SPW_READDIR_WRAPPER(struct dirent64, readdir64)

SPW_DECLARE_REAL(getdents64);
ssize_t getdents64(int fd, void* buf, size_t n) {
  if (!spw_fd_in_scope(fd)) return SPW_REAL(getdents64)(fd, buf, n);
  SPW_IN_SCOPE(ssize_t, SPW_LIST, "getdents64", spw_fd_path(fd), -1,
               SPW_REAL(getdents64)(fd, buf, n), r < 0);
}

SPW_DECLARE_REAL(closedir);
int closedir(DIR* d) {
  spw_untrack(dirfd(d));
  return SPW_REAL(closedir)(d);
}

/* ---- Removal and rename. ---- */

/* Gives a removed file's bytes back to the quota, unless this process still has it open
 * (then its last close gives them back). */
static void ReleaseRemoved(const struct stat* st) {
  if (!S_ISREG(st->st_mode) || st->st_nlink != 1) return;
  for (int fd = 0; fd < SPW_MAX_FDS; ++fd) {
    struct stat open_st;
    if (spw_fd_state[fd] && SPW_SYS(SYS_fstat, fd, &open_st, 0, 0) == 0 &&
        open_st.st_ino == st->st_ino && open_st.st_dev == st->st_dev) {
      return;
    }
  }
  spw_quota_release((uint64_t)st->st_size);
}

/* unlink, unlinkat and remove: `is_dir` picks rmdir as the op. */
static int RemoveInScope(const char* name, int is_dir, const char* resolved, int (*doit)(void* ctx),
                         void* ctx) {
  struct spw_call c = {is_dir ? SPW_RMDIR : SPW_REMOVE, name, resolved, 0, 0, 0, 0, 0};
  const int e = spw_begin(&c);
  if (e != 0) {
    errno = e;
    return -1;
  }
  struct stat st;
  const int had =
      spw_quota_on() && SPW_SYS(SYS_newfstatat, AT_FDCWD, resolved, &st, AT_SYMLINK_NOFOLLOW) == 0;
  const int r = doit(ctx);
  const int err = errno;
  if (r == 0 && had) ReleaseRemoved(&st);
  spw_end(&c, r != 0, err);
  errno = err;
  return r;
}

struct RemoveArgs {
  int kind; /* 0 unlink, 1 unlinkat, 2 rmdir, 3 remove */
  int dirfd;
  const char* path;
  int flags;
};
SPW_DECLARE_REAL(unlink);
SPW_DECLARE_REAL(unlinkat);
SPW_DECLARE_REAL(rmdir);
SPW_DECLARE_REAL(remove);
static int DoRemove(void* ctx) {
  struct RemoveArgs* a = ctx;
  switch (a->kind) {
    case 0:
      return SPW_REAL(unlink)(a->path);
    case 1:
      return SPW_REAL(unlinkat)(a->dirfd, a->path, a->flags);
    case 2:
      return SPW_REAL(rmdir)(a->path);
    default:
      return SPW_REAL(remove)(a->path);
  }
}

int unlink(const char* path) {
  char resolved[SPW_PATH_MAX];
  if (!spw_resolve(AT_FDCWD, path, resolved)) return SPW_REAL(unlink)(path);
  struct RemoveArgs a = {0, AT_FDCWD, path, 0};
  return RemoveInScope("unlink", 0, resolved, DoRemove, &a);
}

int unlinkat(int dirfd, const char* path, int flags) {
  char resolved[SPW_PATH_MAX];
  if (!spw_resolve(dirfd, path, resolved)) return SPW_REAL(unlinkat)(dirfd, path, flags);
  struct RemoveArgs a = {1, dirfd, path, flags};
  return RemoveInScope("unlinkat", (flags & AT_REMOVEDIR) != 0, resolved, DoRemove, &a);
}

int rmdir(const char* path) {
  char resolved[SPW_PATH_MAX];
  if (!spw_resolve(AT_FDCWD, path, resolved)) return SPW_REAL(rmdir)(path);
  struct RemoveArgs a = {2, AT_FDCWD, path, 0};
  return RemoveInScope("rmdir", 1, resolved, DoRemove, &a);
}

int remove(const char* path) {
  char resolved[SPW_PATH_MAX];
  if (!spw_resolve(AT_FDCWD, path, resolved)) return SPW_REAL(remove)(path);
  struct stat st;
  const int is_dir = SPW_SYS(SYS_newfstatat, AT_FDCWD, resolved, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                     S_ISDIR(st.st_mode);
  struct RemoveArgs a = {3, AT_FDCWD, path, 0};
  return RemoveInScope("remove", is_dir, resolved, DoRemove, &a);
}

/* A rename is in scope when either name is; its path is the source's when that is. */
#define SPW_RENAME_WRAPPER(fn, params, args, olddirfd, newdirfd)                            \
  SPW_DECLARE_REAL(fn);                                                                     \
  int fn params {                                                                           \
    char from[SPW_PATH_MAX], to[SPW_PATH_MAX];                                              \
    const int from_in = spw_resolve(olddirfd, oldpath, from);                               \
    if (!from_in && !spw_resolve(newdirfd, newpath, to)) return SPW_REAL(fn) args;          \
    SPW_IN_SCOPE(int, SPW_RENAME, #fn, from_in ? from : to, -1, SPW_REAL(fn) args, r != 0); \
  }
SPW_RENAME_WRAPPER(rename, (const char* oldpath, const char* newpath), (oldpath, newpath), AT_FDCWD,
                   AT_FDCWD)
SPW_RENAME_WRAPPER(renameat, (int od, const char* oldpath, int nd, const char* newpath),
                   (od, oldpath, nd, newpath), od, nd)
SPW_RENAME_WRAPPER(renameat2,
                   (int od, const char* oldpath, int nd, const char* newpath, unsigned flags),
                   (od, oldpath, nd, newpath, flags), od, nd)

/* ---- sync and close. ---- */

#define SPW_SYNC_WRAPPER(fn, params, args)                                            \
  SPW_DECLARE_REAL(fn);                                                               \
  int fn params {                                                                     \
    if (!spw_fd_in_scope(fd)) return SPW_REAL(fn) args;                               \
    SPW_IN_SCOPE(int, SPW_SYNC, #fn, spw_fd_path(fd), -1, SPW_REAL(fn) args, r != 0); \
  }
SPW_SYNC_WRAPPER(fsync, (int fd), (fd))
SPW_SYNC_WRAPPER(fdatasync, (int fd), (fd))
SPW_SYNC_WRAPPER(sync_file_range, (int fd, off64_t o, off64_t n, unsigned int f), (fd, o, n, f))

/* A file unlinked while open gives its bytes back when this, its last fd here, closes. */
static void ReleaseIfLastClose(int fd) {
  struct stat st;
  if (SPW_SYS(SYS_fstat, fd, &st, 0, 0) != 0 || st.st_nlink != 0 || !S_ISREG(st.st_mode)) return;
  for (int other = 0; other < SPW_MAX_FDS; ++other) {
    struct stat other_st;
    if (other != fd && spw_fd_state[other] && SPW_SYS(SYS_fstat, other, &other_st, 0, 0) == 0 &&
        other_st.st_ino == st.st_ino && other_st.st_dev == st.st_dev) {
      return;
    }
  }
  spw_quota_release((uint64_t)st.st_size);
}

/* An injected close fault still closes the fd, as Linux's close(2) always does. */
SPW_DECLARE_REAL(close);
int close(int fd) {
  if (!spw_fd_in_scope(fd)) return SPW_REAL(close)(fd);
  struct spw_call c = {SPW_CLOSE, "close", spw_fd_path(fd), 0, 0, 0, 0, 0};
  const int e = spw_begin(&c);
  if (spw_quota_on()) ReleaseIfLastClose(fd);
  spw_untrack(fd);
  const int r = SPW_REAL(close)(fd);
  if (e != 0) {
    errno = e;
    return -1;
  }
  const int err = errno;
  spw_end(&c, r != 0, err);
  errno = err;
  return r;
}

/* ---- The fd table: duplicates follow their original. ---- */

SPW_DECLARE_REAL(dup);
int dup(int fd) {
  const int r = SPW_REAL(dup)(fd);
  if (r >= 0 && spw_fd_in_scope(fd)) spw_dup(fd, r);
  return r;
}

SPW_DECLARE_REAL(dup2);
int dup2(int fd, int to) {
  const int r = SPW_REAL(dup2)(fd, to);
  if (r >= 0 && fd != to) spw_dup(fd, to);
  return r;
}

SPW_DECLARE_REAL(dup3);
int dup3(int fd, int to, int flags) {
  const int r = SPW_REAL(dup3)(fd, to, flags);
  if (r >= 0) spw_dup(fd, to);
  return r;
}

#define SPW_FCNTL_WRAPPER(fn)                                   \
  SPW_DECLARE_REAL(fn);                                         \
  int fn(int fd, int cmd, ...) {                                \
    va_list ap;                                                 \
    va_start(ap, cmd);                                          \
    void* arg = va_arg(ap, void*);                              \
    va_end(ap);                                                 \
    const int r = SPW_REAL(fn)(fd, cmd, arg);                   \
    if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)) { \
      if (spw_fd_in_scope(fd)) spw_dup(fd, r);                  \
    }                                                           \
    return r;                                                   \
  }
SPW_FCNTL_WRAPPER(fcntl)
SPW_FCNTL_WRAPPER(fcntl64)

/* ---- The working directory, for relative names. ---- */

SPW_DECLARE_REAL(chdir);
int chdir(const char* path) {
  const int r = SPW_REAL(chdir)(path);
  if (r == 0) spw_cwd_changed();
  return r;
}

SPW_DECLARE_REAL(fchdir);
int fchdir(int fd) {
  const int r = SPW_REAL(fchdir)(fd);
  if (r == 0) spw_cwd_changed();
  return r;
}

/* ---- Closing many fds at once: the table forgets them. ---- */

static void UntrackRange(unsigned first, unsigned last) {
  for (unsigned fd = first; fd <= last && fd < SPW_MAX_FDS; ++fd) spw_untrack((int)fd);
}

SPW_DECLARE_REAL(close_range);
int close_range(unsigned first, unsigned last, int flags) {
  const int r = SPW_REAL(close_range)(first, last, flags);
  if (r == 0 && !(flags & CLOSE_RANGE_CLOEXEC)) UntrackRange(first, last);
  return r;
}

SPW_DECLARE_REAL(closefrom);
void closefrom(int lowfd) {
  SPW_REAL(closefrom)(lowfd);
  if (lowfd >= 0) UntrackRange((unsigned)lowfd, SPW_MAX_FDS - 1);
}
