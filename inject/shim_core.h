/* The core of libspillway_inject.so, called by its C wrappers (shim_*.c): scope, the fd
 * table, decisions through the rule engine, the trace, the quota. C-compatible so that
 * the wrappers can be C (C++ would have to repeat each libc declaration's exception
 * specification). Every function is internal to the library.
 *
 * Cost model: a wrapper on an fd first reads spw_fd_state[fd] (one table lookup) and
 * passes straight through when the fd is not in scope; a wrapper on a path calls
 * spw_resolve(), which answers without a system call when the path is a single name in an
 * out-of-scope directory and otherwise resolves the path's parent (three system calls,
 * no allocation, no lock). Only in-scope calls take the decision lock. */
#ifndef SPILLWAY_INJECT_SHIM_CORE_H_
#define SPILLWAY_INJECT_SHIM_CORE_H_

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "spillway/vfs/fault_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SPW_HIDDEN __attribute__((visibility("hidden")))
#define SPW_MAX_FDS 8192
#define SPW_PATH_MAX 4096

/* The op codes: FaultOp's values (fault_rules.h), generated from the same rows of the one
 * table of operations (fault_ops.h), so the two cannot disagree. */
/* clang-format off */
enum {
#define SPW_OP_ENUMERATOR(ID, Name, name, errnos) SPW_##ID,
  SPILLWAY_FAULT_OPS(SPW_OP_ENUMERATOR)
#undef SPW_OP_ENUMERATOR
  SPW_OP_COUNT
};
/* clang-format on */

/* Non-zero for an fd whose file lies in scope (set by the open wrappers). */
SPW_HIDDEN extern unsigned char spw_fd_state[SPW_MAX_FDS];
/* Non-zero while this thread is inside the shim: wrappers then pass straight through. */
SPW_HIDDEN extern __thread int spw_guard __attribute__((tls_model("initial-exec")));

static inline int spw_fd_in_scope(int fd) {
  return (unsigned)fd < SPW_MAX_FDS && __atomic_load_n(&spw_fd_state[fd], __ATOMIC_RELAXED) &&
         !spw_guard;
}

/* `p`, hidden from the compiler: the C library declares path arguments nonnull, so a test
 * of a path against NULL would otherwise be folded away, yet programs do pass NULL (Rust's
 * std probes statx(0, NULL, 0, 0, NULL) and expects EFAULT). */
static inline const char* spw_opaque(const char* p) {
  __asm__("" : "+r"(p));
  return p;
}

/* syscall(2) that leaves errno alone: returns the result, or -errno on failure. The shim's
 * own file operations go through it, so that a call it lets through sees the errno it
 * would have seen without the shim. */
SPW_HIDDEN long spw_sys(long number, long a, long b, long c, long d);
#define SPW_SYS(n, a, b, c, d) spw_sys((n), (long)(a), (long)(b), (long)(c), (long)(d))

/* Resolves the original of `name` with dlsym(RTLD_NEXT) (dlvsym for `version` when not
 * NULL) once, caching it in *slot. */
SPW_HIDDEN void* spw_real(void** slot, const char* name, const char* version);
#define SPW_REAL(fn) ((__typeof__(&(fn)))spw_real((void**)&spw_real_##fn, #fn, NULL))
/* The slot of fn's original, resolved when the shim loads (so that a wrapper called from a
 * signal handler never runs dlsym); a call before that, from another library's
 * constructor, resolves it then. */
#define SPW_DECLARE_VERSIONED_REAL(fn, version)                     \
  static void* spw_real_##fn;                                       \
  __attribute__((constructor)) static void spw_resolve_##fn(void) { \
    spw_real(&spw_real_##fn, #fn, version);                         \
  }                                                                 \
  static void* spw_real_##fn
#define SPW_DECLARE_REAL(fn) SPW_DECLARE_VERSIONED_REAL(fn, NULL)

/* When `path` (relative to `dirfd`, which may be AT_FDCWD) names something in scope,
 * writes its resolved absolute path to out[SPW_PATH_MAX] and returns 1; else 0. A
 * trailing name that is a symlink is not followed. */
SPW_HIDDEN int spw_resolve(int dirfd, const char* path, char* out);
/* The resolved path recorded for an in-scope fd ("" when unknown). */
SPW_HIDDEN const char* spw_fd_path(int fd);
/* The fd table: an fd opened on `path` (in scope), its duplicate, its close. */
SPW_HIDDEN void spw_track(int fd, const char* path, int is_dir);
SPW_HIDDEN void spw_dup(int from, int to);
SPW_HIDDEN void spw_untrack(int fd);

/* What a corrupt or lost rule asks of a call that spw_begin lets through (spw_call's
 * damage): the wrapper alters the bytes and reports with spw_end_damaged. */
enum { SPW_DAMAGE_NONE, SPW_DAMAGE_CORRUPT, SPW_DAMAGE_LOST };

