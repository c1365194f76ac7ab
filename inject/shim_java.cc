// Java frames in call sites (shim_java.h, docs/inject.md#call-sites).
//
// The shim finds the running VM itself: the first call that enters Java code from a JNI
// method looks up JNI_GetCreatedJavaVMs in the loaded libjvm.so and takes a JVMTI
// environment from the VM (no agent on the command line, so the program's stderr never
// says "Picked up JAVA_TOOL_OPTIONS"). Each such call then asks JVMTI for the current
// thread's stack (GetStackTrace into a buffer on the stack: no allocation) and names each
// frame (method, bytecode index) from a cache; a frame met for the first time is named with
// GetMethodDeclaringClass, GetClassSignature, GetMethodName and GetLineNumberTable, whose
// allocations are given back with Deallocate at once (the VM's allocator, once per frame).
//
// The caller guarantees the thread is in the state a JNI method runs in (native): its
// chain reached JIT or interpreter code before any libjvm.so frame. A JVMTI call from a
// thread in the VM's own state would corrupt it, so calls the VM makes itself never get
// here. A thread the VM does not know gets JVMTI_ERROR_UNATTACHED_THREAD (checked before
// anything else) and keeps its native site.
#include "shim_java.h"

#include <stdlib.h>
#include <string.h>

#ifndef SPW_JAVA_FRAMES

bool spw::JavaFramesInit() { return false; }
uint64_t spw::JavaSite(const uintptr_t*, int, uint64_t) { return 0; }

#else

#include <dlfcn.h>
#include <jvmti.h>
#include <link.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mman.h>

#include <atomic>

#include "shim_core.h"
#include "spillway/vfs/fault_rules.h"

namespace {

using spw::Mix;

constexpr int kSiteFrames = 8;   // Frames of a site, the JDK's own not counted.
constexpr int kMaxJava = 64;     // Java frames asked for.
constexpr int kFrameText = 200;  // A Java frame's text, truncated.
// Where a site starts its Java frames' hashes, after the native frames': so that a Java
// site never equals the native site of the same chain.
constexpr char kJavaToken[] = "java";

// A named frame: (method, location) -> "java:CLASS.METHOD:LINE" and whether it is the JDK's.
constexpr size_t kFrameSlots = size_t{1} << 16;
constexpr uint64_t kClaimed = 1;
struct Frame {
  uint64_t key;  // 0: free; kClaimed while being filled.
  jmethodID method;
  jlocation location;
  uint64_t hash;  // FNV of text.
  bool jdk;
  char text[kFrameText];
};
Frame* g_frames = nullptr;

// The sites seen in this process (their frames lines written).
constexpr size_t kSeenSlots = size_t{1} << 14;
uint64_t* g_seen = nullptr;

enum VmState : int { kUnknown, kResolving, kReady, kNone };
int g_vm_state = kUnknown;  // Atomic.
using GetCreatedFn = jint (*)(JavaVM**, jsize, jsize*);
GetCreatedFn g_get_created = nullptr;
JavaVM* g_vm = nullptr;
jvmtiEnv* g_jvmti = nullptr;

int FindJvm(struct dl_phdr_info* info, size_t, void* out) {
  const size_t n = strlen(info->dlpi_name);
  if (n < 10 || strcmp(info->dlpi_name + n - 10, "/libjvm.so") != 0) return 0;
  *static_cast<const char**>(out) = info->dlpi_name;
  return 1;
}

// The state after one try to take a JVMTI environment from the running VM: kReady, kNone
// (no libjvm.so: another runtime's JIT), or kUnknown (the VM is not live yet: try later).
int Resolve() {
  if (g_get_created == nullptr) {
    const char* jvm = nullptr;
    dl_iterate_phdr(FindJvm, &jvm);
    // RTLD_NOLOAD: the handle of the library already loaded, whatever its RTLD_ flags.
    void* handle = jvm != nullptr ? dlopen(jvm, RTLD_LAZY | RTLD_NOLOAD) : nullptr;
    if (handle != nullptr) {
      g_get_created = reinterpret_cast<GetCreatedFn>(dlsym(handle, "JNI_GetCreatedJavaVMs"));
    }
    if (g_get_created == nullptr) return kNone;
  }
  jsize vms = 0;
  JavaVM* vm = nullptr;
  if (g_get_created(&vm, 1, &vms) != JNI_OK || vms < 1) return kUnknown;
  // The JNI interface first: it answers JNI_EDETACHED on a thread the VM does not know,
  // where asking for JVMTI would not be safe.
  void* jni = nullptr;
  void* jvmti = nullptr;
  if (vm->GetEnv(&jni, JNI_VERSION_1_6) != JNI_OK ||
      vm->GetEnv(&jvmti, JVMTI_VERSION_1_2) != JNI_OK) {
    return kUnknown;
  }
  auto* env = static_cast<jvmtiEnv*>(jvmti);
  // Line numbers are a capability every HotSpot VM has in the live phase; without it
  // frames carry bytecode indexes.
  jvmtiCapabilities wanted;
  memset(&wanted, 0, sizeof(wanted));
  wanted.can_get_line_numbers = 1;
  env->AddCapabilities(&wanted);
  g_vm = vm;
  g_jvmti = env;
  return kReady;
}

// True when the JVMTI environment is there, resolving it on the first call that needs it
// (other threads wait for that one, so that no call gets a native site meanwhile).
bool Ready() {
  for (;;) {
    int state = std::atomic_ref<int>(g_vm_state).load(std::memory_order_acquire);
    if (state == kReady) return true;
    if (state == kNone) return false;
    if (state == kResolving) {
      sched_yield();
      continue;
    }
    if (std::atomic_ref<int>(g_vm_state).compare_exchange_strong(state, kResolving)) {
      state = Resolve();
      std::atomic_ref<int>(g_vm_state).store(state, std::memory_order_release);
      return state == kReady;
    }
  }
}

bool IsJdk(const char* dotted) {
  return strncmp(dotted, "java.", 5) == 0 || strncmp(dotted, "sun.", 4) == 0 ||
         strncmp(dotted, "jdk.", 4) == 0;
}

// Writes "CLASS" from the class signature "Lpkg/Name;" (a hidden class's "/0x..." suffix,
// an address, left out) into out[cap].
void DottedClass(const char* signature, char* out, size_t cap) {
  const char* s = signature[0] == 'L' ? signature + 1 : signature;
  size_t n = 0;
  for (; *s != '\0' && *s != ';' && n + 1 < cap; ++s) {
    if (s[0] == '/' && s[1] == '0' && s[2] == 'x') break;
    out[n++] = *s == '/' ? '.' : *s;
  }
  out[n] = '\0';
}

// The source line of `location` in `method`, or -1 without a line table.
int LineOf(jmethodID method, jlocation location) {
  jint count = 0;
  jvmtiLineNumberEntry* table = nullptr;
  if (location < 0 || g_jvmti->GetLineNumberTable(method, &count, &table) != JVMTI_ERROR_NONE) {
    return -1;
  }
  int line = -1;
  jlocation best = -1;
  for (jint i = 0; i < count; ++i) {
    if (table[i].start_location <= location && table[i].start_location >= best) {
      best = table[i].start_location;
      line = table[i].line_number;
    }
  }
  g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(table));
  return line;
}

