/* calls_probe OP ERRNO SCOPE TWIN: makes every C library call that docs/inject.md lists under
 * OP, once on a file or directory in SCOPE and once on its twin in TWIN (outside every
 * scope). Run under `spillway inject --under SCOPE --fault "OP ERRNO times=forever"`, each
 * in-scope call must fail the way that call reports a failure (-1, NULL, EOF, a short
 * count, or the errno returned) with exactly ERRNO, and each twin call must succeed.
 * OP "keep-errno" instead checks, with no rules, that calls let through leave errno alone.
 * Prints the name of each in-scope call, one a line, for the test to match against the
 * trace; exits 1 after naming every mismatch on stderr.
 *
 * Setup steps (opening a file to write to it, making a directory to remove) use calls of
 * other operations, which the rule does not fail. SCOPE and TWIN each hold "existing" (a
 * file with a few lines) made by the test before the run. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "glibc_legacy_stat.h"

int __open_2(const char* path, int flags);
int __open64_2(const char* path, int flags);
int __openat_2(int dirfd, const char* path, int flags);
int __openat64_2(int dirfd, const char* path, int flags);
int __overflow(FILE* f, int ch);
int __uflow(FILE* f);
ssize_t __getdelim(char** line, size_t* n, int delim, FILE* f);
ssize_t getdents64(int fd, void* buf, size_t n);
/* The legacy stat family, bound to the compat symbols as binaries built before glibc 2.33
 * are (declared in glibc_legacy_stat.h). */
#if defined(__x86_64__)
__asm__(".symver __xstat,__xstat@GLIBC_2.2.5");
__asm__(".symver __xstat64,__xstat64@GLIBC_2.2.5");
__asm__(".symver __lxstat,__lxstat@GLIBC_2.2.5");
__asm__(".symver __lxstat64,__lxstat64@GLIBC_2.2.5");
__asm__(".symver __fxstat,__fxstat@GLIBC_2.2.5");
__asm__(".symver __fxstat64,__fxstat64@GLIBC_2.2.5");
__asm__(".symver __fxstatat,__fxstatat@GLIBC_2.4");
__asm__(".symver __fxstatat64,__fxstatat64@GLIBC_2.4");
#define HAVE_XSTAT 1
#endif

static int g_failures = 0;
static int g_expected_errno = 0;
static int g_in_scope = 0;
static int g_serial = 0;
static char g_dir[4096];

/* A fresh name in the current directory. */
static const char* Fresh(const char* stem) {
  static char path[4200];
  snprintf(path, sizeof(path), "%s/%s-%d", g_dir, stem, ++g_serial);
  return path;
}
static const char* Existing(void) {
  static char path[4200];
  snprintf(path, sizeof(path), "%s/existing", g_dir);
  return path;
}
static int OpenFresh(void) { return open(Fresh("w"), O_RDWR | O_CREAT | O_TRUNC, 0600); }
static int OpenExisting(void) { return open(Existing(), O_RDONLY); }
static FILE* StreamFresh(void) { return fdopen(OpenFresh(), "w+"); }
static FILE* StreamExisting(void) { return fdopen(OpenExisting(), "r"); }

/* Checks one call: `failed` says whether it reported a failure, `err` its errno. */
static void Check(const char* call, int failed, int err) {
  if (g_in_scope) {
    printf("%s\n", call);
    if (!failed || err != g_expected_errno) {
      fprintf(stderr, "in scope: %s: failed=%d errno=%d (%s), want errno %d\n", call, failed, err,
              strerror(err), g_expected_errno);
      ++g_failures;
    }
  } else if (failed) {
    fprintf(stderr, "twin: %s failed: %s\n", call, strerror(err));
    ++g_failures;
  }
}
#define CALL_INT(name, expr)    \
  do {                          \
    errno = 0;                  \
    long r_ = (long)(expr);     \
    Check(name, r_ < 0, errno); \
  } while (0)
#define CALL_PTR(name, expr)        \
  do {                              \
    errno = 0;                      \
    void* p_ = (void*)(expr);       \
    Check(name, p_ == NULL, errno); \
  } while (0)

