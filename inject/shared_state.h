// The state `spillway inject` shares with every process of the run: a fixed-layout struct
// in a file that the tool creates and fills, and that the shim (libspillway_inject.so)
// maps MAP_SHARED in each process it is loaded into. The file's path is in the environment
// variable kStateEnv. The first part is written once by the tool before the program starts;
// the second part is changed by the shim only through atomics (std::atomic_ref) and, for a
// decision, under the FaultLock on `lock`. The tool writes the fields before `calls`
// (`quota_used` too, before the start) and reads back those from `lock` on, by their
// offsets (inject::Run): the order of the fields is part of the layout.
#ifndef SPILLWAY_INJECT_SHARED_STATE_H_
#define SPILLWAY_INJECT_SHARED_STATE_H_

#include <cstdint>
#include <type_traits>

#include "spillway/vfs/fault_rules.h"

namespace spillway::inject {

inline constexpr char kStateEnv[] = "SPILLWAY_INJECT_STATE";
inline constexpr uint32_t kStateMagic = 0x354a5053;  // "SPJ5": a fault's call number
inline constexpr int kMaxScopes = 8;
inline constexpr int kMaxRules = 32;
inline constexpr int kMaxFaultRecords = 256;
inline constexpr int kPathCapacity = 4096;  // PATH_MAX

// One injected fault, for the summary.
struct FaultRecord {
  uint8_t op = 0;  // A FaultOp.
  FaultAction action = FaultAction::kFail;
  int32_t error_number = 0;  // kFail's errno; 0 for other actions.
  int32_t pid = 0;
  uint64_t seq = 0;  // The call's number among the run's in-scope calls (SharedState::seq).
  // Whole (PATH_MAX), so that a sweep can compare it with the baseline's call. The pages
  // of the records no fault wrote are never touched.
  char path[kPathCapacity] = {};
  // kCorrupt: the file offset of the flipped byte and its bit (-1: none, no bytes moved);
  // kLost: the offset of the bytes dropped and how many.
  int64_t offset = -1;
  int32_t bit = -1;
  uint64_t lost_bytes = 0;
};

struct SharedState {
  // Written by the tool before the program starts.
  uint32_t magic = 0;
  uint32_t size = 0;  // sizeof(SharedState), so a mismatched shim refuses the file.
  uint32_t scope_count = 0;
  uint32_t rule_count = 0;
  uint64_t seed = 0;
  uint64_t quota = 0;                           // 0: no quota.
  char scopes[kMaxScopes][kPathCapacity] = {};  // realpath()s, without a trailing '/'.
  char trace_path[kPathCapacity] = {};          // Empty: no trace.
  char preload_path[kPathCapacity] = {};        // The shim, put back into LD_PRELOAD on exec.
  char state_path[kPathCapacity] = {};          // This file, put back into kStateEnv on exec.
  FaultRuleSpec rules[kMaxRules] = {};

  // Changed while the program runs.
  uint32_t lock = 0;        // FaultLock word for decisions.
  uint64_t seq = 0;         // In-scope calls so far, in the order they reached the shim.
  uint64_t draws = 0;       // Probability draws so far.
  uint64_t quota_used = 0;  // Bytes of file data in the scopes (starts at what was there).
  uint64_t calls[kFaultOpCount] = {};
  FaultRuleCounters counters[kMaxRules] = {};
  uint64_t fault_count = 0;  // Faults injected; the first kMaxFaultRecords are recorded.
  FaultRecord faults[kMaxFaultRecords] = {};
};

// Written and read by offset (offsetof), so of standard layout.
static_assert(std::is_standard_layout_v<SharedState>);

}  // namespace spillway::inject

#endif  // SPILLWAY_INJECT_SHARED_STATE_H_