// Names the frame (method, location) into *frame; false when JVMTI cannot.
bool NameFrame(jmethodID method, jlocation location, Frame* frame) {
  jclass klass = nullptr;
  char* signature = nullptr;
  char* name = nullptr;
  bool ok = g_jvmti->GetMethodDeclaringClass(method, &klass) == JVMTI_ERROR_NONE &&
            g_jvmti->GetClassSignature(klass, &signature, nullptr) == JVMTI_ERROR_NONE &&
            g_jvmti->GetMethodName(method, &name, nullptr, nullptr) == JVMTI_ERROR_NONE;
  if (ok) {
    char dotted[kFrameText];
    DottedClass(signature, dotted, sizeof(dotted));
    frame->jdk = IsJdk(dotted);
    const int line = LineOf(method, location);
    if (location < 0) {
      snprintf(frame->text, sizeof(frame->text), "java:%.110s.%.60s:native", dotted, name);
    } else if (line < 0) {
      snprintf(frame->text, sizeof(frame->text), "java:%.110s.%.50s:bci=%ld", dotted, name,
               static_cast<long>(location));
    } else {
      snprintf(frame->text, sizeof(frame->text), "java:%.110s.%.50s:%d", dotted, name, line);
    }
    frame->hash = spw::Fnv(spw::kFnvBasis, frame->text, strlen(frame->text));
  }
  if (signature != nullptr) g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(signature));
  if (name != nullptr) g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(name));
  // The class reference is a JNI local reference of the running JNI method: drop it now,
  // so that a method making many calls does not pile them up.
  void* jni = nullptr;
  if (klass != nullptr && g_vm->GetEnv(&jni, JNI_VERSION_1_6) == JNI_OK) {
    static_cast<JNIEnv*>(jni)->DeleteLocalRef(klass);
  }
  return ok;
}

