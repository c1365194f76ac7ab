#include "verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <csignal>
#include <optional>

#include "trace_reader.h"

namespace spillway::program_sweep {
namespace {

constexpr size_t kMinRandomRun = 6;

std::string CollapseDigits(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    const bool digit = std::isdigit(static_cast<unsigned char>(name[i])) != 0;
    if (digit && i > 0 && std::isdigit(static_cast<unsigned char>(name[i - 1])) != 0) continue;
    out += digit ? '0' : name[i];
  }
  return out;
}

bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// Equal up to numbers (a pid, a counter) or up to one random run of letters and digits (at
// least kMinRandomRun long, as mkstemp's XXXXXX): every difference lies inside one maximal
// run of letters and digits of that length.
bool SameNamePattern(std::string_view a, std::string_view b) {
  if (a == b || CollapseDigits(a) == CollapseDigits(b)) return true;
  if (a.size() != b.size()) return false;
  size_t run_start = std::string_view::npos;  // The run holding the first difference.
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i]) continue;
    if (!IsAlnum(a[i]) || !IsAlnum(b[i])) return false;
    size_t start = i;
    while (start > 0 && IsAlnum(a[start - 1])) --start;
    if (run_start != std::string_view::npos && run_start != start) return false;
    run_start = start;
  }
  size_t end = run_start;
  while (end < a.size() && IsAlnum(a[end])) ++end;
  return end - run_start >= kMinRandomRun;
}

bool Contains(const std::vector<Verdict>& verdicts, Verdict v) {
  return std::find(verdicts.begin(), verdicts.end(), v) != verdicts.end();
}

bool AnyLeak(const std::vector<SweepLeftover>& leftovers) {
  return std::any_of(leftovers.begin(), leftovers.end(),
                     [](const SweepLeftover& l) { return l.kind == SweepLeftover::Kind::kLeak; });
}

// Sets *exit_code or *signal from a launcher exit status (neither after a timeout).
void SetEnding(const InjectOutcome& outcome, std::optional<int>* exit_code,
               std::optional<int>* signal) {
  if (outcome.timed_out) return;
  if (outcome.status > 128 && outcome.status <= 128 + 64) {
    *signal = outcome.status - 128;
  } else {
    *exit_code = outcome.status;
  }
}