static void Create(void) {
  CALL_INT("open", open(Fresh("c"), O_WRONLY | O_CREAT, 0600));
  CALL_INT("open64", open64(Fresh("c"), O_WRONLY | O_CREAT | O_EXCL, 0600));
  CALL_INT("openat", openat(AT_FDCWD, Fresh("c"), O_WRONLY | O_CREAT, 0600));
  CALL_INT("openat64", openat64(AT_FDCWD, Fresh("c"), O_WRONLY | O_CREAT, 0600));
  CALL_INT("creat", creat(Fresh("c"), 0600));
  CALL_INT("creat64", creat64(Fresh("c"), 0600));
  char t[4200];
#define TEMPLATE(suffix) snprintf(t, sizeof(t), "%s/tXXXXXX%s", g_dir, suffix)
  TEMPLATE("");
  CALL_INT("mkstemp", mkstemp(t));
  TEMPLATE("");
  CALL_INT("mkstemp64", mkstemp64(t));
  TEMPLATE("");
  CALL_INT("mkostemp", mkostemp(t, O_CLOEXEC));
  TEMPLATE("");
  CALL_INT("mkostemp64", mkostemp64(t, O_CLOEXEC));
  TEMPLATE(".s");
  CALL_INT("mkstemps", mkstemps(t, 2));
  TEMPLATE(".s");
  CALL_INT("mkstemps64", mkstemps64(t, 2));
  TEMPLATE(".s");
  CALL_INT("mkostemps", mkostemps(t, 2, O_CLOEXEC));
  TEMPLATE(".s");
  CALL_INT("mkostemps64", mkostemps64(t, 2, O_CLOEXEC));
  CALL_PTR("fopen", fopen(Fresh("c"), "w"));
  CALL_PTR("fopen64", fopen64(Fresh("c"), "a"));
  CALL_PTR("freopen", freopen(Fresh("c"), "w", fopen("/dev/null", "r")));
}

static void Open(void) {
  CALL_INT("open", open(Existing(), O_RDONLY));
  CALL_INT("open64", open64(Existing(), O_RDONLY));
  CALL_INT("openat", openat(AT_FDCWD, Existing(), O_RDONLY));
  CALL_INT("openat64", openat64(AT_FDCWD, Existing(), O_RDONLY));
  CALL_INT("__open_2", __open_2(Existing(), O_RDONLY));
  CALL_INT("__open64_2", __open64_2(Existing(), O_RDONLY));
  CALL_INT("__openat_2", __openat_2(AT_FDCWD, Existing(), O_RDONLY));
  CALL_INT("__openat64_2", __openat64_2(AT_FDCWD, Existing(), O_RDONLY));
  CALL_PTR("fopen", fopen(Existing(), "r"));
  CALL_PTR("fopen64", fopen64(Existing(), "r"));
  CALL_PTR("freopen", freopen(Existing(), "r", fopen("/dev/null", "r")));
}

static int VPrintf(FILE* f, const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  const int r = vfprintf(f, format, ap);
  va_end(ap);
  return r;
}

static void WriteStdio(void) {
  FILE* f = StreamFresh();
  errno = 0;
  const int short_write = fwrite("ab", 1, 2, f) != 2;
  Check("fwrite", short_write, errno);
  errno = 0;
  const int short_write_unlocked = fwrite_unlocked("ab", 1, 2, f) != 2;
  Check("fwrite_unlocked", short_write_unlocked, errno);
  CALL_INT("fputs", fputs("x", f) == EOF ? -1 : 0);
  CALL_INT("fputs_unlocked", fputs_unlocked("x", f) == EOF ? -1 : 0);
  CALL_INT("fputc", fputc('x', f) == EOF ? -1 : 0);
  CALL_INT("fputc_unlocked", fputc_unlocked('x', f) == EOF ? -1 : 0);
  CALL_INT("putc", putc('x', f) == EOF ? -1 : 0);
  CALL_INT("putc_unlocked", putc_unlocked('x', f) == EOF ? -1 : 0);
  CALL_INT("fprintf", fprintf(f, "%d", 7));
  CALL_INT("vfprintf", VPrintf(f, "%d", 7));
  CALL_INT("__overflow", __overflow(f, 'x') == EOF ? -1 : 0);
  CALL_INT("fflush", fflush(f) == EOF ? -1 : 0);
  fclose(f);
  /* Output buffered on a stream outside every scope, whose fd then refers to a file here:
   * fclose is the write that flushes it. */
  f = fopen("/dev/null", "w");
  fwrite_unlocked("pending", 1, 7, f);
  dup2(OpenFresh(), fileno(f));
  CALL_INT("fclose", fclose(f) == EOF ? -1 : 0);
}

static void Write(void) {
  const int fd = OpenFresh();
  const struct iovec iov[2] = {{(void*)"ab", 2}, {(void*)"cd", 2}};
  CALL_INT("write", write(fd, "abc", 3));
  CALL_INT("pwrite", pwrite(fd, "abc", 3, 10));
  CALL_INT("pwrite64", pwrite64(fd, "abc", 3, 20));
  CALL_INT("writev", writev(fd, iov, 2));
  CALL_INT("pwritev", pwritev(fd, iov, 2, 30));
  CALL_INT("pwritev64", pwritev64(fd, iov, 2, 40));
  CALL_INT("pwritev2", pwritev2(fd, iov, 2, 50, 0));
  CALL_INT("ftruncate", ftruncate(fd, 4096));
  CALL_INT("ftruncate64", ftruncate64(fd, 8192));
  CALL_INT("fallocate", fallocate(fd, 0, 0, 16384));
  errno = 0;
  const int e = posix_fallocate(fd, 0, 32768);
  Check("posix_fallocate", e != 0, e);
  const int src = OpenExisting();
  loff_t in_off = 0;
  CALL_INT("copy_file_range", copy_file_range(src, &in_off, fd, NULL, 3, 0));
  off_t off = 0;
  CALL_INT("sendfile", sendfile(fd, src, &off, 3));
  close(src);
  close(fd);
  WriteStdio();
}