// The named frame (method, location): from the cache, or named and cached. Returns
// nullptr when JVMTI cannot name it; `scratch` holds a frame the full cache has no room
// for (its text then good only until the next such frame).
const Frame* FrameOf(jmethodID method, jlocation location, Frame* scratch) {
  uint64_t key = Mix(reinterpret_cast<uintptr_t>(method) ^ Mix(static_cast<uint64_t>(location)));
  key = key <= kClaimed ? key + 2 : key;
  for (size_t i = key & (kFrameSlots - 1), n = 0; n < 64; i = (i + 1) & (kFrameSlots - 1), ++n) {
    std::atomic_ref<uint64_t> slot(g_frames[i].key);
    uint64_t at = slot.load(std::memory_order_acquire);
    if (at == key && g_frames[i].method == method && g_frames[i].location == location) {
      return &g_frames[i];
    }
    if (at == 0 && slot.compare_exchange_strong(at, kClaimed)) {
      Frame* frame = &g_frames[i];
      frame->method = method;
      frame->location = location;
      if (!NameFrame(method, location, frame)) {
        slot.store(0, std::memory_order_release);
        return nullptr;
      }
      slot.store(key, std::memory_order_release);
      return frame;
    }
  }
  return NameFrame(method, location, scratch) ? scratch : nullptr;
}

// True the first time this process meets `site`.
bool FirstTime(uint64_t site) {
  const uint64_t key = site <= kClaimed ? site + 2 : site;
  for (size_t i = Mix(key) & (kSeenSlots - 1), n = 0; n < 64; i = (i + 1) & (kSeenSlots - 1), ++n) {
    std::atomic_ref<uint64_t> slot(g_seen[i]);
    uint64_t at = slot.load(std::memory_order_acquire);
    if (at == key) return false;
    if (at == 0 && slot.compare_exchange_strong(at, key)) return true;
    if (at == key) return false;  // Another thread put it in meanwhile.
  }
  return true;  // Full: the frames line again.
}

// Writes the frames line: the native frames, then the Java frames' texts.
void WriteFrames(uint64_t site, const uintptr_t* pcs, int natives, const char* const* texts,
                 int count) {
  char line[kSiteFrames * (SPW_PATH_MAX / 4 + 96) + kMaxJava * (kFrameText + 8) + 64];
  char id[spillway::kFaultSiteDigits + 1];
  spillway::FormatFaultSite(site, id);
  const size_t cap = sizeof(line) - 8;
  size_t len =
      static_cast<size_t>(snprintf(line, sizeof(line), "{\"site\":\"%s\",\"frames\":[", id));
  len = spw::AppendNativeFrames(line, len, cap, pcs, natives);
  for (int i = 0; i < count; ++i) {
    if (len < cap) line[len++] = ',';
    len = spw_json_string(line, len, cap, texts[i]);
  }
  len += static_cast<size_t>(snprintf(line + len, sizeof(line) - len, "]}\n"));
  spw_trace_write(line, len);
}

}  // namespace

bool spw::JavaFramesInit() {
  const char* java = getenv("SPILLWAY_INJECT_JAVA_FRAMES");
  if (java != nullptr && strcmp(java, "0") == 0) return false;
  void* frames = mmap(nullptr, sizeof(Frame) * kFrameSlots, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  void* seen = mmap(nullptr, sizeof(uint64_t) * kSeenSlots, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (frames == MAP_FAILED || seen == MAP_FAILED) return false;
  g_frames = static_cast<Frame*>(frames);
  g_seen = static_cast<uint64_t*>(seen);
  return true;
}

uint64_t spw::JavaSite(const uintptr_t* pcs, int natives, uint64_t native_hash) {
  if (!Ready()) return 0;
  jvmtiFrameInfo stack[kMaxJava];
  jint depth = 0;
  // The current thread (nullptr): UNATTACHED_THREAD for one the VM does not know,
  // WRONG_PHASE before the VM is live.
  if (g_jvmti->GetStackTrace(nullptr, 0, kMaxJava, stack, &depth) != JVMTI_ERROR_NONE ||
      depth == 0) {
    return 0;
  }
  const char* texts[kMaxJava];
  Frame scratch;  // A frame the full cache has no room for: named, but not in the line.
  int count = 0;
  int counted = natives;
  uint64_t h = Fnv(native_hash, kJavaToken, sizeof(kJavaToken));
  for (jint i = 0; i < depth && counted < kSiteFrames; ++i) {
    const Frame* frame = FrameOf(stack[i].method, stack[i].location, &scratch);
    if (frame == nullptr) return 0;
    texts[count++] = frame == &scratch ? "java:[not cached]" : frame->text;
    h = Fnv(h, &frame->hash, sizeof(frame->hash));
    if (!frame->jdk) ++counted;
  }
  const uint64_t site = h >> 16;  // 48 bits, as a native site.
  if (site == 0) return 0;
  if (spw_traced() && FirstTime(site)) WriteFrames(site, pcs, natives, texts, count);
  return site;
}

#endif  // SPW_JAVA_FRAMES
