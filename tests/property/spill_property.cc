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
    RC_FAIL(fmt::format("[{}] {}", InvariantKindName(v->kind), v->message));
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
  // Fails the property on `v`, unless only another kind fails it.
  auto report = [&config](const Violation& v, std::string_view context) {
    const std::string text =
        fmt::format("[{}] {}{}", InvariantKindName(v.kind), v.message, context);
    if (config.kind.has_value() && v.kind != *config.kind)
      RC_SUCCEED("not the kind sought: " + text);
    RC_FAIL(text);
  };
  SpillModel s = initial;
  for (const RcCommandPtr& command : commands) {
    command->checkPreconditions(s);
    const auto* spill = dynamic_cast<const RcSpillCommand*>(command.get());
    RC_ASSERT(spill != nullptr);
    if (std::optional<Violation> v = spill->command()->Execute(s, sut)) report(*v, "");
    command->apply(s);
  }
  std::string drops;
  if (std::optional<Violation> v = DropEverything(s, sut, &drops)) {
    report(*v, "\nwhile dropping everything at the end:\n" + drops);
  }
}

}  // namespace spillway::model
