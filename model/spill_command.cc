// SpillCommand: a scenario line and the expectations the model predicts after it, run
// against a scenario Runner and checked (Execute). The verbs' transitions are in
// verb_commands.cc.
#include <fmt/format.h>

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "spill_model_internal.h"
#include "spillway/model/spill_model.h"

namespace spillway::model {

using ScenarioCommand = scenario::Command;
using scenario::StepResult;

namespace {

// ---------------------------------------------------------------------------------------
// Checking against the runner

// Runs an expect line, which checks an invariant of kind `kind`, through the runner.
std::optional<Violation> CheckExpect(SpillSut& sut, const ScenarioCommand& expect,
                                     InvariantKind kind, const ScenarioCommand& after) {
  std::string message;
  ++sut.checks;
  const StepResult r = sut.runner->Step(expect, &message);
  if (r == StepResult::kOk) return std::nullopt;
  return Violation{
      r == StepResult::kMalformed ? InvariantKind::kMalformed : kind,
      fmt::format("after {}: {} does not hold: {}", Quoted(after), Quoted(expect), message)};
}

// The expectations the model prints after a line, and the invariant each checks.
struct Rendered {
  std::vector<ScenarioCommand> lines;
  std::vector<InvariantKind> kinds;

  void Add(ScenarioCommand line, InvariantKind kind) {
    lines.push_back(std::move(line));
    kinds.push_back(kind);
  }
};

Rendered Render(const SpillModel& s, const std::string& outcome, const SpillCommand::Affected& a) {
  Rendered out;
  if (a.outcome) {
    if (outcome == kOk) {
      out.Add(Line(scenario::ExpectOk{}), InvariantKind::kOutcome);
    } else {
      // A read the model knows damaged must say so: its ok is damage gone unnoticed.
      out.Add(Line(scenario::ExpectError{outcome}),
              outcome == kDataLoss ? InvariantKind::kUndetectedDamage : InvariantKind::kOutcome);
    }
  }
  auto bound_plan = [&](int id) -> const ModelPlan* {
    auto it = s.plans.find(id);
    return it != s.plans.end() && it->second.bound ? &it->second : nullptr;
  };
  for (const int id : a.used) {
    if (const ModelPlan* plan = bound_plan(id)) {
      out.Add(ExpectUsed(plan->name, plan->used), InvariantKind::kUsage);
    }
  }
  for (const int id : a.budgets) {
    // A budget is read while it lives, dropped or not (`expect used` reads a dropped
    // budget that its plans keep alive).
    auto it = s.budgets.find(id);
    if (it != s.budgets.end()) {
      out.Add(ExpectUsed(it->second.name, s.BudgetUsed(id)), InvariantKind::kBudget);
    }
  }
  for (const int id : a.active) {
    if (const ModelPlan* plan = bound_plan(id)) {
      out.Add(ExpectFiles(plan->name, plan->active), InvariantKind::kActiveFileCount);
    }
  }
  for (const std::string& name : a.sizes) {
    if (std::optional<int> id = BoundFile(s, name)) {
      out.Add(ExpectSize(name, s.files.at(*id).size), InvariantKind::kFileSize);
    }
  }
  bool local = false, tmp = false;
  for (const int index : a.local_dirs) {
    out.Add(ExpectCount(SpillDirsGlob(index), s.SpillDirCount(index)), InvariantKind::kSpillDirs);
    (index == kTmpDir ? tmp : local) = true;
  }
  if (a.file_count && (local || !tmp)) {
    out.Add(ExpectCount(std::string(kLocalFilesGlob), s.SpillFileCount(false)),
            InvariantKind::kSpillFiles);
  }
  if (a.file_count && tmp) {
    out.Add(ExpectCount(std::string(kTmpFilesGlob), s.SpillFileCount(true)),
            InvariantKind::kSpillFiles);
  }
  for (const int id : a.metrics) {
    if (const ModelPlan* plan = bound_plan(id)) {
      out.Add(Line(scenario::ExpectSpills{plan->name, plan->spills}), InvariantKind::kMetrics);
      out.Add(Line(scenario::ExpectSpilled{plan->name, plan->spilled}), InvariantKind::kMetrics);
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
  Rendered rendered = Render(s, *outcome, a);
  reaps_ = a.reaps;
  if (reaps_) {
    // What a reap leaves is the reap's invariant: it never removes a live plan's entries.
    for (InvariantKind& kind : rendered.kinds) {
      if (kind == InvariantKind::kSpillDirs || kind == InvariantKind::kSpillFiles) {
        kind = InvariantKind::kReap;
      }
    }
  }
  expects_ = std::move(rendered.lines);
  expect_kinds_ = std::move(rendered.kinds);
  return true;
}

bool SpillCommand::IsValid(const SpillModel& s0) const {
  SpillModel s = s0;
  Affected a;
  const std::optional<std::string> outcome = Transition(s, &a);
  if (!outcome.has_value()) return false;
  return LinesText(Render(s, *outcome, a).lines) == LinesText(expects_);
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
  const uint64_t calls_before = sut.runner->fs().total_calls();
  const size_t faults_before = sut.runner->fs().injected().size();
  const uint64_t log_before = sut.runner->cleanup_log()->failure_count();
  if (sut.runner->Step(line_, &message) != StepResult::kOk) {
    return Violation{InvariantKind::kMalformed, fmt::format("{}: {}", Quoted(line_), message)};
  }
  SpillModel s1 = s0;
  Apply(s1);
  if (std::optional<Violation> v = CheckDefectInvariants(s1, line_, calls_before, sut)) {
    v->message = fmt::format("after {}: {}", Quoted(line_), v->message);
    return v;
  }
  // After a reap, the live plans' directories are checked before its outcome, so that a
  // reap that removes them is reported as such even when a rule then fails its outcome.
  if (reaps_) {
    if (std::optional<Violation> v = CheckLiveDirs(s1, sut)) {
      v->message = fmt::format("after {}: {}", Quoted(line_), v->message);
      return v;
    }
  }
  for (size_t i = 0; i < expects_.size(); ++i) {
    if (std::optional<Violation> v = CheckExpect(sut, expects_[i], expect_kinds_[i], line_)) {
      return v;
    }
  }
  std::optional<Violation> v = CheckInvariants(s1, sut);
  if (!v && std::holds_alternative<scenario::Drop>(line_.verb)) {
    v = CheckDropReported(faults_before, log_before, sut);
  }
  if (v) v->message = fmt::format("after {}: {}", Quoted(line_), v->message);
  return v;
}

void SpillCommand::Apply(SpillModel& s0) const {
  Affected a;
  // Valid in s0 (checked before apply), so the transition is defined.
  if (Transition(s0, &a).has_value()) Collect(s0);
}

}  // namespace spillway::model
