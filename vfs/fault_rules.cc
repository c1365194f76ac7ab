#include "spillway/vfs/fault_rules.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iterator>

#include "spillway/vfs/glob.h"

namespace spillway {
namespace {

// One operation's errnos, from its row of the table (fault_ops.h).
struct OpErrnos {
  const int* errnos;
  size_t count;
};

#define SPILLWAY_ERRNO_ARRAY(ID, Name, name, errnos) \
  constexpr int k##Name##Errnos[] = {SPILLWAY_FAULT_OP_ERRNOS errnos};
SPILLWAY_FAULT_OPS(SPILLWAY_ERRNO_ARRAY)
#undef SPILLWAY_ERRNO_ARRAY

template <size_t N>
constexpr OpErrnos Entry(const int (&errnos)[N]) {
  return OpErrnos{errnos, N};
}

// Indexed by FaultOp: the enumerators are the table's rows in the same order.
constexpr OpErrnos kOps[] = {
#define SPILLWAY_OP_ENTRY(ID, Name, name, errnos) Entry(k##Name##Errnos),
    SPILLWAY_FAULT_OPS(SPILLWAY_OP_ENTRY)
#undef SPILLWAY_OP_ENTRY
};
static_assert(std::size(kOps) == kFaultOpCount);

bool ListHas(const OpErrnos& op, int error_number) {
  for (size_t i = 0; i < op.count; ++i) {
    if (op.errnos[i] == error_number) return true;
  }
  return false;
}

// The first n characters of s. REQUIRES: n <= s.size(). (substr would pull in the C++
// library's exception path, which the shim does not link.)
std::string_view Prefix(std::string_view s, size_t n) { return std::string_view(s.data(), n); }

// splitmix64: a fixed, portable mix, so a seed replays with any compiler.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Writes `before` + `word` + `after` into `error`, truncated to `capacity`.
void SetError(char* error, size_t capacity, const char* before, std::string_view word,
              const char* after) {
  if (capacity == 0) return;
  snprintf(error, capacity, "%s%.*s%s", before, static_cast<int>(word.size()), word.data(), after);
}

bool ParseCount(std::string_view value, uint64_t* out) {
  if (value.empty() || value.size() > 19) return false;
  uint64_t n = 0;
  for (char c : value) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = n;
  return true;
}

bool ParseProbability(std::string_view value, double* out) {
  char buf[32];
  if (value.empty() || value.size() >= sizeof(buf)) return false;
  memcpy(buf, value.data(), value.size());
  buf[value.size()] = '\0';
  char* end = nullptr;
  const double p = strtod(buf, &end);
  if (end != buf + value.size() || !(p >= 0.0 && p <= 1.0)) return false;
  *out = p;
  return true;
}

constexpr char kOptionList[] =
    "': options are site=, nth=, after=, times=, then=, path=, probability=, delay=";

// Applies one `key=value` option to *rule; false with *error set when it is bad.
// *after_given says whether after= or nth= came before.
bool ParseOption(std::string_view word, FaultRuleSpec* rule, bool* after_given, char* error,
                 size_t cap) {
  const size_t eq = word.find('=');
  const std::string_view key = Prefix(word, eq == std::string_view::npos ? word.size() : eq);
  std::string_view value;
  if (eq != std::string_view::npos)
    value = std::string_view(word.data() + eq + 1, word.size() - eq - 1);
  if (eq == std::string_view::npos) {
    SetError(error, cap, "unexpected word '", word, kOptionList);
  } else if (key == "site") {
    if (ParseFaultSite(value, &rule->site)) return true;
    SetError(error, cap, "site=", value, ": not a site id (12 lowercase hex digits)");
  } else if (key == "after" || key == "nth") {
    if (*after_given) {
      SetError(error, cap, "", word, ": give one of nth= and after=, once");
      return false;
    }
    *after_given = true;
    const bool nth = key == "nth";
    if (ParseCount(value, &rule->after) && !(nth && rule->after == 0)) {
      if (nth) --rule->after;
      return true;
    }
    SetError(error, cap, nth ? "nth=" : "after=", value,
             nth ? ": not a count from 1 (the K-th matching call)" : ": not a count");
  } else if (key == "times") {
    if (value == "forever") return rule->forever = true;
    if (ParseCount(value, &rule->times)) return true;
    SetError(error, cap, "times=", value, ": not a count (or forever)");
  } else if (key == "then") {
    if (value == "site" || value == "any") {
      rule->then_any_site = value == "any";
      return true;
    }
    SetError(error, cap, "then=", value,
             ": not site (fail only the site's calls) or any (then every site's)");
  } else if (key == "path") {
    if (!value.empty() && value.front() == '/' && value.size() < kFaultGlobCapacity) {
      memcpy(rule->path_glob, value.data(), value.size());
      rule->path_glob[value.size()] = '\0';
      return true;
    }
    SetError(error, cap, "path=", value, ": not an absolute glob of at most 511 characters");
  } else if (key == "probability") {
    if (ParseProbability(value, &rule->probability)) return true;
    SetError(error, cap, "probability=", value, ": not a number from 0 to 1");
  } else if (key == "delay") {
    uint64_t ms = 0;
    if (ParseCount(value, &ms) && ms > 0 && ms <= kFaultMaxDelayMs) {
      rule->delay_ms = static_cast<uint32_t>(ms);
      return true;
    }
    SetError(error, cap, "delay=", value, ": not a count of milliseconds from 1 to 3600000");
  } else {
    SetError(error, cap, "unknown option '", word, kOptionList);
  }
  return false;
}

// Sets *action to the action named `word` (not kFail, which rules name by an errno).
bool ActionFromName(std::string_view word, FaultAction* action) {
  for (int i = 0; i < kFaultActionCount; ++i) {
    const auto a = static_cast<FaultAction>(i);
    if (a != FaultAction::kFail && word == FaultActionName(a)) {
      *action = a;
      return true;
    }
  }
  return false;
}

// Splits off the next space-separated word of *s; empty at the end.
std::string_view NextWord(std::string_view* s) {
  while (!s->empty() && (s->front() == ' ' || s->front() == '\t')) s->remove_prefix(1);
  size_t end = 0;
  while (end < s->size() && (*s)[end] != ' ' && (*s)[end] != '\t') ++end;
  const std::string_view word = Prefix(*s, end);
  s->remove_prefix(end);
  return word;
}

}  // namespace

bool FaultCallMovesBytes(std::string_view call) {
  static constexpr std::string_view kNoBytes[] = {
      "ftruncate",         "ftruncate64", "fallocate",       "fallocate64", "posix_fallocate",
      "posix_fallocate64", "fflush",      "fflush_unlocked", "fclose"};
  return std::find(std::begin(kNoBytes), std::end(kNoBytes), call) == std::end(kNoBytes);
}

bool FaultOpCodeFromName(std::string_view name, uint8_t* op_code) {
  if (name == kFaultAnyName) {
    *op_code = kFaultAnyOp;
    return true;
  }
  for (int i = 0; i < kFaultOpCount; ++i) {
    if (name == FaultOpName(static_cast<FaultOp>(i))) {
      *op_code = static_cast<uint8_t>(i);
      return true;
    }
  }
  return false;
}

bool FaultOpCanReturn(uint8_t op_code, int error_number) {
  if (op_code < kFaultOpCount) return ListHas(kOps[op_code], error_number);
  for (const OpErrnos& op : kOps) {
    if (ListHas(op, error_number)) return true;
  }
  return false;
}

size_t FaultOpErrnoList(uint8_t op_code, char* out, size_t capacity) {
  if (capacity == 0) return 0;
  size_t len = 0;
  out[0] = '\0';
  // For "any", every errno some op allows, in errno order and once each.
  for (int e = 1; e < 4096; ++e) {
    if (!FaultOpCanReturn(op_code, e)) continue;
    const int n = snprintf(out + len, capacity - len, "%s%s", len == 0 ? "" : ", ", ErrnoSymbol(e));
    if (n < 0 || static_cast<size_t>(n) >= capacity - len) return capacity - 1;
    len += static_cast<size_t>(n);
  }
  return len;
}

const char* ErrnoSymbol(int error_number) { return strerrorname_np(error_number); }

int ErrnoNumberFromName(std::string_view name) {
  if (name.empty() || name.front() != 'E') return 0;
  for (int e = 1; e < 4096; ++e) {
    const char* symbol = strerrorname_np(e);
    if (symbol != nullptr && name == symbol) return e;
  }
  if (name == "ENOTSUP") return ENOTSUP;  // glibc names 95 EOPNOTSUPP.
  return 0;
}

bool ParseFaultRule(std::string_view text, FaultRuleSpec* rule, char* error,
                    size_t error_capacity) {
  *rule = FaultRuleSpec{};
  const std::string_view op = NextWord(&text);
  const std::string_view what = NextWord(&text);
  if (!FaultOpCodeFromName(op, &rule->op_code)) {
    SetError(error, error_capacity, "unknown OP '", op,
             "': create, open, write, read, mkdir, remove, rmdir, rename, list, stat, sync, "
             "close or any");
    return false;
  }
  if (ActionFromName(what, &rule->action)) {
    if (!FaultActionAllows(rule->action, rule->op_code)) {
      snprintf(error, error_capacity, "%.*s cannot be applied to %.*s",
               static_cast<int>(what.size()), what.data(), static_cast<int>(op.size()), op.data());
      return false;
    }
  } else if ((rule->error_number = ErrnoNumberFromName(what)) == 0) {
    SetError(error, error_capacity, "unknown errno '", what,
             "' (an errno name: ENOSPC, EIO, ...; or an action: kill, corrupt, lost, ok)");
    return false;
  } else if (!FaultOpCanReturn(rule->op_code, rule->error_number)) {
    char allowed[512];
    FaultOpErrnoList(rule->op_code, allowed, sizeof(allowed));
    snprintf(error, error_capacity, "%.*s cannot fail with %.*s; it can fail with: %s",
             static_cast<int>(op.size()), op.data(), static_cast<int>(what.size()), what.data(),
             allowed);
    return false;
  }
  bool after_given = false;
  for (std::string_view word = NextWord(&text); !word.empty(); word = NextWord(&text)) {
    // An errno and an action together: a rule does one thing to a call.
    FaultAction other = FaultAction::kFail;
    if (ErrnoNumberFromName(word) != 0 || ActionFromName(word, &other)) {
      snprintf(error, error_capacity,
               "%.*s and %.*s together: a rule either fails a call with "
               "an errno or takes one action on it",
               static_cast<int>(what.size()), what.data(), static_cast<int>(word.size()),
               word.data());
      return false;
    }
    if (!ParseOption(word, rule, &after_given, error, error_capacity)) return false;
  }
  if (rule->then_any_site && rule->site == kFaultNoSite) {
    SetError(error, error_capacity, "", "then=any",
             " needs site=ID (a rule without one counts every site's calls already)");
    return false;
  }
  if (rule->action == FaultAction::kOk && rule->delay_ms == 0) {
    SetError(error, error_capacity, "", "ok",
             " needs delay=MS: a rule that only lets the call through does nothing else");
    return false;
  }
  if (rule->action == FaultAction::kKill && (rule->forever || rule->times != 1)) {
    SetError(error, error_capacity, "", "kill",
             " takes no times= other than 1: the process it kills makes no later call");
    return false;
  }
  return true;
}

bool DecideFaultRule(const FaultRuleSpec& rule, FaultRuleCounters* counters, uint8_t op_code,
                     std::string_view path, uint64_t site, uint64_t seed, uint64_t* draws,
                     FaultAnyFilter any_matches) {
  if (rule.op_code != kFaultAnyOp && rule.op_code != op_code) return false;
  if (rule.op_code == kFaultAnyOp && rule.action == FaultAction::kFail && any_matches != nullptr &&
      !any_matches(op_code, rule.error_number)) {
    return false;
  }
  std::atomic_ref<uint64_t> matched(counters->matched);
  if (rule.site != kFaultNoSite && rule.site != site) {
    // Another site's call: it matches only a then=any rule its site has triggered (the
    // count stays above `after` once it got there, so this call's ordinal will too).
    if (!rule.then_any_site || matched.load(std::memory_order_relaxed) <= rule.after) return false;
  }
  if (rule.path_glob[0] != '\0' && !GlobMatch(rule.path_glob, path)) return false;
  std::atomic_ref<uint64_t> failed(counters->failed);
  const uint64_t ordinal = matched.fetch_add(1, std::memory_order_relaxed) + 1;
  if (ordinal <= rule.after) return false;
  if (rule.probability >= 1.0) {
    // Every due call fails, so the failed ones are exactly the ordinals after+1 ..
    // after+times: decided from this call's own ordinal, safe without a lock.
    if (!rule.forever && ordinal - rule.after > rule.times) return false;
  } else {
    if (!rule.forever && failed.load(std::memory_order_relaxed) >= rule.times) return false;
    std::atomic_ref<uint64_t> next(*draws);
    const uint64_t x = Mix(seed ^ Mix(next.fetch_add(1, std::memory_order_relaxed)));
    if (static_cast<double>(x >> 11) * 0x1.0p-53 >= rule.probability) return false;
  }
  failed.fetch_add(1, std::memory_order_relaxed);
  return true;
}

FaultDecision DecideFault(const FaultRuleSpec* rules, FaultRuleCounters* counters, size_t count,
                          uint8_t op_code, std::string_view path, uint64_t site, uint64_t seed,
                          uint64_t* draws, FaultAnyFilter any_matches) {
  for (size_t i = 0; i < count; ++i) {
    if (DecideFaultRule(rules[i], &counters[i], op_code, path, site, seed, draws, any_matches)) {
      const FaultRuleSpec& rule = rules[i];
      // The counter of acted calls includes this one; concurrent calls may read a later
      // count, which only reorders their draws.
      const uint64_t acted =
          std::atomic_ref<uint64_t>(counters[i].failed).load(std::memory_order_relaxed);
      return FaultDecision{static_cast<int>(i), rule.action, rule.error_number, rule.delay_ms,
                           FaultDamageDraw(seed, i, acted)};
    }
  }
  return FaultDecision{};
}

uint64_t FaultDamageDraw(uint64_t seed, size_t rule, uint64_t acted) {
  return Mix(seed ^ Mix(static_cast<uint64_t>(rule) << 40 ^ acted ^ 0x5157a11c0dea7ULL));
}

void FaultDamagePoint(uint64_t draw, uint64_t length, uint64_t* index, int* bit) {
  *index = (draw >> 3) % length;
  *bit = static_cast<int>(draw & 7U);
}

bool FaultRuleSpent(const FaultRuleSpec& rule, const FaultRuleCounters& counters) {
  // atomic_ref takes no const object; a load does not write.
  std::atomic_ref<uint64_t> failed(const_cast<uint64_t&>(counters.failed));
  return !rule.forever && failed.load(std::memory_order_relaxed) >= rule.times;
}

bool FaultRulesNeedLock(const FaultRuleSpec* rules, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (rules[i].probability < 1.0) return true;
  }
  return false;
}

