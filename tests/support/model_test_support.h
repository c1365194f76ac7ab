// What the tests of the spill model (tests/model/) share: scenario text as lines, and the
// check that the model predicts a program's text and the managers agree.
#ifndef SPILLWAY_TESTS_SUPPORT_MODEL_TEST_SUPPORT_H_
#define SPILLWAY_TESTS_SUPPORT_MODEL_TEST_SUPPORT_H_

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "spillway/model/spill_model.h"
#include "spillway/scenario/scenario.h"

namespace spillway::model {

// The commands of scenario `text`; a parse error fails the test and gives none.
inline std::vector<scenario::Command> Lines(const std::string& text) {
  std::variant<scenario::Scenario, scenario::ParseError> parsed = scenario::Parse(text, "test");
  if (const auto* e = std::get_if<scenario::ParseError>(&parsed)) {
    ADD_FAILURE() << "line " << e->line << ": " << e->message;
    return {};
  }
  return std::get<scenario::Scenario>(parsed).commands;
}

// The model's text for `program` (commands only) is `expected` on both filesystems, every
// command of it is kept, and the implementation agrees.
inline void ExpectPredictions(const std::string& program, const std::string& expected) {
  const std::vector<scenario::Command> lines = Lines(program);
  for (const scenario::FsKind fs : {scenario::FsKind::kMem, scenario::FsKind::kPosix}) {
    const Program p = ProgramFromLines(lines, fs);
    EXPECT_EQ(p.commands.size(), lines.size()) << "a command was not valid where it stands";
    EXPECT_EQ(ScenarioText(p.commands), expected);
    scenario::RunnerOptions options;
    options.fs = fs;
    std::string text;
    const std::optional<Violation> v = RunProgram(p, options, &text);
    EXPECT_FALSE(v.has_value()) << "[" << InvariantKindName(v->kind) << "] " << v->message << "\n"
                                << text;
  }
}

}  // namespace spillway::model

#endif  // SPILLWAY_TESTS_SUPPORT_MODEL_TEST_SUPPORT_H_