static void Read(void) {
  const int fd = OpenExisting();
  char buf[64];
  struct iovec iov[1] = {{buf, sizeof(buf)}};
  CALL_INT("read", read(fd, buf, 4));
  CALL_INT("pread", pread(fd, buf, 4, 0));
  CALL_INT("pread64", pread64(fd, buf, 4, 0));
  CALL_INT("readv", readv(fd, iov, 1));
  CALL_INT("preadv", preadv(fd, iov, 1, 0));
  CALL_INT("preadv64", preadv64(fd, iov, 1, 0));
  CALL_INT("preadv2", preadv2(fd, iov, 1, 0, 0));
  close(fd);
  FILE* f = StreamExisting();
  errno = 0;
  const int short_read = fread(buf, 1, 4, f) != 4;
  Check("fread", short_read, errno);
  errno = 0;
  const int short_read_unlocked = fread_unlocked(buf, 1, 4, f) != 4;
  Check("fread_unlocked", short_read_unlocked, errno);
  CALL_PTR("fgets", fgets(buf, sizeof(buf), f));
  CALL_PTR("fgets_unlocked", fgets_unlocked(buf, sizeof(buf), f));
  CALL_INT("fgetc", fgetc(f));
  CALL_INT("fgetc_unlocked", fgetc_unlocked(f));
  CALL_INT("getc", getc(f));
  CALL_INT("getc_unlocked", getc_unlocked(f));
  CALL_INT("__uflow", __uflow(f));
  char* line = NULL;
  size_t n = 0;
  CALL_INT("getline", getline(&line, &n, f));
  CALL_INT("getdelim", getdelim(&line, &n, '\n', f));
  CALL_INT("__getdelim", __getdelim(&line, &n, '\n', f));
  free(line);
  fclose(f);
}

static void Mkdir(void) {
  char t[4200];
  CALL_INT("mkdir", mkdir(Fresh("d"), 0700));
  CALL_INT("mkdirat", mkdirat(AT_FDCWD, Fresh("d"), 0700));
  snprintf(t, sizeof(t), "%s/dXXXXXX", g_dir);
  CALL_PTR("mkdtemp", mkdtemp(t));
}

static const char* MadeFile(void) {
  const char* path = Fresh("f");
  close(open(path, O_WRONLY | O_CREAT, 0600));
  return path;
}
static const char* MadeDir(void) {
  const char* path = Fresh("d");
  mkdir(path, 0700);
  return path;
}

static void Remove(void) {
  CALL_INT("unlink", unlink(MadeFile()));
  CALL_INT("unlinkat", unlinkat(AT_FDCWD, MadeFile(), 0));
  CALL_INT("remove", remove(MadeFile()));
}

static void Rmdir(void) {
  CALL_INT("rmdir", rmdir(MadeDir()));
  CALL_INT("unlinkat", unlinkat(AT_FDCWD, MadeDir(), AT_REMOVEDIR));
  CALL_INT("remove", remove(MadeDir()));
}

static void Rename(void) {
  char from[4200];
  snprintf(from, sizeof(from), "%s", MadeFile());
  CALL_INT("rename", rename(from, Fresh("r")));
  snprintf(from, sizeof(from), "%s", MadeFile());
  CALL_INT("renameat", renameat(AT_FDCWD, from, AT_FDCWD, Fresh("r")));
  snprintf(from, sizeof(from), "%s", MadeFile());
  CALL_INT("renameat2", renameat2(AT_FDCWD, from, AT_FDCWD, Fresh("r"), 0));
}

static void List(void) {
  CALL_PTR("opendir", opendir(g_dir));
  CALL_PTR("fdopendir", fdopendir(open(g_dir, O_RDONLY | O_DIRECTORY)));
  /* A stream opened outside every scope, whose fd then refers to this directory: the fd
   * table follows dup2. */
  DIR* d = opendir("/");
  dup2(open(g_dir, O_RDONLY | O_DIRECTORY), dirfd(d));
  CALL_PTR("readdir", readdir(d));
  CALL_PTR("readdir64", readdir64(d));
  rewinddir(d);
  char buf[4096];
  CALL_INT("getdents64", getdents64(dirfd(d), buf, sizeof(buf)) <= 0 ? -1 : 0);
  closedir(d);
}

