// Helpers for the tests of `spillway inject`: a scratch directory with a scope and a twin
// outside it, running shell commands with their stdout and exit status, and reading a
// trace.
#ifndef SPILLWAY_TESTS_SUPPORT_INJECT_SUPPORT_H_
#define SPILLWAY_TESTS_SUPPORT_INJECT_SUPPORT_H_

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace spillway::inject {

struct CommandResult {
  int exit_code = -1;  // 128+signal when killed.
  std::string out;     // stdout.
  std::string err;     // stderr, from RunShellWithStderr only.
};

// Runs `command` with /bin/sh, stdout captured, stderr to the test's stderr.
CommandResult RunShell(const std::string& command);
// The same with stderr captured too, apart from stdout.
CommandResult RunShellWithStderr(const std::string& command);

// Checks that `result` is bad input to `spillway COMMAND` (COMMAND: "inject", "sweep
// merge"): exit 2, nothing on stdout, one line on stderr that starts "spillway COMMAND: ".
// `what` names the input in a failure.
void ExpectUsageError(const CommandResult& result, const std::string& command,
                      const std::string& what);

// The trace's call lines (those with "seq"), parsed.
std::vector<nlohmann::json> ReadTrace(const std::filesystem::path& trace);
// The trace's frames lines (`{"site":ID,"frames":[...]}`), parsed.
std::vector<nlohmann::json> ReadSites(const std::filesystem::path& trace);

// Quotes a word for /bin/sh.
std::string ShellQuote(const std::string& word);

// A fresh directory holding `scope/` and `twin/`, removed at the end.
class InjectTest : public ::testing::Test {
 protected:
  InjectTest();
  ~InjectTest() override;

  // `spillway inject --under SCOPE --trace TRACE ARGS -- COMMAND`.
  std::string Inject(const std::string& args, const std::string& command) const;
  // Runs `spillway sweep --under SCOPE --json ARGS -- PROGRAM '{dir}'`, expecting it to
  // exit `expected_exit`: its JSON report (null when it printed none).
  nlohmann::json SweepJson(const std::string& args, const std::string& program,
                           int expected_exit) const;

  std::filesystem::path root_;
  std::filesystem::path scope_;
  std::filesystem::path twin_;
  std::filesystem::path trace_;
};

}  // namespace spillway::inject

#endif  // SPILLWAY_TESTS_SUPPORT_INJECT_SUPPORT_H_
