// What the tests that parse or run scenarios share (tests/scenario/, and the model's
// leftover_check_test.cc and simulate_test.cc): parsing that must succeed or must fail,
// the documented example, and the scenario files shipped under SPILLWAY_SCENARIO_DIR, for
// the targets that define it.
#ifndef SPILLWAY_TESTS_SUPPORT_SCENARIO_TEST_SUPPORT_H_
#define SPILLWAY_TESTS_SUPPORT_SCENARIO_TEST_SUPPORT_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "spillway/scenario/scenario.h"
#include "support/fs_kind_param.h"

namespace spillway::test_support {

// The example of docs/scenarios.md, with its comments.
inline constexpr std::string_view kDocumentedExample =
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
    "expect count /local*/datafusion-* 0      # and then everything is gone\n";

// Parses text that must be valid, as the file "test.scen"; fails the test otherwise.
inline scenario::Scenario MustParse(std::string_view text) {
  std::variant<scenario::Scenario, scenario::ParseError> r = scenario::Parse(text, "test.scen");
  if (const scenario::ParseError* e = std::get_if<scenario::ParseError>(&r)) {
    ADD_FAILURE() << "unexpected parse error at line " << e->line << ": " << e->message << "\nin:\n"
                  << text;
    return scenario::Scenario{};
  }
  return std::get<scenario::Scenario>(std::move(r));
}

// Parses one command, behind a `dir /` so that an expect has something to check.
inline scenario::Command MustParseOne(std::string_view line) {
  scenario::Scenario s = MustParse("dir /\n" + std::string(line));
  if (s.commands.size() != 2) {
    ADD_FAILURE() << "expected one command from: " << line;
    return scenario::Command{};
  }
  return s.commands[1];
}

// The command's verb as a V; fails the test (and gives a default V) when it is another.
template <typename V>
V As(const scenario::Command& command) {
  if (const V* v = std::get_if<V>(&command.verb)) return *v;
  ADD_FAILURE() << "`" << command.ToString() << "` is not `" << V::kWord << "`";
  return V{};
}

// Parses one command that must be a V (see MustParseOne).
template <typename V>
V MustParseAs(std::string_view line) {
  return As<V>(MustParseOne(line));
}

// Parses text that must be malformed; returns the error.
inline scenario::ParseError MustFail(std::string_view text) {
  std::variant<scenario::Scenario, scenario::ParseError> r = scenario::Parse(text, "test.scen");
  if (std::holds_alternative<scenario::Scenario>(r)) {
    ADD_FAILURE() << "parsed, but should not have:\n" << text;
    return scenario::ParseError{};
  }
  return std::get<scenario::ParseError>(r);
}

// The whole file; empty (and a test failure) when it cannot be opened.
inline std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

#ifdef SPILLWAY_SCENARIO_DIR
// Every *.scen under scenarios/ (the shipped ones, and bad/ and replay/), sorted. Only
// for the targets that define SPILLWAY_SCENARIO_DIR.
inline std::vector<std::filesystem::path> ScenarioFiles() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(SPILLWAY_SCENARIO_DIR)) {
    if (entry.is_regular_file() && entry.path().extension() == ".scen") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}
#endif  // SPILLWAY_SCENARIO_DIR

// Options for a Runner on filesystem `fs`, the rest as default.
inline scenario::RunnerOptions RunnerOptionsOn(scenario::FsKind fs) {
  scenario::RunnerOptions options;
  options.fs = fs;
  return options;
}

}  // namespace spillway::test_support

#endif  // SPILLWAY_TESTS_SUPPORT_SCENARIO_TEST_SUPPORT_H_
