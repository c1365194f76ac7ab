#include "spill_property.h"

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace spillway::model {
namespace {

// Draws choices with RapidCheck, inside rc::gen::exec.
class RcChooser final : public Chooser {
 public:
  uint64_t Pick(uint64_t n) override { return *rc::gen::inRange<uint64_t>(0, n); }
};

}  // namespace

void RcSpillCommand::checkPreconditions(const SpillModel& s0) const {
  RC_PRE(command_->IsValid(s0));
}

void RcSpillCommand::apply(SpillModel& s0) const { command_->Apply(s0); }

void RcSpillCommand::run(const SpillModel& s0, SpillSut& sut) const {
  if (std::optional<Violation> v = command_->Execute(s0, sut)) {
    RC_FAIL(fmt::format("[{}] {}", v->invariant, v->message));
  }
}

void RcSpillCommand::show(std::ostream& os) const { os << command_->ToText(); }

rc::Gen<RcCommandPtr> CommandGen(const SpillModel& s0, const GenOptions& options) {
  return rc::gen::exec([s0, options]() -> RcCommandPtr {
    RcChooser chooser;
    CommandPtr command = GenerateCommand(s0, options, chooser);
    // Those choices gave no valid command: try others.
    if (command == nullptr) RC_DISCARD("no valid command for these choices");
    return std::make_shared<RcSpillCommand>(std::move(command));
  });
}

void SpillProgramProperty(const PropertyConfig& config) {
  const GenOptions gen = config.gen;
  const SpillModel initial = InitialState(config.runner.fs);
  const auto commands =
      *rc::state::gen::commands(initial, [gen](const SpillModel& s) { return CommandGen(s, gen); });
  StatusOr<std::unique_ptr<scenario::Runner>> runner = scenario::Runner::Create(config.runner);
  RC_ASSERT(runner.ok());
  SpillSut sut{runner->get()};
  SpillModel s = initial;
  for (const RcCommandPtr& command : commands) {
    command->checkPreconditions(s);
    command->run(s, sut);
    command->apply(s);
  }
  std::string drops;
  if (std::optional<Violation> v = DropEverything(s, sut, &drops)) {
    RC_FAIL(fmt::format("[{}] {}\nwhile dropping everything at the end:\n{}", v->invariant,
                        v->message, drops));
  }
}

}  // namespace spillway::model
