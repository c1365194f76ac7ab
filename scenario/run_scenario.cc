// Running a whole scenario, from a file or from text: parses it, steps a Runner through
// its commands, and prints failures (and, verbose, each command's outcome) as `spillway
// run` does.
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <variant>

#include "scenario_syntax.h"
#include "spillway/scenario/scenario.h"

namespace spillway::scenario {

using internal::Describe;

int RunScenarioText(std::string_view text, std::string_view file_name, const RunnerOptions& options,
                    bool verbose, std::FILE* out, std::FILE* err) {
  std::variant<Scenario, ParseError> parsed = Parse(text, file_name);
  if (const ParseError* e = std::get_if<ParseError>(&parsed)) {
    fmt::print(err, "{}:{}: {}\n", file_name, e->line, e->message);
    return 2;
  }
  const Scenario& scenario = std::get<Scenario>(parsed);
  StatusOr<std::unique_ptr<Runner>> runner = Runner::Create(options);
  if (!runner.ok()) {
    fmt::print(err, "{}: cannot set up the filesystem: {}\n", file_name,
               runner.status().ToString());
    return 2;
  }
  for (const Command& command : scenario.commands) {
    std::string message;
    const StepResult result = (*runner)->Step(command, &message);
    if (verbose) {
      std::string what;
      if (result == StepResult::kMalformed) {
        what = "malformed";
      } else if (result == StepResult::kExpectationFailed) {
        what = "FAILED";
      } else if (IsExpect(command.verb)) {
        what = "held";
      } else {
        what = Describe((*runner)->last_outcome());
      }
      fmt::print(out, "{}:{}: {} -> {}\n", file_name, command.line, command.ToString(), what);
    }
    if (result == StepResult::kExpectationFailed) {
      fmt::print(err, "{}:{}: {}\n", file_name, command.line, message);
      return 1;
    }
    if (result == StepResult::kMalformed) {
      fmt::print(err, "{}:{}: {}\n", file_name, command.line, message);
      return 2;
    }
  }
  return 0;
}

StatusOr<std::string> ReadScenarioFile(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return Status::FromErrno(errno, "open", path);
  errno = 0;
  std::string text;
  char buffer[4096];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof(buffer), f)) > 0) text.append(buffer, n);
  const bool failed = std::ferror(f) != 0;
  const int read_errno = errno != 0 ? errno : EIO;
  std::fclose(f);
  if (failed) return Status::FromErrno(read_errno, "read", path);
  return text;
}

int RunScenarioFile(const std::string& file_path, const RunnerOptions& options, bool verbose,
                    std::FILE* out, std::FILE* err) {
  StatusOr<std::string> text = ReadScenarioFile(file_path);
  if (!text.ok()) {
    fmt::print(err, "{}: cannot read the file: {}\n", file_path, Describe(text.status()));
    return 2;
  }
  return RunScenarioText(*text, file_path, options, verbose, out, err);
}

}  // namespace spillway::scenario
