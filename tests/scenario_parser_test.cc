// Tests of the scenario parser and printer: the syntax of SCENARIOS.md, its errors, and
// the round trip Parse(ToString()) on every shipped scenario, on generated commands, and
// on arbitrary and mutated input (the gcc build's counterpart of the libFuzzer target).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "scenario/scenario.h"

namespace spillway::scenario {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

// Parses text that must be valid; fails the test otherwise.
Scenario MustParse(std::string_view text) {
  std::variant<Scenario, ParseError> r = Parse(text, "test.scen");
  if (const ParseError* e = std::get_if<ParseError>(&r)) {
    ADD_FAILURE() << "unexpected parse error at line " << e->line << ": " << e->message << "\nin:\n"
                  << text;
    return Scenario{};
  }
  return std::get<Scenario>(std::move(r));
}

// Parses one command, behind a `dir /` so that an expect has something to check.
Command MustParseOne(std::string_view line) {
  Scenario s = MustParse("dir /\n" + std::string(line));
  if (s.commands.size() != 2) {
    ADD_FAILURE() << "expected one command from: " << line;
    return Command{};
  }
  return s.commands[1];
}

// Parses text that must be malformed; returns the error.
ParseError MustFail(std::string_view text) {
  std::variant<Scenario, ParseError> r = Parse(text, "test.scen");
  if (std::holds_alternative<Scenario>(r)) {
    ADD_FAILURE() << "parsed, but should not have:\n" << text;
    return ParseError{};
  }
  return std::get<ParseError>(r);
}

std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every *.scen under scenarios/ (the shipped ones, and bad/ and replay/), sorted.
std::vector<std::filesystem::path> ScenarioFiles() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(SPILLWAY_SCENARIO_DIR)) {
    if (entry.is_regular_file() && entry.path().extension() == ".scen") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The round trip every accepted scenario must survive: printing it and parsing the print
// gives equivalent commands, and printing again gives the same text.
void ExpectRoundTrip(const Scenario& scenario) {
  const std::string printed = ToText(scenario.commands);
  std::variant<Scenario, ParseError> again = Parse(printed, "printed");
  ASSERT_TRUE(std::holds_alternative<Scenario>(again))
      << std::get<ParseError>(again).message << "\nin:\n"
      << printed;
  const Scenario& reparsed = std::get<Scenario>(again);
  ASSERT_EQ(reparsed.commands.size(), scenario.commands.size()) << printed;
  for (size_t i = 0; i < scenario.commands.size(); ++i) {
    EXPECT_TRUE(CommandsEquivalent(scenario.commands[i], reparsed.commands[i]))
        << "line " << scenario.commands[i].line << " printed as \""
        << scenario.commands[i].ToString() << "\" parsed back as \""
        << reparsed.commands[i].ToString() << "\"";
  }
  EXPECT_EQ(ToText(reparsed.commands), printed);
}

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

TEST(ScenarioParserTest, ParsesTheDocumentedExample) {
  const Scenario s = MustParse(
      "dir /local0\n"
      "dir /local1\n"
      "plan p /local0,/local1 limit=10\n"
      "expect count /local*/datafusion-* 0      # a plan that does not spill creates nothing\n"
      "spill f p\n"
      "expect ok\n"
      "write f 8\n"
      "expect used p 8\n"
      "write f 8\n"
      "expect error LIMIT\n"
      "expect used p 8\n"
      "drop p\n"
      "expect count /local*/datafusion-*/* 1    # the file outlives its plan\n"
      "drop f\n"
      "expect count /local*/datafusion-* 0      # and then everything is gone\n");
  ASSERT_EQ(s.commands.size(), 15u);
  EXPECT_EQ(s.file_name, "test.scen");

  const Command& plan = s.commands[2];
  EXPECT_EQ(plan.verb, Verb::kPlan);
  EXPECT_EQ(plan.line, 3);
  EXPECT_EQ(plan.name, "p");
  EXPECT_EQ(plan.plan.dirs_kind, DirsKind::kList);
  EXPECT_THAT(plan.plan.local_dirs, ElementsAre("/local0", "/local1"));
  EXPECT_EQ(plan.plan.limit, 10u);
  EXPECT_TRUE(plan.plan.limit_written);
  EXPECT_EQ(plan.plan.mode, PlanMode::kLazy);
  EXPECT_FALSE(plan.plan.mode_written);
  EXPECT_EQ(plan.plan.missing_dir, MissingDirPolicy::kFail);

  EXPECT_EQ(s.commands[3].verb, Verb::kExpectCount);
  EXPECT_EQ(s.commands[3].path, "/local*/datafusion-*");
  EXPECT_EQ(s.commands[3].count, 0u);

  const Command& spill = s.commands[4];
  EXPECT_EQ(spill.verb, Verb::kSpill);
  EXPECT_EQ(spill.name, "f");
  EXPECT_EQ(spill.target, "p");
  EXPECT_EQ(spill.description, "spill");

  EXPECT_EQ(s.commands[6].verb, Verb::kWrite);
  EXPECT_EQ(s.commands[6].size, 8u);
  EXPECT_EQ(s.commands[9].verb, Verb::kExpectError);
  EXPECT_EQ(s.commands[9].error, "LIMIT");
  EXPECT_EQ(s.commands[11].verb, Verb::kDrop);
  EXPECT_EQ(s.commands[11].name, "p");
  EXPECT_EQ(s.commands[14].line, 15);
}

TEST(ScenarioParserTest, SizesAreBytesWithBinarySuffixes) {
  const std::vector<std::pair<std::string, uint64_t>> cases = {
      {"0", 0},
      {"7", 7},
      {"007", 7},
      {"1K", 1024},
      {"3M", uint64_t{3} << 20},
      {"2G", uint64_t{2} << 30},
      {"0G", 0},
      {"18446744073709551615", kMax},
      // The largest G multiple that fits: (2^34 - 1) GiB.
      {"17179869183G", ((uint64_t{1} << 34) - 1) << 30},
  };
  for (const auto& [text, value] : cases) {
    const Command c = MustParseOne("capacity " + text);
    EXPECT_EQ(c.verb, Verb::kCapacity) << text;
    EXPECT_EQ(c.size, value) << text;
  }
}

TEST(ScenarioParserTest, RejectsBadAndOverflowingSizes) {
  for (const std::string bad : {"1k", "1m", "K", "-1", "+1", "1.5K", "1KB", "0x10", "1 K", "ten"}) {
    const ParseError e = MustFail("dir /l\nplan p /l\nspill f p\nwrite f " + bad + "\n");
    EXPECT_EQ(e.line, 4) << bad;
    EXPECT_FALSE(e.message.empty()) << bad;
  }
  for (const std::string big : {"18446744073709551616", "99999999999999999999999", "17179869184G",
                                "17592186044416M", "18014398509481984K"}) {
    const ParseError e = MustFail("capacity " + big);
    EXPECT_EQ(e.line, 1);
    EXPECT_THAT(e.message, HasSubstr("too large")) << big;
  }
}

TEST(ScenarioParserTest, CountsTakeNoSuffix) {
  EXPECT_EQ(MustParseOne("expect files p 3").count, 3u);
  EXPECT_EQ(MustParseOne("expect count /a/* 18446744073709551615").count, kMax);
  EXPECT_THAT(MustFail("dir /\nexpect files p 5K").message, HasSubstr("count"));
  EXPECT_THAT(MustFail("dir /\nexpect count /a 18446744073709551616").message,
              HasSubstr("too large"));
  EXPECT_THAT(MustFail("fault write EIO after=1K").message, HasSubstr("count"));
  EXPECT_THAT(MustFail("fault write EIO times=-1").message, HasSubstr("count"));
}

TEST(ScenarioParserTest, NamesAreLettersDigitsUnderscoreAndDash) {
  const Command c = MustParseOne("spill a-B_9 Plan-2");
  EXPECT_EQ(c.name, "a-B_9");
  EXPECT_EQ(c.target, "Plan-2");
  for (const std::string bad : {"a.b", "a/b", "a*", "\xc3\xa9", "a=b", "a,b"}) {
    EXPECT_THAT(MustFail("drop " + bad).message, HasSubstr("bad name")) << bad;
  }
}

TEST(ScenarioParserTest, PathsAreAbsoluteWithoutDotComponents) {
  EXPECT_EQ(MustParseOne("dir /").path, "/");
  EXPECT_EQ(MustParseOne("file /a/b.c/..d").path, "/a/b.c/..d");
  for (const std::string bad : {"local0", "/a/./b", "/a/../b", "/a/", "//a", "/a//b", "/.."}) {
    EXPECT_EQ(MustFail("dir " + bad).line, 1) << bad;
    EXPECT_EQ(MustFail("dir /\nexpect exists " + bad).line, 2) << bad;
    EXPECT_EQ(MustFail("clean " + bad).line, 1) << bad;
    EXPECT_EQ(MustFail("plan p /a," + bad).line, 1) << bad;
    EXPECT_EQ(MustFail("fault write EIO path=" + bad).line, 1) << bad;
  }
  EXPECT_EQ(MustFail("plan p /a,,/b").line, 1);
  EXPECT_EQ(MustFail("plan p /a,").line, 1);
}

TEST(ScenarioParserTest, CommentsAndBlankLinesAreIgnoredAnywhere) {
  const Scenario s = MustParse(
      "# a header\n"
      "\n"
      "   dir /a   # trailing\n"
      "\tdir /b#glued\n"
      "#expect ok\n"
      "   \t  \n"
      "dir /c\r\n");
  ASSERT_EQ(s.commands.size(), 3u);
  EXPECT_EQ(s.commands[0].path, "/a");
  EXPECT_EQ(s.commands[0].line, 3);
  EXPECT_EQ(s.commands[1].path, "/b");
  EXPECT_EQ(s.commands[1].line, 4);
  EXPECT_EQ(s.commands[2].path, "/c");
  EXPECT_EQ(s.commands[2].line, 7);
  EXPECT_TRUE(MustParse("").commands.empty());
  EXPECT_TRUE(MustParse("# only a comment").commands.empty());
}

TEST(ScenarioParserTest, DefaultsAreThoseOfTheContract) {
  const Command plan = MustParseOne("plan p /l");
  EXPECT_EQ(plan.plan.mode, PlanMode::kLazy);
  EXPECT_EQ(plan.plan.limit, uint64_t{100} << 30);
  EXPECT_EQ(plan.plan.missing_dir, MissingDirPolicy::kFail);
  EXPECT_FALSE(plan.plan.limit_written || plan.plan.mode_written || plan.plan.missing_dir_written);

  const Command fault = MustParseOne("fault create ENOENT");
  EXPECT_EQ(fault.fault.op, OpKind::kCreate);
  EXPECT_EQ(fault.fault.error_number, ENOENT);
  EXPECT_EQ(fault.fault.after, 0u);
  EXPECT_EQ(fault.fault.times, std::optional<uint64_t>(1));
  EXPECT_EQ(fault.fault.path_glob, "");

  EXPECT_EQ(MustParseOne("spill f p").description, "spill");
  EXPECT_EQ(MustParseOne("spill f p hash-join.build").description, "hash-join.build");
}

TEST(ScenarioParserTest, PlanDirsAndOptions) {
  const Command os_tmp = MustParseOne("plan p os_tmp limit=1G");
  EXPECT_EQ(os_tmp.plan.dirs_kind, DirsKind::kOsTmp);
  EXPECT_EQ(os_tmp.plan.limit, uint64_t{1} << 30);
  EXPECT_EQ(MustParseOne("plan p disabled").plan.dirs_kind, DirsKind::kDisabled);

  const Command eager = MustParseOne("plan q /a missing_dir=recreate mode=eager limit=0");
  EXPECT_EQ(eager.plan.mode, PlanMode::kEager);
  EXPECT_EQ(eager.plan.missing_dir, MissingDirPolicy::kRecreate);
  EXPECT_EQ(eager.plan.limit, 0u);
  EXPECT_TRUE(eager.plan.mode_written && eager.plan.limit_written &&
              eager.plan.missing_dir_written);

  EXPECT_THAT(MustFail("plan p os_tmp mode=eager").message, HasSubstr("mode=eager"));
  EXPECT_THAT(MustFail("plan p disabled mode=eager").message, HasSubstr("mode=eager"));
  EXPECT_EQ(MustParseOne("plan p os_tmp mode=lazy").plan.mode, PlanMode::kLazy);
  EXPECT_THAT(MustFail("plan p /a mode=sometimes").message, HasSubstr("mode"));
  EXPECT_THAT(MustFail("plan p /a missing_dir=retry").message, HasSubstr("missing_dir"));
  EXPECT_THAT(MustFail("plan p /a limit=10 limit=20").message, HasSubstr("twice"));
  EXPECT_THAT(MustFail("plan p /a colour=blue").message, HasSubstr("unknown option"));
  EXPECT_THAT(MustFail("plan p /a extra").message, HasSubstr("unexpected word"));
}

TEST(ScenarioParserTest, FaultOpsOptionsAndErrnos) {
  const Command any = MustParseOne("fault any ENOSPC after=2 times=forever path=/l*/datafusion-*");
  EXPECT_EQ(any.fault.op, std::nullopt);
  EXPECT_EQ(any.fault.error_number, ENOSPC);
  EXPECT_EQ(any.fault.after, 2u);
  EXPECT_EQ(any.fault.times, std::nullopt);
  EXPECT_EQ(any.fault.path_glob, "/l*/datafusion-*");

  const std::vector<std::pair<std::string, OpKind>> ops = {
      {"mkdir", OpKind::kMkdir},   {"create", OpKind::kCreate}, {"write", OpKind::kWrite},
      {"remove", OpKind::kRemove}, {"rmdir", OpKind::kRmdir},   {"list", OpKind::kList}};
  for (const auto& [word, op] : ops) {
    EXPECT_EQ(MustParseOne("fault " + word + " EIO times=3").fault.op, op) << word;
  }
  // Only the OPs the contract defines.
  EXPECT_THAT(MustFail("fault stat EIO").message, HasSubstr("unknown fault OP"));
  EXPECT_THAT(MustFail("fault write EWHAT").message, HasSubstr("unknown errno name"));
  EXPECT_THAT(MustFail("fault write EIO times=2 times=3").message, HasSubstr("twice"));
  EXPECT_THAT(MustFail("fault write EIO when=now").message, HasSubstr("unknown option"));
  EXPECT_THAT(MustFail("fault write").message, HasSubstr("usage"));
}

TEST(ScenarioParserTest, ExpectErrorNamesAnErrnoLimitOrDisabled) {
  EXPECT_EQ(MustParseOne("expect error ENOTDIR").error, "ENOTDIR");
  EXPECT_EQ(MustParseOne("expect error LIMIT").error, "LIMIT");
  EXPECT_EQ(MustParseOne("expect error DISABLED").error, "DISABLED");
  EXPECT_EQ(MustParseOne("expect error EROFS").error, "EROFS");
  for (const std::string bad : {"OK", "limit", "ENOPE", "INVALID", "2"}) {
    EXPECT_THAT(MustFail("dir /\nexpect error " + bad).message, HasSubstr("unknown error")) << bad;
  }
}

TEST(ScenarioParserTest, QuirksByName) {
  EXPECT_EQ(MustParseOne("quirk write_leak").quirk, Quirk::kWriteLeak);
  EXPECT_EQ(MustParseOne("quirk outer_accounting").quirk, Quirk::kOuterAccounting);
  const ParseError e = MustFail("quirk leaky");
  EXPECT_THAT(e.message, HasSubstr("unknown quirk \"leaky\""));
  EXPECT_THAT(e.message, HasSubstr("shared_limit"));
}

TEST(ScenarioParserTest, ExpectBeforeAnyCommandIsMalformed) {
  EXPECT_EQ(MustFail("# header\nexpect ok\n").line, 2);
  EXPECT_EQ(MustFail("expect count /tmp/* 0").line, 1);
  EXPECT_EQ(MustFail("expect error ENOENT").line, 1);
  // Any command that is not an expect gives an outcome to check, quirk included.
  EXPECT_EQ(MustParse("quirk count_leak\nexpect ok\nexpect ok").commands.size(), 3u);
}

TEST(ScenarioParserTest, UnknownCommandsChecksAndArity) {
  EXPECT_THAT(MustFail("mkdir /a").message, HasSubstr("unknown command \"mkdir\""));
  EXPECT_THAT(MustFail("DIR /a").message, HasSubstr("unknown command"));
  EXPECT_THAT(MustFail("dir /\nexpect").message, HasSubstr("expect needs"));
  EXPECT_THAT(MustFail("dir /\nexpect nothing").message, HasSubstr("unknown check"));
  EXPECT_THAT(MustFail("dir /a /b").message, HasSubstr("unexpected word \"/b\""));
  EXPECT_THAT(MustFail("dir").message, HasSubstr("too few words; usage: dir PATH"));
  EXPECT_THAT(MustFail("spill f p sort extra").message, HasSubstr("unexpected word \"extra\""));
  EXPECT_THAT(MustFail("dir /\nexpect ok now").message, HasSubstr("unexpected word \"now\""));
  EXPECT_THAT(MustFail("write f").message, HasSubstr("usage: write FILE SIZE"));
}

TEST(ScenarioParserTest, ReportsTheFirstOffendingLine) {
  const ParseError e = MustFail("dir /a\nbogus\ndir /b\nwrite f 1X\n");
  EXPECT_EQ(e.line, 2);
  EXPECT_THAT(e.message, HasSubstr("bogus"));
}

TEST(ScenarioParserTest, PrintsCommandsInTheirShortestForm) {
  EXPECT_EQ(MustParseOne("plan p /l0,/l1 limit=10").ToString(), "plan p /l0,/l1 limit=10");
  EXPECT_EQ(MustParseOne("plan p /l0").ToString(), "plan p /l0");
  EXPECT_EQ(MustParseOne("plan p /l0 limit=1024 mode=lazy").ToString(),
            "plan p /l0 mode=lazy limit=1K");
  EXPECT_EQ(MustParseOne("plan p os_tmp missing_dir=recreate").ToString(),
            "plan p os_tmp missing_dir=recreate");
  EXPECT_EQ(MustParseOne("capacity 3145728").ToString(), "capacity 3M");
  EXPECT_EQ(MustParseOne("write f 1025").ToString(), "write f 1025");
  EXPECT_EQ(MustParseOne("spill f p").ToString(), "spill f p");
  EXPECT_EQ(MustParseOne("spill f p sort").ToString(), "spill f p sort");
  EXPECT_EQ(MustParseOne("fault write EIO").ToString(), "fault write EIO");
  EXPECT_EQ(MustParseOne("fault any EACCES times=forever after=3 path=/x/*").ToString(),
            "fault any EACCES after=3 times=forever path=/x/*");
  EXPECT_EQ(MustParseOne("expect   count  /a/*   2 # c").ToString(), "expect count /a/* 2");
  EXPECT_EQ(MustParseOne("expect error LIMIT").ToString(), "expect error LIMIT");
  EXPECT_EQ(MustParseOne("quirk no_rollback").ToString(), "quirk no_rollback");
}

TEST(ScenarioParserTest, GeneratedCommandsWithDefaultFieldsPrintTheirValues) {
  // A generator fills values, not the *_written flags; what differs from a default prints.
  Command plan;
  plan.verb = Verb::kPlan;
  plan.name = "p";
  plan.plan.local_dirs = {"/l0"};
  plan.plan.limit = 10;
  plan.plan.mode = PlanMode::kEager;
  EXPECT_EQ(plan.ToString(), "plan p /l0 mode=eager limit=10");

  Command spill;
  spill.verb = Verb::kSpill;
  spill.name = "f";
  spill.target = "p";  // description left empty: the default.
  EXPECT_EQ(spill.ToString(), "spill f p");
  EXPECT_TRUE(CommandsEquivalent(spill, MustParseOne(spill.ToString())));
}

TEST(ScenarioParserTest, EquivalenceLooksOnlyAtTheVerbsFields) {
  Command a = MustParseOne("write f 8");
  Command b = a;
  b.line = 99;
  b.path = "/unrelated";
  EXPECT_TRUE(CommandsEquivalent(a, b));
  b.size = 9;
  EXPECT_FALSE(CommandsEquivalent(a, b));
  EXPECT_FALSE(CommandsEquivalent(MustParseOne("drop f"), MustParseOne("drop g")));
  EXPECT_FALSE(CommandsEquivalent(MustParseOne("dir /a"), MustParseOne("file /a")));
}

TEST(ScenarioParserTest, EveryShippedScenarioRoundTrips) {
  const std::vector<std::filesystem::path> files = ScenarioFiles();
  int shipped = 0;
  for (const std::filesystem::path& path : files) {
    SCOPED_TRACE(path.string());
    const std::string text = ReadText(path);
    std::variant<Scenario, ParseError> r = Parse(text, path.string());
    if (path.filename() == "syntax_error.scen") {
      ASSERT_TRUE(std::holds_alternative<ParseError>(r));
      continue;
    }
    ASSERT_TRUE(std::holds_alternative<Scenario>(r)) << std::get<ParseError>(r).message;
    const Scenario& scenario = std::get<Scenario>(r);
    EXPECT_FALSE(scenario.commands.empty());
    ExpectRoundTrip(scenario);
    // Each command on its own, too.
    for (const Command& c : scenario.commands) {
      EXPECT_TRUE(CommandsEquivalent(c, MustParseOne(c.ToString()))) << c.ToString();
    }
    if (path.parent_path() == std::filesystem::path(SPILLWAY_SCENARIO_DIR)) ++shipped;
  }
  EXPECT_GE(shipped, 22);
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

rc::Gen<Command> GenCommand() {
  return rc::gen::exec([] {
    static const std::vector<Verb> kVerbs = {
        Verb::kCapacity,     Verb::kDir,        Verb::kFile,        Verb::kPlan,
        Verb::kQuirk,        Verb::kSpill,      Verb::kWrite,       Verb::kClone,
        Verb::kDrop,         Verb::kSetLimit,   Verb::kFault,       Verb::kShortWrite,
        Verb::kClean,        Verb::kExpectOk,   Verb::kExpectError, Verb::kExpectUsed,
        Verb::kExpectFiles,  Verb::kExpectSize, Verb::kExpectCount, Verb::kExpectExists,
        Verb::kExpectMissing};
    static const std::vector<std::string> kErrnos = {"ENOENT",  "EIO",    "ENOSPC", "EACCES",
                                                     "ENOTDIR", "EEXIST", "EROFS",  "EPERM"};
    Command c;
    c.verb = *rc::gen::elementOf(kVerbs);
    switch (c.verb) {
      case Verb::kCapacity:
        c.size = *rc::gen::arbitrary<uint64_t>();
        break;
      case Verb::kDir:
      case Verb::kFile:
      case Verb::kClean:
      case Verb::kExpectExists:
      case Verb::kExpectMissing:
        c.path = *GenPath(kPathChars);
        break;
      case Verb::kPlan:
        c.name = *GenName();
        c.plan.dirs_kind =
            *rc::gen::element(DirsKind::kList, DirsKind::kOsTmp, DirsKind::kDisabled);
        if (c.plan.dirs_kind == DirsKind::kList) {
          c.plan.local_dirs =
              *rc::gen::nonEmpty(rc::gen::container<std::vector<std::string>>(GenPath(kDirChars)));
          c.plan.mode = *rc::gen::element(PlanMode::kLazy, PlanMode::kEager);
        }
        c.plan.limit = *rc::gen::oneOf(rc::gen::just(kDefaultMaxTempDirectorySize),
                                       rc::gen::arbitrary<uint64_t>());
        c.plan.missing_dir =
            *rc::gen::element(MissingDirPolicy::kFail, MissingDirPolicy::kRecreate);
        break;
      case Verb::kQuirk:
        c.quirk = *rc::gen::elementOf(AllQuirks());
        break;
      case Verb::kSpill:
        c.name = *GenName();
        c.target = *GenName();
        // Any word: printable ASCII but the blank and '#'.
        c.description =
            *rc::gen::oneOf(rc::gen::just(std::string()),
                            GenWord("!\"$%&'()*+,-./0123456789:;<=>?@ABCZ[\\]^_`abcz{|}~"));
        break;
      case Verb::kWrite:
      case Verb::kSetLimit:
      case Verb::kShortWrite:
      case Verb::kExpectUsed:
      case Verb::kExpectSize:
        c.name = *GenName();
        c.size = *rc::gen::arbitrary<uint64_t>();
        break;
      case Verb::kClone:
        c.name = *GenName();
        c.target = *GenName();
        break;
      case Verb::kDrop:
        c.name = *GenName();
        break;
      case Verb::kFault:
        c.fault.op = *rc::gen::element<std::optional<OpKind>>(
            std::nullopt, OpKind::kMkdir, OpKind::kCreate, OpKind::kWrite, OpKind::kRemove,
            OpKind::kRmdir, OpKind::kList);
        c.fault.error_number = *ErrnoFromName(*rc::gen::elementOf(kErrnos));
        c.fault.after = *rc::gen::arbitrary<uint64_t>();
        c.fault.times =
            *rc::gen::oneOf(rc::gen::just(std::optional<uint64_t>()),
                            rc::gen::map(rc::gen::arbitrary<uint64_t>(),
                                         [](uint64_t n) { return std::optional<uint64_t>(n); }));
        c.fault.path_glob = *rc::gen::oneOf(rc::gen::just(std::string()), GenPath(kPathChars));
        break;
      case Verb::kExpectOk:
        break;
      case Verb::kExpectError:
        c.error = *rc::gen::oneOf(rc::gen::elementOf(kErrnos), rc::gen::just(std::string("LIMIT")),
                                  rc::gen::just(std::string("DISABLED")));
        break;
      case Verb::kExpectFiles:
        c.name = *GenName();
        c.count = *rc::gen::arbitrary<uint64_t>();
        break;
      case Verb::kExpectCount:
        c.path = *GenPath(kPathChars);
        c.count = *rc::gen::arbitrary<uint64_t>();
        break;
    }
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
  Command first;
  first.verb = Verb::kDir;
  first.path = "/";
  commands.insert(commands.begin(), first);  // So that expects have an outcome to check.
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
  static const std::vector<std::string> kTokens = {"capacity",   "dir",
                                                   "file",       "plan",
                                                   "quirk",      "spill",
                                                   "write",      "clone",
                                                   "drop",       "set_limit",
                                                   "fault",      "short_write",
                                                   "clean",      "expect",
                                                   "ok",         "error",
                                                   "used",       "files",
                                                   "size",       "count",
                                                   "exists",     "missing",
                                                   "p",          "f",
                                                   "g",          "/",
                                                   "/l0",        "/l0,/l1",
                                                   "/l*/d-*",    "os_tmp",
                                                   "disabled",   "mode=eager",
                                                   "mode=lazy",  "limit=10",
                                                   "limit=1G",   "missing_dir=recreate",
                                                   "after=1",    "times=forever",
                                                   "times=2",    "path=/l0/*",
                                                   "mkdir",      "create",
                                                   "remove",     "rmdir",
                                                   "list",       "any",
                                                   "ENOENT",     "EIO",
                                                   "LIMIT",      "DISABLED",
                                                   "write_leak", "shared_limit",
                                                   "0",          "8",
                                                   "1K",         "18446744073709551616",
                                                   "#",          "\n",
                                                   "\n",         "\n",
                                                   "=",          ",",
                                                   "..",         "/./",
                                                   "\t",         "\r"};
  const std::vector<std::string> tokens =
      *rc::gen::container<std::vector<std::string>>(rc::gen::elementOf(kTokens));
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
