// Runs a program once through the launcher (inject::Run, spillway::inject_launcher) and
// reads back what the run did: its exit status, its stdout and stderr (from files, never
// mixed with the launcher's report), what it left behind, the faults injected and the
// rule's counters. A traced run's in-scope calls stay in its trace file (files_prefix +
// ".trace"), read as a stream (trace_reader.h).
#ifndef SPILLWAY_PROGRAM_SWEEP_INJECT_RUN_H_
#define SPILLWAY_PROGRAM_SWEEP_INJECT_RUN_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/inject/launcher.h"
#include "spillway/program_sweep/cmd_sweep.h"
#include "spillway/vfs/status.h"

namespace spillway::program_sweep {

struct InjectInvocation {
  std::string scope;                 // An existing directory, resolved.
  std::vector<std::string> command;  // {dir} already replaced.
  std::vector<std::string> faults;   // Fault rules.
  double timeout = 0;                // Seconds; 0: none.
  std::string files_prefix;          // Where .stdout, .stderr (and .trace) go.
  std::string share_with;            // inject::Invocation::share_with; empty: none.
  // Write a trace of the run's calls (files_prefix + ".trace"). A run needs none to be
  // judged: its rule's counters and fault records say whether its call came.
  bool trace = false;
  // Symbolize the trace's frames after the run (the baseline's, which the report shows).
  bool symbolize = false;
  uint64_t seed = 0;  // inject::Invocation::seed: the byte and bit a corrupt rule flips.
};

struct InjectOutcome {
  int status = 0;          // The program's exit status (inject::Outcome::exit_status).
  bool timed_out = false;  // The timeout ended it.
  double seconds = 0;      // Wall time.
  std::string program_stdout;
  std::string program_stderr;
  std::string trace;                     // The trace file; empty when not traced.
  std::vector<SweepLeftover> leftovers;  // Absolute paths; kind kLeak.
  std::vector<inject::ProgramFault> faults;
  std::vector<inject::RuleCount> rules;  // One per fault rule.
};

// Runs the command through inject::Run as the invocation says and waits for it. Errors:
// the launcher's, before the program started (a command it refuses, a bad rule).
StatusOr<InjectOutcome> RunInject(const InjectInvocation& invocation);

// Single-quotes `word` for /bin/sh unless it is made of safe characters only.
std::string ShellWord(std::string_view word);

}  // namespace spillway::program_sweep

#endif  // SPILLWAY_PROGRAM_SWEEP_INJECT_RUN_H_
