/* A small program for kill runs: in DIR it spills two temp files "spill-XXXXXX" of 4096
 * bytes each, prints their checksum, then removes them. Built three times, each with one
 * BEHAVIOUR towards what a killed run of it left:
 *   kOrphan   never looks: a killed run's files stay (orphan);
 *   kReclaim  removes every stale "spill-*" of DIR at start (reclaimed);
 *   kLock     holds DIR/probe.lock while it runs and refuses to start, exit 3, while one
 *             exists (restart_failed).
 * Usage: kill_probe DIR */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { kOrphan, kReclaim, kLock };
#ifndef BEHAVIOUR
#error "build with -DBEHAVIOUR=kOrphan (or kReclaim, kLock)"
#endif

#define FILES 2
#define FILE_SIZE 4096

static void Die(const char* what) {
  perror(what);
  exit(1);
}

/* Removes the stale "spill-*" entries of `dir`. */
static void Reclaim(const char* dir) {
  DIR* d = opendir(dir);
  if (d == NULL) Die(dir);
  char path[PATH_MAX];
  for (struct dirent* e = readdir(d); e != NULL; e = readdir(d)) {
    if (strncmp(e->d_name, "spill-", 6) != 0) continue;
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    if (unlink(path) != 0) Die(path);
  }
  closedir(d);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: kill_probe DIR\n");
    return 2;
  }
  const char* dir = argv[1];
  char lock[PATH_MAX];
  snprintf(lock, sizeof(lock), "%s/probe.lock", dir);
  if (BEHAVIOUR == kLock) {
    const int fd = open(lock, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
      fprintf(stderr, "kill_probe: %s exists: another run holds it\n", lock);
      return 3;
    }
    close(fd);
  }
  if (BEHAVIOUR == kReclaim) Reclaim(dir);
  char paths[FILES][PATH_MAX];
  char block[FILE_SIZE];
  unsigned long sum = 0;
  for (int i = 0; i < FILES; ++i) {
    snprintf(paths[i], sizeof(paths[i]), "%s/spill-XXXXXX", dir);
    const int fd = mkstemp(paths[i]);
    if (fd < 0) Die(paths[i]);
    memset(block, 'a' + i, sizeof(block));
    if (write(fd, block, sizeof(block)) != (ssize_t)sizeof(block)) Die(paths[i]);
    if (close(fd) != 0) Die(paths[i]);
    for (size_t b = 0; b < sizeof(block); ++b) sum += (unsigned char)block[b];
  }
  printf("sum %lu\n", sum);
  for (int i = 0; i < FILES; ++i) {
    if (unlink(paths[i]) != 0) Die(paths[i]);
  }
  if (BEHAVIOUR == kLock && unlink(lock) != 0) Die(lock);
  return 0;
}
