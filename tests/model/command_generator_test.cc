// The command generator (GenerateCommand) over the model alone: which lines it draws in
// a given state, and that a long seeded run keeps drawing `crash`.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <variant>

#include "spillway/model/spill_model.h"
#include "spillway/scenario/scenario.h"
#include "spillway/vfs/fault_injecting_file_system.h"
#include "support/simulate_gen_options.h"

namespace spillway::model {
namespace {

// Applies the scenario line `text` to `s`. REQUIRES: it is valid there.
void ApplyLine(const std::string& text, SpillModel& s) {
  std::variant<scenario::Scenario, scenario::ParseError> parsed = scenario::Parse(text, "test");
  ASSERT_TRUE(std::holds_alternative<scenario::Scenario>(parsed)) << text;
  const CommandPtr command = MakeCommand(std::get<scenario::Scenario>(parsed).commands.at(0), s);
  ASSERT_NE(command, nullptr) << text << " is not valid in the state";
  command->Apply(s);
}

// While a rule is due for one of a reap's calls (rmdir here), no second rule for that
// call is drawn; rules for the other calls still are.
TEST(CommandGeneratorTest, DrawsNoSecondRuleForAReapsCallWhileOneIsDue) {
  SpillModel s = InitialState(scenario::FsKind::kMem);
  ApplyLine("fault rmdir EIO", s);
  GenOptions options = SimulateDefaults();
  options.fault_weight = 100;  // Mostly faults.
  RandomChooser chooser(1);
  std::map<OpKind, int> faults;
  for (int i = 0; i < 2000; ++i) {
    const CommandPtr command = GenerateCommand(s, options, chooser);
    if (command == nullptr) continue;
    if (const auto* fault = std::get_if<scenario::Fault>(&command->line().verb)) {
      ++faults[fault->rule.op.value()];
    }
  }
  EXPECT_EQ(faults.count(OpKind::kRmdir), 0u);
  EXPECT_GT(faults[OpKind::kList], 0);
  EXPECT_GT(faults[OpKind::kRemove], 0);
  EXPECT_GT(faults[OpKind::kMkdir], 0);
}

// Rules for rmdir are drawn about as often as rmdirs are made; were they to pile up, a
// crash (drawn only while no rule for a reap's calls is due) would stop being drawn a few
// thousand steps into a run. The second half of a long run still crashes.
TEST(CommandGeneratorTest, KeepsDrawingCrashInALongRun) {
  constexpr int kSteps = 40000;
  SpillModel s = InitialState(scenario::FsKind::kMem);
  const GenOptions options = SimulateDefaults();
  RandomChooser chooser(1);
  int crashes_first_half = 0;
  int crashes_second_half = 0;
  for (int step = 0; step < kSteps; ++step) {
    const CommandPtr command = GenerateCommand(s, options, chooser);
    if (command == nullptr) continue;
    if (std::holds_alternative<scenario::Crash>(command->line().verb)) {
      ++(step < kSteps / 2 ? crashes_first_half : crashes_second_half);
    }
    command->Apply(s);
  }
  EXPECT_GT(crashes_first_half, 0);
  EXPECT_GT(crashes_second_half, 0);
}

}  // namespace
}  // namespace spillway::model
