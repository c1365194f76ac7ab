#include "inject_run.h"

#include <chrono>
#include <fstream>
#include <sstream>
#include <utility>

namespace spillway::program_sweep {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

StatusOr<InjectOutcome> RunInject(const InjectInvocation& invocation) {
  inject::Invocation run;
  run.command = invocation.command;
  run.under = {invocation.scope};
  run.faults = invocation.faults;
  run.seed = invocation.seed;
  if (invocation.trace) run.trace = invocation.files_prefix + ".trace";
  run.symbolize = invocation.symbolize;
  run.timeout = invocation.timeout;
  run.share_with = invocation.share_with;
  run.stdout_path = invocation.files_prefix + ".stdout";
  run.stderr_path = invocation.files_prefix + ".stderr";
  run.stdin_path = "/dev/null";  // docs/sweep.md: the program's stdin is /dev/null.
  // The sweep runs many programs: an interrupt must stop it, not only the run in flight.
  run.ignore_interrupts = false;
  const auto start = std::chrono::steady_clock::now();
  StatusOr<inject::Outcome> done = inject::Run(run);
  if (!done.ok()) return done.status();
  InjectOutcome outcome;
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  outcome.status = done->exit_status;
  outcome.timed_out = done->timed_out;
  outcome.program_stdout = ReadFile(run.stdout_path);
  outcome.program_stderr = ReadFile(run.stderr_path);
  outcome.trace = run.trace;
  for (inject::Leftover& left : done->leftovers) {
    outcome.leftovers.push_back({std::move(left), SweepLeftover::Kind::kLeak});
  }
  outcome.faults = std::move(done->faults);
  outcome.rules = std::move(done->rules);
  return outcome;
}

std::string ShellWord(std::string_view word) {
  const bool safe = !word.empty() && word.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789_-./=:,+@%") == std::string_view::npos;
  if (safe) return std::string(word);
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace spillway::program_sweep
