// The printer: each verb's PrintArgs, Command::ToString(), ToText(), equality, and the
// spelling shared with the parser.
#include "spillway/scenario/scenario.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <concepts>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "scenario_syntax.h"

namespace spillway::scenario {
namespace internal {
namespace {}  // namespace

std::string FormatSize(uint64_t size) {
  constexpr std::array<std::pair<int, char>, 3> kSuffixes = {{{30, 'G'}, {20, 'M'}, {10, 'K'}}};
  if (size != 0) {
    for (const auto& [shift, suffix] : kSuffixes) {
      const uint64_t unit = uint64_t{1} << shift;
      if (size % unit == 0) return fmt::format("{}{}", size / unit, suffix);
    }
  }
  return std::to_string(size);
}

bool FaultOpFromName(std::string_view name, std::optional<OpKind>* op) {
  if (name == kAnyOpWord) {
    *op = std::nullopt;
    return true;
  }
  for (const OpKind kind : kFaultOpKinds) {
    if (OpKindName(kind) == name) {
      *op = kind;
      return true;
    }
  }
  return false;
}

std::string FaultOpName(const std::optional<OpKind>& op) {
  return op.has_value() ? std::string(OpKindName(*op)) : std::string(kAnyOpWord);
}

std::string_view MissingDirName(MissingDirPolicy policy) {
  return policy == MissingDirPolicy::kFail ? "fail" : "recreate";
}

std::string_view OnOffName(bool on) { return on ? "on" : "off"; }

}  // namespace internal

using internal::FormatSize;

bool PlanSpec::operator==(const PlanSpec& other) const {
  return dirs_kind == other.dirs_kind &&
         (dirs_kind != DirsKind::kList || local_dirs == other.local_dirs) && mode == other.mode &&
         limit == other.limit && missing_dir == other.missing_dir && layout == other.layout &&
         failover == other.failover && frame == other.frame && budget == other.budget;
}

bool IsExpect(const Verb& verb) {
  return std::visit([](const auto& v) { return std::decay_t<decltype(v)>::kIsExpect; }, verb);
}

std::span<const OpKind> FaultOps() { return internal::kFaultOpKinds; }

std::vector<std::string> Dictionary() {
  std::vector<std::string> words;
  ForEachVerb([&](const auto& v) {
    const std::string_view word = std::decay_t<decltype(v)>::kWord;
    words.emplace_back(word.substr(word.rfind(' ') + 1));
  });
  words.emplace_back("expect");
  words.emplace_back(internal::kOsTmpWord);
  words.emplace_back(internal::kDisabledWord);
  for (const PlanMode mode : {PlanMode::kLazy, PlanMode::kEager}) {
    words.push_back(fmt::format("mode={}", internal::PlanModeName(mode)));
  }
  for (const MissingDirPolicy policy : {MissingDirPolicy::kFail, MissingDirPolicy::kRecreate}) {
    words.push_back(fmt::format("missing_dir={}", internal::MissingDirName(policy)));
  }
  for (const SpillDirLayout layout : {SpillDirLayout::kAll, SpillDirLayout::kEach}) {
    words.push_back(fmt::format("layout={}", SpillDirLayoutName(layout)));
  }
  for (const bool on : {true, false}) {
    words.push_back(fmt::format("failover={}", internal::OnOffName(on)));
    words.push_back(fmt::format("frame={}", internal::OnOffName(on)));
  }
  words.push_back(fmt::format("{}=", internal::kBudgetOption));
  for (const std::string_view option : {"limit=", "after=", "times=", "path="}) {
    words.emplace_back(option);
  }
  words.push_back(fmt::format("times={}", internal::kForeverWord));
  for (const OpKind op : FaultOps()) words.push_back(internal::FaultOpName(op));
  words.push_back(internal::FaultOpName(std::nullopt));
  for (const Quirk q : AllQuirks()) words.emplace_back(QuirkName(q));
  words.emplace_back(internal::kLimitWord);
  words.emplace_back(internal::kDisabledError);
  words.emplace_back(internal::kDataLossWord);
  return words;
}

namespace {

std::string DirsText(const PlanSpec& plan) {
  switch (plan.dirs_kind) {
    case DirsKind::kOsTmp:
      return std::string(internal::kOsTmpWord);
    case DirsKind::kDisabled:
      return std::string(internal::kDisabledWord);
    case DirsKind::kList:
      break;
  }
  return fmt::format("{}", fmt::join(plan.local_dirs, ","));
}

std::string_view Description(const Spill& s) {
  return s.description.empty() ? Spill::kDefaultDescription : std::string_view(s.description);
}

// Each verb's printer: the words after the verb word(s). One overload per verb and no
// generic fallback: Command::ToString does not compile for a verb without one.
std::vector<std::string> PrintArgs(const Dir& v) { return {v.path}; }
std::vector<std::string> PrintArgs(const File& v) { return {v.path}; }
std::vector<std::string> PrintArgs(const Plan& v) {
  const PlanSpec& spec = v.spec;
  std::vector<std::string> out = {v.name, DirsText(spec)};
  // An option prints when it was written or differs from its default, so a generated
  // plan keeps its values and a parsed one keeps its text.
  if (spec.mode_written || spec.mode != PlanMode::kLazy) {
    out.push_back(fmt::format("mode={}", internal::PlanModeName(spec.mode)));
  }
  if (spec.limit_written || spec.limit != kDefaultMaxTempDirectorySize) {
    out.push_back(fmt::format("limit={}", FormatSize(spec.limit)));
  }
  if (spec.missing_dir_written || spec.missing_dir != MissingDirPolicy::kFail) {
    out.push_back(fmt::format("missing_dir={}", internal::MissingDirName(spec.missing_dir)));
  }
  if (spec.layout_written || spec.layout != SpillDirLayout::kAll) {
    out.push_back(fmt::format("layout={}", SpillDirLayoutName(spec.layout)));
  }
  if (spec.failover_written || spec.failover) {
    out.push_back(fmt::format("failover={}", internal::OnOffName(spec.failover)));
  }
  if (spec.frame_written || spec.frame) {
    out.push_back(fmt::format("frame={}", internal::OnOffName(spec.frame)));
  }
  if (!spec.budget.empty())
    out.push_back(fmt::format("{}={}", internal::kBudgetOption, spec.budget));
  return out;
}
std::vector<std::string> PrintArgs(const SetQuirk& v) { return {std::string(QuirkName(v.quirk))}; }
std::vector<std::string> PrintArgs(const Spill& v) {
  std::vector<std::string> out = {v.file, v.plan};
  if (Description(v) != Spill::kDefaultDescription) out.push_back(v.description);
  return out;
}
std::vector<std::string> PrintArgs(const Write& v) { return {v.file, FormatSize(v.size)}; }
std::vector<std::string> PrintArgs(const Read& v) { return {v.file}; }
std::vector<std::string> PrintArgs(const Clone& v) { return {v.name, v.file}; }
std::vector<std::string> PrintArgs(const Drop& v) { return {v.name}; }
std::vector<std::string> PrintArgs(const SetLimit& v) { return {v.plan, FormatSize(v.size)}; }
std::vector<std::string> PrintArgs(const Fault& v) {
  const FaultRule& rule = v.rule;
  // An errno fails the call; any other action is named by its word (corrupt, lost, ok).
  std::vector<std::string> out = {internal::FaultOpName(rule.op),
                                  rule.action == FaultAction::kFail
                                      ? ErrnoName(rule.error_number)
                                      : std::string(FaultActionName(rule.action))};
  if (rule.after != 0) out.push_back(fmt::format("after={}", rule.after));
  if (!rule.times.has_value()) {
    out.push_back(fmt::format("times={}", internal::kForeverWord));
  } else if (*rule.times != 1) {
    out.push_back(fmt::format("times={}", *rule.times));
  }
  if (!rule.path_glob.empty()) out.push_back(fmt::format("path={}", rule.path_glob));
  if (rule.delay_ms != 0) out.push_back(fmt::format("delay={}", rule.delay_ms));
  return out;
}
std::vector<std::string> PrintArgs(const ShortWrite& v) { return {v.file, FormatSize(v.bytes)}; }
std::vector<std::string> PrintArgs(const Clean& v) { return {v.glob}; }
std::vector<std::string> PrintArgs(const Capacity& v) { return {FormatSize(v.size)}; }
std::vector<std::string> PrintArgs(const Budget& v) { return {v.name, FormatSize(v.size)}; }
std::vector<std::string> PrintArgs(const Crash&) { return {}; }
std::vector<std::string> PrintArgs(const Kill& v) { return {std::to_string(v.call)}; }
std::vector<std::string> PrintArgs(const Reap& v) {
  return {fmt::format("{}", fmt::join(v.local_dirs, ","))};
}
std::vector<std::string> PrintArgs(const ExpectOk&) { return {}; }
std::vector<std::string> PrintArgs(const ExpectError& v) { return {v.error}; }
std::vector<std::string> PrintArgs(const ExpectUsed& v) { return {v.plan, FormatSize(v.size)}; }
std::vector<std::string> PrintArgs(const ExpectFiles& v) {
  return {v.plan, std::to_string(v.count)};
}
std::vector<std::string> PrintArgs(const ExpectSize& v) { return {v.file, FormatSize(v.size)}; }
std::vector<std::string> PrintArgs(const ExpectCount& v) {
  return {v.glob, std::to_string(v.count)};
}
std::vector<std::string> PrintArgs(const ExpectSpilled& v) { return {v.plan, FormatSize(v.size)}; }
std::vector<std::string> PrintArgs(const ExpectSpills& v) {
  return {v.plan, std::to_string(v.count)};
}
std::vector<std::string> PrintArgs(const ExpectExists& v) { return {v.path}; }
std::vector<std::string> PrintArgs(const ExpectMissing& v) { return {v.path}; }
#ifdef SPILLWAY_TRIAL_VERB
std::vector<std::string> PrintArgs(const Note& v) { return {v.text}; }
#endif

// True when verb V has its printer above.
template <typename V>
concept HasPrinter = requires(const V& verb) {
  { PrintArgs(verb) } -> std::same_as<std::vector<std::string>>;
};

}  // namespace

bool Spill::operator==(const Spill& other) const {
  return file == other.file && plan == other.plan && Description(*this) == Description(other);
}
bool Fault::operator==(const Fault& other) const {
  const FaultRule& a = rule;
  const FaultRule& b = other.rule;
  return a.op == b.op && a.error_number == b.error_number && a.after == b.after &&
         a.times == b.times && a.path_glob == b.path_glob && a.action == b.action &&
         a.delay_ms == b.delay_ms;
}

std::string Command::ToString() const {
  return std::visit(
      [](const auto& v) {
        using V = std::decay_t<decltype(v)>;
        static_assert(HasPrinter<V>,
                      "a verb without a printer: add its PrintArgs(const V&) to scenario.cc "
                      "(docs/scenarios.md, Adding a verb)");
        std::string out(V::kWord);
        for (const std::string& word : PrintArgs(v)) out.append(" ").append(word);
        return out;
      },
      verb);
}

std::string ToText(const std::vector<Command>& commands) {
  std::string out;
  for (const Command& c : commands) {
    out += c.ToString();
    out += '\n';
  }
  return out;
}

bool CommandsEquivalent(const Command& a, const Command& b) { return a.verb == b.verb; }

std::string OutcomeName(const Status& status) {
  if (status.ok()) return "OK";
  if (status.error_number() != 0) return ErrnoName(status.error_number());
  if (IsLimitExceeded(status)) return "LIMIT";
  if (IsDisabled(status)) return "DISABLED";
  if (status.code() == StatusCode::kInvalidArgument) return "INVALID";
  return std::string(StatusCodeName(status.code()));
}

namespace internal {

// An outcome for people: "ok", "LIMIT (...)", "ENOENT (mkdir /l0/x: No such file ...)".
std::string Describe(const Status& s) {
  if (s.ok()) return "ok";
  if (s.error_number() != 0) {
    return fmt::format("{} ({} {}: {})", OutcomeName(s), s.op(), s.path(), s.message());
  }
  if (s.message().empty()) return OutcomeName(s);
  return fmt::format("{} ({})", OutcomeName(s), s.message());
}

}  // namespace internal

}  // namespace spillway::scenario
