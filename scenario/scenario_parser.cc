// The parser: scenario text -> Commands, finding every syntax error before anything runs.
#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scenario_syntax.h"
#include "spillway/scenario/scenario.h"
#include "spillway/vfs/file_system.h"

namespace spillway::scenario {
namespace {

using Words = std::vector<std::string_view>;

// Words are separated by any ASCII blank, so that a word never holds one and a printed
// command splits back into the same words.
bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

Words SplitWords(std::string_view line) {
  const size_t hash = line.find('#');
  if (hash != std::string_view::npos) line = line.substr(0, hash);
  Words words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && IsBlank(line[i])) ++i;
    const size_t start = i;
    while (i < line.size() && !IsBlank(line[i])) ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

std::string Quote(std::string_view word) { return fmt::format("\"{}\"", word); }

bool IsDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// Decimal digits to a value; false on overflow. REQUIRES: IsDigits(digits).
bool DigitsToValue(std::string_view digits, uint64_t* value) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  uint64_t v = 0;
  for (char c : digits) {
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (kMax - d) / 10) return false;
    v = v * 10 + d;
  }
  *value = v;
  return true;
}

// Each parser below returns an empty string on success and what is wrong otherwise.

std::string ParseSize(std::string_view word, uint64_t* size) {
  std::string_view digits = word;
  int shift = 0;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'K':
        shift = 10;
        break;
      case 'M':
        shift = 20;
        break;
      case 'G':
        shift = 30;
        break;
      default:
        break;
    }
    if (shift != 0) digits.remove_suffix(1);
  }
  if (!IsDigits(digits)) {
    return fmt::format("bad size {}: expected whole bytes with an optional K, M or G suffix",
                       Quote(word));
  }
  uint64_t value = 0;
  if (!DigitsToValue(digits, &value) || value > (std::numeric_limits<uint64_t>::max() >> shift)) {
    return fmt::format("size {} is too large (at most 2^64-1 bytes)", Quote(word));
  }
  *size = value << shift;
  return {};
}

std::string ParseCount(std::string_view word, uint64_t* count) {
  if (!IsDigits(word)) {
    return fmt::format("bad count {}: expected a whole number without a suffix", Quote(word));
  }
  if (!DigitsToValue(word, count)) return fmt::format("count {} is too large", Quote(word));
  return {};
}

std::string ParseName(std::string_view word, std::string* name) {
  for (char c : word) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) {
      return fmt::format("bad name {}: names are letters, digits, '_' and '-'", Quote(word));
    }
  }
  *name = std::string(word);
  return {};
}

// A path or a glob: absolute, without empty, "." or ".." components.
std::string ParsePath(std::string_view word, std::string* path) {
  const Status valid = ValidatePath(word);
  if (!valid.ok()) return valid.message();
  *path = std::string(word);
  return {};
}

