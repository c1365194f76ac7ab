// Prints the program the command generator draws for one seed, as `spillway simulate
// --seed 7 --steps 8000` does with its default options on the in-memory filesystem: the
// model alone decides it (each line is generated in the state the model predicts after
// the lines before), so equal programs mean equal simulations. Built twice, normally and
// with the trial verb (SPILLWAY_TRIAL_VERB: `note` first in scenario::Verb), for
// trial_verb_test (compare_programs.cmake). The first line names the verbs of the table;
// after the program, a line `summary:` and the JSON summary model::Simulate gives for the
// same seed and steps (`spillway simulate --seed 7 --steps 8000 --json`), its wall time
// set to 0 so that two runs can be compared.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <type_traits>

#include "spillway/model/simulate.h"
#include "spillway/model/spill_model.h"
#include "spillway/scenario/scenario.h"
#include "support/simulate_gen_options.h"

namespace spillway::model {
namespace {

constexpr uint64_t kSeed = 7;
constexpr int kSteps = 8000;

int PrintProgram() {
  std::string verbs = "verbs:";
  scenario::ForEachVerb(
      [&](const auto& v) { verbs.append(" ").append(std::decay_t<decltype(v)>::kWord); });
  std::printf("%s\n", verbs.c_str());
  const GenOptions options = SimulateDefaults();
  RandomChooser chooser(kSeed);
  SpillModel state = InitialState(scenario::FsKind::kMem);
  for (int step = 0; step < kSteps; ++step) {
    CommandPtr command;
    for (int tries = 0; tries < 100 && command == nullptr; ++tries) {
      command = GenerateCommand(state, options, chooser);
    }
    if (command == nullptr) break;
    std::printf("%s\n", command->line().ToString().c_str());
    command->Apply(state);
  }
  SimulateOptions simulate;
  simulate.seed = kSeed;
  simulate.steps = kSteps;
  StatusOr<SimulateResult> result = Simulate(simulate);
  if (!result.ok()) {
    std::fprintf(stderr, "%s\n", result.status().ToString().c_str());
    return 1;
  }
  result->seconds = 0;
  std::printf("summary:\n%s\n", SimulateSummaryJson(simulate, *result).c_str());
  return 0;
}

}  // namespace
}  // namespace spillway::model

int main() {
  try {
    return spillway::model::PrintProgram();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "seeded_program: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "seeded_program: an unknown exception\n");
  }
  return 1;
}
