/* kill_probe FILE: a parent that forks one child and survives it. The child writes "a" to
 * FILE three times from write_a (one call site: one line, in a loop) and then "b" from write_b,
 * printing "a1 ok", "a2 ok", ... (unbuffered) after each write. The parent waits for it and prints
 * "child signal N" or "child exit N", then "file CONTENTS" (what FILE holds), and exits 0. Built
 * without optimisation, so that write_a and write_b stay two call sites. Exits 2 on bad usage. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) static void write_a(int fd, const char* label) {
  if (write(fd, "a", 1) == 1) printf("%s ok\n", label);
}

__attribute__((noinline)) static void write_b(int fd, const char* label) {
  if (write(fd, "b", 1) == 1) printf("%s ok\n", label);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: kill_probe FILE\n");
    return 2;
  }
  setvbuf(stdout, NULL, _IONBF, 0);
  const pid_t child = fork();
  if (child < 0) return 2;
  if (child == 0) {
    const int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) _exit(2);
    static const char* const kLabels[] = {"a1", "a2", "a3"};
    for (int i = 0; i < 3; ++i) write_a(fd, kLabels[i]);  // One call site, three calls.
    write_b(fd, "b1");
    close(fd);
    _exit(0);
  }
  int status = 0;
  if (waitpid(child, &status, 0) != child) return 2;
  if (WIFSIGNALED(status)) {
    printf("child signal %d\n", WTERMSIG(status));
  } else {
    printf("child exit %d\n", WEXITSTATUS(status));
  }
  char contents[16] = {0};
  const int fd = open(argv[1], O_RDONLY | O_CLOEXEC);
  const ssize_t n = fd < 0 ? 0 : read(fd, contents, sizeof(contents) - 1);
  printf("file %s\n", n > 0 ? contents : "(empty)");
  return 0;
}
