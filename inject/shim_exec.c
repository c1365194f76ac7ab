/* The shim's exec wrappers: a program that scrubs its environment before starting another
 * (env -i, a sanitising daemon) would lose the shim; these put LD_PRELOAD and the state
 * variable back, so that every process of the run shares the rules and counters. Buffers
 * are on the stack: no allocation, safe after vfork. */
#define _GNU_SOURCE
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>

#include "shim_core.h"

extern char** environ;

#define SPW_MAX_ENV 4096
#define SPW_MAX_ARGS 1024
#define SPW_ENV_BUF (2 * SPW_PATH_MAX + 64)

/* Declares `fixed`, envp with the shim's variables put back. */
#define SPW_FIX_ENV(fixed, envp)    \
  char* fixed##_slots[SPW_MAX_ENV]; \
  char fixed##_buf[SPW_ENV_BUF];    \
  char* const* fixed = spw_exec_env((envp), fixed##_slots, SPW_MAX_ENV, fixed##_buf, SPW_ENV_BUF)

SPW_DECLARE_REAL(execve);
int execve(const char* path, char* const argv[], char* const envp[]) {
  SPW_FIX_ENV(env, envp);
  return SPW_REAL(execve)(path, argv, env);
}

int execv(const char* path, char* const argv[]) {
  SPW_FIX_ENV(env, environ);
  return SPW_REAL(execve)(path, argv, env);
}

SPW_DECLARE_REAL(execvpe);
int execvpe(const char* file, char* const argv[], char* const envp[]) {
  SPW_FIX_ENV(env, envp);
  return SPW_REAL(execvpe)(file, argv, env);
}

int execvp(const char* file, char* const argv[]) {
  SPW_FIX_ENV(env, environ);
  return SPW_REAL(execvpe)(file, argv, env);
}

SPW_DECLARE_REAL(fexecve);
int fexecve(int fd, char* const argv[], char* const envp[]) {
  SPW_FIX_ENV(env, envp);
  return SPW_REAL(fexecve)(fd, argv, env);
}

/* Collects execl's variadic arguments into argv; returns 0 when there are too many. The
 * word after the terminating NULL (execle's envp) is stored in *envp when it is not NULL. */
static int CollectArgs(const char* arg0, va_list ap, char** argv, char*** envp) {
  int n = 0;
  argv[n++] = (char*)arg0;
  while (arg0 != NULL) {
    if (n == SPW_MAX_ARGS) return 0;
    argv[n] = va_arg(ap, char*);
    if (argv[n++] == NULL) break;
  }
  if (envp != NULL) *envp = va_arg(ap, char**);
  return 1;
}

/* Gathers the variadic words of the enclosing execl-family function (its last named
 * parameter is `last`) into argv, and envp when not NULL; fails the call with E2BIG when
 * there are too many. */
#define SPW_GATHER_ARGS(last, argv, envp)                   \
  do {                                                      \
    va_list ap_;                                            \
    va_start(ap_, last);                                    \
    const int ok_ = CollectArgs(last, ap_, (argv), (envp)); \
    va_end(ap_);                                            \
    if (!ok_) {                                             \
      errno = E2BIG;                                        \
      return -1;                                            \
    }                                                       \
  } while (0)

int execl(const char* path, const char* arg, ...) {
  char* argv[SPW_MAX_ARGS];
  SPW_GATHER_ARGS(arg, argv, NULL);
  return execv(path, argv);
}

int execlp(const char* file, const char* arg, ...) {
  char* argv[SPW_MAX_ARGS];
  SPW_GATHER_ARGS(arg, argv, NULL);
  return execvp(file, argv);
}

int execle(const char* path, const char* arg, ...) {
  char* argv[SPW_MAX_ARGS];
  char** envp = NULL;
  SPW_GATHER_ARGS(arg, argv, &envp);
  return execve(path, argv, envp);
}

SPW_DECLARE_REAL(posix_spawn);
int posix_spawn(pid_t* pid, const char* path, const posix_spawn_file_actions_t* actions,
                const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
  SPW_FIX_ENV(env, envp);
  return SPW_REAL(posix_spawn)(pid, path, actions, attr, argv, env);
}

SPW_DECLARE_REAL(posix_spawnp);
int posix_spawnp(pid_t* pid, const char* file, const posix_spawn_file_actions_t* actions,
                 const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
  SPW_FIX_ENV(env, envp);
  return SPW_REAL(posix_spawnp)(pid, file, actions, attr, argv, env);
}
