// The generator options `spillway simulate` uses with its defaults, for the tests that
// draw programs as it does (command_generator_test.cc, seeded_program.cc). Header-only:
// seeded_program is also built against the trial libraries and links no support library.
#ifndef SPILLWAY_TESTS_SUPPORT_SIMULATE_GEN_OPTIONS_H_
#define SPILLWAY_TESTS_SUPPORT_SIMULATE_GEN_OPTIONS_H_

#include <cmath>

#include "spillway/model/spill_model.h"

namespace spillway::model {

// --plans 4 --dirs 3 --fault-rate 0.05 --forever-percent 0, on the in-memory filesystem.
inline GenOptions SimulateDefaults() {
  GenOptions options;
  options.local_dirs = 3;
  options.max_live_plans = 4;
  options.max_live_files = 12;
  options.fault_weight = static_cast<int>(std::lround(0.05 * OtherVerbsWeight() / 0.95));
  options.forever_percent = 0;
  options.capacity = true;
  return options;
}

}  // namespace spillway::model

#endif  // SPILLWAY_TESTS_SUPPORT_SIMULATE_GEN_OPTIONS_H_
