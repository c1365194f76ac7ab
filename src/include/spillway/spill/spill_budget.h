// SpillBudget: an executor-wide cap on the spill bytes of every plan that names it, on top
// of each plan's own limit (beyond upstream: Comet gives every plan its own limit, so N
// concurrent plans may spill N times the configured size).
//
// A write must fit both its plan's limit and the budget. The two are reserved atomically
// with compare-and-swap, the plan's first; if the budget refuses, the plan's reservation
// is rolled back, so a refused write changes neither. The error is a limit error
// (IsLimitExceeded) naming the budget's limit and its configuration key. Plans that never
// spill never touch the budget; plans that spill share only its atomic counters, no lock.
//
// A budget is shared through a shared_ptr: every manager built with it (and every file
// they made) holds it, so it outlives the code that created it while plans still use it.
//
// Thread safety: every method may be called concurrently.
#ifndef SPILLWAY_SPILL_SPILL_BUDGET_H_
#define SPILLWAY_SPILL_SPILL_BUDGET_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "spillway/vfs/status.h"

namespace spillway {

// The configuration key a budget's limit error names unless the caller names another.
inline constexpr std::string_view kExecutorBudgetKey = "spillway.executor.maxSpillSize";

// What a manager or a budget has spilled (as upstream operators report spill metrics).
struct SpillMetrics {
  uint64_t spills = 0;   // Spill files created.
  uint64_t spilled = 0;  // Bytes that reached spill files (short writes included); never goes down.
  uint64_t peak = 0;     // The highest used_disk_space seen.

  friend bool operator==(const SpillMetrics&, const SpillMetrics&) = default;
};

class SpillBudget;

// A budget of `limit` bytes whose limit error names `limit_config_key`.
std::shared_ptr<SpillBudget> NewSpillBudget(
    uint64_t limit, std::string limit_config_key = std::string(kExecutorBudgetKey));

// Made only by NewSpillBudget.
class SpillBudget final {
 public:
  SpillBudget(const SpillBudget&) = delete;
  SpillBudget& operator=(const SpillBudget&) = delete;

  // Changes the limit while plans write; later writes are checked against it, bytes
  // already written stay (usage may stay above a lowered limit until files are dropped).
  void SetLimit(uint64_t bytes);
  uint64_t limit() const;
  // The bytes of every live spill file of the plans that use this budget.
  uint64_t used() const;
  const std::string& limit_config_key() const;
  // Summed over the plans that use this budget.
  SpillMetrics metrics() const;

  // The limit error this budget returns: LimitExceededError naming the budget, its limit
  // and its key.
  Status LimitError() const;

  ~SpillBudget();

  // The budget's counters, and how the spill library's accounting reaches them. Both are
  // defined in the spill library's sources (not installed): to everyone else they are
  // incomplete types, of no use.
  struct State;
  struct Access;

 private:
  friend std::shared_ptr<SpillBudget> NewSpillBudget(uint64_t limit, std::string limit_config_key);
  SpillBudget(uint64_t limit, std::string limit_config_key);

  const std::unique_ptr<State> state_;  // Never null.
};

}  // namespace spillway

#endif  // SPILLWAY_SPILL_SPILL_BUDGET_H_
