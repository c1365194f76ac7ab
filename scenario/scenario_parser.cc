// The parser: scenario text -> Commands, finding every syntax error before anything runs;
// each verb's ParseArgs, and the table-driven choice of the verb.
#include <fmt/format.h>

#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "scenario_syntax.h"
#include "spillway/scenario/scenario.h"
#include "spillway/vfs/file_system.h"

namespace spillway::scenario {
namespace {

// The words after a line's verb word(s).
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

// A comma-separated list of paths, appended to `dirs`.
std::string ParseDirList(std::string_view word, std::vector<std::string>* dirs) {
  size_t start = 0;
  while (true) {
    const size_t comma = word.find(',', start);
    const std::string_view dir = word.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    std::string path;
    if (std::string err = ParsePath(dir, &path); !err.empty()) return err;
    dirs->push_back(std::move(path));
    if (comma == std::string_view::npos) return {};
    start = comma + 1;
  }
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
  if (std::string err = ParseDirList(word, &plan->local_dirs); !err.empty()) {
    return fmt::format("bad DIRS {} (a comma-separated list of local dirs, os_tmp or disabled): {}",
                       Quote(word), err);
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

// The second words of the checking verbs ("ok", "error", ...), from the table, as "a, b
// or c".
std::string ExpectWords() {
  std::vector<std::string_view> words;
  ForEachVerb([&](const auto& v) {
    using V = std::decay_t<decltype(v)>;
    if (V::kIsExpect) words.push_back(V::kWord.substr(V::kWord.find(' ') + 1));
  });
  const std::string_view last = words.back();
  words.pop_back();
  return fmt::format("{} or {}", fmt::join(words, ", "), last);
}

// The verb a line starts with, by the table; `args` gets the words after the verb's one
// or two words.
std::string ParseVerb(const Words& words, Verb* verb, Words* args) {
  const bool expect = words[0] == "expect";
  if (expect && words.size() < 2) {
    return fmt::format("expect needs what to check: {}", ExpectWords());
  }
  const size_t verb_words = expect ? 2 : 1;
  bool found = false;
  ForEachVerb([&](const auto& v) {
    using V = std::decay_t<decltype(v)>;
    const std::string_view word = V::kWord;
    const bool match = expect ? V::kIsExpect && word.substr(word.find(' ') + 1) == words[1]
                              : !V::kIsExpect && word == words[0];
    if (found || !match) return;
    found = true;
    *verb = V{};
  });
  if (!found) {
    return expect ? fmt::format("unknown check {}: expect {}", Quote(words[1]), ExpectWords())
                  : fmt::format("unknown command {}", Quote(words[0]));
  }
  args->assign(words.begin() + static_cast<std::ptrdiff_t>(verb_words), words.end());
  return {};
}

// Checks that there are between `min` and `max` positional words; `usage` is the verb's.
std::string CheckArity(std::string_view usage, const Words& args, size_t min, size_t max) {
  if (args.size() < min) return fmt::format("too few words; usage: {}", usage);
  if (args.size() > max) {
    return fmt::format("unexpected word {}; usage: {}", Quote(args[max]), usage);
  }
  return {};
}

// Parses `value` as one of two named choices into `*out`: "bad KEY VALUE: A or B"
// otherwise.
template <typename T>
std::string ParseChoice(std::string_view key, std::string_view value, T a, T b,
                        std::string_view (*name)(T), T* out) {
  for (const T choice : {a, b}) {
    if (value == name(choice)) {
      *out = choice;
      return {};
    }
  }
  return fmt::format("bad {} {}: {} or {}", key, Quote(value), name(a), name(b));
}

// Parses one `key=value` option of a plan into `spec`.
std::string ParsePlanOption(std::string_view word, PlanSpec* spec) {
  std::string_view key, value;
  if (!SplitOption(word, &key, &value)) {
    return fmt::format("unexpected word {}; usage: {}", Quote(word), Plan::kUsage);
  }
  if (key == internal::kBudgetOption) {
    if (!spec->budget.empty()) return fmt::format("{}= given twice", key);
    if (value.empty()) return fmt::format("{}= needs a budget's name", key);
    return ParseName(value, &spec->budget);
  }
  bool* written = key == "mode"          ? &spec->mode_written
                  : key == "limit"       ? &spec->limit_written
                  : key == "missing_dir" ? &spec->missing_dir_written
                  : key == "layout"      ? &spec->layout_written
                  : key == "failover"    ? &spec->failover_written
                  : key == "frame"       ? &spec->frame_written
                                         : nullptr;
  if (written == nullptr) {
    return fmt::format(
        "unknown option {} for plan (mode=, limit=, missing_dir=, layout=, failover=, frame=, "
        "budget=)",
        Quote(word));
  }
  if (*written) return fmt::format("{}= given twice", key);
  *written = true;
  if (key == "limit") return ParseSize(value, &spec->limit);
  if (key == "mode") {
    return ParseChoice(key, value, PlanMode::kLazy, PlanMode::kEager, internal::PlanModeName,
                       &spec->mode);
  }
  if (key == "layout") {
    return ParseChoice(key, value, SpillDirLayout::kAll, SpillDirLayout::kEach, SpillDirLayoutName,
                       &spec->layout);
  }
  if (key == "failover") {
    return ParseChoice(key, value, true, false, internal::OnOffName, &spec->failover);
  }
  if (key == "frame") {
    return ParseChoice(key, value, true, false, internal::OnOffName, &spec->frame);
  }
  return ParseChoice(key, value, MissingDirPolicy::kFail, MissingDirPolicy::kRecreate,
                     internal::MissingDirName, &spec->missing_dir);
}

// Parses the `times=` value of a fault.
std::string ParseTimes(std::string_view value, std::optional<uint64_t>* times) {
  if (value == internal::kForeverWord) {
    *times = std::nullopt;
    return {};
  }
  uint64_t n = 0;
  if (std::string err = ParseCount(value, &n); !err.empty()) return err + " (or forever)";
  *times = n;
  return {};
}

// Parses one `key=value` option of a fault into `rule`; `written` tracks the keys seen.
std::string ParseFaultOption(std::string_view word, FaultRule* rule,
                             std::set<std::string_view>* written) {
  std::string_view key, value;
  if (!SplitOption(word, &key, &value)) {
    return fmt::format("unexpected word {}; usage: {}", Quote(word), Fault::kUsage);
  }
  if (key != "after" && key != "times" && key != "path" && key != "delay") {
    return fmt::format("unknown option {} for fault (after=, times=, path=, delay=)", Quote(word));
  }
  if (!written->insert(key).second) return fmt::format("{}= given twice", key);
  if (key == "after") return ParseCount(value, &rule->after);
  if (key == "times") return ParseTimes(value, &rule->times);
  if (key == "delay") {
    uint64_t ms = 0;
    // Past the maximum (an hour), CheckFaultRule refuses it with the same words.
    if (ParseCount(value, &ms).empty() && ms > 0 && ms <= std::numeric_limits<uint32_t>::max()) {
      rule->delay_ms = static_cast<uint32_t>(ms);
      return {};
    }
    return fmt::format("delay={}: not a count of milliseconds from 1 to 3600000", value);
  }
  return ParsePath(value, &rule->path_glob);
}

// The OPs `fault` accepts, as "a, b, ... or any".
std::string FaultOpWords() {
  std::vector<std::string> words;
  for (const OpKind op : FaultOps()) words.push_back(internal::FaultOpName(op));
  return fmt::format("{} or {}", fmt::join(words, ", "), internal::kAnyOpWord);
}

// The shapes most verbs share: one word, or two, each read by its parser (ParseName,
// ParsePath, ParseSize or ParseCount).
template <typename V, typename A>
std::string ParseOne(const Words& args, std::string (*parse)(std::string_view, A*), A* a) {
  if (std::string err = CheckArity(V::kUsage, args, 1, 1); !err.empty()) return err;
  return parse(args[0], a);
}
template <typename V, typename A, typename B>
std::string ParseTwo(const Words& args, std::string (*parse_a)(std::string_view, A*), A* a,
                     std::string (*parse_b)(std::string_view, B*), B* b) {
  if (std::string err = CheckArity(V::kUsage, args, 2, 2); !err.empty()) return err;
  if (std::string err = parse_a(args[0], a); !err.empty()) return err;
  return parse_b(args[1], b);
}

// Each verb's parser: the words after the verb into *v's fields. One overload per verb
// and no generic fallback: ParseCommand does not compile for a verb without one.
std::string ParseArgs(const Words& args, Dir* v) {
  return ParseOne<Dir>(args, ParsePath, &v->path);
}
std::string ParseArgs(const Words& args, File* v) {
  return ParseOne<File>(args, ParsePath, &v->path);
}
std::string ParseArgs(const Words& args, Clean* v) {
  return ParseOne<Clean>(args, ParsePath, &v->glob);
}
std::string ParseArgs(const Words& args, ExpectExists* v) {
  return ParseOne<ExpectExists>(args, ParsePath, &v->path);
}
std::string ParseArgs(const Words& args, ExpectMissing* v) {
  return ParseOne<ExpectMissing>(args, ParsePath, &v->path);
}
std::string ParseArgs(const Words& args, Drop* v) {
  return ParseOne<Drop>(args, ParseName, &v->name);
}
std::string ParseArgs(const Words& args, Write* v) {
  return ParseTwo<Write>(args, ParseName, &v->file, ParseSize, &v->size);
}
std::string ParseArgs(const Words& args, SetLimit* v) {
  return ParseTwo<SetLimit>(args, ParseName, &v->plan, ParseSize, &v->size);
}
std::string ParseArgs(const Words& args, ShortWrite* v) {
  return ParseTwo<ShortWrite>(args, ParseName, &v->file, ParseSize, &v->bytes);
}
std::string ParseArgs(const Words& args, ExpectUsed* v) {
  return ParseTwo<ExpectUsed>(args, ParseName, &v->plan, ParseSize, &v->size);
}
std::string ParseArgs(const Words& args, ExpectSize* v) {
  return ParseTwo<ExpectSize>(args, ParseName, &v->file, ParseSize, &v->size);
}
std::string ParseArgs(const Words& args, Capacity* v) {
  return ParseOne<Capacity>(args, ParseSize, &v->size);
}

std::string ParseArgs(const Words& args, Plan* v) {
  if (args.size() < 2) return CheckArity(Plan::kUsage, args, 2, 2);
  if (std::string err = ParseName(args[0], &v->name); !err.empty()) return err;
  PlanSpec& spec = v->spec;
  if (std::string err = ParseDirs(args[1], &spec); !err.empty()) return err;
  for (size_t i = 2; i < args.size(); ++i) {
    if (std::string err = ParsePlanOption(args[i], &spec); !err.empty()) return err;
  }
  if (spec.dirs_kind == DirsKind::kList) return {};
  const std::string_view dirs =
      spec.dirs_kind == DirsKind::kOsTmp ? internal::kOsTmpWord : internal::kDisabledWord;
  if (spec.mode == PlanMode::kEager) {
    return fmt::format("mode=eager needs a list of local dirs, not {}", dirs);
  }
  if (spec.layout != SpillDirLayout::kAll) {
    return fmt::format("layout=each needs a list of local dirs, not {}", dirs);
  }
  if (spec.failover) return fmt::format("failover=on needs a list of local dirs, not {}", dirs);
  return {};
}

std::string ParseArgs(const Words& args, SetQuirk* v) {
  if (std::string err = CheckArity(SetQuirk::kUsage, args, 1, 1); !err.empty()) return err;
  const std::optional<Quirk> found = QuirkFromName(args[0]);
  if (!found.has_value()) {
    std::vector<std::string_view> known;
    for (Quirk q : AllQuirks()) known.push_back(QuirkName(q));
    return fmt::format("unknown quirk {} (known: {})", Quote(args[0]), fmt::join(known, ", "));
  }
  v->quirk = *found;
  return {};
}

std::string ParseArgs(const Words& args, Spill* v) {
  if (std::string err = CheckArity(Spill::kUsage, args, 2, 3); !err.empty()) return err;
  if (std::string err = ParseName(args[0], &v->file); !err.empty()) return err;
  if (std::string err = ParseName(args[1], &v->plan); !err.empty()) return err;
  v->description =
      args.size() == 3 ? std::string(args[2]) : std::string(Spill::kDefaultDescription);
  return {};
}

std::string ParseArgs(const Words& args, Read* v) {
  if (std::string err = CheckArity(Read::kUsage, args, 1, 1); !err.empty()) return err;
  return ParseName(args[0], &v->file);
}

std::string ParseArgs(const Words& args, Clone* v) {
  return ParseTwo<Clone>(args, ParseName, &v->name, ParseName, &v->file);
}

std::string ParseArgs(const Words& args, Fault* v) {
  if (args.size() < 2) return CheckArity(Fault::kUsage, args, 2, 2);
  FaultRule& rule = v->rule;
  if (!internal::FaultOpFromName(args[0], &rule.op)) {
    return fmt::format("unknown fault OP {}: {}", Quote(args[0]), FaultOpWords());
  }
  // An errno, or the word of an action that lies instead of failing (kill is the
  // process's, which a scenario's crash command stands for).
  bool named_action = false;
  for (const FaultAction action : {FaultAction::kCorrupt, FaultAction::kLost, FaultAction::kOk}) {
    if (args[1] == FaultActionName(action)) {
      rule.action = action;
      named_action = true;
    }
  }
  if (!named_action) {
    const std::optional<int> error_number = ErrnoFromName(args[1]);
    if (!error_number.has_value()) {
      return fmt::format("unknown errno name {} (or corrupt, lost, ok)", Quote(args[1]));
    }
    rule.error_number = *error_number;
  }
  std::set<std::string_view> written;
  for (size_t i = 2; i < args.size(); ++i) {
    if (std::string err = ParseFaultOption(args[i], &rule, &written); !err.empty()) return err;
  }
  // Only faults Linux can produce: the op's errnos in the rule engine's table.
  if (Status allowed = CheckFaultRule(rule); !allowed.ok()) return allowed.message();
  return {};
}

std::string ParseArgs(const Words& args, ExpectOk*) {
  return CheckArity(ExpectOk::kUsage, args, 0, 0);
}

std::string ParseArgs(const Words& args, ExpectError* v) {
  if (std::string err = CheckArity(ExpectError::kUsage, args, 1, 1); !err.empty()) return err;
  if (args[0] != internal::kLimitWord && args[0] != internal::kDisabledError &&
      args[0] != internal::kDataLossWord && !ErrnoFromName(args[0]).has_value()) {
    return fmt::format("unknown error {}: an errno name (ENOENT, ENOSPC, ...), {}, {} or {}",
                       Quote(args[0]), internal::kLimitWord, internal::kDisabledError,
                       internal::kDataLossWord);
  }
  v->error = std::string(args[0]);
  return {};
}

std::string ParseArgs(const Words& args, ExpectFiles* v) {
  return ParseTwo<ExpectFiles>(args, ParseName, &v->plan, ParseCount, &v->count);
}

std::string ParseArgs(const Words& args, Budget* v) {
  return ParseTwo<Budget>(args, ParseName, &v->name, ParseSize, &v->size);
}

std::string ParseArgs(const Words& args, Crash*) { return CheckArity(Crash::kUsage, args, 0, 0); }

std::string ParseArgs(const Words& args, Kill* v) {
  if (std::string err = CheckArity(Kill::kUsage, args, 1, 1); !err.empty()) return err;
  if (std::string err = ParseCount(args[0], &v->call); !err.empty()) return err;
  if (v->call == 0) return "kill counts calls from 1 (the next call)";
  return {};
}

std::string ParseArgs(const Words& args, Reap* v) {
  if (std::string err = CheckArity(Reap::kUsage, args, 1, 1); !err.empty()) return err;
  if (std::string err = ParseDirList(args[0], &v->local_dirs); !err.empty()) {
    return fmt::format("bad DIRS {} (a comma-separated list of local dirs): {}", Quote(args[0]),
                       err);
  }
  return {};
}

std::string ParseArgs(const Words& args, ExpectSpilled* v) {
  return ParseTwo<ExpectSpilled>(args, ParseName, &v->plan, ParseSize, &v->size);
}

std::string ParseArgs(const Words& args, ExpectSpills* v) {
  return ParseTwo<ExpectSpills>(args, ParseName, &v->plan, ParseCount, &v->count);
}

std::string ParseArgs(const Words& args, ExpectCount* v) {
  return ParseTwo<ExpectCount>(args, ParsePath, &v->glob, ParseCount, &v->count);
}

#ifdef SPILLWAY_TRIAL_VERB
std::string ParseArgs(const Words& args, Note* v) {
  return ParseOne<Note>(args, ParseName, &v->text);
}
#endif

// True when verb V has its parser above.
template <typename V>
concept HasParser = requires(const Words& args, V* verb) {
  { ParseArgs(args, verb) } -> std::same_as<std::string>;
};

// Parses the words of one non-empty line into `c`.
std::string ParseCommand(const Words& words, Command* c) {
  Words args;
  if (std::string err = ParseVerb(words, &c->verb, &args); !err.empty()) return err;
  return std::visit(
      [&args](auto& v) {
        using V = std::decay_t<decltype(v)>;
        static_assert(HasParser<V>,
                      "a verb without a parser: add its ParseArgs(const Words&, V*) to "
                      "scenario_parser.cc (docs/scenarios.md, Adding a verb)");
        return ParseArgs(args, &v);
      },
      c->verb);
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
