// The command lines of a sweep's runs: the command with {dir} replaced, what a kill run's
// restart runs, and the reproducer each run's report gives.
#ifndef SPILLWAY_PROGRAM_SWEEP_COMMAND_LINE_H_
#define SPILLWAY_PROGRAM_SWEEP_COMMAND_LINE_H_

#include <string>
#include <vector>

#include "spillway/program_sweep/cmd_sweep.h"

namespace spillway::program_sweep {

// True when a word of `command` holds {dir}.
bool HasDirWord(const std::vector<std::string>& command);

// `words` with each {dir} replaced by `scope`.
std::vector<std::string> CommandFor(const std::vector<std::string>& words,
                                    const std::string& scope);

// What a kill run's restart runs: --restart's shell command (/bin/sh -c), else the swept
// command.
std::vector<std::string> RestartWords(const CmdSweepOptions& options);

// What a reproducer needs of the sweep.
struct LineContext {
  const CmdSweepOptions* options;
  std::string under;  // Resolved.
  bool with_dir = false;
  double timeout = 0;
};

// The `spillway inject` command line that makes the run of `spec` again (with {dir}: in a
// fresh directory of `under`); a kill run's is followed by its restart's, in the same scope.
std::string Reproducer(const LineContext& sweep, const RunSpec& spec);

}  // namespace spillway::program_sweep

#endif  // SPILLWAY_PROGRAM_SWEEP_COMMAND_LINE_H_
