// The fixture of the `spillway sweep -- CMD` tests on small C programs
// (cmd_sweep_test.cc, cmd_sweep_divergence_test.cc): a sweep run as a child, its --json
// result parsed.
#ifndef SPILLWAY_TESTS_PROGRAM_SWEEP_CMD_SWEEP_TEST_SUPPORT_H_
#define SPILLWAY_TESTS_PROGRAM_SWEEP_CMD_SWEEP_TEST_SUPPORT_H_

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "support/inject_support.h"

namespace spillway::inject {

// NOLINTNEXTLINE(bugprone-exception-escape): json's noexcept move and destructor look throwing.
struct SweepOutcome {
  int exit_code = -1;
  nlohmann::json result;  // The --json object (null when there is none).
};

class CmdSweepTest : public InjectTest {
 protected:
  // `spillway sweep --under SCOPE --json ARGS -- PROGRAM {dir}`.
  SweepOutcome Sweep(const std::string& args, const std::string& program,
                     const std::string& dir_arg = "{dir}") const {
    const CommandResult run =
        RunShell(std::string(SPILLWAY_BINARY) + " sweep --under " + ShellQuote(scope_) +
                 " --json " + args + " -- " + program + " " + ShellQuote(dir_arg));
    SweepOutcome outcome;
    outcome.exit_code = run.exit_code;
    outcome.result = nlohmann::json::parse(run.out, nullptr, false);
    if (outcome.result.is_discarded()) outcome.result = nullptr;
    return outcome;
  }

  // The program's stdout without faults, in a directory of its own.
  std::string PlainOutput(const std::string& program) const {
    const std::filesystem::path dir = root_ / "plain";
    std::filesystem::create_directories(dir);
    return RunShell(program + " " + ShellQuote(dir)).out;
  }
};

inline bool HasVerdict(const nlohmann::json& run, const std::string& verdict) {
  for (const nlohmann::json& v : run["verdicts"]) {
    if (v == verdict) return true;
  }
  return false;
}

}  // namespace spillway::inject

#endif  // SPILLWAY_TESTS_PROGRAM_SWEEP_CMD_SWEEP_TEST_SUPPORT_H_
