/* damage_probe SCOPE OUTSIDE FAMILY: moves 1024 bytes through one call family, in calls of
 * at most 128 bytes, and prints what came out as one line of hex, so that a test can see
 * the damage a corrupt or lost rule did (tests/inject/inject_damage_test.cc).
 *
 * A read family (read, pread, readv, preadv, fread, fgets, getline, fgetc, getc,
 * copy_from, sendfile_from) first writes SCOPE/f, P(i) = 1 + (13 i + 5) % 255, with one
 * write(), then reads it back through the family and prints "read HEX" of what it got
 * (copy_from and sendfile_from copy it to OUTSIDE/copy, out of scope, and print that).
 *
 * A write family (write, pwrite, writev, pwritev, fwrite, fputs, fputc, fprintf, copy_to,
 * sendfile_to) first writes A(i) = 1 + (7 i + 3) % 255 to the first 512 bytes of SCOPE/f
 * with one write(), then writes P over the file's first 1024 bytes through the family (the
 * copies from OUTSIDE/src, out of scope, which holds P) and prints "file HEX", what the file
 * holds, read with raw system calls that the shim does not see.
 *
 * Exits 2 on bad usage or when a call fails. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

enum { kSize = 1024, kChunk = 128, kOld = 512 };

static unsigned char P(int i) { return (unsigned char)(1 + (13 * i + 5) % 255); }
static unsigned char A(int i) { return (unsigned char)(1 + (7 * i + 3) % 255); }

static void Fail(const char* what) {
  perror(what);
  exit(2);
}

static void PrintHex(const char* label, const unsigned char* bytes, size_t n) {
  printf("%s ", label);
  for (size_t i = 0; i < n; ++i) printf("%02x", bytes[i]);
  printf("\n");
}

/* Creates `path` holding `n` bytes of `pattern`, with one write(). */
static void Create(const char* path, unsigned char (*pattern)(int), int n) {
  unsigned char bytes[kSize];
  for (int i = 0; i < n; ++i) bytes[i] = pattern(i);
  const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || write(fd, bytes, (size_t)n) != n || close(fd) != 0) Fail("create");
}

/* What `path` holds, read with system calls the shim does not wrap. */
static size_t Contents(const char* path, unsigned char* out) {
  const int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) Fail("open contents");
  size_t n = 0;
  long r;
  while ((r = syscall(SYS_read, fd, out + n, (size_t)(2 * kSize) - n)) > 0) n += (size_t)r;
  syscall(SYS_close, fd);
  return n;
}

