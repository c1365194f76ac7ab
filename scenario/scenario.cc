// The printer: Command::ToString(), ToText() and the spelling shared with the parser.
#include "spillway/scenario/scenario.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <string>
#include <utility>

#include "scenario_syntax.h"

namespace spillway::scenario {
namespace internal {
namespace {

struct VerbSpelling {
  Verb verb;
  std::string_view text;
};

constexpr std::array kVerbs = {
    VerbSpelling{Verb::kCapacity, "capacity"},
    VerbSpelling{Verb::kDir, "dir"},
    VerbSpelling{Verb::kFile, "file"},
    VerbSpelling{Verb::kPlan, "plan"},
    VerbSpelling{Verb::kQuirk, "quirk"},
    VerbSpelling{Verb::kSpill, "spill"},
    VerbSpelling{Verb::kWrite, "write"},
    VerbSpelling{Verb::kClone, "clone"},
    VerbSpelling{Verb::kDrop, "drop"},
    VerbSpelling{Verb::kSetLimit, "set_limit"},
    VerbSpelling{Verb::kFault, "fault"},
    VerbSpelling{Verb::kShortWrite, "short_write"},
    VerbSpelling{Verb::kClean, "clean"},
    VerbSpelling{Verb::kExpectOk, "expect ok"},
    VerbSpelling{Verb::kExpectError, "expect error"},
    VerbSpelling{Verb::kExpectUsed, "expect used"},
    VerbSpelling{Verb::kExpectFiles, "expect files"},
    VerbSpelling{Verb::kExpectSize, "expect size"},
    VerbSpelling{Verb::kExpectCount, "expect count"},
    VerbSpelling{Verb::kExpectExists, "expect exists"},
    VerbSpelling{Verb::kExpectMissing, "expect missing"},
};

struct FaultOpSpelling {
  std::optional<OpKind> op;
  std::string_view text;
};

// The OPs docs/scenarios.md defines for `fault`; the other OpKinds are not part of the language.
constexpr std::array kFaultOps = {
    FaultOpSpelling{OpKind::kMkdir, "mkdir"}, FaultOpSpelling{OpKind::kCreate, "create"},
    FaultOpSpelling{OpKind::kWrite, "write"}, FaultOpSpelling{OpKind::kRemove, "remove"},
    FaultOpSpelling{OpKind::kRmdir, "rmdir"}, FaultOpSpelling{OpKind::kList, "list"},
    FaultOpSpelling{std::nullopt, "any"},
};

}  // namespace

std::string_view VerbText(Verb verb) {
  for (const VerbSpelling& v : kVerbs) {
    if (v.verb == verb) return v.text;
  }
  return "?";
}

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
  for (const FaultOpSpelling& f : kFaultOps) {
    if (f.text == name) {
      *op = f.op;
      return true;
    }
  }
  return false;
}

std::string FaultOpName(const std::optional<OpKind>& op) {
  for (const FaultOpSpelling& f : kFaultOps) {
    if (f.op == op) return std::string(f.text);
  }
  return std::string(OpKindName(*op));  // Not nullopt: "any" is in the table.
}

std::string_view MissingDirName(MissingDirPolicy policy) {
  return policy == MissingDirPolicy::kFail ? "fail" : "recreate";
}

std::string_view PlanModeName(PlanMode mode) { return mode == PlanMode::kLazy ? "lazy" : "eager"; }

}  // namespace internal

using internal::FormatSize;

bool IsExpect(Verb verb) {
  switch (verb) {
    case Verb::kExpectOk:
    case Verb::kExpectError:
    case Verb::kExpectUsed:
    case Verb::kExpectFiles:
    case Verb::kExpectSize:
    case Verb::kExpectCount:
    case Verb::kExpectExists:
    case Verb::kExpectMissing:
      return true;
    default:
      return false;
  }
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

std::string_view Description(const Command& c) {
  return c.description.empty() ? internal::kDefaultDescription : std::string_view(c.description);
}

}  // namespace

