/* exec_probe CALL FILE: clears its environment (so only the shim's exec wrappers can carry
 * LD_PRELOAD and the shim's state on), then starts `/bin/sh -c 'touch FILE'` through CALL,
 * one of execl, execlp, execle, posix_spawn, posix_spawnp. Exits with the child's status
 * (the exec variants become the child), or 100 when CALL itself failed, 2 on bad usage. */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: exec_probe CALL FILE\n");
    return 2;
  }
  const char* call = argv[1];
  char script[4200];
  snprintf(script, sizeof script, "touch '%s'", argv[2]);
  char* child_argv[] = {"sh", "-c", script, NULL};
  char* child_env[] = {"PATH=/usr/bin:/bin", NULL};
  clearenv();
  setenv("PATH", "/usr/bin:/bin", 1);
  if (strcmp(call, "execl") == 0) {
    execl("/bin/sh", "sh", "-c", script, (char*)NULL);
  } else if (strcmp(call, "execlp") == 0) {
    execlp("sh", "sh", "-c", script, (char*)NULL);
  } else if (strcmp(call, "execle") == 0) {
    execle("/bin/sh", "sh", "-c", script, (char*)NULL, child_env);
  } else if (strcmp(call, "posix_spawn") == 0 || strcmp(call, "posix_spawnp") == 0) {
    pid_t pid;
    const int rc = call[11] == 'p'
                       ? posix_spawnp(&pid, "sh", NULL, NULL, child_argv, child_env)
                       : posix_spawn(&pid, "/bin/sh", NULL, NULL, child_argv, child_env);
    int status;
    if (rc != 0 || waitpid(pid, &status, 0) != pid) return 100;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
  } else {
    fprintf(stderr, "exec_probe: unknown call %s\n", call);
    return 2;
  }
  perror(call);
  return 100;
}