// The first fault that damaged data (a corrupt or lost rule's), if any.
std::optional<inject::ProgramFault> DamageOf(const std::vector<inject::ProgramFault>& faults) {
  for (const inject::ProgramFault& fault : faults) {
    if (fault.action == FaultActionName(FaultAction::kCorrupt) ||
        fault.action == FaultActionName(FaultAction::kLost)) {
      return fault;
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::string_view> PathComponents(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= path.size()) {
    const size_t slash = std::min(path.find('/', start), path.size());
    parts.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

bool SamePathPattern(std::string_view a, std::string_view b) {
  const std::vector<std::string_view> left = PathComponents(a);
  const std::vector<std::string_view> right = PathComponents(b);
  if (left.size() != right.size()) return false;
  for (size_t i = 0; i < left.size(); ++i) {
    if (!SameNamePattern(left[i], right[i])) return false;
  }
  return true;
}

std::string ShowPath(const std::string& path, const std::string& scope, bool with_dir) {
  if (!with_dir || path.compare(0, scope.size(), scope) != 0) return path;
  if (path.size() != scope.size() && path[scope.size()] != '/') return path;
  return std::string(kDirWord) + path.substr(scope.size());
}

void ShowPaths(InjectOutcome* outcome, const std::string& scope, bool with_dir) {
  for (SweepLeftover& left : outcome->leftovers) left.path = ShowPath(left.path, scope, with_dir);
  for (inject::ProgramFault& fault : outcome->faults)
    fault.path = ShowPath(fault.path, scope, with_dir);
  if (!with_dir) return;
  std::string& text = outcome->program_stdout;
  for (size_t at = text.find(scope); at != std::string::npos;
       at = text.find(scope, at + kDirWord.size())) {
    text.replace(at, scope.size(), kDirWord);
  }
}

void ClassifyLeftovers(const std::vector<SweepLeftover>& baseline,
                       const std::vector<inject::ProgramFault>& faults,
                       std::vector<SweepLeftover>* leftovers) {
  std::vector<bool> used(baseline.size(), false);
  for (SweepLeftover& left : *leftovers) {
    left.kind = SweepLeftover::Kind::kLeak;
    for (size_t i = 0; i < baseline.size(); ++i) {
      if (!used[i] && SamePathPattern(baseline[i].path, left.path)) {
        used[i] = true;
        left.kind = SweepLeftover::Kind::kBaseline;
        break;
      }
    }
    if (left.kind != SweepLeftover::Kind::kLeak) continue;
    for (const inject::ProgramFault& fault : faults) {
      const bool removal = fault.op == "remove" || fault.op == "rmdir";
      const bool inside = fault.path == left.path ||
                          fault.path.compare(0, left.path.size() + 1, left.path + "/") == 0;
      if (removal && inside) left.kind = SweepLeftover::Kind::kLeftByFault;
    }
  }
}

bool ReportsError(const std::regex* pattern, const std::string& out, const std::string& err) {
  return pattern != nullptr &&
         (std::regex_search(out, *pattern) || std::regex_search(err, *pattern));
}

namespace {

// An untraced run by call number: its rule fails the op's call after+1, and the record of
// its first fault (the lowest call number; with `times=forever` later calls fail too) says
// which of the run's in-scope calls that was, numbered as the baseline's call n was (its
// `seq`). Without a record, the rule's counter says how many calls of the op came.
std::string UntracedDivergenceByNumber(const RunSpec& spec, const InjectOutcome& outcome) {
  const inject::ProgramFault* first = nullptr;
  for (const inject::ProgramFault& fault : outcome.faults) {
    if (first == nullptr || fault.seq < first->seq) first = &fault;
  }
  const std::string& op = spec.call.op;
  if (first == nullptr) {
    const uint64_t came = outcome.rules.empty() ? 0 : outcome.rules.front().matched;
    if (came > spec.after) {  // It came, and the rule fired, but nothing was done to it.
      return fmt::format("call {} was not failed: the run's {} call {} came and was let through",
                         spec.n, op, spec.after + 1);
    }
    return fmt::format("the run made only {} {} calls; call {} was to be its {} call {}", came, op,
                       spec.n, op, spec.after + 1);
  }
  if (first->seq != spec.call.seq) {
    return fmt::format(
        "call {} was not failed: the run's {} call {} was its in-scope call {}, not {}", spec.n, op,
        spec.after + 1, first->seq, spec.call.seq);
  }
  if (SamePathPattern(first->path, spec.call.path)) return {};
  return fmt::format("call {} was {} {}", spec.n, first->op, first->path);
}

}  // namespace

// Empty when the run's call n is the baseline's call n and was the one failed (by site:
// when the site's nth call came and was failed); otherwise what happened instead. An
// untraced run by site is judged by its rule's counters: the calls of the site it counted
// and whether it failed one (the first it fails is the site's nth); one by number by its
// fault records.
std::string Divergence(const JudgeInput& input) {
  const RunSpec& spec = *input.spec;
  if (spec.by_site && input.outcome->trace.empty()) {
    const inject::RuleCount counted =
        input.outcome->rules.empty() ? inject::RuleCount{} : input.outcome->rules.front();
    if (counted.failed > 0) return {};
    if (counted.matched >= spec.nth) {
      return fmt::format("call {} of site {} was not failed", spec.nth, spec.site);
    }
    return fmt::format("site {} made only {} {} calls", spec.site, counted.matched, spec.call.op);
  }
  if (input.outcome->trace.empty()) return UntracedDivergenceByNumber(spec, *input.outcome);
  TraceReader trace(input.outcome->trace, 0, input.scope, input.with_dir, nullptr);
  TracedCall call;
  uint64_t n = 0;
  if (spec.by_site) {
    uint64_t nth = 0;
    while (trace.Next(&call)) {
      if (call.site != spec.site || call.op != spec.call.op || ++nth < spec.nth) continue;
      if (call.injected) return {};
      return fmt::format("call {} of site {} was not failed", spec.nth, spec.site);
    }
    return fmt::format("site {} made only {} {} calls", spec.site, nth, spec.call.op);
  }
  while (n < spec.n && trace.Next(&call)) ++n;
  if (n < spec.n) return fmt::format("the run made only {} in-scope calls", n);
  if (call.op == spec.call.op && call.injected && SamePathPattern(call.path, spec.call.path)) {
    return {};
  }
  return fmt::format("call {} was {} {} {}{}", spec.n, call.op, call.call, call.path,
                     call.injected ? "" : " (not failed)");
}

void Judge(const JudgeInput& input, RunResult* result) {
  const InjectOutcome& outcome = *input.outcome;
  result->leftovers = outcome.leftovers;
  const bool hung = outcome.timed_out;
  SetEnding(outcome, &result->exit_code, &result->signal);
  if (input.spec != nullptr) result->diverged_at = Divergence(input);
  result->reported_error =
      outcome.status == 0 && !input.baseline_reported_error &&
      ReportsError(input.error_pattern, outcome.program_stdout, outcome.program_stderr);
  std::vector<Verdict>& verdicts = result->verdicts;
  if (!result->diverged_at.empty()) {
    verdicts.push_back(Verdict::kDiverged);
    return;
  }
  if (input.spec != nullptr && IsDamageMode(input.spec->mode)) {
    result->damage = DamageOf(outcome.faults);
  }
  const bool leak = AnyLeak(outcome.leftovers);
  if (hung) {
    verdicts.push_back(Verdict::kHang);
  } else if (result->signal) {
    verdicts.push_back(Verdict::kCrash);
  } else if (outcome.status != 0 || result->reported_error) {
    if (!leak) verdicts.push_back(Verdict::kCleanError);
  } else if (input.compare_stdout && outcome.program_stdout != input.baseline->stdout_text) {
    verdicts.push_back(Verdict::kSilentWrongOutput);
  } else if (!leak) {
    verdicts.push_back(Verdict::kTolerated);
  }
  if (leak && !Contains(verdicts, Verdict::kLeak)) verdicts.push_back(Verdict::kLeak);
}

void JudgeKill(const JudgeInput& killed, const RestartInput& restart, RunResult* result) {
  const InjectOutcome& outcome = *killed.outcome;
  result->leftovers = outcome.leftovers;
  SetEnding(outcome, &result->exit_code, &result->signal);
  result->diverged_at = Divergence(killed);
  std::vector<Verdict>& verdicts = result->verdicts;
  if (!result->diverged_at.empty()) {
    verdicts.push_back(Verdict::kDiverged);
    return;
  }
  if (outcome.timed_out) {
    verdicts.push_back(Verdict::kHang);
  } else if (result->signal && *result->signal != SIGKILL) {
    verdicts.push_back(Verdict::kCrash);
  } else if (outcome.status == 0 && killed.compare_stdout &&
             outcome.program_stdout != killed.baseline->stdout_text) {
    verdicts.push_back(Verdict::kSilentWrongOutput);
  }
  const InjectOutcome& again = *restart.outcome;
  RestartResult& ran = result->restart.emplace();
  SetEnding(again, &ran.exit_code, &ran.signal);
  ran.timed_out = again.timed_out;
  ran.output_matches =
      restart.expected_stdout == nullptr || again.program_stdout == *restart.expected_stdout;
  ran.leftovers = again.leftovers;
  const bool restarted = !again.timed_out && again.status == 0 && ran.output_matches;
  if (!restarted) verdicts.push_back(Verdict::kRestartFailed);
  for (const SweepLeftover& left : restart.remaining) {
    if (left.kind == SweepLeftover::Kind::kLeak) {
      result->orphans.push_back(static_cast<const inject::Leftover&>(left));
    }
  }
  if (!result->orphans.empty()) verdicts.push_back(Verdict::kOrphan);
  if (AnyLeak(again.leftovers)) verdicts.push_back(Verdict::kLeak);
  if (!result->orphans.empty()) return;
  if (AnyLeak(outcome.leftovers)) {
    verdicts.push_back(Verdict::kReclaimed);
  } else if (verdicts.empty()) {
    verdicts.push_back(Verdict::kTolerated);
  }
}

}  // namespace spillway::program_sweep