std::string ParseDirs(std::string_view word, PlanSpec* plan) {
  if (word == internal::kOsTmpWord) {
    plan->dirs_kind = DirsKind::kOsTmp;
    return {};
  }
  if (word == internal::kDisabledWord) {
    plan->dirs_kind = DirsKind::kDisabled;
    return {};
  }
  plan->dirs_kind = DirsKind::kList;
  size_t start = 0;
  while (true) {
    const size_t comma = word.find(',', start);
    const std::string_view dir = word.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    std::string path;
    if (std::string err = ParsePath(dir, &path); !err.empty()) {
      return fmt::format(
          "bad DIRS {} (a comma-separated list of local dirs, os_tmp or "
          "disabled): {}",
          Quote(word), err);
    }
    plan->local_dirs.push_back(std::move(path));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return {};
}

// Splits "key=value"; false when the word has no '='.
bool SplitOption(std::string_view word, std::string_view* key, std::string_view* value) {
  const size_t eq = word.find('=');
  if (eq == std::string_view::npos) return false;
  *key = word.substr(0, eq);
  *value = word.substr(eq + 1);
  return true;
}

std::string_view Usage(Verb verb) {
  switch (verb) {
    case Verb::kCapacity:
      return "capacity SIZE";
    case Verb::kDir:
      return "dir PATH";
    case Verb::kFile:
      return "file PATH";
    case Verb::kPlan:
      return "plan NAME DIRS [mode=lazy|eager] [limit=SIZE] [missing_dir=fail|recreate]";
    case Verb::kQuirk:
      return "quirk NAME";
    case Verb::kSpill:
      return "spill FILE PLAN [DESCRIPTION]";
    case Verb::kWrite:
      return "write FILE SIZE";
    case Verb::kClone:
      return "clone NEW FILE";
    case Verb::kDrop:
      return "drop NAME";
    case Verb::kSetLimit:
      return "set_limit PLAN SIZE";
    case Verb::kFault:
      return "fault OP ERRNO [after=N] [times=K|forever] [path=GLOB]";
    case Verb::kShortWrite:
      return "short_write FILE BYTES";
    case Verb::kClean:
      return "clean GLOB";
    case Verb::kExpectOk:
      return "expect ok";
    case Verb::kExpectError:
      return "expect error E";
    case Verb::kExpectUsed:
      return "expect used PLAN SIZE";
    case Verb::kExpectFiles:
      return "expect files PLAN N";
    case Verb::kExpectSize:
      return "expect size FILE SIZE";
    case Verb::kExpectCount:
      return "expect count GLOB N";
    case Verb::kExpectExists:
      return "expect exists PATH";
    case Verb::kExpectMissing:
      return "expect missing PATH";
  }
  return "";
}

// Which verb a line starts with; `args` gets the words after the verb's one or two words.
std::string ParseVerb(const Words& words, Verb* verb, Words* args) {
  struct Entry {
    std::string_view word;
    Verb verb;
  };
  static constexpr Entry kActs[] = {
      {"capacity", Verb::kCapacity},  {"dir", Verb::kDir},     {"file", Verb::kFile},
      {"plan", Verb::kPlan},          {"quirk", Verb::kQuirk}, {"spill", Verb::kSpill},
      {"write", Verb::kWrite},        {"clone", Verb::kClone}, {"drop", Verb::kDrop},
      {"set_limit", Verb::kSetLimit}, {"fault", Verb::kFault}, {"short_write", Verb::kShortWrite},
      {"clean", Verb::kClean},
  };
  static constexpr Entry kExpects[] = {
      {"ok", Verb::kExpectOk},         {"error", Verb::kExpectError},
      {"used", Verb::kExpectUsed},     {"files", Verb::kExpectFiles},
      {"size", Verb::kExpectSize},     {"count", Verb::kExpectCount},
      {"exists", Verb::kExpectExists}, {"missing", Verb::kExpectMissing},
  };
  if (words[0] == "expect") {
    if (words.size() < 2) {
      return "expect needs what to check: ok, error, used, files, size, count, exists or "
             "missing";
    }
    for (const Entry& e : kExpects) {
      if (e.word == words[1]) {
        *verb = e.verb;
        args->assign(words.begin() + 2, words.end());
        return {};
      }
    }
    return fmt::format(
        "unknown check {}: expect ok, error, used, files, size, count, exists or missing",
        Quote(words[1]));
  }
  for (const Entry& e : kActs) {
    if (e.word == words[0]) {
      *verb = e.verb;
      args->assign(words.begin() + 1, words.end());
      return {};
    }
  }
  return fmt::format("unknown command {}", Quote(words[0]));
}

// Checks that there are between `min` and `max` positional words.
std::string CheckArity(Verb verb, const Words& args, size_t min, size_t max) {
  if (args.size() < min) return fmt::format("too few words; usage: {}", Usage(verb));
  if (args.size() > max) {
    return fmt::format("unexpected word {}; usage: {}", Quote(args[max]), Usage(verb));
  }
  return {};
}

std::string ParsePlan(const Words& args, Command* c) {
  if (args.size() < 2) return CheckArity(Verb::kPlan, args, 2, 2);
  if (std::string err = ParseName(args[0], &c->name); !err.empty()) return err;
  if (std::string err = ParseDirs(args[1], &c->plan); !err.empty()) return err;
  PlanSpec& plan = c->plan;
  for (size_t i = 2; i < args.size(); ++i) {
    std::string_view key, value;
    if (!SplitOption(args[i], &key, &value)) {
      return fmt::format("unexpected word {}; usage: {}", Quote(args[i]), Usage(Verb::kPlan));
    }
    if (key == "mode") {
      if (plan.mode_written) return "mode= given twice";
      plan.mode_written = true;
      if (value == "lazy") {
        plan.mode = PlanMode::kLazy;
      } else if (value == "eager") {
        plan.mode = PlanMode::kEager;
      } else {
        return fmt::format("bad mode {}: lazy or eager", Quote(value));
      }
    } else if (key == "limit") {
      if (plan.limit_written) return "limit= given twice";
      plan.limit_written = true;
      if (std::string err = ParseSize(value, &plan.limit); !err.empty()) return err;
    } else if (key == "missing_dir") {
      if (plan.missing_dir_written) return "missing_dir= given twice";
      plan.missing_dir_written = true;
      if (value == "fail") {
        plan.missing_dir = MissingDirPolicy::kFail;
      } else if (value == "recreate") {
        plan.missing_dir = MissingDirPolicy::kRecreate;
      } else {
        return fmt::format("bad missing_dir {}: fail or recreate", Quote(value));
      }
    } else {
      return fmt::format("unknown option {} for plan (mode=, limit=, missing_dir=)",
                         Quote(args[i]));
    }
  }
  if (plan.mode == PlanMode::kEager && plan.dirs_kind != DirsKind::kList) {
    return fmt::format(
        "mode=eager needs a list of local dirs, not {}",
        plan.dirs_kind == DirsKind::kOsTmp ? internal::kOsTmpWord : internal::kDisabledWord);
  }
  return {};
}

std::string ParseFault(const Words& args, Command* c) {
  if (args.size() < 2) return CheckArity(Verb::kFault, args, 2, 2);
  FaultRule& rule = c->fault;
  if (!internal::FaultOpFromName(args[0], &rule.op)) {
    return fmt::format("unknown fault OP {}: mkdir, create, write, remove, rmdir, list or any",
                       Quote(args[0]));
  }
  const std::optional<int> error_number = ErrnoFromName(args[1]);
  if (!error_number.has_value()) return fmt::format("unknown errno name {}", Quote(args[1]));
  rule.error_number = *error_number;
  bool after_written = false, times_written = false, path_written = false;
  for (size_t i = 2; i < args.size(); ++i) {
    std::string_view key, value;
    if (!SplitOption(args[i], &key, &value)) {
      return fmt::format("unexpected word {}; usage: {}", Quote(args[i]), Usage(Verb::kFault));
    }
    if (key == "after") {
      if (after_written) return "after= given twice";
      after_written = true;
      if (std::string err = ParseCount(value, &rule.after); !err.empty()) return err;
    } else if (key == "times") {
      if (times_written) return "times= given twice";
      times_written = true;
      if (value == internal::kForeverWord) {
        rule.times = std::nullopt;
      } else {
        uint64_t times = 0;
        if (std::string err = ParseCount(value, &times); !err.empty()) {
          return err + " (or forever)";
        }
        rule.times = times;
      }
    } else if (key == "path") {
      if (path_written) return "path= given twice";
      path_written = true;
      if (std::string err = ParsePath(value, &rule.path_glob); !err.empty()) return err;
    } else {
      return fmt::format("unknown option {} for fault (after=, times=, path=)", Quote(args[i]));
    }
  }
  return {};
}

std::string ParseExpectError(const Words& args, Command* c) {
  if (std::string err = CheckArity(Verb::kExpectError, args, 1, 1); !err.empty()) return err;
  if (args[0] != "LIMIT" && args[0] != "DISABLED" && !ErrnoFromName(args[0]).has_value()) {
    return fmt::format("unknown error {}: an errno name (ENOENT, ENOSPC, ...), LIMIT or DISABLED",
                       Quote(args[0]));
  }
  c->error = std::string(args[0]);
  return {};
}

// Parses the words of one non-empty line into `c`.
std::string ParseCommand(const Words& words, Command* c) {
  Words args;
  if (std::string err = ParseVerb(words, &c->verb, &args); !err.empty()) return err;
  const Verb verb = c->verb;
  // Verbs of the shape `VERB [NAME] SIZE|COUNT|PATH` share their arity check.
  switch (verb) {
    case Verb::kPlan:
      return ParsePlan(args, c);
    case Verb::kFault:
      return ParseFault(args, c);
    case Verb::kExpectError:
      return ParseExpectError(args, c);
    case Verb::kSpill:
      if (std::string err = CheckArity(verb, args, 2, 3); !err.empty()) return err;
      if (std::string err = ParseName(args[0], &c->name); !err.empty()) return err;
      if (std::string err = ParseName(args[1], &c->target); !err.empty()) return err;
      c->description =
          args.size() == 3 ? std::string(args[2]) : std::string(internal::kDefaultDescription);
      return {};
    case Verb::kExpectOk:
      return CheckArity(verb, args, 0, 0);
    case Verb::kCapacity:
      if (std::string err = CheckArity(verb, args, 1, 1); !err.empty()) return err;
      return ParseSize(args[0], &c->size);
    case Verb::kDir:
    case Verb::kFile:
    case Verb::kClean:
    case Verb::kExpectExists:
    case Verb::kExpectMissing:
      if (std::string err = CheckArity(verb, args, 1, 1); !err.empty()) return err;
      return ParsePath(args[0], &c->path);
    case Verb::kQuirk: {
      if (std::string err = CheckArity(verb, args, 1, 1); !err.empty()) return err;
      const std::optional<Quirk> quirk = QuirkFromName(args[0]);
      if (!quirk.has_value()) {
        std::vector<std::string_view> known;
        for (Quirk q : AllQuirks()) known.push_back(QuirkName(q));
        return fmt::format("unknown quirk {} (known: {})", Quote(args[0]), fmt::join(known, ", "));
      }
      c->quirk = *quirk;
      return {};
    }
    case Verb::kWrite:
    case Verb::kSetLimit:
    case Verb::kShortWrite:
    case Verb::kExpectUsed:
    case Verb::kExpectSize:
      if (std::string err = CheckArity(verb, args, 2, 2); !err.empty()) return err;
      if (std::string err = ParseName(args[0], &c->name); !err.empty()) return err;
      return ParseSize(args[1], &c->size);
    case Verb::kClone:
      if (std::string err = CheckArity(verb, args, 2, 2); !err.empty()) return err;
      if (std::string err = ParseName(args[0], &c->name); !err.empty()) return err;
      return ParseName(args[1], &c->target);
    case Verb::kDrop:
      if (std::string err = CheckArity(verb, args, 1, 1); !err.empty()) return err;
      return ParseName(args[0], &c->name);
    case Verb::kExpectFiles:
      if (std::string err = CheckArity(verb, args, 2, 2); !err.empty()) return err;
      if (std::string err = ParseName(args[0], &c->name); !err.empty()) return err;
      return ParseCount(args[1], &c->count);
    case Verb::kExpectCount:
      if (std::string err = CheckArity(verb, args, 2, 2); !err.empty()) return err;
      if (std::string err = ParsePath(args[0], &c->path); !err.empty()) return err;
      return ParseCount(args[1], &c->count);
  }
  return "unhandled command";
}

}  // namespace

std::variant<Scenario, ParseError> Parse(std::string_view text, std::string_view file_name) {
  Scenario scenario;
  scenario.file_name = std::string(file_name);
  bool seen_act = false;
  int line_number = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    ++line_number;
    start = end + 1;
    const Words words = SplitWords(line);
    if (words.empty()) continue;
    Command command;
    command.line = line_number;
    if (std::string err = ParseCommand(words, &command); !err.empty()) {
      return ParseError{line_number, std::move(err)};
    }
    if (IsExpect(command.verb)) {
      if (!seen_act) {
        return ParseError{line_number,
                          "expect before any command: there is no outcome to check yet"};
      }
    } else {
      seen_act = true;
    }
    scenario.commands.push_back(std::move(command));
  }
  return scenario;
}

}  // namespace spillway::scenario
