// Call sites of in-scope calls (shim_core.h, docs/inject.md#call-sites).
//
// A site is the chain of return addresses above the shim and the C library, at most
// kSiteFrames of them, each named by (module file, offset in the module), hashed. The
// chain is unwound by libgcc's _Unwind_Backtrace (found with dlopen when sites are first
// needed, as glibc's backtrace() does), which reads the DWARF call frame information: it
// works without frame pointers, but costs some microseconds a call. So each unwind also
// teaches a frame-size cache: for every return address PC, the distance from the stack
// slot that holds PC to the slot that holds its caller's return address (the difference
// of the two frames' CFAs). A later call walks the stack with that cache alone, reading
// one slot per frame, and unwinds again only when it meets an address it has not learned.
// The chain of return addresses it reads is then looked up in a chain cache that holds
// each chain's site id, so module lookups and hashing happen once per chain.
//
// Exactness: a function's frame size at a return address is fixed unless the function
// allocates on the stack dynamically (alloca, a variable-length array); a PC seen with two
// distances is marked dynamic and always unwound. A walk that reads a wrong slot reads a
// value that is not a learned return address and falls back to the unwinder, unless that
// slot happens to hold a stale copy of a learned one. SPILLWAY_INJECT_SITE_CACHE=0 turns
// the caches off (every call unwinds), which the tests use to show the sites agree.
//
// A chain whose native frames end in JIT or interpreter code entered from a JNI method is
// handed to shim_java.cc, which names the call by the thread's Java frames instead.
//
// No allocation on the call path: the caches are mapped when the shim loads; inserts are
// lock-free (a slot is claimed with a compare-and-swap, filled, then published).
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <unwind.h>

#include <atomic>

#include "shim_core.h"
#include "shim_java.h"
#include "spillway/vfs/fault_rules.h"

