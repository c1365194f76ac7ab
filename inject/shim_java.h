// Java frames in call sites (shim_java.cc, docs/inject.md#call-sites): what the native
// site code (shim_sites.cc) and the JVMTI part share. Internal to libspillway_inject.so.
#ifndef SPILLWAY_INJECT_SHIM_JAVA_H_
#define SPILLWAY_INJECT_SHIM_JAVA_H_

#include <stddef.h>
#include <stdint.h>

namespace spw {

// FNV-1a, 64-bit: the site id's hash. Fixed, so that ids agree between builds and runs.
inline constexpr uint64_t kFnvBasis = 0xcbf29ce484222325ULL;
inline uint64_t Fnv(uint64_t h, const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

// A 64-bit mixer for the shim's hash tables' slots (not for ids: those are Fnv's).
inline uint64_t Mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

// Writes the native frames pcs[0..count) into the JSON array text line[0..len) as string
// elements separated by commas (a run of anonymous frames as one), within `cap`; returns
// the new length. In shim_sites.cc.
size_t AppendNativeFrames(char* line, size_t len, size_t cap, const uintptr_t* pcs, int count);

// Reads the switch (SPILLWAY_INJECT_JAVA_FRAMES=0 turns Java frames off); true when sites
// may carry Java frames. Called once when the shim loads, with the native site code.
bool JavaFramesInit();

// The site of the current in-scope call from its Java frames, when the calling thread is a
// Java thread inside the JNI method whose native frames are pcs[0..natives) (the frames
// before the first JIT or interpreter frame, none in libjvm.so); `native_hash` is their
// unshifted hash. Returns 0 when the thread has no Java frames to give (not attached, the
// VM not live, no VM at all): the caller then keeps the native site. Writes the site's
// frames line the first time this process meets it while tracing.
// REQUIRES: called from spw_site, under the re-entrancy guard, holding no lock.
uint64_t JavaSite(const uintptr_t* pcs, int natives, uint64_t native_hash);

}  // namespace spw

#endif  // SPILLWAY_INJECT_SHIM_JAVA_H_
