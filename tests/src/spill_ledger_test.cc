// SpillLedger, the counter under every plan's limit and every budget: a reservation is
// checked and added as one step, so two that each fit alone never both land.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

#include "spill_internal.h"

namespace spillway::internal {
namespace {

// The window hook is a plain function pointer: the test's state lives here.
SpillLedger* g_ledger = nullptr;
int g_window_calls = 0;
std::optional<uint64_t> g_inner;

// The first time a reservation has passed its check, another one of 10 bytes lands
// before it adds (on the same thread, so the interleaving is the same every run).
void LandAnotherReservation() {
  if (++g_window_calls == 1) g_inner = g_ledger->TryReserve(10);
}

TEST(SpillLedgerTest, AReservationThatAnotherOvertookAfterItsCheckIsCheckedAgain) {
  SpillLedger ledger(10, "key");
  g_ledger = &ledger;
  SpillLedger::reserve_window_for_testing.store(&LandAnotherReservation);
  const std::optional<uint64_t> outer = ledger.TryReserve(10);
  SpillLedger::reserve_window_for_testing.store(nullptr);

  EXPECT_GE(g_window_calls, 2);  // The window was reached, by both reservations.
  EXPECT_EQ(g_inner, std::optional<uint64_t>(10));
  EXPECT_EQ(outer, std::nullopt) << "both fit alone; only the first to add may land";
  EXPECT_EQ(ledger.used(), 10u);
}

}  // namespace
}  // namespace spillway::internal
