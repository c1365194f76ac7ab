/* A small program that spills to a temp directory it may share: it writes records to a
 * file of its own in DIR, waits (as a longer computation would), reads the file back by
 * name, prints the records' checksum and removes the file. Built twice, each with one
 * BEHAVIOUR towards another instance in the same DIR:
 *   kWipe  first removes every file in DIR as stale, so a second instance started while the
 *          first waits removes the first one's spill file; the first then reads nothing
 *          back and prints a wrong checksum (silent_wrong_output);
 *   kLock  takes DIR with a lock file made with O_EXCL and refuses, with a message and exit
 *          1, when another instance holds it (clean_error).
 * Usage: neighbour_probe DIR */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { kWipe, kLock };
#ifndef BEHAVIOUR
#error "build with -DBEHAVIOUR=kWipe (or kLock)"
#endif

#define RECORDS 64
#define RECORD_SIZE 128
/* A neighbour starts within the first half of the baseline's time, so it overlaps this wait
 * by at least half of it: 0.5 s, enough for a process start on a loaded machine (at 0.3 s,
 * two tests missed the overlap at load 30). */
#define WAIT_MICROSECONDS 1000000

/* Removes every regular file in `dir`: the "stale files" of an earlier run, as kWipe
 * believes. */
static void RemoveStaleFiles(const char* dir) {
  DIR* entries = opendir(dir);
  if (entries == NULL) return;
  for (struct dirent* e = readdir(entries); e != NULL; e = readdir(entries)) {
    char path[PATH_MAX];
    struct stat st;
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) unlink(path);
  }
  closedir(entries);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  char lock[PATH_MAX];
  snprintf(lock, sizeof(lock), "%s/probe.lock", argv[1]);
  if (BEHAVIOUR == kLock) {
    const int fd = open(lock, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
      fprintf(stderr, "neighbour_probe: %s is in use by another instance (%s)\n", argv[1],
              strerror(errno));
      return 1;
    }
    close(fd);
  } else {
    RemoveStaleFiles(argv[1]);
  }
  char path[PATH_MAX];
  snprintf(path, sizeof(path), "%s/probe-%ld.spill", argv[1], (long)getpid());
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) {
    perror(path);
    return 1;
  }
  for (int r = 0; r < RECORDS; ++r) {
    char record[RECORD_SIZE];
    memset(record, 'a' + r % 26, sizeof(record));
    if (write(fd, record, sizeof(record)) != (ssize_t)sizeof(record)) {
      perror(path);
      return 1;
    }
  }
  close(fd);
  usleep(WAIT_MICROSECONDS);
  /* Reads back what is there; a file that is gone reads as empty (the bug kWipe's
   * neighbour exposes). */
  unsigned long sum = 0;
  fd = open(path, O_RDONLY);
  if (fd >= 0) {
    char buffer[RECORD_SIZE];
    ssize_t n;
    while ((n = read(fd, buffer, sizeof(buffer))) > 0) {
      for (ssize_t i = 0; i < n; ++i) sum += (unsigned char)buffer[i];
    }
    close(fd);
  }
  unlink(path);
  if (BEHAVIOUR == kLock) unlink(lock);
  printf("checksum %lu\n", sum);
  return 0;
}
