/* threads_probe DIR THREADS CALLS: THREADS threads each write() CALLS times to their own
 * file in DIR. Prints how many of those writes failed, for the concurrency test. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char* g_dir;
static int g_calls;
static int g_failed;

static void* Writer(void* arg) {
  char path[4200];
  snprintf(path, sizeof(path), "%s/t%d", g_dir, *(const int*)arg);
  const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  int failed = 0;
  for (int i = 0; i < g_calls; ++i) failed += write(fd, "x", 1) != 1;
  close(fd);
  __atomic_fetch_add(&g_failed, failed, __ATOMIC_RELAXED);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  g_dir = argv[1];
  const int threads = atoi(argv[2]);
  g_calls = atoi(argv[3]);
  pthread_t ids[64];
  int indices[64]; /* Each thread's own index, passed by pointer. */
  for (int i = 0; i < threads && i < 64; ++i) {
    indices[i] = i;
    pthread_create(&ids[i], NULL, Writer, &indices[i]);
  }
  for (int i = 0; i < threads && i < 64; ++i) pthread_join(ids[i], NULL);
  printf("%d\n", g_failed);
  return 0;
}