std::string Command::ToString() const {
  std::string out(internal::VerbText(verb));
  auto word = [&out](std::string_view w) {
    out.push_back(' ');
    out.append(w);
  };
  switch (verb) {
    case Verb::kCapacity:
      word(FormatSize(size));
      break;
    case Verb::kDir:
    case Verb::kFile:
    case Verb::kClean:
    case Verb::kExpectExists:
    case Verb::kExpectMissing:
      word(path);
      break;
    case Verb::kPlan:
      word(name);
      word(DirsText(plan));
      // An option prints when it was written or differs from its default, so a generated
      // plan keeps its values and a parsed one keeps its text.
      if (plan.mode_written || plan.mode != PlanMode::kLazy) {
        word(fmt::format("mode={}", internal::PlanModeName(plan.mode)));
      }
      if (plan.limit_written || plan.limit != kDefaultMaxTempDirectorySize) {
        word(fmt::format("limit={}", FormatSize(plan.limit)));
      }
      if (plan.missing_dir_written || plan.missing_dir != MissingDirPolicy::kFail) {
        word(fmt::format("missing_dir={}", internal::MissingDirName(plan.missing_dir)));
      }
      break;
    case Verb::kQuirk:
      word(QuirkName(quirk));
      break;
    case Verb::kSpill:
      word(name);
      word(target);
      if (Description(*this) != internal::kDefaultDescription) word(description);
      break;
    case Verb::kWrite:
    case Verb::kSetLimit:
    case Verb::kShortWrite:
    case Verb::kExpectUsed:
    case Verb::kExpectSize:
      word(name);
      word(FormatSize(size));
      break;
    case Verb::kClone:
      word(name);
      word(target);
      break;
    case Verb::kDrop:
      word(name);
      break;
    case Verb::kFault:
      word(internal::FaultOpName(fault.op));
      word(ErrnoName(fault.error_number));
      if (fault.after != 0) word(fmt::format("after={}", fault.after));
      if (!fault.times.has_value()) {
        word(fmt::format("times={}", internal::kForeverWord));
      } else if (*fault.times != 1) {
        word(fmt::format("times={}", *fault.times));
      }
      if (!fault.path_glob.empty()) word(fmt::format("path={}", fault.path_glob));
      break;
    case Verb::kExpectOk:
      break;
    case Verb::kExpectError:
      word(error);
      break;
    case Verb::kExpectFiles:
      word(name);
      word(std::to_string(count));
      break;
    case Verb::kExpectCount:
      word(path);
      word(std::to_string(count));
      break;
  }
  return out;
}

std::string ToText(const std::vector<Command>& commands) {
  std::string out;
  for (const Command& c : commands) {
    out += c.ToString();
    out += '\n';
  }
  return out;
}

bool CommandsEquivalent(const Command& a, const Command& b) {
  if (a.verb != b.verb) return false;
  switch (a.verb) {
    case Verb::kCapacity:
      return a.size == b.size;
    case Verb::kDir:
    case Verb::kFile:
    case Verb::kClean:
    case Verb::kExpectExists:
    case Verb::kExpectMissing:
      return a.path == b.path;
    case Verb::kPlan:
      return a.name == b.name && a.plan.dirs_kind == b.plan.dirs_kind &&
             (a.plan.dirs_kind != DirsKind::kList || a.plan.local_dirs == b.plan.local_dirs) &&
             a.plan.mode == b.plan.mode && a.plan.limit == b.plan.limit &&
             a.plan.missing_dir == b.plan.missing_dir;
    case Verb::kQuirk:
      return a.quirk == b.quirk;
    case Verb::kSpill:
      return a.name == b.name && a.target == b.target && Description(a) == Description(b);
    case Verb::kWrite:
    case Verb::kSetLimit:
    case Verb::kShortWrite:
    case Verb::kExpectUsed:
    case Verb::kExpectSize:
      return a.name == b.name && a.size == b.size;
    case Verb::kClone:
      return a.name == b.name && a.target == b.target;
    case Verb::kDrop:
      return a.name == b.name;
    case Verb::kFault:
      return a.fault.op == b.fault.op && a.fault.error_number == b.fault.error_number &&
             a.fault.after == b.fault.after && a.fault.times == b.fault.times &&
             a.fault.path_glob == b.fault.path_glob;
    case Verb::kExpectOk:
      return true;
    case Verb::kExpectError:
      return a.error == b.error;
    case Verb::kExpectFiles:
      return a.name == b.name && a.count == b.count;
    case Verb::kExpectCount:
      return a.path == b.path && a.count == b.count;
  }
  return false;
}

std::string OutcomeName(const Status& status) {
  if (status.ok()) return "OK";
  if (status.error_number() != 0) return ErrnoName(status.error_number());
  if (IsLimitExceeded(status)) return "LIMIT";
  if (IsDisabled(status)) return "DISABLED";
  if (status.code() == StatusCode::kInvalidArgument) return "INVALID";
  return std::string(StatusCodeName(status.code()));
}

}  // namespace spillway::scenario
