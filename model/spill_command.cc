// SpillCommand: a scenario line and the expectations the model predicts after it, run
// against a scenario Runner and checked (Execute). The verbs' transitions are in
// verb_commands.cc.
#include <fmt/format.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spill_model_internal.h"
#include "spillway/model/spill_model.h"

namespace spillway::model {

using ScenarioCommand = scenario::Command;
using scenario::StepResult;

namespace {

// ---------------------------------------------------------------------------------------
// Checking against the runner

// The invariant a printed expectation checks: a plan's metrics ("metrics"), a budget's
// usage ("budget"), the spill directories and files a reap leaves ("reap"), or the line's
// other effects ("expect").
std::string_view InvariantOf(const SpillModel& s, const ScenarioCommand& expect,
                             const ScenarioCommand& after) {
  if (std::holds_alternative<scenario::ExpectSpilled>(expect.verb) ||
      std::holds_alternative<scenario::ExpectSpills>(expect.verb)) {
    return "metrics";
  }
  if (const auto* used = std::get_if<scenario::ExpectUsed>(&expect.verb);
      used != nullptr && BoundBudget(s, used->plan).has_value()) {
    return "budget";
  }
  if (std::holds_alternative<scenario::Reap>(after.verb) &&
      std::holds_alternative<scenario::ExpectCount>(expect.verb)) {
    return "reap";
  }
  return "expect";
}

// Runs an expect line through the runner.
std::optional<Violation> CheckExpect(SpillSut& sut, const ScenarioCommand& expect,
                                     const ScenarioCommand& after, std::string_view invariant) {
  std::string message;
  ++sut.checks;
  const StepResult r = sut.runner->Step(expect, &message);
  if (r == StepResult::kOk) return std::nullopt;
  return Violation{
      r == StepResult::kMalformed ? "malformed" : std::string(invariant),
      fmt::format("after {}: {} does not hold: {}", Quoted(after), Quoted(expect), message)};
}

// The expectations the model prints after a line.
std::vector<ScenarioCommand> Render(const SpillModel& s, const std::string& outcome,
                                    const SpillCommand::Affected& a) {
  std::vector<ScenarioCommand> out;
  if (a.outcome) {
    if (outcome == kOk) {
      out.push_back(Line(scenario::ExpectOk{}));
    } else {
      out.push_back(Line(scenario::ExpectError{outcome}));
    }
  }
  auto bound_plan = [&](int id) -> const ModelPlan* {
    auto it = s.plans.find(id);
    return it != s.plans.end() && it->second.bound ? &it->second : nullptr;
  };
  for (const int id : a.used) {
    if (const ModelPlan* plan = bound_plan(id)) out.push_back(ExpectUsed(plan->name, plan->used));
  }
  for (const int id : a.budgets) {
    auto it = s.budgets.find(id);
    if (it != s.budgets.end() && it->second.bound) {
      out.push_back(ExpectUsed(it->second.name, s.BudgetUsed(id)));
    }
  }
  for (const int id : a.active) {
    if (const ModelPlan* plan = bound_plan(id)) {
      out.push_back(ExpectFiles(plan->name, plan->active));
    }
  }
  for (const std::string& name : a.sizes) {
    if (std::optional<int> id = BoundFile(s, name)) {
      out.push_back(ExpectSize(name, s.files.at(*id).size));
    }
  }
  bool local = false, tmp = false;
  for (const int index : a.local_dirs) {
    out.push_back(ExpectCount(SpillDirsGlob(index), s.SpillDirCount(index)));
    (index == kTmpDir ? tmp : local) = true;
  }
  if (a.file_count && (local || !tmp)) {
    out.push_back(ExpectCount(std::string(kLocalFilesGlob), s.SpillFileCount(false)));
  }
  if (a.file_count && tmp) {
    out.push_back(ExpectCount(std::string(kTmpFilesGlob), s.SpillFileCount(true)));
  }
  for (const int id : a.metrics) {
    if (const ModelPlan* plan = bound_plan(id)) {
      out.push_back(Line(scenario::ExpectSpills{plan->name, plan->spills}));
      out.push_back(Line(scenario::ExpectSpilled{plan->name, plan->spilled}));
    }
  }
  return out;
}

std::string LinesText(const std::vector<ScenarioCommand>& lines) {
  std::string text;
  for (const ScenarioCommand& c : lines) {
    if (!text.empty()) text += '\n';
    text += c.ToString();
  }
  return text;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// SpillCommand

bool SpillCommand::Init(const SpillModel& s0) {
  SpillModel s = s0;
  Affected a;
  const std::optional<std::string> outcome = Transition(s, &a);
  if (!outcome.has_value()) return false;
  expects_ = Render(s, *outcome, a);
  return true;
}

bool SpillCommand::IsValid(const SpillModel& s0) const {
  SpillModel s = s0;
  Affected a;
  const std::optional<std::string> outcome = Transition(s, &a);
  if (!outcome.has_value()) return false;
  const std::vector<ScenarioCommand> expects = Render(s, *outcome, a);
  return LinesText(expects) == LinesText(expects_);
}

std::string SpillCommand::ToText() const {
  std::string text = line_.ToString();
  for (const ScenarioCommand& e : expects_) {
    text += '\n';
    text += e.ToString();
  }
  return text;
}

std::optional<Violation> SpillCommand::Execute(const SpillModel& s0, SpillSut& sut) const {
  std::string message;
  if (sut.runner->Step(line_, &message) != StepResult::kOk) {
    return Violation{"malformed", fmt::format("{}: {}", Quoted(line_), message)};
  }
  SpillModel s1 = s0;
  Apply(s1);
  // A live plan's directories are checked before the line's outcome, so that a reap that
  // removes them is reported as such even when a rule then fails its outcome.
  if (std::optional<Violation> v = CheckLiveDirs(s1, sut)) {
    v->message = fmt::format("after {}: {}", Quoted(line_), v->message);
    return v;
  }
  for (const ScenarioCommand& e : expects_) {
    if (std::optional<Violation> v = CheckExpect(sut, e, line_, InvariantOf(s1, e, line_))) {
      return v;
    }
  }
  if (std::optional<Violation> v = CheckInvariants(s1, sut)) {
    v->message = fmt::format("after {}: {}", Quoted(line_), v->message);
    return v;
  }
  return std::nullopt;
}

void SpillCommand::Apply(SpillModel& s0) const {
  Affected a;
  // Valid in s0 (checked before apply), so the transition is defined.
  if (Transition(s0, &a).has_value()) Collect(s0);
}

}  // namespace spillway::model
