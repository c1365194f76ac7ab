// SpillAccounting: the counters a DiskManager and every file it made share, checked
// against the manager's limit and its budget's (spill_internal.h).
#include <cassert>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "spill_internal.h"
#include "spillway/spill/spill_status.h"
#include "upstream_text.h"

namespace spillway::internal {

SpillAccounting::SpillAccounting(uint64_t limit, std::string limit_config_key, Quirks quirks,
                                 std::shared_ptr<CleanupLog> cleanup_log,
                                 std::shared_ptr<SpillBudget> budget, bool frame_spill_files)
    : ledger_(limit, std::move(limit_config_key)),
      quirks_(quirks),
      cleanup_log_(std::move(cleanup_log)),
      removal_log_(quirks.Has(Quirk::kDropIgnoresErrors) ? std::make_shared<CleanupLog>()
                                                         : cleanup_log_),
      budget_(std::move(budget)),
      budget_ledger_(budget_ != nullptr ? &SpillBudget::Access::Ledger(*budget_) : nullptr),
      frame_spill_files_(frame_spill_files) {
  assert(cleanup_log_ != nullptr);
}

Status SpillAccounting::Reserve(uint64_t bytes) {
  const std::optional<uint64_t> used = ledger_.TryReserve(bytes);
  if (!used.has_value()) {
    if (quirks_.Has(Quirk::kSpilledCountsRefused)) CountSpilled(bytes);
    return LimitError();
  }
  if (budget_ != nullptr && quirks_.Has(Quirk::kBudgetAfterAdd)) {
    // Charged first, checked after; a refusal gives the plan its bytes back, not the budget.
    if (budget_ledger_->Add(bytes) > budget_ledger_->limit()) {
      ledger_.Release(bytes);
      return budget_->LimitError();
    }
  } else if (budget_ != nullptr) {
    const std::optional<uint64_t> budget_used = budget_ledger_->TryReserve(bytes);
    if (!budget_used.has_value()) {
      ledger_.Release(bytes);  // The budget refused: the write counts in neither.
      return budget_->LimitError();
    }
    budget_ledger_->RaisePeak(*budget_used);
  }
  // Peaks are raised only for reservations that stand. Under concurrent writers a total
  // may include another writer's reservation that is then rolled back, so a peak is exact
  // for sequential writes and an upper bound within one in-flight write otherwise.
  ledger_.RaisePeak(*used);
  return OkStatus();
}

Status SpillAccounting::AddThenCheck(uint64_t bytes) {
  const bool over_plan = ledger_.Add(bytes) > ledger_.limit();
  const bool over_budget =
      budget_ != nullptr && budget_ledger_->Add(bytes) > budget_ledger_->limit();
  if (over_plan) return LimitError();
  return over_budget ? budget_->LimitError() : OkStatus();
}

void SpillAccounting::Add(uint64_t bytes) {
  ledger_.Add(bytes);
  if (budget_ != nullptr) budget_ledger_->Add(bytes);
}

void SpillAccounting::Release(uint64_t bytes) {
  ledger_.Release(bytes);
  if (budget_ != nullptr) budget_ledger_->Release(bytes);
}

void SpillAccounting::CountSpill() {
  ledger_.CountSpill();
  if (budget_ != nullptr) budget_ledger_->CountSpill();
}

void SpillAccounting::CountSpilled(uint64_t bytes) {
  if (bytes == 0) return;
  ledger_.CountSpilled(bytes);
  if (budget_ != nullptr) budget_ledger_->CountSpilled(bytes);
}

Status SpillAccounting::LimitError() const {
  return LimitExceededError(LimitExceededMessage(ledger_.limit(), ledger_.limit_config_key()));
}

}  // namespace spillway::internal
