// A program whose stdout varies on its own: it spills a few bytes to DIR/spill (argv[1]),
// copes with any failure (it goes on without the file), removes the file and prints its pid
// and its elapsed time in nanoseconds beside a fixed line. Every run of it prints other
// numbers, so only a sweep that masks them can compare its output.
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long Nanoseconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

int main(int argc, char** argv) {
  const long long start = Nanoseconds();
  if (argc != 2) return 2;
  char path[4096];
  snprintf(path, sizeof path, "%s/spill", argv[1]);
  FILE* spill = fopen(path, "w");
  if (spill != NULL) {
    fputs("spilled bytes\n", spill);
    fclose(spill);  // A failed write or close loses the spill, not the answer.
    unlink(path);
  }
  printf("pid %ld\n", (long)getpid());
  printf("answer 42\n");
  printf("elapsed %lld ns\n", Nanoseconds() - start);
  return 0;
}