namespace {

using spw::Fnv;
using spw::kFnvBasis;
using spw::Mix;

constexpr int kSiteFrames = 8;  // Frames of a site.
constexpr int kMaxWalk = 48;    // Frames walked in all (the shim's and the C library's too).

using BacktraceFn = _Unwind_Reason_Code (*)(_Unwind_Trace_Fn, void*);
using GetFn = _Unwind_Ptr (*)(_Unwind_Context*);
BacktraceFn g_backtrace = nullptr;
GetFn g_get_ip = nullptr;
GetFn g_get_cfa = nullptr;
const struct link_map* g_shim_map = nullptr;
const struct link_map* g_libc_map = nullptr;
char g_exe[SPW_PATH_MAX];  // The main program's file (its link map has no name).
bool g_cache_on = true;
bool g_java = false;  // Sites of calls from Java code carry Java frames.

// The frame-size cache: PC -> distance (bytes) from PC's slot to its caller's slot.
constexpr size_t kSizeSlots = size_t{1} << 15;
constexpr int64_t kDynamic = INT64_MIN;        // Seen with two distances: always unwind.
constexpr int64_t kOutermost = INT64_MIN + 1;  // The unwinder stopped here.
struct FrameSize {
  uintptr_t pc;  // 0: free; kClaimed while being filled.
  int64_t distance;
};
constexpr uintptr_t kClaimed = 1;
FrameSize* g_sizes = nullptr;

// The chain cache: a chain of return addresses -> its site id.
constexpr size_t kChainSlots = size_t{1} << 14;
// What a chain of return addresses says: its native site, and whether it enters Java
// code from a JNI method (java_natives > 0: the native frames before the first JIT or
// interpreter frame, whose unshifted hash is native_hash).
struct Facts {
  uint64_t site;
  uint64_t native_hash;
  int java_natives;
};
struct Chain {
  uint64_t key;  // Hash of the PCs; 0: free; kClaimed while being filled.
  Facts facts;
  int written;  // Its frames line is written (atomic).
  int count;
  uintptr_t pcs[kSiteFrames];
};
Chain* g_chains = nullptr;

// The name cache: a return address -> the name of the symbol dladdr finds for it. Chains
// share their outer frames (main, __libc_start_call_main), and dladdr scans a module's
// symbols one by one: a large library's, such as the C library's, costs tens of
// microseconds a frame.
constexpr size_t kNameSlots = size_t{1} << 10;
struct FrameName {
  uintptr_t pc;      // 0: free; kClaimed while being filled.
  const char* name;  // nullptr: dladdr named no symbol.
};
FrameName* g_names = nullptr;

constexpr char kAnonymous[] = "[anonymous]";

// The module that holds code address pc (a return address: pc - 1 is in the call), or
// nullptr for code in no mapped file. Lock-free and async-signal-safe (glibc 2.35).
const struct link_map* ModuleOf(uintptr_t pc) {
  struct dl_find_object found;
  // NOLINTNEXTLINE(performance-no-int-to-ptr): an address read off the stack.
  if (_dl_find_object(reinterpret_cast<void*>(pc - 1), &found) != 0) return nullptr;
  return found.dlfo_link_map;
}

const char* ModuleName(const struct link_map* map) {
  return map->l_name != nullptr && map->l_name[0] != '\0' ? map->l_name : g_exe;
}

int64_t LookupSize(uintptr_t pc) {
  for (size_t i = Mix(pc) & (kSizeSlots - 1), n = 0; n < 64; i = (i + 1) & (kSizeSlots - 1), ++n) {
    const uintptr_t at = std::atomic_ref<uintptr_t>(g_sizes[i].pc).load(std::memory_order_acquire);
    if (at == pc) return std::atomic_ref<int64_t>(g_sizes[i].distance).load();
    if (at == 0) return kDynamic;
  }
  return kDynamic;
}

void LearnSize(uintptr_t pc, int64_t distance) {
  for (size_t i = Mix(pc) & (kSizeSlots - 1), n = 0; n < 64; i = (i + 1) & (kSizeSlots - 1), ++n) {
    std::atomic_ref<uintptr_t> slot(g_sizes[i].pc);
    uintptr_t at = slot.load(std::memory_order_acquire);
    if (at == 0 && slot.compare_exchange_strong(at, kClaimed)) {
      g_sizes[i].distance = distance;
      slot.store(pc, std::memory_order_release);
      return;
    }
    if (at == kClaimed) return;  // Another thread is filling a slot: learn it next time.
    if (at == pc) {
      std::atomic_ref<int64_t> known(g_sizes[i].distance);
      if (known.load() != distance) known.store(kDynamic);
      return;
    }
  }
}

uint64_t ChainKey(const uintptr_t* pcs, int count) {
  uint64_t h = static_cast<uint64_t>(count);
  for (int i = 0; i < count; ++i) h = Mix(h ^ pcs[i]) + 0x9e3779b97f4a7c15ULL;
  return h <= kClaimed ? h + 2 : h;
}

// Writes the frames line of a site to the trace: `{"site":"ID","frames":[...]}`.
void WriteFrames(uint64_t site, const uintptr_t* pcs, int count) {
  char line[kSiteFrames * (SPW_PATH_MAX / 4 + 96) + 64];
  char id[spillway::kFaultSiteDigits + 1];
  spillway::FormatFaultSite(site, id);
  size_t len =
      static_cast<size_t>(snprintf(line, sizeof(line), "{\"site\":\"%s\",\"frames\":[", id));
  len = spw::AppendNativeFrames(line, len, sizeof(line) - 8, pcs, count);
  len += static_cast<size_t>(snprintf(line + len, sizeof(line) - len, "]}\n"));
  spw_trace_write(line, len);
}

bool IsJvm(const struct link_map* map) {
  const char* name = ModuleName(map);
  const size_t n = strlen(name);
  return n >= 10 && strcmp(name + n - 10, "/libjvm.so") == 0;
}

// The facts of a chain. Its site: its frames' (module, offset) hashed, anonymous runs as
// one token. It enters Java code from a JNI method when its first anonymous frame follows
// native frames none of which is in libjvm.so (a call the VM makes itself, loading a
// class or collecting, has libjvm.so frames first).
Facts FactsOf(const uintptr_t* pcs, int count) {
  Facts facts = {0, 0, 0};
  uint64_t h = kFnvBasis;
  bool anonymous_before = false;
  bool jvm = false;
  for (int i = 0; i < count; ++i) {
    const struct link_map* map = ModuleOf(pcs[i]);
    if (map == nullptr) {
      if (i > 0 && !jvm && facts.java_natives == 0) {
        facts.java_natives = i;
        facts.native_hash = h;
      }
      if (!anonymous_before) h = Fnv(h, kAnonymous, sizeof(kAnonymous));
      anonymous_before = true;
      jvm = true;  // Only the first anonymous frame can end a JNI method's frames.
      continue;
    }
    anonymous_before = false;
    jvm = jvm || IsJvm(map);
    const char* name = ModuleName(map);
    const uint64_t offset = pcs[i] - map->l_addr;
    h = Fnv(h, name, strlen(name) + 1);
    h = Fnv(h, &offset, sizeof(offset));
  }
  facts.site = h >> 16;  // 48 bits: 12 hex digits.
  return facts;
}

// The facts of the chain pcs[0..count), from the chain cache or computed and cached.
// *written is the chain's written flag, or nullptr when the cache has no room for it.
Facts FactsOfChain(const uintptr_t* pcs, int count, int** written) {
  const uint64_t key = ChainKey(pcs, count);
  *written = nullptr;
  for (size_t i = key & (kChainSlots - 1), n = 0; n < 64; i = (i + 1) & (kChainSlots - 1), ++n) {
    std::atomic_ref<uint64_t> slot(g_chains[i].key);
    uint64_t at = slot.load(std::memory_order_acquire);
    if (at == key && g_chains[i].count == count &&
        memcmp(g_chains[i].pcs, pcs, sizeof(uintptr_t) * static_cast<size_t>(count)) == 0) {
      *written = &g_chains[i].written;
      return g_chains[i].facts;
    }
    if (at == 0 && slot.compare_exchange_strong(at, kClaimed)) {
      g_chains[i].facts = FactsOf(pcs, count);
      g_chains[i].count = count;
      memcpy(g_chains[i].pcs, pcs, sizeof(uintptr_t) * static_cast<size_t>(count));
      slot.store(key, std::memory_order_release);
      *written = &g_chains[i].written;
      return g_chains[i].facts;
    }
  }
  return FactsOf(pcs, count);  // The cache is full (or busy here).
}

// The symbol dladdr names for return address pc (pc - 1 is in the call), or nullptr.
const char* SymbolOf(uintptr_t pc) {
  const auto lookup = [pc]() -> const char* {
    Dl_info info;
    // NOLINTNEXTLINE(performance-no-int-to-ptr): an address read off the stack.
    return dladdr(reinterpret_cast<void*>(pc - 1), &info) != 0 ? info.dli_sname : nullptr;
  };
  if (g_names == nullptr || pc <= kClaimed) return lookup();
  for (size_t i = Mix(pc) & (kNameSlots - 1), n = 0; n < 16; i = (i + 1) & (kNameSlots - 1), ++n) {
    std::atomic_ref<uintptr_t> slot(g_names[i].pc);
    uintptr_t at = slot.load(std::memory_order_acquire);
    if (at == pc) return g_names[i].name;
    if (at == 0 && slot.compare_exchange_strong(at, kClaimed)) {
      g_names[i].name = lookup();
      slot.store(pc, std::memory_order_release);
      return g_names[i].name;
    }
  }
  return lookup();  // The cache is full here (or a slot is being filled).
}

bool Skipped(uintptr_t pc) {
  const struct link_map* map = ModuleOf(pc);
  return map != nullptr && (map == g_shim_map || map == g_libc_map);
}

// What libgcc reports: frame k's return address pc[k] and cfa[k], the CFA of the frame
// that return address belongs to, so pc[k] sits in the slot at cfa[k] - 8.
struct Unwound {
  uintptr_t pc[kMaxWalk];
  uintptr_t cfa[kMaxWalk];
  int count = 0;
  int program_frames = 0;  // Frames after the leading shim and C library ones.
  bool end = false;        // A zero return address: the end of the stack.
};

_Unwind_Reason_Code Collect(_Unwind_Context* context, void* arg) {
  auto* u = static_cast<Unwound*>(arg);
  const uintptr_t pc = g_get_ip(context);
  if (pc == 0) {
    u->end = true;
    return _URC_END_OF_STACK;
  }
  u->pc[u->count] = pc;
  u->cfa[u->count] = g_get_cfa(context);
  ++u->count;
  if (u->program_frames > 0 || !Skipped(pc)) ++u->program_frames;
  return u->program_frames >= kSiteFrames || u->count >= kMaxWalk ? _URC_END_OF_STACK
                                                                  : _URC_NO_REASON;
}

// Unwinds with libgcc, learning every frame's size, and writes the program's chain into
// pcs; returns its length. Frame 0 is this function, frame 1 spw_site, frame 2 the return
// address in spw_site's slot, where the cache walk starts.
__attribute__((noinline)) int Unwind(uintptr_t* pcs) {
  Unwound u;
  // Stopped by the unwinder (no caller), not by Collect's limits.
  const bool outermost = g_backtrace(Collect, &u) == _URC_END_OF_STACK || u.end;
  int count = 0;
  const int first_program = u.count - u.program_frames;
  // A return address not found in the slot below its CFA was not pushed by a call (the
  // interrupted PC of a signal frame, kept in the signal context): the walk cannot step
  // to it, so the frame before it is marked dynamic.
  const auto in_slot = [&u](int k) {
    // NOLINTNEXTLINE(performance-no-int-to-ptr): an address read off the stack.
    return *reinterpret_cast<const uintptr_t*>(u.cfa[k] - sizeof(uintptr_t)) == u.pc[k];
  };
  bool learn = g_cache_on && u.count > 2 && in_slot(2);
  for (int k = 2; k < u.count; ++k) {
    if (learn && k + 1 < u.count) {
      const bool next_in_slot = in_slot(k + 1);
      LearnSize(u.pc[k], next_in_slot ? static_cast<int64_t>(u.cfa[k + 1] - u.cfa[k]) : kDynamic);
      learn = next_in_slot;
    } else if (learn && outermost) {
      LearnSize(u.pc[k], kOutermost);
    }
    if (k >= first_program && count < kSiteFrames) pcs[count++] = u.pc[k];
  }
  return count;
}

// Walks the stack from `slot` (the slot of Site's return address) with the frame-size
// cache. Returns the chain's length, or -1 when it meets an address it has not learned.
int Walk(const uintptr_t* slot, uintptr_t* pcs) {
  int count = 0;
  bool program = false;
  for (int k = 0; k < kMaxWalk; ++k) {
    const uintptr_t pc = *slot;
    const int64_t distance = LookupSize(pc);
    if (distance == kDynamic) return -1;
    if (!program) program = !Skipped(pc);
    if (program) {
      pcs[count++] = pc;
      if (count == kSiteFrames) return count;
    }
    if (distance == kOutermost) return program ? count : -1;
    // NOLINTNEXTLINE(performance-no-int-to-ptr): an address read off the stack.
    slot = reinterpret_cast<const uintptr_t*>(reinterpret_cast<uintptr_t>(slot) + distance);
  }
  return -1;
}

}  // namespace

