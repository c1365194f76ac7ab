/* A small program for corrupt and lost runs: in DIR it spills BLOCKS blocks of BLOCK bytes
 * to DIR/spill with one write() each (one call site), then the checksum of what it wrote
 * (FNV-1a, 8 bytes) with another write(); it reads the blocks back with one read() each
 * (one site) and the stored checksum with another, prints "checksum HEX" of the blocks it
 * read, and removes the file. Built twice, each with one BEHAVIOUR towards damaged data:
 *   kTrust   prints what it read, whatever it is (silent_wrong_output when damaged);
 *   kVerify  compares the checksum of what it read with the one it stored, and on a
 *            mismatch says so on stderr and exits 1 (clean_error).
 * Exits 2 when a call fails. Usage: checksum_probe DIR */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum { kTrust, kVerify };
#ifndef BEHAVIOUR
#error "build with -DBEHAVIOUR=kTrust (or kVerify)"
#endif

#define BLOCKS 4
#define BLOCK 1024

static void Die(const char* what) {
  perror(what);
  exit(2);
}

static uint64_t Fnv1a(uint64_t hash, const unsigned char* bytes, size_t n) {
  for (size_t i = 0; i < n; ++i) hash = (hash ^ bytes[i]) * 0x100000001b3ULL;
  return hash;
}

static void FillBlock(int block, unsigned char* bytes) {
  for (int i = 0; i < BLOCK; ++i)
    bytes[i] = (unsigned char)(1 + (13 * (block * BLOCK + i) + 5) % 251);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: checksum_probe DIR\n");
    return 2;
  }
  char path[PATH_MAX];
  snprintf(path, sizeof(path), "%s/spill", argv[1]);
  unsigned char block[BLOCK];
  uint64_t written = 0xcbf29ce484222325ULL;
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) Die("open for writing");
  for (int b = 0; b < BLOCKS; ++b) {
    FillBlock(b, block);
    written = Fnv1a(written, block, BLOCK);
    if (write(fd, block, BLOCK) != BLOCK) Die("write block");
  }
  if (write(fd, &written, sizeof(written)) != (ssize_t)sizeof(written)) Die("write checksum");
  if (close(fd) != 0) Die("close");

  uint64_t read_back = 0xcbf29ce484222325ULL;
  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) Die("open for reading");
  for (int b = 0; b < BLOCKS; ++b) {
    if (read(fd, block, BLOCK) != BLOCK) Die("read block");
    read_back = Fnv1a(read_back, block, BLOCK);
  }
  uint64_t stored = 0;
  if (read(fd, &stored, sizeof(stored)) != (ssize_t)sizeof(stored)) Die("read checksum");
  close(fd);
  if (unlink(path) != 0) Die("unlink");
  if (BEHAVIOUR == kVerify && stored != read_back) {
    fprintf(stderr, "checksum_probe: %s: checksum mismatch (stored %016llx, read %016llx)\n", path,
            (unsigned long long)stored, (unsigned long long)read_back);
    return 1;
  }
  printf("checksum %016llx\n", (unsigned long long)read_back);
  return 0;
}