/* One in-scope call. spw_begin counts it, decides it (waiting first for a rule's delay=)
 * and returns the errno to inject (0: none); an injected fault is traced there. Otherwise
 * the wrapper makes the real call and reports its outcome with spw_end (which preserves
 * errno), or, when spw_begin set `damage`, damages the call's bytes (shim_damage.c) and
 * reports with spw_end_damaged. A wrapper that moves no bytes (ftruncate, fflush) ignores
 * `damage`: the call goes through untouched. */
struct spw_call {
  int op;
  const char* call;
  const char* path;
  uint64_t seq;
  /* Set by spw_begin while sites are recorded (tracing, or a site= rule): for every call
   * when traced, else for calls of an op a site= rule may match and calls a rule acts on
   * (0 for the others). */
  uint64_t site;
  int damage;        /* SPW_DAMAGE_*, set by spw_begin. */
  uint64_t draw;     /* For SPW_DAMAGE_CORRUPT: picks the byte and bit (spw_damage_point). */
  uint32_t delay_ms; /* The delay spw_begin waited, for the trace. */
};
SPW_HIDDEN int spw_begin(struct spw_call* c);
SPW_HIDDEN void spw_end(const struct spw_call* c, int failed, int error_number);
/* The byte (below `length`, > 0) and bit a corrupting call flips (FaultDamagePoint). */
SPW_HIDDEN void spw_damage_point(const struct spw_call* c, uint64_t length, uint64_t* index,
                                 int* bit);
/* Records and traces a damaged call as injected: the file offset of the flipped byte and
 * its bit (-1: none flipped, the call moved no bytes), or the bytes a lost write dropped
 * at `offset`. Preserves errno. */
SPW_HIDDEN void spw_end_damaged(const struct spw_call* c, int64_t offset, int bit,
                                uint64_t lost_bytes);

/* Ends an in-scope call whose outcome is `failed`, keeping errno. */
#define SPW_END(c, failed)         \
  do {                             \
    int err_ = errno;              \
    spw_end(&(c), (failed), err_); \
    errno = err_;                  \
  } while (0)

/* Runs an in-scope call `expr` of op `op` on `path`, failing it as the rules say. `failed`
 * is an expression on `r`, the result. */
#define SPW_IN_SCOPE(type, op, name, path, fail, expr, failed)  \
  do {                                                          \
    struct spw_call c_ = {(op), (name), (path), 0, 0, 0, 0, 0}; \
    int e_ = spw_begin(&c_);                                    \
    if (e_ != 0) {                                              \
      errno = e_;                                               \
      return (fail);                                            \
    }                                                           \
    type r = (expr);                                            \
    int err_ = errno;                                           \
    spw_end(&c_, (failed), err_);                               \
    errno = err_;                                               \
    return r;                                                   \
  } while (0)

/* The quota. spw_quota_reserve returns how many of `len` bytes written at `offset` (-1:
 * the fd's position or end) fit, reserving their growth of the file in *reserved; 0 with
 * len > 0 means ENOSPC. spw_quota_settle gives back what a write of `written` of the
 * `allowed` bytes did not use. spw_quota_release gives back `bytes`. */
SPW_HIDDEN int spw_quota_on(void);
SPW_HIDDEN size_t spw_quota_reserve(int fd, off_t offset, size_t len, uint64_t* reserved);
SPW_HIDDEN void spw_quota_settle(uint64_t reserved, size_t allowed, ssize_t written);
SPW_HIDDEN void spw_quota_release(uint64_t bytes);
/* Counts and traces a quota ENOSPC on `c` as an injected fault. */
SPW_HIDDEN void spw_quota_fault(struct spw_call* c);

/* Call sites (shim_sites.cc). spw_site_init prepares the unwinder and its caches when the
 * shim loads (it may allocate); returns 0 when no unwinder can be loaded. spw_site returns
 * the site of the in-scope call being made (0 without an unwinder), writing the site's
 * frames line to the trace the first time this process sees it. REQUIRES: called from
 * spw_begin, under the re-entrancy guard. */
SPW_HIDDEN int spw_site_init(void);
SPW_HIDDEN uint64_t spw_site(void);

/* The trace: spw_traced says whether there is one; spw_trace_write appends one line. */
SPW_HIDDEN int spw_traced(void);
SPW_HIDDEN void spw_trace_write(const char* line, size_t len);
/* Appends `s` to the JSON text buf[0..len) as an escaped string literal, within `cap`;
 * returns the new length. */
SPW_HIDDEN size_t spw_json_string(char* buf, size_t len, size_t cap, const char* s);

/* Keeps the working directory cache in step after a successful chdir/fchdir. */
SPW_HIDDEN void spw_cwd_changed(void);
/* For exec: copies envp into out (at most cap-1 entries, NULL-terminated), putting back
 * LD_PRELOAD and the state variable if missing; storage for new strings is `buf`.
 * Returns out, or envp itself when the shim is inactive or envp does not fit. */
SPW_HIDDEN char* const* spw_exec_env(char* const* envp, char** out, size_t cap, char* buf,
                                     size_t buf_cap);

#ifdef __cplusplus
}
#endif

#endif /* SPILLWAY_INJECT_SHIM_CORE_H_ */