int spw_site_init(void) {
  void* libgcc = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_LOCAL);
  if (libgcc != nullptr) {
    g_backtrace = reinterpret_cast<BacktraceFn>(dlsym(libgcc, "_Unwind_Backtrace"));
    g_get_ip = reinterpret_cast<GetFn>(dlsym(libgcc, "_Unwind_GetIP"));
    g_get_cfa = reinterpret_cast<GetFn>(dlsym(libgcc, "_Unwind_GetCFA"));
  }
  g_shim_map = ModuleOf(reinterpret_cast<uintptr_t>(&spw_site_init) + 1);
  g_libc_map = ModuleOf(reinterpret_cast<uintptr_t>(&gnu_get_libc_version) + 1);
  const long n = spw_sys(SYS_readlinkat, AT_FDCWD, reinterpret_cast<long>("/proc/self/exe"),
                         reinterpret_cast<long>(g_exe), sizeof(g_exe) - 1);
  g_exe[n > 0 ? n : 0] = '\0';
  const char* cache = getenv("SPILLWAY_INJECT_SITE_CACHE");
  g_cache_on = cache == nullptr || strcmp(cache, "0") != 0;
  g_java = spw::JavaFramesInit();
  void* sizes = mmap(nullptr, sizeof(FrameSize) * kSizeSlots, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  void* chains = mmap(nullptr, sizeof(Chain) * kChainSlots, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  void* names = mmap(nullptr, sizeof(FrameName) * kNameSlots, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (names != MAP_FAILED && g_cache_on) g_names = static_cast<FrameName*>(names);
  if (sizes == MAP_FAILED || chains == MAP_FAILED || g_backtrace == nullptr ||
      g_get_ip == nullptr || g_get_cfa == nullptr || g_shim_map == nullptr) {
    g_backtrace = nullptr;
    return 0;
  }
  g_sizes = static_cast<FrameSize*>(sizes);
  g_chains = static_cast<Chain*>(chains);
  return 1;
}

uint64_t spw_site(void) {
  if (g_backtrace == nullptr) return 0;
  uintptr_t pcs[kSiteFrames];
  int count = -1;
  if (g_cache_on) {
    // The slot of this function's return address: its CFA minus one word.
    // NOLINTNEXTLINE(performance-no-int-to-ptr): an address read off the stack.
    const auto* slot = reinterpret_cast<const uintptr_t*>(
        reinterpret_cast<uintptr_t>(__builtin_dwarf_cfa()) - sizeof(uintptr_t));
    count = Walk(slot, pcs);
  }
  if (count < 0) count = Unwind(pcs);
  int* written = nullptr;
  const Facts facts = FactsOfChain(pcs, count, &written);
  if (g_java && facts.java_natives > 0) {
    const uint64_t site = spw::JavaSite(pcs, facts.java_natives, facts.native_hash);
    if (site != 0) return site;
  }
  // The frames line once per chain (each time when the cache had no room for it).
  if (spw_traced() && (written == nullptr || std::atomic_ref<int>(*written).exchange(1) == 0)) {
    WriteFrames(facts.site, pcs, count);
  }
  return facts.site;
}

size_t spw::AppendNativeFrames(char* line, size_t len, size_t cap, const uintptr_t* pcs,
                               int count) {
  bool anonymous_before = false;
  for (int i = 0; i < count; ++i) {
    const struct link_map* map = ModuleOf(pcs[i]);
    if (map == nullptr && anonymous_before) continue;
    anonymous_before = map == nullptr;
    char frame[SPW_PATH_MAX / 4 + 96];
    if (map == nullptr) {
      snprintf(frame, sizeof(frame), "%s", kAnonymous);
    } else {
      const char* symbol = SymbolOf(pcs[i]);
      snprintf(frame, sizeof(frame), "%.*s+0x%lx%s%s", SPW_PATH_MAX / 4, ModuleName(map),
               static_cast<unsigned long>(pcs[i] - map->l_addr), symbol != nullptr ? " " : "",
               symbol != nullptr ? symbol : "");
    }
    if (i > 0 && len < cap) line[len++] = ',';
    len = spw_json_string(line, len, cap, frame);
  }
  return len;
}
