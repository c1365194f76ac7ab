// SpillLedger (the CAS-checked counters behind a manager's limit and a budget's) and
// SpillBudget.
#include "spillway/spill/spill_budget.h"

#include <fmt/format.h>

#include <cassert>
#include <utility>

#include "spill_internal.h"
#include "spillway/spill/spill_status.h"
#include "upstream_text.h"

namespace spillway {
namespace internal {

std::optional<uint64_t> SpillLedger::TryReserve(uint64_t bytes) {
  uint64_t used = used_.load();
  while (true) {
    const uint64_t limit = limit_.load();
    // used + bytes > limit, written so that it cannot overflow.
    if (used > limit || bytes > limit - used) return std::nullopt;
    if (auto* window = reserve_window_for_testing.load(std::memory_order_relaxed)) window();
    // On failure compare_exchange_weak reloads `used`, and the check runs again.
    if (used_.compare_exchange_weak(used, used + bytes)) return used + bytes;
  }
}

uint64_t SpillLedger::Add(uint64_t bytes) {
  const uint64_t after = used_.fetch_add(bytes) + bytes;
  RaisePeak(after);
  return after;
}

void SpillLedger::Release(uint64_t bytes) {
  [[maybe_unused]] const uint64_t before = used_.fetch_sub(bytes);
  assert(before >= bytes);
}

void SpillLedger::RaisePeak(uint64_t used) {
  uint64_t peak = peak_.load(std::memory_order_relaxed);
  while (peak < used && !peak_.compare_exchange_weak(peak, used, std::memory_order_relaxed)) {
  }
}

SpillMetrics SpillLedger::metrics() const {
  return SpillMetrics{spills_.load(std::memory_order_relaxed),
                      spilled_.load(std::memory_order_relaxed),
                      peak_.load(std::memory_order_relaxed)};
}

}  // namespace internal

std::shared_ptr<SpillBudget> NewSpillBudget(uint64_t limit, std::string limit_config_key) {
  // Not make_shared: the constructor is private. A budget is made once per executor.
  return std::shared_ptr<SpillBudget>(new SpillBudget(limit, std::move(limit_config_key)));
}

SpillBudget::SpillBudget(uint64_t limit, std::string limit_config_key)
    : state_(std::make_unique<State>(limit, std::move(limit_config_key))) {}

SpillBudget::~SpillBudget() = default;

void SpillBudget::SetLimit(uint64_t bytes) { state_->ledger.set_limit(bytes); }
uint64_t SpillBudget::limit() const { return state_->ledger.limit(); }
uint64_t SpillBudget::used() const { return state_->ledger.used(); }
const std::string& SpillBudget::limit_config_key() const {
  return state_->ledger.limit_config_key();
}
SpillMetrics SpillBudget::metrics() const { return state_->ledger.metrics(); }

Status SpillBudget::LimitError() const {
  // Not an upstream text (upstream has no budget); worded like the plan's so that a user
  // sees which limit refused the write and which key raises it.
  return LimitExceededError(fmt::format(
      "The used disk space of the executor's spill budget has exceeded its limit of {}. "
      "Please try increasing the config: `{}`.",
      internal::HumanReadableSize(state_->ledger.limit()), state_->ledger.limit_config_key()));
}

}  // namespace spillway
