// The printer: each verb's Args(), Command::ToString(), ToText(), equality, and the
// spelling shared with the parser.
#include "spillway/scenario/scenario.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <string>
#include <utility>

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

std::string_view PlanModeName(PlanMode mode) { return mode == PlanMode::kLazy ? "lazy" : "eager"; }

std::string_view FailoverName(bool failover) { return failover ? "on" : "off"; }

}  // namespace internal

using internal::FormatSize;

bool PlanSpec::operator==(const PlanSpec& other) const {
  return dirs_kind == other.dirs_kind &&
         (dirs_kind != DirsKind::kList || local_dirs == other.local_dirs) && mode == other.mode &&
         limit == other.limit && missing_dir == other.missing_dir && layout == other.layout &&
         failover == other.failover && budget == other.budget;
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
  for (const bool failover : {true, false}) {
    words.push_back(fmt::format("failover={}", internal::FailoverName(failover)));
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

}  // namespace

// Each verb's words after the verb word(s).
std::vector<std::string> Dir::Args() const { return {path}; }
std::vector<std::string> File::Args() const { return {path}; }
std::vector<std::string> Plan::Args() const {
  std::vector<std::string> out = {name, DirsText(spec)};
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
    out.push_back(fmt::format("failover={}", internal::FailoverName(spec.failover)));
  }
  if (!spec.budget.empty())
    out.push_back(fmt::format("{}={}", internal::kBudgetOption, spec.budget));
  return out;
}
std::vector<std::string> SetQuirk::Args() const { return {std::string(QuirkName(quirk))}; }
std::vector<std::string> Spill::Args() const {
  std::vector<std::string> out = {file, plan};
  if (Description(*this) != Spill::kDefaultDescription) out.push_back(description);
  return out;
}
bool Spill::operator==(const Spill& other) const {
  return file == other.file && plan == other.plan && Description(*this) == Description(other);
}
std::vector<std::string> Write::Args() const { return {file, FormatSize(size)}; }
std::vector<std::string> Clone::Args() const { return {name, file}; }
std::vector<std::string> Drop::Args() const { return {name}; }
std::vector<std::string> SetLimit::Args() const { return {plan, FormatSize(size)}; }
std::vector<std::string> Fault::Args() const {
  std::vector<std::string> out = {internal::FaultOpName(rule.op), ErrnoName(rule.error_number)};
  if (rule.after != 0) out.push_back(fmt::format("after={}", rule.after));
  if (!rule.times.has_value()) {
    out.push_back(fmt::format("times={}", internal::kForeverWord));
  } else if (*rule.times != 1) {
    out.push_back(fmt::format("times={}", *rule.times));
  }
  if (!rule.path_glob.empty()) out.push_back(fmt::format("path={}", rule.path_glob));
  return out;
}
bool Fault::operator==(const Fault& other) const {
  const FaultRule& a = rule;
  const FaultRule& b = other.rule;
  return a.op == b.op && a.error_number == b.error_number && a.after == b.after &&
         a.times == b.times && a.path_glob == b.path_glob;
}
std::vector<std::string> ShortWrite::Args() const { return {file, FormatSize(bytes)}; }
std::vector<std::string> Clean::Args() const { return {glob}; }
std::vector<std::string> Capacity::Args() const { return {FormatSize(size)}; }
std::vector<std::string> Budget::Args() const { return {name, FormatSize(size)}; }
std::vector<std::string> Crash::Args() const { return {}; }
std::vector<std::string> Reap::Args() const {
  return {fmt::format("{}", fmt::join(local_dirs, ","))};
}
std::vector<std::string> ExpectOk::Args() const { return {}; }
std::vector<std::string> ExpectError::Args() const { return {error}; }
std::vector<std::string> ExpectUsed::Args() const { return {plan, FormatSize(size)}; }
std::vector<std::string> ExpectFiles::Args() const { return {plan, std::to_string(count)}; }
std::vector<std::string> ExpectSize::Args() const { return {file, FormatSize(size)}; }
std::vector<std::string> ExpectCount::Args() const { return {glob, std::to_string(count)}; }
std::vector<std::string> ExpectSpilled::Args() const { return {plan, FormatSize(size)}; }
std::vector<std::string> ExpectSpills::Args() const { return {plan, std::to_string(count)}; }
std::vector<std::string> ExpectExists::Args() const { return {path}; }
std::vector<std::string> ExpectMissing::Args() const { return {path}; }

std::string Command::ToString() const {
  return std::visit(
      [](const auto& v) {
        std::string out(std::decay_t<decltype(v)>::kWord);
        for (const std::string& word : v.Args()) out.append(" ").append(word);
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
