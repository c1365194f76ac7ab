#include "spillway/spill/quirks.h"

#include <array>
#include <ostream>
#include <utility>

namespace spillway {
namespace {

struct QuirkEntry {
  Quirk quirk;
  std::string_view name;
};

// Declaration order, which is also the order ToString() lists them in.
constexpr std::array kQuirkNames = {
    QuirkEntry{Quirk::kWriteLeak, "write_leak"},
    QuirkEntry{Quirk::kNoRollback, "no_rollback"},
    QuirkEntry{Quirk::kCountLeak, "count_leak"},
    QuirkEntry{Quirk::kEagerDirs, "eager_dirs"},
    QuirkEntry{Quirk::kSharedLimit, "shared_limit"},
    QuirkEntry{Quirk::kOuterAccounting, "outer_accounting"},
    QuirkEntry{Quirk::kFailoverLeak, "failover_leak"},
    QuirkEntry{Quirk::kBudgetAfterAdd, "budget_after_add"},
    QuirkEntry{Quirk::kReapIgnoresLocks, "reap_ignores_locks"},
    QuirkEntry{Quirk::kSpilledCountsRefused, "spilled_counts_refused"},
    QuirkEntry{Quirk::kDropIgnoresErrors, "drop_ignores_errors"},
    QuirkEntry{Quirk::kWriteIgnoresErrors, "write_ignores_errors"},
    QuirkEntry{Quirk::kReapIgnoresErrors, "reap_ignores_errors"},
    QuirkEntry{Quirk::kReapSkipsEmpty, "reap_skips_empty"},
    QuirkEntry{Quirk::kReaderSkipsCheck, "reader_skips_check"},
};

}  // namespace

std::string Quirks::ToString() const {
  std::string out;
  for (const QuirkEntry& e : kQuirkNames) {
    if (!Has(e.quirk)) continue;
    if (!out.empty()) out.push_back(',');
    out.append(e.name);
  }
  return out;
}

const std::vector<Quirk>& AllQuirks() {
  static const std::vector<Quirk> kAll = [] {
    std::vector<Quirk> all;
    all.reserve(std::size(kQuirkNames));
    for (const QuirkEntry& e : kQuirkNames) all.push_back(e.quirk);
    return all;
  }();
  return kAll;
}

std::string_view QuirkName(Quirk q) {
  for (const QuirkEntry& e : kQuirkNames) {
    if (e.quirk == q) return e.name;
  }
  return "unknown";
}

std::optional<Quirk> QuirkFromName(std::string_view name) {
  for (const QuirkEntry& e : kQuirkNames) {
    if (e.name == name) return e.quirk;
  }
  return std::nullopt;
}

std::ostream& operator<<(std::ostream& os, Quirk q) { return os << QuirkName(q); }

}  // namespace spillway
