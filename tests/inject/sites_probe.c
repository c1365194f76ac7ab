/* sites_probe FILE: writes one byte to FILE from known call sites and prints, per write, its
 * label and outcome ("one1 ok", "b1 ENOSPC"), then the address of main (which differs
 * between runs when ASLR is on). write_a's write is one source line reached from two
 * callers (via_one three times, in a loop, then via_two); write_b's is another, called from
 * two lines of main. Built without
 * optimisation and with debug information, so that each function keeps its own frame and
 * its frames can be symbolized. Exits 0, or 2 on bad usage or when FILE cannot be made. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void report(const char* label, ssize_t n) {
  printf("%s %s\n", label, n == 1 ? "ok" : strerrorname_np(errno));
}

__attribute__((noinline)) static void write_a(int fd, const char* label) {
  report(label, write(fd, "a", 1));
}

__attribute__((noinline)) static void write_b(int fd, const char* label) {
  report(label, write(fd, "b", 1));
}

__attribute__((noinline)) static void via_one(int fd, const char* label) { write_a(fd, label); }

__attribute__((noinline)) static void via_two(int fd, const char* label) { write_a(fd, label); }

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: sites_probe FILE\n");
    return 2;
  }
  const int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return 2;
  static const char* const kOne[] = {"one1", "one2", "one3"};
  for (int i = 0; i < 3; ++i) via_one(fd, kOne[i]);
  write_b(fd, "b1");
  via_two(fd, "two1");
  write_b(fd, "b2");
  close(fd);
  printf("main %p\n", (void*)&main);
  return 0;
}
