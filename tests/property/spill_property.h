// The RapidCheck glue around the spill model (spillway/model/spill_model.h): a model
// command as an rc::state::Command, the command generator with RapidCheck's choices, and
// the property that a generated program shows no violation.
//
// Thread safety: single-threaded, like RapidCheck itself.
#ifndef SPILLWAY_TESTS_PROPERTY_SPILL_PROPERTY_H_
#define SPILLWAY_TESTS_PROPERTY_SPILL_PROPERTY_H_

#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include <memory>
#include <optional>
#include <ostream>

#include "spillway/model/spill_model.h"
#include "spillway/scenario/scenario.h"

namespace spillway::model {

// A model command as RapidCheck's state command. checkPreconditions discards (RC_PRE)
// unless the command IsValid in s0, so a command whose predicted expectations changed
// while shrinking is regenerated; run() fails the property (RC_FAIL) on a violation;
// show() prints the command's scenario text.
class RcSpillCommand final : public rc::state::Command<SpillModel, SpillSut> {
 public:
  explicit RcSpillCommand(CommandPtr command) : command_(std::move(command)) {}

  const CommandPtr& command() const { return command_; }

  void checkPreconditions(const SpillModel& s0) const override;
  void apply(SpillModel& s0) const override;
  void run(const SpillModel& s0, SpillSut& sut) const override;
  void show(std::ostream& os) const override;

 private:
  CommandPtr command_;
};

using RcCommandPtr = std::shared_ptr<const rc::state::Command<SpillModel, SpillSut>>;

// GenerateCommand as a RapidCheck generator (for rc::state::gen::commands): choices are
// drawn with rc::gen::inRange, so they shrink toward the simplest command.
rc::Gen<RcCommandPtr> CommandGen(const SpillModel& s0, const GenOptions& options);

// The property: a generated program, run on a fresh runner with the given options, shows
// no violation (RC_FAIL otherwise). For RC_GTEST_PROP-style tests and rc::check.
struct PropertyConfig {
  scenario::RunnerOptions runner;
  GenOptions gen;
  // When set, only a violation of this kind fails the property: a program whose first
  // violation is of another kind passes (the run stops there), so shrinking keeps the
  // kind.
  std::optional<InvariantKind> kind;
};
void SpillProgramProperty(const PropertyConfig& config);

}  // namespace spillway::model

#endif  // SPILLWAY_TESTS_PROPERTY_SPILL_PROPERTY_H_