static void Stat(void) {
  struct stat st;
  struct stat64 st64;
  struct statx stx;
  const int fd = OpenExisting();
  CALL_INT("stat", stat(Existing(), &st));
  CALL_INT("stat64", stat64(Existing(), &st64));
  CALL_INT("lstat", lstat(Existing(), &st));
  CALL_INT("lstat64", lstat64(Existing(), &st64));
  CALL_INT("fstat", fstat(fd, &st));
  CALL_INT("fstat64", fstat64(fd, &st64));
  CALL_INT("fstatat", fstatat(AT_FDCWD, Existing(), &st, 0));
  CALL_INT("fstatat64", fstatat64(AT_FDCWD, Existing(), &st64, 0));
  CALL_INT("statx", statx(AT_FDCWD, Existing(), 0, STATX_SIZE, &stx));
  CALL_INT("access", access(Existing(), R_OK));
  CALL_INT("faccessat", faccessat(AT_FDCWD, Existing(), R_OK, 0));
#ifdef HAVE_XSTAT
  CALL_INT("__xstat", __xstat(1, Existing(), &st));
  CALL_INT("__xstat64", __xstat64(1, Existing(), &st64));
  CALL_INT("__lxstat", __lxstat(1, Existing(), &st));
  CALL_INT("__lxstat64", __lxstat64(1, Existing(), &st64));
  CALL_INT("__fxstat", __fxstat(1, fd, &st));
  CALL_INT("__fxstat64", __fxstat64(1, fd, &st64));
  CALL_INT("__fxstatat", __fxstatat(1, AT_FDCWD, Existing(), &st, 0));
  CALL_INT("__fxstatat64", __fxstatat64(1, AT_FDCWD, Existing(), &st64, 0));
#endif
  close(fd);
}

static void Sync(void) {
  const int fd = OpenFresh();
  CALL_INT("fsync", fsync(fd));
  CALL_INT("fdatasync", fdatasync(fd));
  CALL_INT("sync_file_range", sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE));
  close(fd);
}

static void Close(void) {
  CALL_INT("close", close(OpenFresh()));
  CALL_INT("fclose", fclose(StreamFresh()) == EOF ? -1 : 0);
}

/* Calls let through leave errno as it was, as the C library does on success. */
static void KeepErrno(void) {
  char t[4200];
  struct stat st;
  snprintf(t, sizeof(t), "%s/kXXXXXX", g_dir);
  const char* fresh = Fresh("k");
  long results[6];
  int seen[6];
  errno = 77, results[0] = open(fresh, O_WRONLY | O_CREAT, 0600), seen[0] = errno;
  errno = 77, results[1] = mkstemp(t), seen[1] = errno;
  errno = 77, results[2] = stat(Existing(), &st), seen[2] = errno;
  errno = 77, results[3] = unlink(fresh), seen[3] = errno;
  errno = 77, results[4] = write((int)results[1], "x", 1), seen[4] = errno;
  errno = 77, results[5] = close((int)results[1]), seen[5] = errno;
  for (int i = 0; i < 6; ++i) {
    if (results[i] < 0 || seen[i] != 77) {
      fprintf(stderr, "%s: call %d returned %ld, errno %d (want 77)\n", g_dir, i, results[i],
              seen[i]);
      ++g_failures;
    }
  }
}

static void RunOp(const char* op) {
  if (strcmp(op, "create") == 0) Create();
  if (strcmp(op, "open") == 0) Open();
  if (strcmp(op, "write") == 0) Write();
  if (strcmp(op, "read") == 0) Read();
  if (strcmp(op, "mkdir") == 0) Mkdir();
  if (strcmp(op, "remove") == 0) Remove();
  if (strcmp(op, "rmdir") == 0) Rmdir();
  if (strcmp(op, "rename") == 0) Rename();
  if (strcmp(op, "list") == 0) List();
  if (strcmp(op, "stat") == 0) Stat();
  if (strcmp(op, "sync") == 0) Sync();
  if (strcmp(op, "close") == 0) Close();
  if (strcmp(op, "keep-errno") == 0) KeepErrno();
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: calls_probe OP ERRNO_NUMBER SCOPE TWIN\n");
    return 2;
  }
  g_expected_errno = atoi(argv[2]);
  /* The twin first: nothing there may fail. */
  snprintf(g_dir, sizeof(g_dir), "%s", argv[4]);
  RunOp(argv[1]);
  snprintf(g_dir, sizeof(g_dir), "%s", argv[3]);
  g_in_scope = 1;
  RunOp(argv[1]);
  fflush(stdout);
  return g_failures == 0 ? 0 : 1;
}
