// RapidCheck properties of the scenario parser and printer: generated commands and
// scenarios round-trip through Parse(ToString()), and arbitrary, token-soup and mutated
// input either parses and round-trips or fails naming one of its lines (the gcc build's
// counterpart of the libFuzzer target).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "spillway/scenario/scenario.h"
#include "support/scenario_test_support.h"

namespace spillway::scenario {
namespace {

using test_support::ReadText;
using test_support::ScenarioFiles;

// The same check for RapidCheck properties and arbitrary input: any text either parses
// and round-trips, or is a ParseError naming a line of the text.
void CheckParsesOrFails(const std::string& text) {
  std::variant<Scenario, ParseError> r = Parse(text, "fuzz");
  RC_CLASSIFY(std::holds_alternative<Scenario>(r), "parsed");
  if (const ParseError* e = std::get_if<ParseError>(&r)) {
    const int lines = 1 + static_cast<int>(std::count(text.begin(), text.end(), '\n'));
    RC_ASSERT(e->line >= 1);
    RC_ASSERT(e->line <= lines);
    RC_ASSERT(!e->message.empty());
    return;
  }
  const Scenario& scenario = std::get<Scenario>(r);
  const std::string printed = ToText(scenario.commands);
  std::variant<Scenario, ParseError> again = Parse(printed, "printed");
  RC_ASSERT(std::holds_alternative<Scenario>(again));
  const Scenario& reparsed = std::get<Scenario>(again);
  RC_ASSERT(reparsed.commands.size() == scenario.commands.size());
  for (size_t i = 0; i < scenario.commands.size(); ++i) {
    RC_ASSERT(CommandsEquivalent(scenario.commands[i], reparsed.commands[i]));
  }
  RC_ASSERT(ToText(reparsed.commands) == printed);
}

// Generators of valid commands, for the printer's round trip.
rc::Gen<std::string> GenWord(const std::string& alphabet) {
  return rc::gen::nonEmpty(rc::gen::container<std::string>(rc::gen::elementOf(alphabet)));
}

rc::Gen<std::string> GenName() { return GenWord("abcpqfgXYZ0129_-"); }

// An absolute path (or glob) from `alphabet`, without "." or ".." components.
rc::Gen<std::string> GenPath(const std::string& alphabet) {
  auto component = rc::gen::suchThat(
      GenWord(alphabet), [](const std::string& part) { return part != "." && part != ".."; });
  return rc::gen::map(rc::gen::container<std::vector<std::string>>(component),
                      [](const std::vector<std::string>& parts) {
                        std::string path;
                        for (const std::string& part : parts) path += "/" + part;
                        return path.empty() ? std::string("/") : path;
                      });
}

const std::string kPathChars = "ablocal0-_.*?=,";
const std::string kDirChars = "ablocal0-_.*?";  // Local dirs are split at ','.

const std::vector<std::string> kErrnos = {"ENOENT",  "EIO",    "ENOSPC", "EACCES",
                                          "ENOTDIR", "EEXIST", "EROFS",  "EPERM"};

// One generator of valid fields per verb: a verb without one does not compile.
void Fill(Dir* v) { v->path = *GenPath(kPathChars); }
void Fill(File* v) { v->path = *GenPath(kPathChars); }
void Fill(Clean* v) { v->glob = *GenPath(kPathChars); }
void Fill(ExpectExists* v) { v->path = *GenPath(kPathChars); }
void Fill(ExpectMissing* v) { v->path = *GenPath(kPathChars); }
void Fill(Capacity* v) { v->size = *rc::gen::arbitrary<uint64_t>(); }
void Fill(Plan* v) {
  v->name = *GenName();
  PlanSpec& spec = v->spec;
  spec.dirs_kind = *rc::gen::element(DirsKind::kList, DirsKind::kOsTmp, DirsKind::kDisabled);
  if (spec.dirs_kind == DirsKind::kList) {
    spec.local_dirs =
        *rc::gen::nonEmpty(rc::gen::container<std::vector<std::string>>(GenPath(kDirChars)));
    spec.mode = *rc::gen::element(PlanMode::kLazy, PlanMode::kEager);
    spec.layout = *rc::gen::element(SpillDirLayout::kAll, SpillDirLayout::kEach);
    spec.failover = *rc::gen::arbitrary<bool>();
  }
  spec.limit =
      *rc::gen::oneOf(rc::gen::just(kDefaultMaxTempDirectorySize), rc::gen::arbitrary<uint64_t>());
  spec.missing_dir = *rc::gen::element(MissingDirPolicy::kFail, MissingDirPolicy::kRecreate);
  spec.frame = *rc::gen::arbitrary<bool>();
  spec.budget = *rc::gen::oneOf(rc::gen::just(std::string()), GenName());
}
void Fill(SetQuirk* v) { v->quirk = *rc::gen::elementOf(AllQuirks()); }
void Fill(Spill* v) {
  v->file = *GenName();
  v->plan = *GenName();
  // Any word: printable ASCII but the blank and '#'.
  v->description = *rc::gen::oneOf(rc::gen::just(std::string()),
                                   GenWord("!\"$%&'()*+,-./0123456789:;<=>?@ABCZ[\\]^_`abcz{|}~"));
}
void Fill(Write* v) {
  v->file = *GenName();
  v->size = *rc::gen::arbitrary<uint64_t>();
}
void Fill(SetLimit* v) {
  v->plan = *GenName();
  v->size = *rc::gen::arbitrary<uint64_t>();
}
void Fill(ShortWrite* v) {
  v->file = *GenName();
  v->bytes = *rc::gen::arbitrary<uint64_t>();
}
void Fill(ExpectUsed* v) {
  v->plan = *GenName();
  v->size = *rc::gen::arbitrary<uint64_t>();
}
void Fill(ExpectSize* v) {
  v->file = *GenName();
  v->size = *rc::gen::arbitrary<uint64_t>();
}
void Fill(Read* v) { v->file = *GenName(); }
void Fill(Clone* v) {
  v->name = *GenName();
  v->file = *GenName();
}
void Fill(Drop* v) { v->name = *GenName(); }
void Fill(Fault* v) {
  std::vector<std::optional<OpKind>> ops = {std::nullopt};
  for (const OpKind op : FaultOps()) ops.emplace_back(op);
  FaultRule& rule = v->rule;
  rule.op = *rc::gen::elementOf(ops);
  // Only a pair Linux can produce parses (CheckFaultRule).
  rule.error_number =
      *rc::gen::suchThat(rc::gen::map(rc::gen::elementOf(kErrnos),
                                      [](const std::string& name) { return *ErrnoFromName(name); }),
                         [op = rule.op](int e) { return OpKindCanReturn(op, e); });
  rule.after = *rc::gen::arbitrary<uint64_t>();
  rule.times = *rc::gen::oneOf(rc::gen::just(std::optional<uint64_t>()),
                               rc::gen::map(rc::gen::arbitrary<uint64_t>(),
                                            [](uint64_t n) { return std::optional<uint64_t>(n); }));
  rule.path_glob = *rc::gen::oneOf(rc::gen::just(std::string()), GenPath(kPathChars));
}
void Fill(ExpectOk*) {}
void Fill(ExpectError* v) {
  v->error = *rc::gen::oneOf(rc::gen::elementOf(kErrnos), rc::gen::just(std::string("LIMIT")),
                             rc::gen::just(std::string("DISABLED")),
                             rc::gen::just(std::string("DATA_LOSS")));
}
void Fill(ExpectFiles* v) {
  v->plan = *GenName();
  v->count = *rc::gen::arbitrary<uint64_t>();
}
void Fill(ExpectCount* v) {
  v->glob = *GenPath(kPathChars);
  v->count = *rc::gen::arbitrary<uint64_t>();
}
void Fill(Budget* v) {
  v->name = *GenName();
  v->size = *rc::gen::arbitrary<uint64_t>();
}
void Fill(Crash*) {}
void Fill(Kill* v) { v->call = *rc::gen::inRange<uint64_t>(1, 1000000); }
void Fill(Reap* v) {
  v->local_dirs =
      *rc::gen::nonEmpty(rc::gen::container<std::vector<std::string>>(GenPath(kDirChars)));
}
void Fill(ExpectSpilled* v) {
  v->plan = *GenName();
  v->size = *rc::gen::arbitrary<uint64_t>();
}
void Fill(ExpectSpills* v) {
  v->plan = *GenName();
  v->count = *rc::gen::arbitrary<uint64_t>();
}

rc::Gen<Command> GenCommand() {
  return rc::gen::exec([] {
    const size_t picked = *rc::gen::inRange<size_t>(0, std::variant_size_v<Verb>);
    Command c;
    size_t index = 0;
    ForEachVerb([&](auto v) {
      if (index++ != picked) return;
      Fill(&v);
      c.verb = std::move(v);
    });
    return c;
  });
}

RC_GTEST_PROP(ScenarioParserProperty, GeneratedCommandsRoundTrip, ()) {
  const Command c = *GenCommand();
  const std::string line = c.ToString();
  RC_LOG() << line << "\n";
  std::variant<Scenario, ParseError> r = Parse("dir /\n" + line, "generated");
  if (const ParseError* e = std::get_if<ParseError>(&r)) RC_FAIL(e->message);
  const Scenario& s = std::get<Scenario>(r);
  RC_ASSERT(s.commands.size() == 2u);
  RC_ASSERT(CommandsEquivalent(c, s.commands[1]));
  RC_ASSERT(s.commands[1].ToString() == line);
}

RC_GTEST_PROP(ScenarioParserProperty, GeneratedScenariosRoundTrip, ()) {
  std::vector<Command> commands = *rc::gen::container<std::vector<Command>>(GenCommand());
  commands.insert(commands.begin(),
                  Command{Dir{"/"}});  // So that expects have an outcome to check.
  std::variant<Scenario, ParseError> r = Parse(ToText(commands), "generated");
  if (const ParseError* e = std::get_if<ParseError>(&r)) RC_FAIL(e->message);
  const Scenario& s = std::get<Scenario>(r);
  RC_ASSERT(s.commands.size() == commands.size());
  for (size_t i = 0; i < commands.size(); ++i) {
    RC_ASSERT(CommandsEquivalent(commands[i], s.commands[i]));
    RC_ASSERT(s.commands[i].line == static_cast<int>(i) + 1);
  }
}

// Arbitrary input: the parser never crashes, and what it accepts round-trips.
RC_GTEST_PROP(ScenarioParserProperty, ArbitraryBytes, (const std::string& bytes)) {
  CheckParsesOrFails(bytes);
}

RC_GTEST_PROP(ScenarioParserProperty, ArbitraryFullRangeBytes, ()) {
  const std::string bytes = *rc::gen::container<std::string>(
      rc::gen::map(rc::gen::arbitrary<uint8_t>(), [](uint8_t b) { return static_cast<char>(b); }));
  CheckParsesOrFails(bytes);
}

// Words of the language shuffled together: reaches far more of the parser than bytes.
RC_GTEST_PROP(ScenarioParserProperty, TokenSoup, ()) {
  static const std::vector<std::string> kTokens = {"capacity",    "dir",
                                                   "file",        "plan",
                                                   "quirk",       "spill",
                                                   "write",       "clone",
                                                   "drop",        "set_limit",
                                                   "fault",       "short_write",
                                                   "clean",       "expect",
                                                   "ok",          "error",
                                                   "used",        "files",
                                                   "size",        "count",
                                                   "exists",      "missing",
                                                   "p",           "f",
                                                   "g",           "/",
                                                   "/l0",         "/l0,/l1",
                                                   "/l*/d-*",     "os_tmp",
                                                   "disabled",    "mode=eager",
                                                   "mode=lazy",   "limit=10",
                                                   "limit=1G",    "missing_dir=recreate",
                                                   "layout=each", "failover=on",
                                                   "frame=on",    "read",
                                                   "after=1",     "times=forever",
                                                   "times=2",     "path=/l0/*",
                                                   "mkdir",       "create",
                                                   "remove",      "rmdir",
                                                   "list",        "any",
                                                   "ENOENT",      "EIO",
                                                   "LIMIT",       "DISABLED",
                                                   "write_leak",  "shared_limit",
                                                   "0",           "8",
                                                   "1K",          "18446744073709551616",
                                                   "#",           "\n",
                                                   "\n",          "\n",
                                                   "=",           ",",
                                                   "..",          "/./",
                                                   "\t",          "\r"};
  // And every word the language knows, from its table.
  static const std::vector<std::string> kAllTokens = [] {
    std::vector<std::string> all = kTokens;
    for (const std::string& word : Dictionary()) all.push_back(word);
    return all;
  }();
  const std::vector<std::string> tokens =
      *rc::gen::container<std::vector<std::string>>(rc::gen::elementOf(kAllTokens));
  std::string text;
  for (const std::string& token : tokens) text += token + " ";
  CheckParsesOrFails(text);
}

// Shipped scenarios with a few random edits.
RC_GTEST_PROP(ScenarioParserProperty, MutatedShippedScenarios, ()) {
  static const std::vector<std::string> kTexts = [] {
    std::vector<std::string> texts;
    for (const std::filesystem::path& path : ScenarioFiles()) texts.push_back(ReadText(path));
    return texts;
  }();
  RC_PRE(!kTexts.empty());
  std::string text = *rc::gen::elementOf(kTexts);
  const int edits = *rc::gen::inRange(1, 8);
  for (int i = 0; i < edits; ++i) {
    const size_t pos = *rc::gen::inRange<size_t>(0, text.size() + 1);
    switch (*rc::gen::inRange(0, 5)) {
      case 0:  // Delete a few bytes.
        text.erase(pos, *rc::gen::inRange<size_t>(1, 12));
        break;
      case 1:  // Insert a byte.
        text.insert(pos, 1, *rc::gen::arbitrary<char>());
        break;
      case 2:  // Insert a piece of syntax.
        text.insert(pos, *rc::gen::element<std::string>(" ", "\n", "#", "=", ",", "K", "9",
                                                        "expect ok\n", "/..", "drop p\n"));
        break;
      case 3:  // Overwrite a byte.
        if (pos < text.size()) text[pos] = *rc::gen::arbitrary<char>();
        break;
      default:  // Duplicate a stretch.
        text.insert(pos, text.substr(*rc::gen::inRange<size_t>(0, text.size() + 1), 40));
        break;
    }
  }
  CheckParsesOrFails(text);
}

}  // namespace
}  // namespace spillway::scenario
