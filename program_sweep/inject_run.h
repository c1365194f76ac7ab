// Runs a program once under `spillway inject` (with --trace and --json) and reads back what
// the run did: its exit status, its stdout and stderr and what it left behind. Its in-scope
// calls stay in the trace file (files_prefix + ".trace"), read as a stream (trace_reader.h).
#ifndef SPILLWAY_PROGRAM_SWEEP_INJECT_RUN_H_
#define SPILLWAY_PROGRAM_SWEEP_INJECT_RUN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "spillway/program_sweep/cmd_sweep.h"

namespace spillway::program_sweep {

struct InjectInvocation {
  std::string spillway_binary;
  std::string scope;                 // An existing directory, resolved.
  std::vector<std::string> command;  // {dir} already replaced.
  std::vector<std::string> faults;   // --fault rules.
  double timeout = 0;                // --timeout.
  std::string files_prefix;          // Where .stdout, .stderr and .trace go.
  std::string share_with;            // --share-with; empty: none.
  // Symbolize the trace's frames lines after the run (the baseline's, which the report
  // shows); a planned run's trace is only read for its calls, so it passes --no-symbolize.
  bool symbolize = false;
};

// An injected fault, as `spillway inject --json` lists it.
struct InjectedFault {
  std::string op;
  std::string error;
  std::string path;
};

struct InjectOutcome {
  int status = 0;                   // `spillway inject`'s exit status.
  bool summary = false;             // False when inject printed no summary (it refused to run).
  double seconds = 0;               // Wall time.
  std::string program_stdout;       // The program's stdout, without inject's summary.
  std::string inject_stderr;        // Inject's stderr (and the program's).
  std::string trace;                // The trace file.
  std::vector<Leftover> leftovers;  // Absolute paths; kind unset.
  std::vector<InjectedFault> faults;
};

// Runs `spillway inject` as the invocation says and waits for it. Never throws; a summary
// that cannot be read leaves `summary` false.
InjectOutcome RunInject(const InjectInvocation& invocation);

// Single-quotes `word` for /bin/sh unless it is made of safe characters only.
std::string ShellWord(std::string_view word);

}  // namespace spillway::program_sweep

#endif  // SPILLWAY_PROGRAM_SWEEP_INJECT_RUN_H_
