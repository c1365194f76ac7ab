// The shared vocabulary (vocab/): names.h's lists and parsers on an enum of the test's own,
// and the names the reports print, as docs/sweep.md and docs/simulate.md give them.
#include "spillway/vocab/vocab.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "spillway/vocab/names.h"

namespace spillway::vocab {
namespace {

using ::testing::ElementsAre;

enum class Color : uint8_t { kRed, kDarkGreen, kBlue };

constexpr std::string_view ColorName(Color color) {
  switch (color) {
    case Color::kRed:
      return "red";
    case Color::kDarkGreen:
      return "dark_green";
    case Color::kBlue:
      return "blue";
  }
  return {};
}

// The count stops at the first value past the last enumerator; lists are in enum order.
TEST(NamesTest, ListsEveryValueInEnumOrder) {
  EXPECT_EQ(kCountOf<ColorName>, 3u);
  EXPECT_THAT(AllValues<ColorName>(), ElementsAre(Color::kRed, Color::kDarkGreen, Color::kBlue));
  EXPECT_THAT(AllNames<ColorName>(), ElementsAre("red", "dark_green", "blue"));
  EXPECT_EQ(JoinedNames<ColorName>(", "), "red, dark_green, blue");
}

TEST(NamesTest, ParsesExactlyTheNames) {
  EXPECT_EQ(ParseName<ColorName>("red"), Color::kRed);
  EXPECT_EQ(ParseName<ColorName>("dark_green"), Color::kDarkGreen);
  EXPECT_EQ(ParseName<ColorName>("blue"), Color::kBlue);
  EXPECT_EQ(ParseName<ColorName>("Blue"), std::nullopt);
  EXPECT_EQ(ParseName<ColorName>("dark-green"), std::nullopt);
  EXPECT_EQ(ParseName<ColorName>(""), std::nullopt);
  EXPECT_EQ(ParseName<ColorName>("blue "), std::nullopt);
}

// Name functions that break the vocabulary's rules: another spelling, a name given twice.
constexpr std::string_view KebabName(Color color) {
  return color == Color::kRed ? "outer-accounting" : "";
}
constexpr std::string_view TwiceName(Color color) { return color == Color::kBlue ? "" : "red"; }
constexpr std::string_view CamelName(Color color) { return color == Color::kRed ? "Red" : ""; }

TEST(NamesTest, SnakeCaseVocabularyRefusesOtherSpellings) {
  EXPECT_TRUE(IsSnakeCaseVocabulary<ColorName>());
  EXPECT_FALSE(IsSnakeCaseVocabulary<KebabName>());
  EXPECT_FALSE(IsSnakeCaseVocabulary<TwiceName>());
  EXPECT_FALSE(IsSnakeCaseVocabulary<CamelName>());
}

// The names both sweeps and simulate print (docs/sweep.md, docs/simulate.md).
TEST(VocabTest, NamesAreThoseTheReportsPrint) {
  EXPECT_THAT(AllNames<FsKindName>(), ElementsAre("mem", "posix"));
  EXPECT_THAT(AllNames<FaultModeName>(),
              ElementsAre("transient", "persistent", "kill", "corrupt", "lost"));
  EXPECT_THAT(AllNames<VerdictName>(),
              ElementsAre("clean_error", "tolerated", "silent_wrong_output", "leak", "crash",
                          "hang", "diverged", "orphan", "reclaimed", "restart_failed"));
  EXPECT_THAT(AllNames<CheckName>(),
              ElementsAre("false_success", "unreported_fault", "unexplained_error",
                          "limit_not_enforced", "accounting", "lazy_plan", "leftover",
                          "fault_missed", "runner", "metrics", "reap", "undetected_damage"));
  EXPECT_EQ(InvariantKindName(InvariantKind::kOuterAccounting), "outer_accounting");
  EXPECT_EQ(InvariantKindName(InvariantKind::kAccountingAfterDrops), "accounting_after_drops");
  EXPECT_EQ(InvariantKindName(InvariantKind::kUndetectedDamage), "undetected_damage");
  EXPECT_EQ(kCountOf<InvariantKindName>, 19u);
}

// Only what a program got wrong fails a sweep: not a clean error, not tolerating the fault,
// not a run whose planned call never came.
TEST(VocabTest, ViolationsAreTheVerdictsThatFailASweep) {
  for (Verdict verdict : AllValues<VerdictName>()) {
    const bool expected = verdict == Verdict::kSilentWrongOutput || verdict == Verdict::kLeak ||
                          verdict == Verdict::kCrash || verdict == Verdict::kHang ||
                          verdict == Verdict::kOrphan || verdict == Verdict::kRestartFailed;
    EXPECT_EQ(IsViolation(verdict), expected) << VerdictName(verdict);
  }
}

}  // namespace
}  // namespace spillway::vocab