static size_t ReadFamily(const char* family, const char* f, const char* copy, unsigned char* got) {
  size_t n = 0;
  if (strcmp(family, "copy_from") == 0 || strcmp(family, "sendfile_from") == 0) {
    const int in = open(f, O_RDONLY | O_CLOEXEC);
    const int out = open(copy, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (in < 0 || out < 0) Fail("open");
    for (ssize_t r = 1; r > 0;) {
      r = family[0] == 'c' ? copy_file_range(in, NULL, out, NULL, kChunk, 0)
                           : sendfile(out, in, NULL, kChunk);
      if (r < 0) Fail(family);
    }
    close(in);
    close(out);
    return Contents(copy, got);
  }
  const int stdio = strchr("fg", family[0]) != NULL;
  FILE* stream = stdio ? fopen(f, "r") : NULL;
  const int fd = stdio ? -1 : open(f, O_RDONLY | O_CLOEXEC);
  if (stdio ? stream == NULL : fd < 0) Fail("open");
  char* line = NULL;
  size_t cap = 0;
  for (;;) {
    ssize_t r;
    unsigned char* at = got + n;
    if (strcmp(family, "read") == 0) {
      r = read(fd, at, kChunk);
    } else if (strcmp(family, "pread") == 0) {
      r = pread(fd, at, kChunk, (off_t)n);
    } else if (strcmp(family, "readv") == 0 || strcmp(family, "preadv") == 0) {
      struct iovec v[2] = {{at, kChunk / 2}, {at + kChunk / 2, kChunk / 2}};
      r = family[1] == 'r' ? preadv(fd, v, 2, (off_t)n) : readv(fd, v, 2);
    } else if (strcmp(family, "fread") == 0) {
      r = (ssize_t)fread(at, 1, kChunk, stream);
    } else if (strcmp(family, "fgets") == 0) {
      /* P has no NUL: the line's length is what fgets read. */
      r = fgets((char*)at, kChunk + 1, stream) == NULL ? 0 : (ssize_t)strlen((char*)at);
    } else if (strcmp(family, "getline") == 0) {
      r = getline(&line, &cap, stream);
      if (r > 0) memcpy(at, line, (size_t)r);
      if (r < 0) r = 0;
    } else if (strcmp(family, "fgetc") == 0 || strcmp(family, "getc") == 0) {
      const int ch = family[1] == 'g' ? fgetc(stream) : getc(stream);
      r = ch == EOF ? 0 : 1;
      if (r) *at = (unsigned char)ch;
    } else {
      fprintf(stderr, "damage_probe: unknown family %s\n", family);
      exit(2);
    }
    if (r < 0 || (stream != NULL && ferror(stream))) Fail(family);
    if (r == 0) break;
    n += (size_t)r;
  }
  free(line);
  if (stream != NULL) fclose(stream);
  if (fd >= 0) close(fd);
  return n;
}

static void WriteFamily(const char* family, const char* f, const char* src) {
  unsigned char p[kSize];
  for (int i = 0; i < kSize; ++i) p[i] = P(i);
  if (strcmp(family, "copy_to") == 0 || strcmp(family, "sendfile_to") == 0) {
    const int in = open(src, O_RDONLY | O_CLOEXEC);
    const int out = open(f, O_WRONLY | O_CLOEXEC);
    if (in < 0 || out < 0) Fail("open");
    for (int done = 0; done < kSize;) {
      const ssize_t r = family[0] == 'c' ? copy_file_range(in, NULL, out, NULL, kChunk, 0)
                                         : sendfile(out, in, NULL, kChunk);
      if (r <= 0) Fail(family);
      done += (int)r;
    }
    close(in);
    close(out);
    return;
  }
  const int stdio = family[0] == 'f';
  FILE* stream = stdio ? fopen(f, "r+") : NULL;
  const int fd = stdio ? -1 : open(f, O_WRONLY | O_CLOEXEC);
  if (stdio ? stream == NULL : fd < 0) Fail("open");
  for (int off = 0; off < kSize; off += kChunk) {
    const unsigned char* at = p + off;
    int ok = 1;
    char text[kChunk + 1];
    memcpy(text, at, kChunk);
    text[kChunk] = '\0'; /* P has no NUL. */
    if (strcmp(family, "write") == 0) {
      ok = write(fd, at, kChunk) == kChunk;
    } else if (strcmp(family, "pwrite") == 0) {
      ok = pwrite(fd, at, kChunk, off) == kChunk;
    } else if (strcmp(family, "writev") == 0 || strcmp(family, "pwritev") == 0) {
      struct iovec v[2] = {{(void*)at, kChunk / 2}, {(void*)(at + kChunk / 2), kChunk / 2}};
      ok = (family[1] == 'w' ? pwritev(fd, v, 2, off) : writev(fd, v, 2)) == kChunk;
    } else if (strcmp(family, "fwrite") == 0) {
      ok = fwrite(at, 1, kChunk, stream) == kChunk;
    } else if (strcmp(family, "fputs") == 0) {
      ok = fputs(text, stream) >= 0;
    } else if (strcmp(family, "fprintf") == 0) {
      ok = fprintf(stream, "%s", text) == kChunk;
    } else if (strcmp(family, "fputc") == 0) {
      for (int i = 0; i < kChunk && ok; ++i) ok = fputc(at[i], stream) == at[i];
    } else {
      fprintf(stderr, "damage_probe: unknown family %s\n", family);
      exit(2);
    }
    if (!ok) Fail(family);
  }
  if (stream != NULL && fclose(stream) != 0) Fail("fclose");
  if (fd >= 0) close(fd);
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: damage_probe SCOPE OUTSIDE FAMILY\n");
    return 2;
  }
  char f[4096], other[4096];
  snprintf(f, sizeof(f), "%s/f", argv[1]);
  const char* family = argv[3];
  static const char* const kReads[] = {"read",  "pread",     "readv",        "preadv",
                                       "fread", "fgets",     "getline",      "fgetc",
                                       "getc",  "copy_from", "sendfile_from"};
  int is_read = 0;
  for (size_t i = 0; i < sizeof(kReads) / sizeof(kReads[0]); ++i)
    is_read |= !strcmp(family, kReads[i]);
  unsigned char got[2 * kSize];
  if (is_read) {
    snprintf(other, sizeof(other), "%s/copy", argv[2]);
    Create(f, P, kSize);
    PrintHex("read", got, ReadFamily(family, f, other, got));
  } else {
    snprintf(other, sizeof(other), "%s/src", argv[2]);
    Create(other, P, kSize);
    Create(f, A, kOld);
    WriteFamily(family, f, other);
    PrintHex("file", got, Contents(f, got));
  }
  return 0;
}