bool FaultRulesNeedSites(const FaultRuleSpec* rules, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (rules[i].site != kFaultNoSite) return true;
  }
  return false;
}

bool FaultRulesNeedSitesOf(const FaultRuleSpec* rules, size_t count, uint8_t op_code) {
  for (size_t i = 0; i < count; ++i) {
    if (rules[i].site != kFaultNoSite &&
        (rules[i].op_code == kFaultAnyOp || rules[i].op_code == op_code)) {
      return true;
    }
  }
  return false;
}

void FormatFaultSite(uint64_t site, char* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (size_t i = 0; i < kFaultSiteDigits; ++i) {
    out[i] = kHex[(site >> (4 * (kFaultSiteDigits - 1 - i))) & 0xf];
  }
  out[kFaultSiteDigits] = '\0';
}

bool ParseFaultSite(std::string_view text, uint64_t* site) {
  if (text.size() != kFaultSiteDigits) return false;
  uint64_t value = 0;
  for (char c : text) {
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (digit < 0) return false;
    value = value << 4 | static_cast<uint64_t>(digit);
  }
  *site = value;
  return true;
}

FaultLock::FaultLock(uint32_t* word, uint32_t self) : word_(word) {
  std::atomic_ref<uint32_t> lock(*word_);
  const int saved_errno = errno;  // kill() below must not change the caller's errno.
  for (unsigned spins = 0;; ++spins) {
    uint32_t owner = 0;
    if (lock.compare_exchange_weak(owner, self, std::memory_order_acquire)) break;
    if (spins % 64 != 63) continue;
    // The owner died inside a decision (kill -9): take its lock over.
    if (owner != 0 && kill(static_cast<pid_t>(owner), 0) != 0 && errno == ESRCH &&
        lock.compare_exchange_strong(owner, self, std::memory_order_acquire)) {
      break;
    }
    sched_yield();
  }
  errno = saved_errno;
}

FaultLock::~FaultLock() { std::atomic_ref<uint32_t>(*word_).store(0, std::memory_order_release); }

}  // namespace spillway
