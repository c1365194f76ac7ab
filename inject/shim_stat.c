/* The shim's stat wrappers: the stat family (with glibc's legacy __xstat entry points and
 * statx) and access. Each passes straight through unless the path it names, or its fd, is
 * in scope (shim_core.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/stat.h>
#include <unistd.h>

#include "glibc_legacy_stat.h"
#include "shim_core.h"

#if defined(__x86_64__)
#define SPW_XSTAT_VERSION "GLIBC_2.2.5"
#define SPW_FXSTATAT_VERSION "GLIBC_2.4"
#elif defined(__aarch64__)
#define SPW_XSTAT_VERSION "GLIBC_2.17"
#define SPW_FXSTATAT_VERSION "GLIBC_2.17"
#else
#define SPW_XSTAT_VERSION NULL
#define SPW_FXSTATAT_VERSION NULL
#endif

/* ---- stat and access. ---- */

#define SPW_PATH_STAT_WRAPPER(fn, params, args, dirfd, path, version)               \
  SPW_DECLARE_VERSIONED_REAL(fn, version);                                          \
  int fn params {                                                                   \
    __typeof__(&fn) real = (__typeof__(&fn))spw_real(&spw_real_##fn, #fn, version); \
    char resolved[SPW_PATH_MAX];                                                    \
    if (!spw_resolve(dirfd, path, resolved)) return real args;                      \
    SPW_IN_SCOPE(int, SPW_STAT, #fn, resolved, -1, real args, r != 0);              \
  }
#define SPW_FD_STAT_WRAPPER(fn, params, args, version)                              \
  SPW_DECLARE_VERSIONED_REAL(fn, version);                                          \
  int fn params {                                                                   \
    __typeof__(&fn) real = (__typeof__(&fn))spw_real(&spw_real_##fn, #fn, version); \
    if (!spw_fd_in_scope(fd)) return real args;                                     \
    SPW_IN_SCOPE(int, SPW_STAT, #fn, spw_fd_path(fd), -1, real args, r != 0);       \
  }
/* fstatat and statx with an empty path and AT_EMPTY_PATH are about the fd itself. */
#define SPW_AT_STAT_WRAPPER(fn, params, args, version)                              \
  SPW_DECLARE_VERSIONED_REAL(fn, version);                                          \
  int fn params {                                                                   \
    __typeof__(&fn) real = (__typeof__(&fn))spw_real(&spw_real_##fn, #fn, version); \
    char resolved[SPW_PATH_MAX];                                                    \
    const char* p;                                                                  \
    const char* opaque = spw_opaque(path);                                          \
    if (opaque != NULL && opaque[0] == '\0' && (flags & AT_EMPTY_PATH)) {           \
      if (!spw_fd_in_scope(dirfd)) return real args;                                \
      p = spw_fd_path(dirfd);                                                       \
    } else {                                                                        \
      if (!spw_resolve(dirfd, path, resolved)) return real args;                    \
      p = resolved;                                                                 \
    }                                                                               \
    SPW_IN_SCOPE(int, SPW_STAT, #fn, p, -1, real args, r != 0);                     \
  }

SPW_PATH_STAT_WRAPPER(stat, (const char* path, struct stat* b), (path, b), AT_FDCWD, path, NULL)
SPW_PATH_STAT_WRAPPER(stat64, (const char* path, struct stat64* b), (path, b), AT_FDCWD, path, NULL)
SPW_PATH_STAT_WRAPPER(lstat, (const char* path, struct stat* b), (path, b), AT_FDCWD, path, NULL)
SPW_PATH_STAT_WRAPPER(lstat64, (const char* path, struct stat64* b), (path, b), AT_FDCWD, path,
                      NULL)
SPW_PATH_STAT_WRAPPER(access, (const char* path, int mode), (path, mode), AT_FDCWD, path, NULL)
SPW_PATH_STAT_WRAPPER(faccessat, (int dirfd, const char* path, int mode, int flags),
                      (dirfd, path, mode, flags), dirfd, path, NULL)
SPW_PATH_STAT_WRAPPER(__xstat, (int ver, const char* path, struct stat* b), (ver, path, b),
                      AT_FDCWD, path, SPW_XSTAT_VERSION)
SPW_PATH_STAT_WRAPPER(__xstat64, (int ver, const char* path, struct stat64* b), (ver, path, b),
                      AT_FDCWD, path, SPW_XSTAT_VERSION)
SPW_PATH_STAT_WRAPPER(__lxstat, (int ver, const char* path, struct stat* b), (ver, path, b),
                      AT_FDCWD, path, SPW_XSTAT_VERSION)
SPW_PATH_STAT_WRAPPER(__lxstat64, (int ver, const char* path, struct stat64* b), (ver, path, b),
                      AT_FDCWD, path, SPW_XSTAT_VERSION)
SPW_FD_STAT_WRAPPER(fstat, (int fd, struct stat* b), (fd, b), NULL)
SPW_FD_STAT_WRAPPER(fstat64, (int fd, struct stat64* b), (fd, b), NULL)
SPW_FD_STAT_WRAPPER(__fxstat, (int ver, int fd, struct stat* b), (ver, fd, b), SPW_XSTAT_VERSION)
SPW_FD_STAT_WRAPPER(__fxstat64, (int ver, int fd, struct stat64* b), (ver, fd, b),
                    SPW_XSTAT_VERSION)
SPW_AT_STAT_WRAPPER(fstatat, (int dirfd, const char* path, struct stat* b, int flags),
                    (dirfd, path, b, flags), NULL)
SPW_AT_STAT_WRAPPER(fstatat64, (int dirfd, const char* path, struct stat64* b, int flags),
                    (dirfd, path, b, flags), NULL)
SPW_AT_STAT_WRAPPER(__fxstatat, (int ver, int dirfd, const char* path, struct stat* b, int flags),
                    (ver, dirfd, path, b, flags), SPW_FXSTATAT_VERSION)
SPW_AT_STAT_WRAPPER(__fxstatat64,
                    (int ver, int dirfd, const char* path, struct stat64* b, int flags),
                    (ver, dirfd, path, b, flags), SPW_FXSTATAT_VERSION)
SPW_AT_STAT_WRAPPER(statx, (int dirfd, const char* path, int flags, unsigned mask, struct statx* b),
                    (dirfd, path, flags, mask, b), NULL)
