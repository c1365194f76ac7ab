// The core of libspillway_inject.so (shim_core.h). File operations made on the shim's own
// behalf go through syscall(2), never through the wrapped symbols.
#include "shim_core.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>

#include "shared_state.h"
#include "spillway/vfs/fault_rules.h"

using spillway::FaultAction;
using spillway::FaultDecision;
using spillway::FaultLock;
using spillway::inject::SharedState;

// The shared state counts calls by op code (SharedState::calls), for the tool to name.
static_assert(SPW_OP_COUNT == spillway::kFaultOpCount);

unsigned char spw_fd_state[SPW_MAX_FDS];
__thread int spw_guard __attribute__((tls_model("initial-exec")));

namespace {

SharedState* g_state = nullptr;              // Null: the shim is inactive and every call passes.
char (*g_fd_paths)[SPW_PATH_MAX] = nullptr;  // Lazily touched pages, one path per fd.
char g_cwd[SPW_PATH_MAX];
int g_trace_fd = -1;
bool g_needs_lock = false;  // Some rule draws random numbers (FaultRulesNeedLock).
bool g_sites = false;       // Calls carry their site (tracing, or a rule names one).
// Per op: its calls find their site before they are decided (a rule of the op names a
// site); untraced calls of the other ops find theirs only when a rule acts on them.
bool g_site_ops[spillway::kFaultOpCount] = {};
// This thread's id, for the decision lock; cleared in a forked child, whose thread id
// differs from its parent thread's.
__thread uint32_t t_tid __attribute__((tls_model("initial-exec")));

uint32_t ThreadId() {
  if (t_tid == 0) t_tid = static_cast<uint32_t>(gettid());
  return t_tid;
}

void ForgetThreadIdInChild() { t_tid = 0; }
constexpr char kPreloadEnv[] = "LD_PRELOAD";

long Sys(long number, long a = 0, long b = 0, long c = 0, long d = 0) {
  return spw_sys(number, a, b, c, d);
}

// True when `path` is a scope directory or lies under one.
bool UnderScope(const char* path) {
  for (uint32_t i = 0; i < g_state->scope_count; ++i) {
    const char* scope = g_state->scopes[i];
    const size_t n = strlen(scope);
    if (strncmp(path, scope, n) == 0 && (path[n] == '\0' || path[n] == '/')) return true;
  }
  return false;
}

// Writes the path an fd refers to into out[SPW_PATH_MAX]; false when unknown.
bool FdTarget(int fd, char* out) {
  // "/proc/self/fd/N", formatted by hand: async-signal-safe, as a path call out of scope
  // must be.
  char link[32] = "/proc/self/fd/";
  char digits[12];
  int n_digits = 0;
  for (unsigned v = static_cast<unsigned>(fd); n_digits == 0 || v != 0; v /= 10) {
    digits[n_digits++] = static_cast<char>('0' + v % 10);
  }
  size_t len = strlen(link);
  while (n_digits > 0) link[len++] = digits[--n_digits];
  link[len] = '\0';
  const long n = Sys(SYS_readlinkat, AT_FDCWD, reinterpret_cast<long>(link),
                     reinterpret_cast<long>(out), SPW_PATH_MAX - 1);
  if (n <= 0 || out[0] != '/') return false;
  out[n] = '\0';
  return true;
}

// Resolves directory `dir` relative to `dirfd` (symlinks followed) into out.
bool ResolveDir(int dirfd, const char* dir, char* out) {
  const long fd =
      Sys(SYS_openat, dirfd, reinterpret_cast<long>(dir), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = FdTarget(static_cast<int>(fd), out);
  Sys(SYS_close, fd);
  return ok;
}

// out = dir + "/" + name, within SPW_PATH_MAX.
bool Join(const char* dir, const char* name, size_t name_len, char* out) {
  const size_t dir_len = strcmp(dir, "/") == 0 ? 0 : strlen(dir);
  if (dir_len + 1 + name_len >= SPW_PATH_MAX) return false;
  memmove(out, dir, dir_len);
  out[dir_len] = '/';
  memcpy(out + dir_len + 1, name, name_len);
  out[dir_len + 1 + name_len] = '\0';
  return true;
}

// The directory a dirfd names when it is AT_FDCWD or a tracked fd; nullptr otherwise.
const char* KnownDir(int dirfd) {
  if (dirfd == AT_FDCWD) return g_cwd;
  if (static_cast<unsigned>(dirfd) < SPW_MAX_FDS && spw_fd_state[dirfd]) {
    return g_fd_paths[dirfd];
  }
  return nullptr;
}

bool Traced() { return g_state->trace_path[0] != '\0'; }

// Opens the trace file far from the low fd numbers programs expect open() to return.
void OpenTrace() {
  const long fd = Sys(SYS_openat, AT_FDCWD, reinterpret_cast<long>(g_state->trace_path),
                      O_WRONLY | O_APPEND | O_CLOEXEC);  // Made by the tool.
  if (fd < 0) return;
  const long high = Sys(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 1000);
  if (high >= 0) Sys(SYS_close, fd);
  g_trace_fd = static_cast<int>(high >= 0 ? high : fd);
}

// What a damaged call's trace line and record add: see spw_end_damaged.
struct DamageFacts {
  int64_t offset = -1;
  int bit = -1;
  uint64_t lost_bytes = 0;
};

// One trace line; `action`, for an injected call only, names what the rule did. Every line
// has the call's end in CLOCK_MONOTONIC nanoseconds ("t_ns"), and a delayed call its delay.
void WriteTraceLine(const spw_call* c, int failed, int error_number, const FaultAction* action,
                    const DamageFacts* damage = nullptr) {
  char line[SPW_PATH_MAX + 384];
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  const auto t_ns = static_cast<unsigned long long>(now.tv_sec) * 1000000000ULL +
                    static_cast<unsigned long long>(now.tv_nsec);
  size_t len = static_cast<size_t>(snprintf(
      line, sizeof(line),
      "{\"seq\":%llu,\"t_ns\":%llu,\"pid\":%d,\"tid\":%d,\"op\":\"%s\",\"call\":\"%s\",\"path\":",
      static_cast<unsigned long long>(c->seq), t_ns, getpid(), gettid(),
      spillway::FaultOpName(static_cast<spillway::FaultOp>(c->op)), c->call));
  len = spw_json_string(line, len, sizeof(line) - 256, c->path);
  const char* name = failed && error_number != 0 ? spillway::ErrnoSymbol(error_number) : nullptr;
  char site[spillway::kFaultSiteDigits + 1];
  spillway::FormatFaultSite(c->site, site);
  len += static_cast<size_t>(snprintf(line + len, sizeof(line) - len,
                                      ",\"result\":%d,\"errno\":%s%s%s,\"injected\":%s",
                                      failed ? -1 : 0, name ? "\"" : "", name ? name : "null",
                                      name ? "\"" : "", action ? "true" : "false"));
  if (action != nullptr) {
    const std::string_view word = spillway::FaultActionName(*action);
    len += static_cast<size_t>(snprintf(line + len, sizeof(line) - len, ",\"action\":\"%.*s\"",
                                        static_cast<int>(word.size()), word.data()));
  }
  if (damage != nullptr && *action == FaultAction::kLost) {
    len += static_cast<size_t>(snprintf(line + len, sizeof(line) - len,
                                        ",\"offset\":%lld,\"lost_bytes\":%llu",
                                        static_cast<long long>(damage->offset),
                                        static_cast<unsigned long long>(damage->lost_bytes)));
  } else if (damage != nullptr && damage->bit >= 0) {
    len +=
        static_cast<size_t>(snprintf(line + len, sizeof(line) - len, ",\"offset\":%lld,\"bit\":%d",
                                     static_cast<long long>(damage->offset), damage->bit));
  }
  if (c->delay_ms != 0) {
    len += static_cast<size_t>(
        snprintf(line + len, sizeof(line) - len, ",\"delay_ms\":%u", c->delay_ms));
  }
  len += static_cast<size_t>(snprintf(line + len, sizeof(line) - len, ",\"site\":\"%s\"}\n", site));
  spw_trace_write(line, len);
}

void RecordFault(const spw_call* c, const FaultDecision& decision, const DamageFacts& damage = {}) {
  const uint64_t n = std::atomic_ref<uint64_t>(g_state->fault_count).fetch_add(1);
  if (n >= spillway::inject::kMaxFaultRecords) return;
  spillway::inject::FaultRecord& record = g_state->faults[n];
  record.op = static_cast<uint8_t>(c->op);
  record.action = decision.action;
  record.error_number = decision.error_number;
  record.pid = getpid();
  record.seq = c->seq;
  record.offset = damage.offset;
  record.bit = damage.bit;
  record.lost_bytes = damage.lost_bytes;
  snprintf(record.path, sizeof(record.path), "%s", c->path);
}

// The world fact behind an injected ENOENT or EEXIST: what the call names is removed, or
// created, first (as a tmp cleaner or a racing process would), inside the scope only.
void ApplyWorldFact(const spw_call* c, int error_number) {
  if (c->path[0] == '\0') return;
  const long path = reinterpret_cast<long>(c->path);
  if (error_number == ENOENT && c->op != SPW_CREATE && c->op != SPW_MKDIR) {
    if (Sys(SYS_unlinkat, AT_FDCWD, path, 0) != 0) Sys(SYS_unlinkat, AT_FDCWD, path, AT_REMOVEDIR);
  } else if (error_number == EEXIST && c->op == SPW_MKDIR) {
    Sys(SYS_mkdirat, AT_FDCWD, path, 0700);
  } else if (error_number == EEXIST && c->op == SPW_CREATE) {
    const long fd = Sys(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) Sys(SYS_close, fd);
  }
}

// Marks the fds the process inherited (across exec) that refer to files in scope, listing
// /proc/self/fd with getdents64 so that only open fds cost a readlink.
void TrackInheritedFds() {
  const long dir = Sys(SYS_openat, AT_FDCWD, reinterpret_cast<long>("/proc/self/fd"),
                       O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return;
  alignas(8) char buf[4096];
  long n;
  while ((n = Sys(SYS_getdents64, dir, reinterpret_cast<long>(buf), sizeof(buf))) > 0) {
    for (long off = 0; off < n;) {
      const auto* entry = reinterpret_cast<const struct dirent64*>(buf + off);
      off += entry->d_reclen;
      char* end = nullptr;
      const long fd = strtol(entry->d_name, &end, 10);
      char target[SPW_PATH_MAX];
      if (*end != '\0' || end == entry->d_name || fd == dir) continue;
      if (FdTarget(static_cast<int>(fd), target) && UnderScope(target)) {
        spw_track(static_cast<int>(fd), target, 0);
      }
    }
  }
  Sys(SYS_close, dir);
}

void MapState(const char* path) {
  const long fd = Sys(SYS_openat, AT_FDCWD, reinterpret_cast<long>(path), O_RDWR | O_CLOEXEC);
  if (fd == -EACCES) {
    // A process of the run that switched users: say so rather than run unobserved.
    char line[256];
    const int len = snprintf(line, sizeof(line),
                             "spillway inject: pid %d (uid %d) cannot open the run's state file: "
                             "its calls are neither counted nor faulted (see --share-with)\n",
                             static_cast<int>(getpid()), static_cast<int>(getuid()));
    if (len > 0)
      Sys(SYS_write, 2, reinterpret_cast<long>(line), std::min<long>(len, sizeof(line) - 1));
  }
  if (fd < 0) return;
  void* map = mmap(nullptr, sizeof(SharedState), PROT_READ | PROT_WRITE, MAP_SHARED,
                   static_cast<int>(fd), 0);
  Sys(SYS_close, fd);
  if (map == MAP_FAILED) return;
  auto* state = static_cast<SharedState*>(map);
  if (state->magic != spillway::inject::kStateMagic || state->size != sizeof(SharedState)) {
    munmap(map, sizeof(SharedState));
    return;
  }
  void* paths = mmap(nullptr, sizeof(char[SPW_PATH_MAX]) * SPW_MAX_FDS, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (paths == MAP_FAILED) return;
  g_fd_paths = static_cast<char(*)[SPW_PATH_MAX]>(paths);
  g_state = state;
}

// Counts the call and decides it, under the lock only when a rule draws random numbers.
FaultDecision Decide(spw_call* c) {
  std::atomic_ref<uint64_t>(g_state->calls[c->op]).fetch_add(1, std::memory_order_relaxed);
  const auto decide = [c] {
    if (g_state->rule_count == 0) return FaultDecision{};
    return spillway::DecideFault(
        g_state->rules, g_state->counters, g_state->rule_count, static_cast<uint8_t>(c->op),
        c->path, g_sites && g_site_ops[c->op] ? c->site : spillway::kFaultNoSite, g_state->seed,
        &g_state->draws);
  };
  if (!g_needs_lock) {
    c->seq = std::atomic_ref<uint64_t>(g_state->seq).fetch_add(1) + 1;
    return decide();
  }
  FaultLock lock(&g_state->lock, ThreadId());
  c->seq = std::atomic_ref<uint64_t>(g_state->seq).fetch_add(1) + 1;
  return decide();
}

__attribute__((constructor)) void Init() {
  const int saved_errno = errno;
  spw_guard = 1;
  const char* path = getenv(spillway::inject::kStateEnv);
  if (path != nullptr) MapState(path);
  if (g_state != nullptr) {
    pthread_atfork(nullptr, nullptr, ForgetThreadIdInChild);
    g_needs_lock = spillway::FaultRulesNeedLock(g_state->rules, g_state->rule_count);
    // SPILLWAY_INJECT_SITES=0 records no sites (every call's is 000000000000): only for
    // measuring what recording them costs (docs/performance.md).
    const char* sites = getenv("SPILLWAY_INJECT_SITES");
    g_sites = (Traced() || spillway::FaultRulesNeedSites(g_state->rules, g_state->rule_count)) &&
              (sites == nullptr || strcmp(sites, "0") != 0);
    for (int op = 0; op < spillway::kFaultOpCount; ++op) {
      g_site_ops[op] =
          Traced() || spillway::FaultRulesNeedSitesOf(g_state->rules, g_state->rule_count,
                                                      static_cast<uint8_t>(op));
    }
    if (g_sites && spw_site_init() == 0) {
      static constexpr char kNoUnwinder[] =
          "spillway inject: cannot load libgcc_s.so.1's unwinder: every call has site "
          "000000000000\n";
      Sys(SYS_write, 2, reinterpret_cast<long>(kNoUnwinder), sizeof(kNoUnwinder) - 1);
    }
    spw_cwd_changed();
    TrackInheritedFds();
  }
  spw_guard = 0;
  errno = saved_errno;
}

}  // namespace

long spw_sys(long number, long a, long b, long c, long d) {
  const int saved = errno;
  const long r = syscall(number, a, b, c, d);
  if (r != -1) return r;
  const long error_number = errno;
  errno = saved;
  return -error_number;
}

void* spw_real(void** slot, const char* name, const char* version) {
  void* fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (fn == nullptr) {
    fn = version != nullptr ? dlvsym(RTLD_NEXT, name, version) : dlsym(RTLD_NEXT, name);
    __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
  }
  return fn;
}

int spw_resolve(int dirfd, const char* path, char* out) {
  if (g_state == nullptr || spw_guard || path == nullptr || path[0] == '\0') return 0;
  size_t len = strlen(path);
  while (len > 1 && path[len - 1] == '/') --len;  // "dir/" names dir.
  const char* slash = static_cast<const char*>(memrchr(path, '/', len));
  const char* name = slash == nullptr ? path : slash + 1;
  const size_t name_len = static_cast<size_t>(path + len - name);
  const bool dots = (name_len == 1 && name[0] == '.') ||
                    (name_len == 2 && name[0] == '.' && name[1] == '.') || name_len == 0;
  char dir[SPW_PATH_MAX];
  if (slash == nullptr && !dots) {
    // One name in a directory we know: no system call.
    const char* known = KnownDir(dirfd);
    if (known == nullptr || !Join(known, name, name_len, out)) return 0;
    return UnderScope(out) ? 1 : 0;
  }
  spw_guard = 1;
  bool ok;
  if (dots) {
    // "x/.." and the like: resolve the whole path as a directory.
    ok = len < SPW_PATH_MAX &&
         (memcpy(dir, path, len), dir[len] = '\0', ResolveDir(dirfd, dir, out));
  } else {
    const size_t dir_len = slash == path ? 1 : static_cast<size_t>(slash - path);
    memcpy(dir, path, dir_len);
    dir[dir_len] = '\0';
    char parent[SPW_PATH_MAX];
    ok = ResolveDir(dirfd, dir, parent) && Join(parent, name, name_len, out);
  }
  spw_guard = 0;
  return ok && UnderScope(out) ? 1 : 0;
}

const char* spw_fd_path(int fd) {
  return static_cast<unsigned>(fd) < SPW_MAX_FDS && g_fd_paths != nullptr ? g_fd_paths[fd] : "";
}

void spw_track(int fd, const char* path, int is_dir) {
  if (g_state == nullptr || static_cast<unsigned>(fd) >= SPW_MAX_FDS) return;
  // memmove: spw_dup passes another fd's row of g_fd_paths (never this fd's own today).
  const size_t n = strnlen(path, SPW_PATH_MAX - 1);
  memmove(g_fd_paths[fd], path, n);
  g_fd_paths[fd][n] = '\0';
  __atomic_store_n(&spw_fd_state[fd], static_cast<unsigned char>(is_dir ? 2 : 1), __ATOMIC_RELEASE);
}

void spw_dup(int from, int to) {
  if (static_cast<unsigned>(to) >= SPW_MAX_FDS) return;
  if (static_cast<unsigned>(from) < SPW_MAX_FDS && spw_fd_state[from]) {
    spw_track(to, g_fd_paths[from], spw_fd_state[from] == 2);
  } else {
    spw_untrack(to);
  }
}

void spw_untrack(int fd) {
  if (static_cast<unsigned>(fd) < SPW_MAX_FDS) {
    __atomic_store_n(&spw_fd_state[fd], static_cast<unsigned char>(0), __ATOMIC_RELEASE);
  }
}

int spw_begin(spw_call* c) {
  if (c->path == nullptr) c->path = "";
  spw_guard = 1;
  // Finding a site walks the stack: done first only where a rule may ask for it, and
  // otherwise only for a call a rule acts on, whose record names its site.
  const bool site_first = g_sites && g_site_ops[c->op];
  c->site = site_first ? spw_site() : 0;
  const FaultDecision decision = Decide(c);
  if (g_sites && !site_first && decision.fired()) c->site = spw_site();
  if (decision.delay_ms != 0) {
    // A slow disk: the call waits, then the rule's action. Outside the decision lock.
    c->delay_ms = decision.delay_ms;
    timespec wait{static_cast<time_t>(decision.delay_ms / 1000),
                  static_cast<long>(decision.delay_ms % 1000) * 1000000L};
    while (Sys(SYS_nanosleep, reinterpret_cast<long>(&wait), reinterpret_cast<long>(&wait)) ==
           -EINTR) {
    }
  }
  int error_number = 0;
  const bool damages =
      decision.action == FaultAction::kCorrupt || decision.action == FaultAction::kLost;
  if (decision.fired() && decision.action != FaultAction::kOk && !damages) {
    RecordFault(c, decision);
    if (Traced()) WriteTraceLine(c, 1, decision.error_number, &decision.action);
  }
  if (decision.fired()) {
    switch (decision.action) {
      case FaultAction::kFail:
        ApplyWorldFact(c, decision.error_number);
        error_number = decision.error_number;
        break;
      case FaultAction::kKill:
        // Only this process dies, before the call is made, as the OOM killer would kill
        // it. The record and the trace line are in shared memory and the trace file.
        Sys(SYS_kill, getpid(), SIGKILL);
        break;
      case FaultAction::kCorrupt:
      case FaultAction::kLost:
        // The wrapper makes the call, damages its bytes and reports (spw_end_damaged).
        c->damage = decision.action == FaultAction::kCorrupt ? SPW_DAMAGE_CORRUPT : SPW_DAMAGE_LOST;
        c->draw = decision.draw;
        break;
      case FaultAction::kOk:  // Only the delay; the call is traced by spw_end.
        break;
    }
  }
  spw_guard = 0;
  return error_number;
}

void spw_damage_point(const spw_call* c, uint64_t length, uint64_t* index, int* bit) {
  spillway::FaultDamagePoint(c->draw, length, index, bit);
}

void spw_end_damaged(const spw_call* c, int64_t offset, int bit, uint64_t lost_bytes) {
  const int saved_errno = errno;
  spw_guard = 1;
  FaultDecision decision;
  decision.action = c->damage == SPW_DAMAGE_LOST ? FaultAction::kLost : FaultAction::kCorrupt;
  const DamageFacts facts{offset, bit, lost_bytes};
  RecordFault(c, decision, facts);
  if (Traced()) WriteTraceLine(c, 0, 0, &decision.action, &facts);
  spw_guard = 0;
  errno = saved_errno;
}

void spw_end(const spw_call* c, int failed, int error_number) {
  if (!Traced()) return;
  spw_guard = 1;
  WriteTraceLine(c, failed, error_number, nullptr);
  spw_guard = 0;
  errno = error_number;
}

size_t spw_json_string(char* buf, size_t len, size_t cap, const char* s) {
  if (len < cap) buf[len++] = '"';
  for (; *s != '\0' && len + 7 < cap; ++s) {
    const unsigned char ch = static_cast<unsigned char>(*s);
    if (ch == '"' || ch == '\\') {
      buf[len++] = '\\';
      buf[len++] = static_cast<char>(ch);
    } else if (ch < 0x20) {
      len += static_cast<size_t>(snprintf(buf + len, cap - len, "\\u%04x", ch));
    } else {
      buf[len++] = static_cast<char>(ch);
    }
  }
  if (len < cap) buf[len++] = '"';
  return len;
}

int spw_traced(void) { return g_state != nullptr && Traced(); }

void spw_trace_write(const char* line, size_t len) {
  if (g_trace_fd < 0) OpenTrace();
  if (Sys(SYS_write, g_trace_fd, reinterpret_cast<long>(line), static_cast<long>(len)) == -EBADF) {
    OpenTrace();  // The program closed it (closefrom, close_range): once more.
    Sys(SYS_write, g_trace_fd, reinterpret_cast<long>(line), static_cast<long>(len));
  }
}

int spw_quota_on(void) { return g_state != nullptr && g_state->quota != 0; }

size_t spw_quota_reserve(int fd, off_t offset, size_t len, uint64_t* reserved) {
  *reserved = 0;
  struct stat st;
  if (Sys(SYS_fstat, fd, reinterpret_cast<long>(&st)) != 0) return len;
  off_t pos = offset;
  if (pos < 0) {
    const long flags = Sys(SYS_fcntl, fd, F_GETFL);
    pos = (flags >= 0 && (flags & O_APPEND)) ? st.st_size
                                             : static_cast<off_t>(Sys(SYS_lseek, fd, 0, SEEK_CUR));
    if (pos < 0) return len;
  }
  const uint64_t end = static_cast<uint64_t>(pos) + len;
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  const uint64_t growth = end > size ? end - size : 0;
  std::atomic_ref<uint64_t> used(g_state->quota_used);
  uint64_t now = used.load();
  uint64_t take;
  do {
    const uint64_t room = now >= g_state->quota ? 0 : g_state->quota - now;
    take = growth < room ? growth : room;
  } while (!used.compare_exchange_weak(now, now + take));
  *reserved = take;
  return len - static_cast<size_t>(growth - take);
}

void spw_quota_settle(uint64_t reserved, size_t allowed, ssize_t written) {
  // The bytes not written were at the end of the range, so they are the growth not used.
  const uint64_t unwritten = written <= 0 ? allowed : allowed - static_cast<size_t>(written);
  if (reserved != 0 && unwritten != 0)
    spw_quota_release(unwritten < reserved ? unwritten : reserved);
}

void spw_quota_release(uint64_t bytes) {
  std::atomic_ref<uint64_t> used(g_state->quota_used);
  uint64_t now = used.load();
  while (!used.compare_exchange_weak(now, now >= bytes ? now - bytes : 0)) {
  }
}

void spw_quota_fault(spw_call* c) {
  spw_guard = 1;
  const FaultDecision quota{-1, FaultAction::kFail, ENOSPC};  // No rule: the quota's.
  RecordFault(c, quota);
  if (Traced()) WriteTraceLine(c, 1, ENOSPC, &quota.action);
  spw_guard = 0;
}

void spw_cwd_changed(void) {
  if (g_state == nullptr) return;
  if (Sys(SYS_getcwd, reinterpret_cast<long>(g_cwd), sizeof(g_cwd)) <= 0) g_cwd[0] = '\0';
}

char* const* spw_exec_env(char* const* envp, char** out, size_t cap, char* buf, size_t buf_cap) {
  if (g_state == nullptr || envp == nullptr) return envp;
  const size_t preload_len = strlen(kPreloadEnv);
  const size_t state_len = strlen(spillway::inject::kStateEnv);
  bool has_preload = false, has_state = false;
  size_t n = 0;
  for (; envp[n] != nullptr; ++n) {
    if (n + 3 >= cap) return envp;
    out[n] = envp[n];
    if (strncmp(envp[n], kPreloadEnv, preload_len) == 0 && envp[n][preload_len] == '=') {
      has_preload = strstr(envp[n], g_state->preload_path) != nullptr;
      if (!has_preload) {
        // Put the shim first, keeping what the program preloads.
        snprintf(buf, buf_cap / 2, "%s=%s:%s", kPreloadEnv, g_state->preload_path,
                 envp[n] + preload_len + 1);
        out[n] = buf;
        has_preload = true;
      }
    }
    if (strncmp(envp[n], spillway::inject::kStateEnv, state_len) == 0 &&
        envp[n][state_len] == '=') {
      has_state = true;
    }
  }
  if (!has_preload) {
    snprintf(buf, buf_cap / 2, "%s=%s", kPreloadEnv, g_state->preload_path);
    out[n++] = buf;
  }
  if (!has_state) {
    snprintf(buf + buf_cap / 2, buf_cap / 2, "%s=%s", spillway::inject::kStateEnv,
             g_state->state_path);
    out[n++] = buf + buf_cap / 2;
  }
  out[n] = nullptr;
  return out;
}
