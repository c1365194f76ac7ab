// Tests of the scenario printer: each command's shortest form, commands built in code,
// equivalence of commands, and the round trip Parse(ToString()) on every shipped scenario.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "spillway/scenario/scenario.h"
#include "support/scenario_test_support.h"

namespace spillway::scenario {
namespace {

using test_support::MustParseOne;
using test_support::ReadText;
using test_support::ScenarioFiles;

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

TEST(ScenarioParserTest, PrintsCommandsInTheirShortestForm) {
  EXPECT_EQ(MustParseOne("plan p /l0,/l1 limit=10").ToString(), "plan p /l0,/l1 limit=10");
  EXPECT_EQ(MustParseOne("plan p /l0").ToString(), "plan p /l0");
  EXPECT_EQ(MustParseOne("plan p /l0 limit=1024 mode=lazy").ToString(),
            "plan p /l0 mode=lazy limit=1K");
  EXPECT_EQ(MustParseOne("plan p os_tmp missing_dir=recreate").ToString(),
            "plan p os_tmp missing_dir=recreate");
  EXPECT_EQ(MustParseOne("plan p /l0 failover=off layout=each").ToString(),
            "plan p /l0 layout=each failover=off");
  EXPECT_EQ(MustParseOne("plan p /l0 layout=all").ToString(), "plan p /l0 layout=all");
  EXPECT_EQ(MustParseOne("capacity 3145728").ToString(), "capacity 3M");
  EXPECT_EQ(MustParseOne("write f 1025").ToString(), "write f 1025");
  EXPECT_EQ(MustParseOne("spill f p").ToString(), "spill f p");
  EXPECT_EQ(MustParseOne("spill f p sort").ToString(), "spill f p sort");
  EXPECT_EQ(MustParseOne("fault write EIO").ToString(), "fault write EIO");
  EXPECT_EQ(MustParseOne("fault any EACCES times=forever after=3 path=/x/*").ToString(),
            "fault any EACCES after=3 times=forever path=/x/*");
  EXPECT_EQ(MustParseOne("fault write corrupt delay=20 times=2").ToString(),
            "fault write corrupt times=2 delay=20");
  EXPECT_EQ(MustParseOne("fault write lost").ToString(), "fault write lost");
  EXPECT_EQ(MustParseOne("fault mkdir ok delay=1").ToString(), "fault mkdir ok delay=1");
  EXPECT_EQ(MustParseOne("fault write EIO delay=3600000").ToString(),
            "fault write EIO delay=3600000");
  EXPECT_EQ(MustParseOne("expect   count  /a/*   2 # c").ToString(), "expect count /a/* 2");
  EXPECT_EQ(MustParseOne("expect error LIMIT").ToString(), "expect error LIMIT");
  EXPECT_EQ(MustParseOne("quirk no_rollback").ToString(), "quirk no_rollback");
}

TEST(ScenarioParserTest, GeneratedCommandsWithDefaultFieldsPrintTheirValues) {
  // A generator fills values, not the *_written flags; what differs from a default prints.
  Plan plan;
  plan.name = "p";
  plan.spec.local_dirs = {"/l0"};
  plan.spec.limit = 10;
  plan.spec.mode = PlanMode::kEager;
  EXPECT_EQ(Command{plan}.ToString(), "plan p /l0 mode=eager limit=10");

  Spill spill;
  spill.file = "f";
  spill.plan = "p";
  spill.description.clear();  // Empty: the default.
  EXPECT_EQ(Command{spill}.ToString(), "spill f p");
  EXPECT_TRUE(CommandsEquivalent(Command{spill}, MustParseOne(Command{spill}.ToString())));
}

TEST(ScenarioParserTest, EquivalenceLooksOnlyAtTheVerbsFields) {
  Command a = MustParseOne("write f 8");
  Command b = a;
  b.line = 99;
  EXPECT_TRUE(CommandsEquivalent(a, b));
  std::get<Write>(b.verb).size = 9;
  EXPECT_FALSE(CommandsEquivalent(a, b));
  // Only the verb's own fields count: a plan's dirs only when they are a list.
  EXPECT_TRUE(CommandsEquivalent(MustParseOne("plan p os_tmp limit=1G"),
                                 MustParseOne("plan p os_tmp limit=1024M")));
  EXPECT_FALSE(CommandsEquivalent(MustParseOne("drop f"), MustParseOne("drop g")));
  EXPECT_FALSE(CommandsEquivalent(MustParseOne("dir /a"), MustParseOne("file /a")));
}

// The fuzzer's dictionary holds every word of the language's table.
TEST(ScenarioParserTest, FuzzDictionaryHasEveryWordOfTheLanguage) {
  const std::string dict = ReadText(SPILLWAY_FUZZ_DICT);
  ASSERT_FALSE(dict.empty());
  const std::vector<std::string> words = Dictionary();
  EXPECT_GE(words.size(), 40u);
  for (const std::string& word : words) {
    EXPECT_THAT(dict, ::testing::HasSubstr("\n\"" + word + "\"\n")) << word;
  }
}

// The verbs' words in docs/scenarios.md: the first word (two for an expect) of each
// backquoted text in the first cell of each row of its command tables (those headed
// "| command |").
std::set<std::string> DocumentedVerbWords(const std::string& doc) {
  std::set<std::string> words;
  bool in_table = false;
  size_t start = 0;
  while (start < doc.size()) {
    size_t end = doc.find('\n', start);
    if (end == std::string::npos) end = doc.size();
    const std::string line = doc.substr(start, end - start);
    start = end + 1;
    if (line.starts_with("| command |")) {
      in_table = true;
      continue;
    }
    if (!line.starts_with("|")) in_table = false;
    if (!in_table || !line.starts_with("| `")) continue;
    // Each backquoted text of the first cell ("`expect exists PATH` / `expect missing PATH`").
    const std::string cell = line.substr(2, line.find(" | ", 2) - 2);
    size_t open = cell.find('`');
    while (open != std::string::npos) {
      const size_t close = cell.find('`', open + 1);
      if (close == std::string::npos) break;
      std::istringstream in(cell.substr(open + 1, close - open - 1));
      std::string word, second;
      in >> word;
      if (word == "expect" && in >> second) word += " " + second;
      words.insert(word);
      open = cell.find('`', close + 1);
    }
  }
  return words;
}

// One table of verbs: every verb of the variant is a parser keyword (its word alone parses
// to it, or to an error giving its usage), its word is in the fuzzer's dictionary, and
// docs/scenarios.md documents exactly the verbs of the variant.
TEST(ScenarioParserTest, VerbTableParserDictionaryAndDocsAgree) {
  const std::string dict = ReadText(SPILLWAY_FUZZ_DICT);
  const std::set<std::string> documented =
      DocumentedVerbWords(ReadText(std::string(SPILLWAY_DOCS_DIR) + "/scenarios.md"));
  ASSERT_FALSE(documented.empty());
  std::set<std::string> verbs;
  ForEachVerb([&](const auto& v) {
    using V = std::decay_t<decltype(v)>;
    const std::string word(V::kWord);
    SCOPED_TRACE(word);
    verbs.insert(word);
    // An act first, so that an expect is not refused for coming first.
    std::variant<Scenario, ParseError> parsed = Parse("crash\n" + word, "verbs");
    if (const auto* error = std::get_if<ParseError>(&parsed)) {
      EXPECT_THAT(error->message, ::testing::EndsWith("usage: " + std::string(V::kUsage)));
    } else {
      EXPECT_TRUE(std::holds_alternative<V>(std::get<Scenario>(parsed).commands.back().verb));
    }
    EXPECT_THAT(dict, ::testing::HasSubstr("\n\"" + word.substr(word.rfind(' ') + 1) + "\"\n"));
  });
  EXPECT_EQ(documented, verbs);
}

TEST(ScenarioParserTest, EveryShippedScenarioRoundTrips) {
  const std::vector<std::filesystem::path> files = ScenarioFiles();
  int shipped = 0;
  for (const std::filesystem::path& path : files) {
    SCOPED_TRACE(path.string());
    const std::string text = ReadText(path);
    std::variant<Scenario, ParseError> r = Parse(text, path.string());
    if (path.filename().string().starts_with("syntax_error")) {  // scenarios/bad/'s.
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

}  // namespace
}  // namespace spillway::scenario
