/* A small program that spills: it makes a directory in DIR, writes records to three temp
 * files in it, reads them back, prints their checksum and removes everything. Built six
 * times, each with one BEHAVIOUR on an error:
 *   kGood    reports it, removes its files and exits 1 (the sweep finds no violation);
 *   kLeak    exits 1 at once when a write fails, leaving its files (leak);
 *   kIgnore  ignores a failed write and carries on (silent_wrong_output);
 *   kAbort   aborts (crash);
 *   kRetry   retries a failed write forever (hang, in persistent mode);
 *   kRandom  like kGood, but writes its files in a random order (diverged).
 * -DFILES=N spills N files instead of three (the sweep benchmark's program).
 * Usage: spill_program DIR */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { kGood, kLeak, kIgnore, kAbort, kRetry, kRandom };
#ifndef BEHAVIOUR
#error "build with -DBEHAVIOUR=kGood (or kLeak, kIgnore, kAbort, kRetry, kRandom)"
#endif

#ifndef FILES
#define FILES 3
#endif
#define RECORDS 8
#define RECORD_SIZE 256

static char dir_path[PATH_MAX];
static char file_paths[FILES][PATH_MAX];
static int fds[FILES];

/* Removes what exists of the files and the directory; 0 when all of it went. */
static int Cleanup(void) {
  int ok = 1;
  for (int i = 0; i < FILES; ++i) {
    if (fds[i] >= 0 && close(fds[i]) != 0) ok = 0;
    fds[i] = -1;
    if (file_paths[i][0] != '\0' && unlink(file_paths[i]) != 0) {
      perror(file_paths[i]);
      ok = 0;
    }
  }
  if (dir_path[0] != '\0' && rmdir(dir_path) != 0) {
    perror(dir_path);
    ok = 0;
  }
  return ok;
}

static void Fail(const char* what) {
  perror(what);
  if (BEHAVIOUR == kAbort) abort();
  Cleanup();
  exit(1);
}

static void WriteRecord(int i, int r) {
  char record[RECORD_SIZE];
  memset(record, 'a' + (i * RECORDS + r) % 26, sizeof(record));
  while (write(fds[i], record, sizeof(record)) != (ssize_t)sizeof(record)) {
    if (BEHAVIOUR == kIgnore) return;
    if (BEHAVIOUR == kLeak) exit(1);
    if (BEHAVIOUR != kRetry) Fail("write");
    usleep(1000);
  }
}

static unsigned long ReadBack(int i) {
  char record[RECORD_SIZE];
  unsigned long sum = 0;
  for (off_t at = 0;; at += RECORD_SIZE) {
    const ssize_t n = pread(fds[i], record, sizeof(record), at);
    if (n < 0) Fail("pread");
    if (n == 0) break;
    for (ssize_t k = 0; k < n; ++k) sum = sum * 31 + (unsigned char)record[k];
  }
  return sum;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  int order[FILES];
  for (int i = 0; i < FILES; ++i) {
    order[i] = i;
    fds[i] = -1;
  }
  if (BEHAVIOUR == kRandom) {
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    const int j = rand() % FILES;
    order[0] = j;
    order[j] = 0;
  }
  snprintf(dir_path, sizeof(dir_path), "%s/spill-XXXXXX", argv[1]);
  if (mkdtemp(dir_path) == NULL) {
    dir_path[0] = '\0';
    Fail("mkdtemp");
  }
  for (int k = 0; k < FILES; ++k) {
    const int i = order[k];
    snprintf(file_paths[i], sizeof(file_paths[i]), "%s/run%d-XXXXXX", dir_path, i);
    fds[i] = mkstemp(file_paths[i]);
    if (fds[i] < 0) {
      file_paths[i][0] = '\0';
      Fail("mkstemp");
    }
    for (int r = 0; r < RECORDS; ++r) WriteRecord(i, r);
  }
  unsigned long sum = 0;
  for (int i = 0; i < FILES; ++i) sum = sum * 7 + ReadBack(i);
  if (!Cleanup()) exit(1);
  printf("checksum %lu\n", sum);
  return 0;
}
