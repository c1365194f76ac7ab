// The fault rule engine shared by FaultInjectingFileSystem and the LD_PRELOAD shim of
// `spillway inject` (inject/): the operations of the one table (fault_ops.h) and the errnos
// each can really return, the text form of a rule, and the decision of which call fails.
// Paths are matched with GlobMatch (glob.h).
//
// Private to spillway: vfs/internal/ is the include root of the targets that link
// spillway::vfs_rules (vfs, the shim, the `spillway` tool, program_sweep), and it is not
// installed; the installed headers (vfs/include/) never include this one.
//
// Dependency-free on purpose: no allocation, no exceptions, no iostream, no fmt, no Status,
// so that it can live inside a preloaded library that runs before (and under) the program's
// own allocator; fault_rules.cc and glob.cc need nothing at link time but the C library.
// Rules and their counters are plain structs that may sit in memory shared between
// processes (a MAP_SHARED file); the counters are only touched through std::atomic_ref,
// and decisions that draw random numbers are serialised by FaultLock, a process-shared
// lock word.
#ifndef SPILLWAY_VFS_FAULT_RULES_H_
#define SPILLWAY_VFS_FAULT_RULES_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "spillway/vfs/fault_action.h"
#include "spillway/vfs/fault_ops.h"

namespace spillway {

// The operations a rule names, one per row of the table (fault_ops.h), in its order. The
// values are the op codes the shim decides with (its SPW_* are the same rows); a
// FaultInjectingFileSystem decides with its own OpKind numbering (derived from the table,
// with size and chmod and without rename), so DecideFault compares plain codes.
enum class FaultOp : uint8_t {
#define SPILLWAY_FAULT_OP_ENUMERATOR(ID, Name, name, errnos) k##Name,
  SPILLWAY_FAULT_OPS(SPILLWAY_FAULT_OP_ENUMERATOR)
#undef SPILLWAY_FAULT_OP_ENUMERATOR
};
// The ops' names, by code: "create", "open", "write", ...
inline constexpr const char* kFaultOpNames[] = {
#define SPILLWAY_FAULT_OP_NAME(ID, Name, name, errnos) name,
    SPILLWAY_FAULT_OPS(SPILLWAY_FAULT_OP_NAME)
#undef SPILLWAY_FAULT_OP_NAME
};
inline constexpr int kFaultOpCount = sizeof(kFaultOpNames) / sizeof(kFaultOpNames[0]);
// The op code of a rule that matches every operation, and its name.
inline constexpr uint8_t kFaultAnyOp = 0xff;
inline constexpr std::string_view kFaultAnyName = "any";
static_assert(kFaultOpCount < kFaultAnyOp);

// The op's name in the table.
constexpr const char* FaultOpName(FaultOp op) { return kFaultOpNames[static_cast<size_t>(op)]; }
// True when every op has a name no other op has, and none is kFaultAnyName.
constexpr bool FaultOpNamesAreUnique() {
  for (int i = 0; i < kFaultOpCount; ++i) {
    const std::string_view name = FaultOpName(static_cast<FaultOp>(i));
    if (name.empty() || name == kFaultAnyName) return false;
    for (int j = 0; j < i; ++j) {
      if (name == FaultOpName(static_cast<FaultOp>(j))) return false;
    }
  }
  return true;
}
static_assert(FaultOpNamesAreUnique(), "two rows of SPILLWAY_FAULT_OPS (fault_ops.h) share a name");

// The operations an action may name, as a mask of bits 1 << op code; every op (and "any")
// for kFaultAllOps. A switch, so a new action does not build until it is given its ops.
inline constexpr uint32_t kFaultAllOps = ~uint32_t{0};
constexpr uint32_t FaultActionOps(FaultAction action) {
  switch (action) {
    case FaultAction::kFail:  // Which errnos, FaultOpCanReturn says.
    case FaultAction::kKill:
    case FaultAction::kOk:
      return kFaultAllOps;
    case FaultAction::kCorrupt:
      return 1U << static_cast<int>(FaultOp::kRead) | 1U << static_cast<int>(FaultOp::kWrite);
    case FaultAction::kLost:
      return 1U << static_cast<int>(FaultOp::kWrite);
  }
  return 0;
}
// True when a rule of `action` may name op `op_code` (kFaultAnyOp: only an action that
// applies to every op).
constexpr bool FaultActionAllows(FaultAction action, uint8_t op_code) {
  const uint32_t ops = FaultActionOps(action);
  if (op_code == kFaultAnyOp) return ops == kFaultAllOps;
  return op_code < 32 && (ops >> op_code & 1U) != 0;
}
static_assert(kFaultOpCount <= 32, "FaultActionOps's mask has a bit per op");

// Whether the C library function `call` (a trace line's "call") moves bytes of its own.
// False for the write row's calls that the shim counts under a corrupt or lost rule but
// lets through undamaged, because the bytes they write were handed over (and damaged) at
// an earlier call, or are none: ftruncate, fallocate, posix_fallocate, fflush, fclose and
// their 64 and _unlocked forms (docs/inject.md). A sweep plans no damage run at them.
bool FaultCallMovesBytes(std::string_view call);

// Sets *op_code to the op's code, or kFaultAnyOp for "any". False for an unknown name.
bool FaultOpCodeFromName(std::string_view name, uint8_t* op_code);

// True when the Linux calls behind `op` can fail with `error_number` (the op's errnos in
// the table, from the calls' man pages). kFaultAnyOp allows any errno some op allows.
bool FaultOpCanReturn(uint8_t op_code, int error_number);
// Writes the errnos `op_code` allows, as "EACCES, EIO, ...", NUL-terminated and truncated
// to `capacity`. Returns the length written.
size_t FaultOpErrnoList(uint8_t op_code, char* out, size_t capacity);

// The symbolic name of an errno ("ENOSPC"); nullptr for a number the C library does not
// name. ErrnoNumberFromName is its inverse; 0 for an unknown name.
const char* ErrnoSymbol(int error_number);
int ErrnoNumberFromName(std::string_view name);

// The capacity of a rule's path glob (GlobMatch, glob.h), with its NUL.
inline constexpr size_t kFaultGlobCapacity = 512;

// A call site: where a program made a call (docs/inject.md), as a 48-bit id written as 12
// lowercase hex digits. kFaultNoSite marks a call that carries no site, and a rule that
// names none.
inline constexpr uint64_t kFaultNoSite = ~uint64_t{0};
inline constexpr size_t kFaultSiteDigits = 12;
// Writes `site` as 12 lowercase hex digits and a NUL into out[kFaultSiteDigits + 1].
void FormatFaultSite(uint64_t site, char* out);
// Parses exactly 12 lowercase hex digits; false for anything else.
bool ParseFaultSite(std::string_view text, uint64_t* site);

// One rule: take `action` on calls of op `op_code` (kFaultAnyOp: every op) on paths
// matching `path_glob` (empty: every path) and, when `site` is not kFaultNoSite, made from
// that call site: fail them with `error_number` (kFail), or kill the caller (kKill, whose
// `error_number` is 0). Of its matching calls, the first `after` pass; after that it
// is due and fails the next `times` calls (every later one when `forever`), each with
// `probability` (1: always), then it is spent. With `then_any_site` (`then=any`), the site
// only triggers the rule: once that site's call `after`+1 has come, the rule matches the
// op's calls (on `path_glob`) from every site, so `times=forever` fails that call and every
// later call of the op, as a rule without a site fails every call after its `after`-th.
struct FaultRuleSpec {
  uint8_t op_code = kFaultAnyOp;
  FaultAction action = FaultAction::kFail;
  int32_t error_number = 0;  // kFail's errno; 0 for every other action.
  uint32_t delay_ms = 0;     // delay=MS: the call waits this long first (0: no wait).
  uint64_t site = kFaultNoSite;
  uint64_t after = 0;
  uint64_t times = 1;
  bool forever = false;
  bool then_any_site = false;
  double probability = 1.0;
  char path_glob[kFaultGlobCapacity] = {};
};

// Progress of one rule. Touched only through std::atomic_ref, so it may be shared.
struct FaultRuleCounters {
  // Matching calls seen: of a rule with then=any, its site's calls until it triggers and
  // every site's after.
  uint64_t matched = 0;
  uint64_t failed = 0;  // Of those, the ones failed.
};

// Parses `OP ERRNO|ACTION [site=ID] [nth=K] [after=N] [times=K|forever] [then=site|any]
// [path=GLOB] [probability=P] [delay=MS]` (words separated by spaces): ERRNO fails the call
// (FaultAction::kFail), ACTION is another action's name (FaultActionName). `nth=K` (K >= 1)
// is `after=K-1`; giving both is an error, as are nth=0, a site that is not 12 lowercase
// hex digits, `then=any` without `site=`, an action on an op it does not apply to
// (FaultActionAllows), an errno beside an action, `kill` with times= other than 1, delay=
// outside 1..kFaultMaxDelayMs, and `ok` without delay=. On success
// returns true and fills *rule. On failure returns false and writes a one-line reason into `error`
// (NUL-terminated, truncated to `error_capacity`); an errno the op cannot return is an error naming
// the allowed ones.
bool ParseFaultRule(std::string_view text, FaultRuleSpec* rule, char* error, size_t error_capacity);

// The outcome of one call: the index of the rule that takes its action on it (-1 when
// none: let it through), the action, and for kFail the errno to inject.
struct FaultDecision {
  int rule = -1;
  FaultAction action = FaultAction::kFail;
  int error_number = 0;
  uint32_t delay_ms = 0;  // The rule's delay=: how long the call waits before the action.
  // For kCorrupt: the number FaultDamagePoint picks the byte and bit from, drawn from the
  // seed, the rule and how many calls it acted on before, so a run is the same every time.
  uint64_t draw = 0;
  bool fired() const { return rule >= 0; }
};

// The maximum of delay=MS: an hour, a stalled disk.
inline constexpr uint32_t kFaultMaxDelayMs = 3'600'000;

// The draw of the `acted`-th call (from 1) that rule `rule` acts on under `seed`.
uint64_t FaultDamageDraw(uint64_t seed, size_t rule, uint64_t acted);
// The byte (an index below `length`) and bit (0..7) of `length` bytes that a corrupting
// call with `draw` flips. REQUIRES: length > 0.
void FaultDamagePoint(uint64_t draw, uint64_t length, uint64_t* index, int* bit);

// Decides one call of op `op_code` on `path`, made from call site `site` (kFaultNoSite:
// none), against `count` rules, in order: each rule whose op, glob and site match counts
// the call (so a rule with a site counts only that site's calls, and one with then=any
// every site's once its site has triggered it; one that names a site matches no call
// without one before that); the first that is due takes its action on it (after a draw
// for a probability below 1), and the rules after it do not see it. A draw takes the next
// number of the sequence seeded by `seed`, indexed by *draws (which it advances), so the
// same seed and the same calls give the same faults.
// Thread safety: with every rule at probability 1, each rule decides from its own count of
// matching calls, so concurrent decisions on the same counters are exact without a lock
// (the order in which concurrent calls reach a later rule is theirs). REQUIRES: when a
// rule has a probability below 1, the caller serialises decisions (e.g. FaultLock).
// `any_matches`, when given, says whether an "any" kFail rule matches a call of `op_code`
// that it would fail with `error_number` (a rule that does not match neither counts nor
// fails the call); nullptr, or another action: an "any" rule matches every call.
using FaultAnyFilter = bool (*)(uint8_t op_code, int error_number);
FaultDecision DecideFault(const FaultRuleSpec* rules, FaultRuleCounters* counters, size_t count,
                          uint8_t op_code, std::string_view path, uint64_t site, uint64_t seed,
                          uint64_t* draws, FaultAnyFilter any_matches = nullptr);

// Decides one call against one rule, as DecideFault does for each rule in turn: counts
// the call if the rule matches it and returns true when the rule takes its action on it.
bool DecideFaultRule(const FaultRuleSpec& rule, FaultRuleCounters* counters, uint8_t op_code,
                     std::string_view path, uint64_t site, uint64_t seed, uint64_t* draws,
                     FaultAnyFilter any_matches = nullptr);
// True when `rule` can act on no more calls: it is not forever and has acted on `times`
// calls. A spent rule only counts the calls it matches, so dropping it changes no
// decision.
bool FaultRuleSpent(const FaultRuleSpec& rule, const FaultRuleCounters& counters);

// True when deciding `rules` needs FaultLock (some rule has a probability below 1).
bool FaultRulesNeedLock(const FaultRuleSpec* rules, size_t count);
// True when some rule names a call site, so that calls must carry theirs.
bool FaultRulesNeedSites(const FaultRuleSpec* rules, size_t count);
// True when some rule that names a call site matches op `op_code` (its own op, or every
// op): a call of any other op is decided alike whatever its site, so it need not find it.
bool FaultRulesNeedSitesOf(const FaultRuleSpec* rules, size_t count, uint8_t op_code);

// A lock on a zero-initialised 32-bit word that may be in memory shared between
// processes. It spins, yielding; the word holds the owner's thread id (`owner`, the
// caller's gettid(), which the caller may cache: it costs a system call), and a waiter
// that finds the owner gone (killed inside a decision) takes the lock over.
// REQUIRES: owner is the calling thread's id. Async-signal-safe
// only in the sense that it never allocates; a signal handler that re-enters it on the
// same thread would deadlock, which the shim's recursion guard prevents.
class FaultLock {
 public:
  FaultLock(uint32_t* word, uint32_t owner);
  ~FaultLock();
  FaultLock(const FaultLock&) = delete;
  FaultLock& operator=(const FaultLock&) = delete;

 private:
  uint32_t* word_;
};

}  // namespace spillway

#endif  // SPILLWAY_VFS_FAULT_RULES_H_
