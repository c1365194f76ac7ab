// Property tests of the spill manager against the spill model (spillway/model/spill_model.h).
//
// The main property runs random scenario programs (plans, spills, writes, clones, drops,
// limit changes, injected faults, short writes, a tmp cleaner, a full disk) on the
// in-memory filesystem and on the real one, and checks every outcome and invariant
// against the model. Its teeth: with each emulated upstream defect (quirks.h) switched
// on, the same property must find a counterexample that breaks the invariant naming the
// quirk's defect, and the shrunk counterexample, written out as a scenario file with its
// `quirk` lines, must fail `spillway run` by itself and pass without those lines.
//
// Case counts are set here; RC_PARAMS (max_success=, seed=, ...) overrides them as
// RapidCheck documents.
#include "spill_property.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "spillway/model/spill_model.h"
#include "spillway/scenario/scenario.h"
#include "spillway/spill/quirks.h"

namespace spillway::model {
namespace {

// Cases of the main property on the in-memory filesystem, and on the real disk. Under a
// sanitizer a case runs some 40 times slower (353 s for 5000 cases under ASan against 8 s),
// so a sanitized build runs a fifth of them; the default build runs them all.
#ifdef SPILLWAY_SANITIZED
constexpr int kMemCases = 1000;
#else
constexpr int kMemCases = 5000;
#endif
constexpr int kPosixCases = 100;

// The test parameters RapidCheck would use, with `cases` successful cases unless RC_PARAMS
// sets max_success.
rc::detail::TestParams ParamsWithCases(int cases) {
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  const char* env = std::getenv("RC_PARAMS");
  if (env == nullptr || std::string_view(env).find("max_success") == std::string_view::npos) {
    params.maxSuccess = cases;
  }
  return params;
}

std::string CurrentTestId() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return std::string(info->test_suite_name()) + "/" + info->name();
}

rc::detail::TestResult CheckProperty(const PropertyConfig& config, int cases) {
  rc::detail::TestMetadata metadata;
  metadata.id = CurrentTestId();
  metadata.description = metadata.id;
  return rc::detail::checkTestable([config] { SpillProgramProperty(config); }, metadata,
                                   ParamsWithCases(cases));
}

std::string Describe(const rc::detail::TestResult& result) {
  std::ostringstream os;
  rc::detail::printResultMessage(result, os);
  return os.str();
}

PropertyConfig MemConfig() {
  PropertyConfig config;
  config.runner.fs = scenario::FsKind::kMem;
  return config;
}

PropertyConfig PosixConfig() {
  PropertyConfig config;
  config.runner.fs = scenario::FsKind::kPosix;
  config.gen.capacity = false;  // A real disk has no capacity to set.
  return config;
}

TEST(SpillPropertyTest, ModelHoldsOnMemFileSystem) {
  const rc::detail::TestResult result = CheckProperty(MemConfig(), kMemCases);
  ASSERT_TRUE(result.is<rc::detail::SuccessResult>()) << Describe(result);
  EXPECT_GE(result.get<rc::detail::SuccessResult>().numSuccess,
            ParamsWithCases(kMemCases).maxSuccess);
}

TEST(SpillPropertyTest, ModelHoldsOnPosixFileSystem) {
  const rc::detail::TestResult result = CheckProperty(PosixConfig(), kPosixCases);
  ASSERT_TRUE(result.is<rc::detail::SuccessResult>()) << Describe(result);
}

// Every generated program prints as a scenario that parses back into the same program:
// what RapidCheck shows of a counterexample is a scenario file.
RC_GTEST_PROP(SpillModelProperty, GeneratedProgramsPrintAsScenarios, ()) {
  const GenOptions gen;
  const auto commands =
      *rc::state::gen::commands(InitialState(scenario::FsKind::kMem),
                                [gen](const SpillModel& s) { return CommandGen(s, gen); });
  std::vector<CommandPtr> program;
  for (const RcCommandPtr& c : commands) {
    const auto* wrapped = dynamic_cast<const RcSpillCommand*>(c.get());
    RC_ASSERT(wrapped != nullptr);
    program.push_back(wrapped->command());
  }
  const std::string text = ScenarioText(program);
  std::variant<scenario::Scenario, scenario::ParseError> parsed = scenario::Parse(text, "gen");
  RC_ASSERT(std::holds_alternative<scenario::Scenario>(parsed));
  const Program reparsed = ProgramFromLines(std::get<scenario::Scenario>(parsed).commands);
  RC_ASSERT(reparsed.commands.size() == program.size());
  RC_ASSERT(ScenarioText(reparsed.commands) == text);
}

// The shrunk program of a failure: the shown value of the generated command sequence (the
// property's only generated value), which is a scenario text.
std::string CounterexampleText(const rc::detail::FailureResult& failure) {
  for (const auto& [type, value] : failure.counterExample) {
    if (type.find("Command") != std::string::npos) return value;
  }
  return failure.counterExample.size() == 1 ? failure.counterExample[0].second : "";
}

// Runs FILE as `spillway run FILE` does (the in-memory filesystem, no --quirk): returns
// 0, 1 or 2, printing what failed to stderr.
int RunScenario(const std::string& file) {
  return scenario::RunScenarioFile(file, scenario::RunnerOptions{}, /*verbose=*/false, stdout,
                                   stderr);
}

class QuirkTest : public ::testing::TestWithParam<Quirk> {};

// With the quirk on, RapidCheck finds a counterexample within the main property's budget,
// and it breaks the invariant that names the quirk's defect: the property fails only on
// that kind, so shrinking keeps it. Its shrunk program is a scenario file: rebuilt from
// its text and run again with the quirk, it shows a violation of that kind and passes
// without the quirk; written out with its `quirk` lines, `spillway run` fails it (exit 1)
// with no --quirk given, when a scenario can show its kind (ScenarioShows).
TEST_P(QuirkTest, PropertyFindsAndShrinksACounterexampleOfItsKind) {
  const Quirk quirk = GetParam();
  const std::optional<InvariantKind> kind = QuirkInvariant(quirk);
  ASSERT_TRUE(kind.has_value()) << "no invariant names quirk " << quirk;
  PropertyConfig config = MemConfig();
  config.runner.quirks = quirk;
  config.kind = kind;
  const rc::detail::TestResult result = CheckProperty(config, kMemCases);
  ASSERT_TRUE(result.is<rc::detail::FailureResult>())
      << "no counterexample with quirk " << quirk << ": " << Describe(result);
  const rc::detail::FailureResult& failure = result.get<rc::detail::FailureResult>();
  const std::string shrunk = CounterexampleText(failure);
  ASSERT_FALSE(shrunk.empty()) << Describe(result);
  std::printf("quirk %s: caught after %d passing cases; shrunk counterexample:\n%s\n%s\n",
              std::string(QuirkName(quirk)).c_str(), failure.numSuccess, shrunk.c_str(),
              failure.description.c_str());

  // The printed text parses as a scenario; its commands rebuild into the same program.
  std::variant<scenario::Scenario, scenario::ParseError> parsed =
      scenario::Parse(shrunk, "counterexample");
  ASSERT_TRUE(std::holds_alternative<scenario::Scenario>(parsed))
      << std::get<scenario::ParseError>(parsed).message;
  const Program program = ProgramFromLines(std::get<scenario::Scenario>(parsed).commands);
  EXPECT_EQ(ScenarioText(program.commands), shrunk);

  // Replayed in process, it breaks the quirk's invariant with the quirk, and nothing
  // without.
  scenario::RunnerOptions with_quirk;
  with_quirk.quirks = quirk;
  std::string text;
  const std::optional<Violation> violation = RunProgram(program, with_quirk, &text);
  ASSERT_TRUE(violation.has_value()) << "the shrunk program passes with the quirk:\n" << text;
  EXPECT_EQ(InvariantKindName(violation->kind), InvariantKindName(*kind)) << violation->message;
  EXPECT_FALSE(RunProgram(program, scenario::RunnerOptions{}).has_value());

  // `text` is the program up to the violation (with the final drops when it happened
  // there); with its quirk lines it is a scenario file that shows the quirk by itself.
  const std::string file = ::testing::TempDir() + "spillway-counterexample-" +
                           std::string(QuirkName(quirk)) + ".scenario";
  {
    std::ofstream out(file);
    out << "# Shrunk counterexample for quirk " << quirk << "\n" << QuirkLines(quirk) << text;
    ASSERT_TRUE(out.good()) << file;
  }
  EXPECT_EQ(RunScenario(file), ScenarioShows(*kind) ? 1 : 0) << text;
  EXPECT_EQ(scenario::RunScenarioText(text, "counterexample", scenario::RunnerOptions{}, false,
                                      stdout, stderr),
            0);
  std::remove(file.c_str());
}

INSTANTIATE_TEST_SUITE_P(AllQuirks, QuirkTest, ::testing::ValuesIn(AllQuirks()),
                         [](const ::testing::TestParamInfo<Quirk>& param) {
                           return std::string(QuirkName(param.param));
                         });

}  // namespace
}  // namespace spillway::model
