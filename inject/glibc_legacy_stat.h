/* The legacy stat entry points of binaries built before glibc 2.33, which glibc still
 * exports as compat symbols but no longer declares. Used by the shim (shim_stat.c) and by
 * the test probe that calls them (tests/inject/calls_probe.c). */
#ifndef SPILLWAY_INJECT_GLIBC_LEGACY_STAT_H_
#define SPILLWAY_INJECT_GLIBC_LEGACY_STAT_H_

#include <sys/stat.h>

int __xstat(int ver, const char* path, struct stat* buf);
int __xstat64(int ver, const char* path, struct stat64* buf);
int __lxstat(int ver, const char* path, struct stat* buf);
int __lxstat64(int ver, const char* path, struct stat64* buf);
int __fxstat(int ver, int fd, struct stat* buf);
int __fxstat64(int ver, int fd, struct stat64* buf);
int __fxstatat(int ver, int dirfd, const char* path, struct stat* buf, int flags);
int __fxstatat64(int ver, int dirfd, const char* path, struct stat64* buf, int flags);

#endif /* SPILLWAY_INJECT_GLIBC_LEGACY_STAT_H_ */
